/**
 * Handoff operations: the snapshot preview, handoff, handoffs (the listing, which also indexes
 * records a crashed writer left without an index line) and acknowledge.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { releaseCovered } from './claim-ops';
import type { FolderStore } from '../engine/folder-store';
import { appendLineSafely, readJson, readTextIfExists, toJsonlLine, writeAtomic } from '../storage/json-files';
import { joinLines, parseObject } from '../storage/files/jsonl';
import { Transaction, allOrNothing } from '../storage/transaction';
import { TwiningError } from '../errors';
import { InputOf, ParsedInputOf, isUlid } from '../schemas/schemas';
import { overlaps } from '../scope';
import { buildSnapshot, emptySnapshot, snapshotDigest, snapshotSources } from '../rules/snapshot';
import { appendEntryLocked } from './blackboard-ops';
import { describeSnapshotChanges, snapshotChanges, SnapshotItemKind } from '../rules/snapshot-changes';
import type { HandoffSnapshot, HandoffIndexLine, HandoffRecord, HandoffResult } from '../records';
import { canonicalTimestamp } from '../timestamps';
import { indexLineOf } from '../storage/index-lines';
import { decisionsById } from './decision-record-cache';

/** Handoff files older than this with no index line are taken as left by a crash and indexed. */
const ORPHAN_AGE_MS = 30_000;

/** What an automatic snapshot for `scope` would hold right now (shown before a handoff is written). */
export async function previewSnapshot(ctx: FolderStore, scope?: string): Promise<HandoffSnapshot> {
  await ctx.blackboard.refresh();
  await ctx.decisionIndex.get();
  const { warnings, findings } = ctx.blackboard.inScope(scope || undefined);
  return buildSnapshot({ decisions: activeDecisionsIn(ctx, scope), warnings, findings });
}

/** What the snapshot of each scope would count, from one read and without building the snapshots (Create Handoff's scope step). */
export async function snapshotCounts(
  ctx: FolderStore,
  scopes: readonly (string | undefined)[],
): Promise<{ decisions: number; warnings: number; findings: number }[]> {
  await ctx.blackboard.refresh();
  await ctx.decisionIndex.get();
  return scopes.map(scope => ({ decisions: activeDecisionsIn(ctx, scope).length, ...ctx.blackboard.countInScope(scope || undefined) }));
}

/** Active decisions in scope, computed once per version of the index and scope. */
function activeDecisionsIn(ctx: FolderStore, scope: string | undefined) {
  return ctx.derived.fromDecisions('active decisions in scope', items => snapshotSources(items, [], [], scope || undefined).decisions, scope ?? '');
}

/**
 * Writes a handoff. With `expected_digest` (or `confirmed`, the snapshot the user was shown), the
 * snapshot is computed again under the locks and compared: when what is in scope changed since it
 * was confirmed, nothing is written and the error (code CHANGED) carries what came into scope or
 * left it and the snapshot as it stands now (`details`, a SnapshotChanges), so the caller can show
 * it and hand that one over instead. The stored digest is always the digest of what was written.
 */
