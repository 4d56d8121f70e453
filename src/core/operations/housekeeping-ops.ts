/**
 * housekeeping (twining-mcp 2.x's `twining_housekeeping`: its input in src/tools/housekeeping-tools.ts
 * at commit 161515b718c6a2896e2580419460c5be3b6e1525, its passes and result in
 * src/engine/housekeeping.ts at commit 0ba216dd12cc47ac23c747459ea8a288c13f255e), on the 1.x layout.
 * A preview unless `execute`; the preview computes what execute would do on the same state.
 *  - deduplicated: entries of the same type, summary and scope, the newest kept; the others are
 *    removed with a dismissal tombstone in archive/ (src/engine/tombstones.ts);
 *  - stale_provisionals: provisional decisions older than stale_days (promoted with promote_provisionals);
 *  - dangling_warnings: open warnings (resolved ones are not), oldest first;
 *  - archived (opt-in `archive`): everything but decisions, open needs, warnings and questions and
 *    the newest 200, as twining-mcp 2.x's sweep (no age cutoff);
 *  - graph_pruned: entities without relations; metrics_rotated: metrics.jsonl lines past retention.
 *  - index_repair (opt-in `repair_index`, twining-mcp 2.16): decision records missing from
 *    decisions/index.json, which every listing reads; with execute they are put back in it, in id
 *    (ULID) order. Only a file that is a decision whose id is its name is taken; others are
 *    counted in skipped_invalid and left alone. A twining.db folder has no index to repair: it says
 *    so in index_repair_error.
 * twining-mcp's other passes (staleness_review, merge_sweep, compact_archives, dedup_relations,
 * amend_candidates, repair_entity_scopes) are accepted and named in `not_run`, not pretended.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import { readTextIfExists, isRecord, readJson } from '../storage/json-files';
import { indexEntryOf } from '../storage/index-lines';
import { isUlid } from '../schemas/schemas';
import { parseObject } from '../storage/files/jsonl';
import type { InputOf } from '../schemas/schemas';
import type { DecisionIndexEntry } from '../records';
import { isResolved, resolvedIdsOf, RESOLVABLE_TYPES } from '../rules/resolution';
import { setDecisionStatus } from './decision-ops';
import { transition } from './decision-lifecycle-ops';
import { pruneGraph } from './graph-ops';
import type { Transaction } from '../storage/transaction';

const DAY = 24 * 3600 * 1000;
/** twining-mcp 2.x's default archive.retain_recent, when config.yml sets none. */
const RETAIN_RECENT = 200;
const NOT_RUN = ['staleness_review', 'merge_sweep', 'compact_archives', 'dedup_relations', 'amend_candidates', 'repair_entity_scopes'] as const;

interface Aged {
  id: string;
  summary: string;
  scope: string;
  age_days: number;
}

export interface HousekeepingResult {
  archived: { count: number; file: string };
  deduplicated: { removed: number; ids: string[] };
  stale_provisionals: { count: number; items: Aged[] };
  promoted_provisionals: { count: number; ids: string[] };
  dangling_warnings: { count: number; items: Aged[] };
  graph_pruned: { removed: number };
  metrics_rotated: { removed: number };
  /** With repair_index: decision records the index lacks, and how many were put back (execute). */
  index_repair?: { orphans_found: number; repaired: number; skipped_invalid: number; ids: string[] };
  /** With repair_index on a folder that has no decisions/index.json (twining.db). */
  index_repair_error?: string;
  /** Passes asked for that this implementation does not run. */
  not_run: string[];
  dry_run: boolean;
  summary: string;
}

