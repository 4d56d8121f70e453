/** Decisions: decide (conflicts found inside the index lock, rules/conflicts.ts), decisions, and one decision record. */
import type { FolderStore } from '../engine/folder-store';
import { promises as fs } from 'fs';
import * as path from 'path';
import { isRecord, readJson, toJsonText, writeAtomic } from '../storage/json-files';
import { Transaction, allOrNothing } from '../storage/transaction';
import { TwiningError } from '../errors';
import { InputOf, ParsedInputOf, checkUlid, isUlid } from '../schemas/schemas';
import { overlaps } from '../scope';
import { conflictWarning, conflictingDecisions, statusOfNewDecision } from '../rules/conflicts';
import { appendEntryLocked } from './blackboard-ops';
import { touchAgentLocked } from './agent-touch';
import { relatedDecisions, relatedFinding } from '../rules/related-decisions';
import type { DecisionIndexEntry, DecisionRecord } from '../records';
import { ASSEMBLY_FRESH_MS, readAssembly } from '../storage/session-files';
import { indexEntryOf } from '../storage/index-lines';

export type DecideResult = { id: string; timestamp: string; conflicts?: { id: string; summary: string }[] };

export async function decide(ctx: FolderStore, input: InputOf<'decide'>): Promise<DecideResult> {
  const args = ctx.validate('decide', input);
  await ctx.ready();
  // Index and blackboard locks first: a LOCKED decision writes nothing.
  // Every step after the first is undone if a later one fails: a full disk records nothing.
  return ctx.lock([ctx.locks.decisionIndex, ctx.locks.blackboard], () =>
    allOrNothing(async tx => {
      const raw = (await ctx.decisionIndex.fresh()).raw.slice();
      const result = await decideLocked(ctx, raw, args, tx);
      await ctx.storage.writeDecisionIndex(raw, tx);
      return result;
    }),
  );
}

/**
 * Records a decision while the caller holds the decision index and blackboard locks: writes its
 * record (and the superseded one's), adds its entry to `raw` (the caller writes the index), and
 * posts the conflict warning and the decision entry.
 */
export async function decideLocked(ctx: FolderStore, raw: unknown[], args: ParsedInputOf<'decide'>, tx: Transaction): Promise<DecideResult> {
  const agent_id = args.agent_id ?? 'main';
  const id = ctx.id();
  if (args.supersedes !== undefined) await supersede(ctx, raw, args.supersedes, tx, id);
  // Conflicts are computed inside the lock, so two concurrent conflicting decisions cannot both stay active.
  // A twining-mcp 2.x folder follows 2.x's decide (rules/related-decisions.ts): related decisions leave the status as it is.
  const sqlite = ctx.sqlite !== undefined;
  const conflicts = sqlite ? relatedDecisions(raw, args) : conflictingDecisions(raw, args);
  const timestamp = ctx.timestamp();
  // An explicit provisional stays provisional (twining-mcp 2.x's `status`); otherwise 2.x records it active and 1.9 lets conflicts decide.
  const status = args.status === 'provisional' ? 'provisional' : sqlite ? 'active' : statusOfNewDecision(conflicts);
  const commit_hashes = args.commit_hash ? [args.commit_hash] : [];
  const assembled_before = await assembledBefore(ctx, agent_id);
  const record = decisionRecordOf(args, { agent_id, id, timestamp, status, commit_hashes, assembled_before });
  raw.push(indexEntryOf(record));
  await ctx.storage.writeDecision(record as { id: string }, tx);
  if (sqlite) {
    // 2.x: the agent is touched, related decisions get a finding, and no `decision` entry is posted (its issue #30).
    await touchAgentLocked(ctx, agent_id, tx);
    if (conflicts.length)
      await appendEntryLocked(ctx, { entry_type: 'finding', ...relatedFinding(args.summary, conflicts), tags: [args.domain], scope: args.scope, agent_id }, tx);
    return conflicts.length ? { id, timestamp, conflicts } : { id, timestamp };
  }
  if (conflicts.length) {
    const warning = conflictWarning(args.summary, conflicts);
    await appendEntryLocked(ctx, { entry_type: 'warning', ...warning, tags: [args.domain], scope: args.scope, agent_id }, tx);
  }
  await appendEntryLocked(ctx, { entry_type: 'decision', summary: args.summary, detail: args.rationale, tags: [args.domain], scope: args.scope, agent_id }, tx);
  return conflicts.length ? { id, timestamp, conflicts } : { id, timestamp };
}