export async function handoff(ctx: FolderStore, input: InputOf<'handoff'>, options: { confirmed?: HandoffSnapshot } = {}): Promise<HandoffRecord> {
  const args = ctx.validate('handoff', input);
  if (args.continues !== undefined && !(await ctx.handoffRecords.get(args.continues))) {
    throw new TwiningError('NOT_FOUND', `handoff: continues names handoff ${args.continues}, which does not exist`);
  }
  await ctx.ready();
  const automatic = !args.context_snapshot && args.auto_snapshot !== false;
  const expectedDigest = args.expected_digest ?? (options.confirmed ? snapshotDigest(options.confirmed) : undefined);

  // The locks first (the decision index's too when the snapshot is compared with a confirmed one,
  // so nothing in scope changes between the comparison and the write), so a LOCKED handoff writes
  // nothing. The record appears whole (temp file + rename), then its index line and the status
  // entry; a failed step undoes the earlier ones (a full disk writes nothing). A crash between the
  // steps leaves a record without a line at worst; listings find and index it.
  const compared = automatic && expectedDigest !== undefined;
  const locks = compared ? [ctx.locks.decisionIndex, ctx.locks.handoffIndex, ctx.locks.blackboard] : [ctx.locks.handoffIndex, ctx.locks.blackboard];
  const created = await ctx.lock(locks, async () => {
    const snapshot: HandoffSnapshot = args.context_snapshot ?? (automatic ? await previewSnapshot(ctx, args.scope) : emptySnapshot());
    if (expectedDigest !== undefined) {
      const changes = snapshotChanges({ digest: expectedDigest, snapshot: options.confirmed }, snapshot, (item, id) => summaryNow(ctx, item, id));
      if (changes) {
        throw new TwiningError(
          'CHANGED',
          `handoff: what is in scope ${args.scope ? `(${args.scope}) ` : ''}changed since the snapshot was confirmed: ${describeSnapshotChanges(changes)}. ` +
            `Nothing was written; confirm the new snapshot (digest ${changes.current_digest}) to hand it over.`,
          changes,
        );
      }
    }
    const record = handoffRecordOf(ctx, args, snapshot);
    await allOrNothing(tx => writeHandoffLocked(ctx, record, tx));
    return record;
  });
  // The work is handed over: the source's claims on it go with it (a failure is a warning, the handoff stands).
  const artifacts = created.results.flatMap(r => (Array.isArray(r.artifacts) ? r.artifacts : []));
  await releaseCovered(ctx, created.source_agent, [created.scope, ...artifacts], `handoff ${created.id}`).catch((error: Error) =>
    ctx.warn(`handoff ${created.id} was written, but the claims it covers were not released: ${error.message}`),
  );
  return created;
}

/** A new handoff record (id and time from the engine's clock), keys in twining-mcp's order. */
export function handoffRecordOf(ctx: FolderStore, args: ParsedInputOf<'handoff'>, snapshot: HandoffSnapshot): HandoffRecord {
  const results: HandoffResult[] = args.results.map(r => {
    const result: Record<string, unknown> = { description: r.description, status: r.status };
    if (r.artifacts !== undefined) result.artifacts = r.artifacts;
    if (r.notes !== undefined) result.notes = r.notes;
    return result as unknown as HandoffResult;
  });
  const record: Record<string, unknown> = { source_agent: args.source_agent };
  if (args.target_agent !== undefined) record.target_agent = args.target_agent;
  if (args.scope !== undefined) record.scope = args.scope;
  record.summary = args.summary;
  record.results = results;
  record.context_snapshot = {
    decision_ids: snapshot.decision_ids,
    warning_ids: snapshot.warning_ids,
    finding_ids: snapshot.finding_ids,
    summaries: snapshot.summaries,
  };
  record.id = ctx.id();
  record.created_at = ctx.timestamp();
  if (args.continues !== undefined) record.continues = args.continues;
  record.snapshot_digest = snapshotDigest(snapshot);
  // Created in a linked worktree: its branch (an optional field twining-mcp's readers pass over).
  if (ctx.branch) record.provenance = { recorded_at: record.created_at as string, branch: ctx.branch };
  return record as HandoffRecord;
}

/** Writes a new handoff (record, index line, status entry) as steps of `tx`; the caller holds the handoff index and blackboard locks. */
export async function writeHandoffLocked(ctx: FolderStore, created: HandoffRecord, tx: Transaction): Promise<void> {
  await ctx.handoffRecords.write(created.id, created, tx);
  await ctx.storage.writeHandoffIndex([JSON.stringify(indexLineOf(created, false))], false, tx);
  await appendEntryLocked(
    ctx,
    {
      entry_type: 'status',
      summary: `Handoff created: ${created.summary}`.slice(0, 200),
      detail: `From ${created.source_agent} to ${created.target_agent ?? 'any agent'}. ${created.results.length} result(s).`,
      tags: ['handoff'],
      scope: created.scope ?? 'project',
      agent_id: created.source_agent,
    },
    tx,
  );
}

/** The summary of a decision (from the index) or a blackboard entry as read last. */
function summaryNow(ctx: FolderStore, item: SnapshotItemKind, id: string): string | undefined {
  const summary = item === 'decision' ? decisionsById(ctx).get(id)?.summary : ctx.blackboard.get(id)?.summary;
  return typeof summary === 'string' ? summary : undefined;
}

