/**
 * A decision's dependencies and its commits, as twining-mcp 1.9 gives them
 * (src/engine/decisions.ts trace, linkCommit, getByCommitHash at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b): trace walks `depends_on` upstream and the
 * decisions that depend on it downstream, breadth first, each decision once; link_commit adds a
 * hash to a decision (record and index) and says so on the blackboard; commits finds the
 * decisions a hash was linked to.
 */
import type { FolderStore } from '../engine/folder-store';
import { isRecord } from '../storage/json-files';
import { allOrNothing } from '../storage/transaction';
import { mapBounded } from '../storage/bounded';
import { TwiningError } from '../errors';
import type { InputOf } from '../schemas/schemas';
import type { DecisionRecord } from '../records';
import { appendEntryLocked } from './blackboard-ops';
import { indexOrphanDecisions, readDecisionRecord } from './decision-ops';
import { readRecordSharing } from './decision-record-cache';
import { onLinkCommit, withGraph } from './graph-populate-ops';

export interface TraceEntry {
  id: string;
  summary: string;
  depends_on: string[];
  dependents: string[];
  status: string;
}

/** Every indexed decision's record, by id (records that cannot be read are left out, with a warning). */
export async function allDecisionRecords(ctx: FolderStore): Promise<Map<string, DecisionRecord>> {
  await indexOrphanDecisions(ctx);
  const index = await ctx.decisionIndex.get();
  const records = await mapBounded(index, d =>
    readDecisionRecord(ctx, d.id).catch(error => {
      ctx.warn((error as Error).message);
      return undefined;
    }),
  );
  return new Map(records.filter((r): r is DecisionRecord => !!r && typeof r.id === 'string').map(r => [r.id, r]));
}

export async function trace(ctx: FolderStore, input: InputOf<'trace'>): Promise<{ chain: TraceEntry[] }> {
  const args = ctx.validate('trace', input);
  const root = await readDecisionRecord(ctx, args.decision_id);
  if (!root) throw new TwiningError('NOT_FOUND', `Decision not found: ${args.decision_id}`);
  return { chain: traceChain(await dependencyView(ctx), root, args.direction ?? 'both') };
}

/**
 * Each decision's `depends_on`, read from its record once: it is set when the decision is made and
 * no writer changes it after (twining-mcp writes it only in decide, and neither do we), so a trace
 * reads only the records made since the last one instead of every record (bench/README.md,
 * "Figures behind choices in the code").
 */

/**
 * Every indexed decision as a trace needs it: summary and status from the index, `depends_on` from
 * its record (read once). Made once per version of the index when every record was read, so a
 * trace on an unchanged index does not walk the index again.
 */
async function dependencyView(ctx: FolderStore): Promise<Map<string, Traceable>> {
  await indexOrphanDecisions(ctx);
  const index = await ctx.decisionIndex.get();
  const known = ctx.derived.of('decision dependencies', () => new Map<string, string[]>());
  const kept = ctx.derived.of('decision trace view', () => ({ view: undefined as Map<string, Traceable> | undefined }));
  if (kept.view) return kept.view;
  const missing = index.filter(d => !known.has(d.id));
  // Through the engine's copies of the records (decision-record-cache.ts): a `why` or a briefing
  // after the first trace reads none of them again, nor the background warm-up.
  const records = await mapBounded(missing, d =>
    readRecordSharing(ctx, d).catch(error => {
      ctx.warn((error as Error).message);
      return undefined;
    }),
  );
  for (const r of records) if (r && typeof r.id === 'string') known.set(r.id, depsOf(r));
  const view = new Map<string, Traceable>();
  for (const d of index) {
    const depends_on = known.get(d.id);
    if (depends_on) view.set(d.id, { id: d.id, summary: d.summary, status: d.status, depends_on });
  }
  // Kept only when complete: a record that could not be read is tried again at the next trace.
  kept.view = view.size === index.length ? view : undefined;
  return view;
}

const depsOf = (d: { depends_on?: unknown }): string[] => (Array.isArray(d.depends_on) ? d.depends_on.filter((x): x is string => typeof x === 'string') : []);

/** What a trace reads of a decision. */
export interface Traceable {
  id: string;
  summary: string;
  status: string;
  depends_on?: unknown;
}