/**
 * Whether `agentId` assembled a briefing before this decision, as twining-mcp records it in
 * `assembled_before`: with this engine, or (from another process: a hook, the CLI) within
 * ASSEMBLY_FRESH_MS according to `.twining/sessions/`.
 */
async function assembledBefore(ctx: FolderStore, agentId: string): Promise<boolean> {
  if (ctx.assembledAt.has(agentId)) return true;
  const mark = await readAssembly(ctx.layout.dir, agentId);
  const at = mark ? Date.parse(mark.assembled_at) : NaN;
  const now = ctx.now().getTime();
  return !Number.isNaN(at) && at <= now && now - at <= ASSEMBLY_FRESH_MS;
}

/**
 * Marks decision `id` superseded by `by`, in its record (with twining-mcp 2.x's back-link
 * `superseded_by`) and in `raw` (the index items); NOT_FOUND when it does not exist.
 */
async function supersede(ctx: FolderStore, raw: unknown[], id: string, tx: Transaction, by: string): Promise<void> {
  const old = await setDecisionStatus(ctx, raw, id, 'superseded', tx, { superseded_by: by });
  if (!old) throw new TwiningError('NOT_FOUND', `decide: supersedes names decision ${id}, which does not exist; nothing was written`);
}

/**
 * Sets decision `id`'s status (and `extra` fields, appended as twining-mcp appends them) in its
 * record, replaced within `tx`, and in `raw`, the index items the caller writes. The caller holds the
 * decision index lock. Returns the record as it was before, or undefined when there is none.
 */
export async function setDecisionStatus(
  ctx: FolderStore,
  raw: unknown[],
  id: string,
  status: DecisionRecord['status'],
  tx: Transaction,
  extra: Partial<DecisionRecord> = {},
): Promise<DecisionRecord | undefined> {
  const record = await readDecisionRecord(ctx, id);
  if (!record) return undefined;
  const before = { ...record };
  await ctx.storage.writeDecision(Object.assign(record, { status }, extra), tx);
  for (let i = 0; i < raw.length; i++) if (isRecord(raw[i]) && (raw[i] as DecisionIndexEntry).id === id) raw[i] = { ...(raw[i] as object), status };
  return before;
}

/** A decision record through the folder's storage (storage/storage.ts), or undefined when missing; CORRUPT (naming the file) when it is not a JSON object. */
export function readDecisionRecord(ctx: FolderStore, id: string): Promise<DecisionRecord | undefined> {
  return ctx.storage.decisions.read(id);
}

/** The decision record, keys in twining-mcp's order. */
function decisionRecordOf(
  args: ParsedInputOf<'decide'>,
  made: { agent_id: string; id: string; timestamp: string; status: string; commit_hashes: string[]; assembled_before: boolean },
): Record<string, unknown> {
  const record: Record<string, unknown> = {
    agent_id: made.agent_id,
    domain: args.domain,
    scope: args.scope,
    summary: args.summary,
    context: args.context,
    rationale: args.rationale,
    constraints: args.constraints ?? [],
    // A reason_rejected not given is left out, not written empty (twining-mcp 2.16: absent means "not stated").
    alternatives: (args.alternatives ?? []).map(a => ({
      option: a.option,
      pros: a.pros ?? [],
      cons: a.cons ?? [],
      ...(a.reason_rejected !== undefined ? { reason_rejected: a.reason_rejected } : {}),
    })),
    depends_on: args.depends_on ?? [],
  };
  if (args.supersedes !== undefined) record.supersedes = args.supersedes;
  return Object.assign(record, {
    confidence: args.confidence ?? 'medium',
    reversible: args.reversible ?? true,
    affected_files: args.affected_files ?? [],
    affected_symbols: args.affected_symbols ?? [],
    // twining-mcp 2.x's assumptions (src/engine/decisions.ts): kept only when given.
    ...(args.assumptions !== undefined ? { assumptions: args.assumptions } : {}),
    commit_hashes: made.commit_hashes,
    assembled_before: made.assembled_before,
    id: made.id,
    timestamp: made.timestamp,
    status: made.status,
  });
}