export async function housekeeping(ctx: FolderStore, input: InputOf<'housekeeping'> = {}): Promise<HousekeepingResult> {
  const args = ctx.validate('housekeeping', input);
  const execute = args.execute ?? false;
  const nowMs = ctx.now().getTime();
  const at = ctx.timestamp();
  const ageDays = (ts: unknown) => Math.floor((nowMs - Date.parse(String(ts))) / DAY);
  const staleDays = typeof args.stale_days === 'number' && args.stale_days >= 0 ? args.stale_days : 7;
  const retainRecent = (await ctx.config()).archive.retain_recent ?? RETAIN_RECENT;
  const retentionDays = typeof args.metrics_retention_days === 'number' && args.metrics_retention_days >= 0 ? args.metrics_retention_days : 30;

  type Plan = Awaited<ReturnType<typeof analyse>>;
  const analyse = async (raw: unknown[]) => {
    const out: HousekeepingResult = {
      archived: { count: 0, file: '' },
      deduplicated: { removed: 0, ids: [] },
      stale_provisionals: { count: 0, items: [] },
      promoted_provisionals: { count: 0, ids: [] },
      dangling_warnings: { count: 0, items: [] },
      graph_pruned: { removed: 0 },
      metrics_rotated: { removed: 0 },
      not_run: NOT_RUN.filter(k => args[k] === true),
      dry_run: !execute,
      summary: '',
    };
    const lines = (await ctx.storage.blackboardText()).split('\n').filter(l => l.trim() !== '');
    const parsed = lines.map(l => parseObject<Record<string, unknown>>(l));

    // Duplicates: same type, summary and scope; the newest stays.
    const seen = new Set<string>();
    const duplicate = new Set<number>();
    const time = (i: number) => (typeof parsed[i]?.timestamp === 'string' ? parsed[i].timestamp : '');
    const order = parsed.map((_, i) => i).sort((a, b) => time(b).localeCompare(time(a)) || b - a);
    for (const i of order) {
      const e = parsed[i];
      if (!e || typeof e.id !== 'string') continue;
      const key = JSON.stringify([e.entry_type, e.summary, e.scope]);
      if (seen.has(key)) duplicate.add(i);
      else seen.add(key);
    }
    out.deduplicated = { removed: duplicate.size, ids: [...duplicate].map(i => String(parsed[i]!.id)) };

    // The archive pass: decisions, open needs, warnings and questions, and the newest archive.retain_recent stay.
    const archive = new Set<number>();
    if (args.archive) {
      const live = parsed.filter((e, i) => e && !duplicate.has(i)) as Record<string, unknown>[];
      const resolved = resolvedIdsOf(live as never[]);
      const candidates = parsed
        .map((e, i) => ({ e, i }))
        .filter(
          ({ e, i }) =>
            e && !duplicate.has(i) && e.entry_type !== 'decision' && !(RESOLVABLE_TYPES.includes(String(e.entry_type)) && !resolved.has(String(e.id))),
        );
      for (const { i } of candidates.slice(0, Math.max(0, candidates.length - retainRecent))) archive.add(i);
      out.archived.count = archive.size;
    }

    const warnings = parsed.filter((e, i) => e && !duplicate.has(i) && e.entry_type === 'warning' && !isResolved(e)) as Record<string, unknown>[];
    out.dangling_warnings.items = warnings
      .map(w => ({ id: String(w.id), summary: String(w.summary), scope: String(w.scope), age_days: ageDays(w.timestamp) }))
      .sort((a, b) => b.age_days - a.age_days);
    out.dangling_warnings.count = warnings.length;

    const cutoff = new Date(nowMs - staleDays * DAY).toISOString();
    const stale = (raw.filter(isRecord) as unknown as DecisionIndexEntry[]).filter(d => d.status === 'provisional' && String(d.timestamp) < cutoff);
    out.stale_provisionals.items = stale
      .map(d => ({ id: d.id, summary: d.summary, scope: d.scope, age_days: ageDays(d.timestamp) }))
      .sort((a, b) => b.age_days - a.age_days);
    out.stale_provisionals.count = stale.length;

    const orphans: Record<string, unknown>[] = [];
    if (args.repair_index) {
      if (ctx.sqlite)
        out.index_repair_error =
          'this folder keeps its decisions in twining.db and records/, which have no decisions/index.json to fall out of step; nothing was repaired';
      else {
        const found = await orphanDecisions(ctx, raw);
        orphans.push(...found.valid);
        out.index_repair = { orphans_found: found.valid.length, repaired: 0, skipped_invalid: found.invalid, ids: found.valid.map(r => String(r.id)) };
      }
    }

    return { out, lines, parsed, duplicate, archive, stale, orphans };
  };
  const apply = async ({ out, lines, parsed, duplicate, archive, stale, orphans }: Plan, raw: unknown[], tx: Transaction) => {
    if (orphans.length && out.index_repair) {
      // Appended, then the whole index in id order: ULIDs sort as they were made.
      raw.push(...orphans.map(indexEntryOf));
      raw.sort((a, b) => {
        const x = isRecord(a) && typeof a.id === 'string' ? a.id : '';
        const y = isRecord(b) && typeof b.id === 'string' ? b.id : '';
        return x < y ? -1 : x > y ? 1 : 0;
      });
      out.index_repair.repaired = orphans.length;
    }
    if (args.promote_provisionals) {
      for (const d of stale) if (await setDecisionStatus(ctx, raw, d.id, 'active', tx)) out.promoted_provisionals.ids.push(d.id);
      out.promoted_provisionals.count = out.promoted_provisionals.ids.length;
    }
    if (duplicate.size || archive.size) {
      await fs.mkdir(ctx.layout.archiveDir, { recursive: true });
      const file = path.join(ctx.layout.archiveDir, `${at.slice(0, 10)}-blackboard.jsonl`);
      const moved = [...archive].map(i => lines[i].replace(/\r$/, '') + '\n');
      const dismissed = { dismissed_at: at, dismissed_by: 'housekeeping', reason: 'duplicate (same type, summary and scope as a newer entry)' };
      const tombstones = [...duplicate].map(i => JSON.stringify({ ...parsed[i], dismissed }) + '\n');
      // The archive first: an entry is never in neither file.
      await tx.append(file, [...moved, ...tombstones].join(''));
      await ctx.storage.replaceEntries(
        lines.filter((_, i) => !duplicate.has(i) && !archive.has(i)),
        tx,
      );
      if (archive.size) out.archived.file = file;
    }
    const metrics = path.join(ctx.layout.dir, 'metrics.jsonl');
    const metricLines = ((await readTextIfExists(metrics)) ?? '').split('\n').filter(l => l.trim() !== '');
    const metricCutoff = new Date(nowMs - retentionDays * DAY).toISOString();
    const remainingMetrics = metricLines.filter(l => {
      const m = parseObject<{ timestamp?: unknown }>(l);
      return !(m && typeof m.timestamp === 'string' && m.timestamp < metricCutoff);
    });
    out.metrics_rotated.removed = metricLines.length - remainingMetrics.length;
    if (out.metrics_rotated.removed) await tx.replace(metrics, remainingMetrics.map(l => l + '\n').join(''));
    return out;
  };
  // A preview takes no lock and writes nothing; execute plans again under the locks, then applies.
  const result = execute
    ? await transition(ctx, async (raw, tx) => apply(await analyse(raw), raw, tx))
    : (await analyse((await ctx.decisionIndex.fresh()).raw.slice())).out;

  const pruned = await pruneGraph(ctx, { dry_run: !execute });
  result.graph_pruned.removed = execute ? pruned.total_removed : pruned.total_orphans_found;
  if (!execute) {
    // What rotating would remove, read without writing.
    const metricLines = ((await readTextIfExists(path.join(ctx.layout.dir, 'metrics.jsonl'))) ?? '').split('\n');
    const metricCutoff = new Date(nowMs - retentionDays * DAY).toISOString();
    result.metrics_rotated.removed = metricLines.filter(l => {
      const m = l.trim() ? parseObject<{ timestamp?: unknown }>(l) : undefined;
      return !!m && typeof m.timestamp === 'string' && m.timestamp < metricCutoff;
    }).length;
  }
  const verb = execute ? '' : 'would ';
  const parts: string[] = [];
  if (result.archived.count) parts.push(`${verb}archive ${result.archived.count} entries`);
  if (result.deduplicated.removed) parts.push(`${verb}remove ${result.deduplicated.removed} duplicates`);
  if (result.stale_provisionals.count) parts.push(`${result.stale_provisionals.count} stale provisionals need review`);
  if (result.dangling_warnings.count) parts.push(`${result.dangling_warnings.count} unresolved warnings`);
  if (result.promoted_provisionals.count) parts.push(`promoted ${result.promoted_provisionals.count} provisionals`);
  if (result.graph_pruned.removed) parts.push(`${verb}prune ${result.graph_pruned.removed} orphaned entities`);
  if (result.metrics_rotated.removed) parts.push(`${verb}rotate ${result.metrics_rotated.removed} old metrics`);
  if (result.index_repair?.orphans_found) parts.push(`${verb}index ${result.index_repair.orphans_found} decisions missing from decisions/index.json`);
  result.summary = parts.length ? (execute ? '' : '[preview] ') + parts.join(', ') : 'Nothing to clean up';
  return result;
}

/**
 * Decision record files that decisions/index.json does not list: `valid` are decisions whose id is
 * their file name (with a timestamp, summary and scope, so every reader can list them); the
 * count of the others, which are left as they are.
 */
async function orphanDecisions(ctx: FolderStore, raw: readonly unknown[]): Promise<{ valid: Record<string, unknown>[]; invalid: number }> {
  const names = await fs.readdir(path.dirname(ctx.layout.decisionIndex)).catch(() => [] as string[]);
  const known = new Set(raw.filter(isRecord).map(d => d.id));
  const valid: Record<string, unknown>[] = [];
  let invalid = 0;
  for (const name of names) {
    const id = name.slice(0, -'.json'.length);
    if (!name.endsWith('.json') || !isUlid(id) || known.has(id)) continue;
    const record = await readJson(ctx.layout.decision(id), `Decision ${id}`).catch(() => undefined);
    const shaped =
      isRecord(record) && record.id === id && typeof record.timestamp === 'string' && typeof record.summary === 'string' && typeof record.scope === 'string';
    if (shaped) valid.push(record);
    else invalid++;
  }
  valid.sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
  return { valid, invalid };
}