/** The breadth-first chain: upstream first, then downstream, the root and each decision once (a pure rule over the records). */
export function traceChain(decisions: ReadonlyMap<string, Traceable>, root: Traceable, direction: 'upstream' | 'downstream' | 'both'): TraceEntry[] {
  const dependents = new Map<string, string[]>();
  for (const [id, d] of decisions) for (const dep of depsOf(d)) (dependents.get(dep) ?? dependents.set(dep, []).get(dep)!).push(id);
  const visited = new Set([root.id]);
  const chain: TraceEntry[] = [];
  const walk = (start: string[], next: (d: Traceable) => string[]) => {
    const queue = [...start];
    while (queue.length) {
      const id = queue.shift()!;
      if (visited.has(id)) continue;
      visited.add(id);
      const d = decisions.get(id);
      if (!d) continue;
      chain.push({ id: d.id, summary: d.summary, depends_on: depsOf(d), dependents: dependents.get(d.id) ?? [], status: d.status });
      for (const n of next(d)) if (!visited.has(n)) queue.push(n);
    }
  };
  if (direction !== 'downstream') walk(depsOf(root), depsOf);
  if (direction !== 'upstream') walk(dependents.get(root.id) ?? [], d => dependents.get(d.id) ?? []);
  return chain;
}

export async function linkCommit(
  ctx: FolderStore,
  input: InputOf<'link_commit'>,
): Promise<{ linked: boolean; decision_summary: string; status_entry_id: string }> {
  const args = ctx.validate('link_commit', input);
  await ctx.ready();
  const { record, entry } = await withGraph(
    ctx,
    () =>
      ctx.lock([ctx.locks.decisionIndex, ctx.locks.blackboard], () =>
        allOrNothing(async tx => {
          const record = await readDecisionRecord(ctx, args.decision_id);
          if (!record) throw new TwiningError('NOT_FOUND', `Decision not found: ${args.decision_id}`);
          const raw = (await ctx.decisionIndex.fresh()).raw.slice();
          const hashes = Array.isArray(record.commit_hashes) ? record.commit_hashes : [];
          if (!hashes.includes(args.commit_hash)) {
            record.commit_hashes = [...hashes, args.commit_hash];
            await ctx.storage.writeDecision(record, tx);
            for (let i = 0; i < raw.length; i++) {
              const item = raw[i];
              if (!isRecord(item) || item.id !== record.id) continue;
              const list = Array.isArray(item.commit_hashes) ? (item.commit_hashes as string[]) : [];
              raw[i] = { ...item, commit_hashes: list.includes(args.commit_hash) ? list : [...list, args.commit_hash] };
            }
            await ctx.storage.writeDecisionIndex(raw, tx);
          }
          const entry = await appendEntryLocked(
            ctx,
            {
              entry_type: 'status',
              summary: `Commit ${args.commit_hash.slice(0, 7)} linked to decision: ${record.summary}`.slice(0, 200),
              detail: `Linked commit ${args.commit_hash} to decision ${record.id}`,
              tags: [record.domain],
              scope: record.scope,
              agent_id: args.agent_id ?? 'main',
            },
            tx,
          );
          return { record, entry };
        }),
      ),
    ({ record }) => onLinkCommit(ctx, record.id, args.commit_hash),
  );
  return { linked: true, decision_summary: record.summary, status_entry_id: entry.id };
}

export interface CommitDecision {
  id: string;
  summary: string;
  domain: string;
  scope: string;
  confidence: string;
  timestamp: string;
  commit_hashes: string[];
  status: string;
}

/** The decisions a commit was linked to (exact hash, as linked), newest first. */
export async function commits(ctx: FolderStore, input: InputOf<'commits'>): Promise<{ decisions: CommitDecision[] }> {
  const args = ctx.validate('commits', input);
  await indexOrphanDecisions(ctx);
  const matching = (await ctx.decisionIndex.get()).filter(d => Array.isArray(d.commit_hashes) && d.commit_hashes.includes(args.commit_hash));
  const records = (await mapBounded(matching, d => readDecisionRecord(ctx, d.id).catch(() => undefined))).filter((r): r is DecisionRecord => !!r);
  records.sort((a, b) => (a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return {
    decisions: records.map(d => ({
      id: d.id,
      summary: d.summary,
      domain: d.domain,
      scope: d.scope,
      confidence: d.confidence,
      timestamp: d.timestamp,
      commit_hashes: d.commit_hashes,
      status: d.status,
    })),
  };
}