export async function handoffs(ctx: FolderStore, input: InputOf<'handoffs'> = {}): Promise<{ handoffs: HandoffIndexLine[]; total_count: number }> {
  const args = ctx.validate('handoffs', input);
  await ctx.handoffIndex.refresh();
  if (!ctx.orphansChecked) await indexOrphans(ctx);
  const since = args.since !== undefined ? canonicalTimestamp(args.since) : undefined;
  const limit = args.limit ?? 50;
  const all = ctx.handoffIndex.sorted();
  const filtered = args.source_agent !== undefined || args.target_agent !== undefined || !!args.scope || !!since || args.acknowledged !== undefined;
  if (!filtered) return { handoffs: all.slice(Math.max(0, all.length - limit)).reverse(), total_count: all.length };
  const listed: HandoffIndexLine[] = [];
  let total_count = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const h = all[i];
    if (args.source_agent !== undefined && h.source_agent !== args.source_agent) continue;
    if (args.target_agent !== undefined && h.target_agent !== args.target_agent) continue;
    if (args.scope && typeof h.scope === 'string' && !overlaps(h.scope, args.scope)) continue;
    if (since && !(typeof h.created_at === 'string' && h.created_at >= since)) continue;
    if (args.acknowledged !== undefined && (h.acknowledged === true) !== args.acknowledged) continue;
    if (listed.length < limit) listed.push(h);
    total_count++;
  }
  return { handoffs: listed, total_count };
}

/**
 * Finds handoff records that have no index line (a writer crashed between the two steps of a
 * handoff) and, unless read-only, appends their lines. Done once per engine.
 */
async function indexOrphans(ctx: FolderStore): Promise<void> {
  ctx.orphansChecked = true;
  await repairAcknowledgements(ctx);
  // A 2.x folder's index lines are its rows' index_data: a handoff without one cannot be.
  if (ctx.sqlite) return;
  const names = await fs.readdir(ctx.layout.handoffsDir).catch(() => [] as string[]);
  const indexed = new Set(ctx.handoffIndex.lines.map(l => l.id));
  const candidates = names.filter(n => n.length === 31 && n.endsWith('.json') && isUlid(n.slice(0, 26)) && !indexed.has(n.slice(0, 26)));
  if (candidates.length === 0 || ctx.readOnly) return;
  const cutoff = Date.now() - ORPHAN_AGE_MS;
  const orphans: HandoffRecord[] = [];
  for (const name of candidates) {
    const file = path.join(ctx.layout.handoffsDir, name);
    const st = await fs.stat(file).catch(() => undefined);
    if (!st || st.mtimeMs > cutoff) continue;
    const record = await readJson(file, 'A handoff record').catch(() => undefined);
    if (record && typeof record === 'object' && (record as HandoffRecord).id === name.slice(0, 26)) orphans.push(record as HandoffRecord);
  }
  if (orphans.length === 0) return;
  orphans.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
  await ctx.lock([ctx.locks.handoffIndex], async () => {
    const text = (await readTextIfExists(ctx.layout.handoffIndex)) ?? '';
    const lines = orphans.filter(o => !text.includes(`"id":"${o.id}"`)).map(o => toJsonlLine(indexLineOf(o, o.acknowledged_by !== undefined)));
    if (lines.length) await appendLineSafely(ctx.layout.handoffIndex, lines.join(''));
    if (lines.length) ctx.warn(`indexed ${lines.length} handoff record(s) that had no index line (left by an interrupted writer)`);
  });
  await ctx.handoffIndex.refresh();
}