/**
 * Indexes decision records that have no index entry: a writer killed (or another program failing)
 * between writing the record and rewriting the index leaves one, invisible to every listing. Done
 * once per engine, under the index lock (a writer holds it for both steps, so none is half done
 * then), unless read-only; says what it repaired.
 */
export async function indexOrphanDecisions(ctx: FolderStore): Promise<void> {
  // A 2.x folder's index is made from its decision rows: none can be missing from it.
  if (ctx.decisionOrphansChecked || ctx.readOnly || ctx.sqlite) return;
  ctx.decisionOrphansChecked = true;
  const names = await fs.readdir(path.dirname(ctx.layout.decisionIndex)).catch(() => [] as string[]);
  const indexed = new Set((await ctx.decisionIndex.get()).map(d => d.id));
  if (!names.some(n => isRecordName(n) && !indexed.has(n.slice(0, 26)))) return;
  await ctx.lock([ctx.locks.decisionIndex], async () => {
    const raw = (await ctx.decisionIndex.fresh()).raw.slice();
    const known = new Set(raw.filter(isRecord).map(d => d.id));
    const found: Record<string, unknown>[] = [];
    for (const name of names.filter(n => isRecordName(n) && !known.has(n.slice(0, 26)))) {
      const record = await readJson(ctx.layout.decision(name.slice(0, 26)), `Decision ${name.slice(0, 26)}`).catch(error => {
        ctx.warn(`decision record ${name} has no index entry and cannot be read, so it stays unindexed: ${(error as Error).message}`);
        return undefined;
      });
      if (isRecord(record) && record.id === name.slice(0, 26) && typeof record.timestamp === 'string') found.push(record);
    }
    if (found.length === 0) return;
    found.sort((a, b) => (String(a.timestamp) < String(b.timestamp) ? -1 : 1));
    await writeAtomic(ctx.layout.decisionIndex, toJsonText([...raw, ...found.map(indexEntryOf)]));
    ctx.warn(`indexed ${found.length} decision record(s) that had no index entry (left by an interrupted writer): ${found.map(r => r.id).join(', ')}`);
  });
}

const isRecordName = (name: string) => name.length === 31 && name.endsWith('.json') && isUlid(name.slice(0, 26));

export async function decisions(ctx: FolderStore, input: InputOf<'decisions'> = {}): Promise<{ decisions: DecisionIndexEntry[]; total_count: number }> {
  const args = ctx.validate('decisions', input);
  await indexOrphanDecisions(ctx);
  const statuses = args.status === undefined ? undefined : new Set<string>(Array.isArray(args.status) ? args.status : [args.status]);
  const matching = (await ctx.decisionIndex.get()).filter(
    d =>
      (!statuses || statuses.has(d.status)) &&
      (args.domain === undefined || d.domain === args.domain) &&
      (!args.scope || (typeof d.scope === 'string' && overlaps(d.scope, args.scope))),
  );
  const sorted = matching
    .slice()
    .reverse()
    .sort((a, b) => (a.timestamp === b.timestamp ? (a.id < b.id ? 1 : -1) : a.timestamp < b.timestamp ? 1 : -1));
  return { decisions: args.limit ? sorted.slice(0, args.limit) : sorted, total_count: matching.length };
}

/** A decision record by id, or undefined. */
export async function getDecision(ctx: FolderStore, id: string): Promise<DecisionRecord | undefined> {
  checkUlid('decision id', id);
  return readDecisionRecord(ctx, id).catch(() => undefined);
}