export async function acknowledge(
  ctx: FolderStore,
  input: InputOf<'acknowledge'>,
): Promise<{ id: string; acknowledged_by: string; acknowledged_at: string; summary: string; source_agent: string }> {
  const args = ctx.validate('acknowledge', input);
  await ctx.ready();
  return ctx.lock([ctx.locks.handoffIndex], async () => {
    // Parse the index before anything changes; lines that do not parse are kept as they are.
    // (A 2.x folder's index lines are its rows' index_data, made with the record.)
    const text = ctx.sqlite ? '' : ((await readTextIfExists(ctx.layout.handoffIndex)) ?? '');
    const lines = text
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(raw => ({ raw, value: parseObject<Record<string, unknown>>(raw) }));
    const record = await ctx.handoffRecords.fresh(args.handoff_id);
    if (!record) throw new TwiningError('NOT_FOUND', `Handoff not found: ${args.handoff_id}`);
    record.acknowledged_by = args.agent_id;
    record.acknowledged_at = ctx.timestamp();
    let found = false;
    for (const line of lines) {
      if (line.value?.id !== args.handoff_id) continue;
      line.value.acknowledged = true;
      line.raw = JSON.stringify(line.value);
      found = true;
    }
    // An id missing from the index (an interrupted writer) gets its line now instead of staying invisible.
    if (!found) lines.push({ raw: JSON.stringify(indexLineOf(record, true)), value: undefined });
    // The record first, then the index; a failed index write puts the record back.
    await allOrNothing(async tx => {
      await ctx.handoffRecords.write(args.handoff_id, record, tx);
      await ctx.storage.writeHandoffIndex(
        lines.map(l => l.raw),
        true,
        tx,
      );
    });
    return {
      id: record.id ?? args.handoff_id,
      acknowledged_by: record.acknowledged_by,
      acknowledged_at: record.acknowledged_at,
      summary: record.summary,
      source_agent: record.source_agent,
    };
  });
}

/**
 * Brings index lines that say "not acknowledged" in step with records that were acknowledged: an
 * acknowledgement rewrites the record first, then the index, so a writer killed in between (or a
 * program without our transaction) leaves the record right and the index behind. The record wins.
 * Looks at unacknowledged handoffs only (few), once per engine, unless read-only.
 */
async function repairAcknowledgements(ctx: FolderStore): Promise<void> {
  if (ctx.readOnly) return;
  const behind: string[] = [];
  for (const line of ctx.handoffIndex.sorted()) {
    if (line.acknowledged === true || !isUlid(line.id)) continue;
    const record = await ctx.handoffRecords.get(line.id).catch(() => undefined);
    if (record && typeof record.acknowledged_by === 'string') behind.push(line.id);
  }
  if (behind.length === 0) return;
  // A 2.x folder's index line is its row's index_data: the record written again makes it from the record (storage/sqlite/sqlite-rows.ts).
  if (ctx.sqlite) {
    const fixed: string[] = [];
    await ctx.lock([ctx.locks.handoffIndex], async () => {
      for (const id of behind) {
        const record = await ctx.handoffRecords.fresh(id).catch(() => undefined);
        if (!record || typeof record.acknowledged_by !== 'string') continue;
        await ctx.handoffRecords.write(id, record);
        fixed.push(id);
      }
    });
    if (fixed.length) ctx.warn(`marked ${fixed.length} handoff(s) acknowledged in twining.db's index_data, as their records say: ${fixed.join(', ')}`);
    await ctx.handoffIndex.refresh();
    return;
  }
  await ctx.lock([ctx.locks.handoffIndex], async () => {
    const text = (await readTextIfExists(ctx.layout.handoffIndex)) ?? '';
    const lines = text
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(raw => ({ raw, value: parseObject<Record<string, unknown>>(raw) }));
    const fixed = new Set<string>();
    for (const line of lines) {
      const id = line.value?.id;
      if (typeof id !== 'string' || !behind.includes(id) || line.value!.acknowledged === true) continue;
      const record = await ctx.handoffRecords.fresh(id).catch(() => undefined);
      if (!record || typeof record.acknowledged_by !== 'string') continue;
      line.value!.acknowledged = true;
      line.raw = JSON.stringify(line.value);
      fixed.add(id);
    }
    if (fixed.size === 0) return;
    await writeAtomic(ctx.layout.handoffIndex, joinLines(lines));
    ctx.warn(
      `marked ${fixed.size} handoff(s) acknowledged in handoffs/index.jsonl, as their records say (an acknowledgement was interrupted between record and index): ${[...fixed].join(', ')}`,
    );
  });
  await ctx.handoffIndex.refresh();
}
