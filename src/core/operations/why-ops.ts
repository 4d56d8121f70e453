/**
 * `why`: the decisions behind a file, folder or symbol, kept to a token budget, as twining-mcp 2.x
 * bounds it (its #41: answers reached 350 KB on mature projects): src/engine/decisions.ts `why`,
 * `whyByIds` (commit 017a87802232ba85184c4e6aef9ff78060e73873) and src/tools/decision-tools.ts
 * (the version with `lineage`, 2.11; test/fixtures/twining-2/README.md names them).
 *
 *  - The best-ranked decisions that fit `max_tokens` come in full (a model's call through the MCP
 *    server or a language model tool gets twining-mcp's default of 4000, schemas/model-defaults.ts;
 *    the library and the CLI answer in full unless given one), the top one always unless it alone
 *    is past the budget; the next ones as one-liners in `more` (at most 50) while they fit, the
 *    rest only counted in `omitted_count` (rules/why.ts whyTiers). Unlike twining-mcp, which bounds
 *    the full tier only, the whole answer keeps to the budget, the list of left-out superseded
 *    decisions included (named last, while they fit).
 *  - `ids`: full detail (context, alternatives, constraints, depends_on) for exactly those decisions.
 *  - `include_superseded: false` leaves superseded, overridden and archived decisions out, as
 *    twining-mcp 2.x does by default: the superseded and overridden ones are named in
 *    `superseded_excluded`, the archived ones counted in `archived_excluded_count`. Unlike 2.x,
 *    left unset it keeps the answer 1.9 gave and this server always gave: superseded and
 *    overridden decisions in, archived ones out. `true` takes archived ones in too.
 *  - `lineage`: each superseded or overridden decision named (left out, or listed in full) gets
 *    `lineage_head`, its superseded_by followed to the current answer.
 *
 * Which decisions get full detail is twining-mcp's rank (most specific first, then active,
 * provisional, retired, then newest); the answer lists them newest first, as 1.9 did, so that
 * an answer that fits the budget is 1.9's (test/fixtures/side-by-side/). The same records give the
 * same answer in either layout.
 */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import { isUlid } from '../schemas/schemas';
import { mapBounded } from '../storage/bounded';
import { decisionAffects, newestFirst, whyMessage, whyTiers } from '../rules/why';
import { estimateTokens, tokensForLength } from '../rules/assembly';
import { readDecisionRecord } from './decision-ops';
import { decisionsTouching } from '../rules/decision-paths';
import { decisionPathsOf } from './assemble-decisions';
import { cachedDecisionRecord, keptRecords, measureOf, warmDecisionRecords } from './decision-record-cache';
import type { DecisionRecord } from '../records';

/** twining-mcp's cap on superseded_excluded. */
const MAX_EXCLUDED = 20;
/** How far `lineage` follows superseded_by (twining-mcp: depth-capped). */
const MAX_LINEAGE = 100;

const RETIRED = new Set(['superseded', 'overridden', 'archived']);
const STATUS_RANK: Record<string, number> = { active: 2, provisional: 1 };

export interface WhyDecision {
  id: string;
  summary: string;
  rationale: string;
  confidence: string;
  status: string;
  timestamp: string;
  alternatives_count: number;
  commit_hashes: string[];
  superseded_by?: string;
  /** With `lineage`, for a superseded or overridden decision: the current answer. */
  lineage_head?: { id: string; summary: string; chain_length: number };
  // Beyond twining-mcp: enough to show the decision without opening it.
  domain: string;
  scope: string;
  agent_id: string;
  // ids only (twining-mcp's drill-down):
  context?: string;
  alternatives?: DecisionRecord['alternatives'];
  constraints?: string[];
  depends_on?: string[];
}

export interface WhyCompact {
  id: string;
  summary: string;
  status: string;
  confidence: string;
  timestamp: string;
}

export interface WhyResult {
  decisions: WhyDecision[];
  more?: WhyCompact[];
  omitted_count?: number;
  truncated: boolean;
  total_in_scope: number;
  superseded_count: number;
  superseded_excluded?: { id: string; summary: string; superseded_by?: string; lineage_head?: { id: string; summary: string; chain_length: number } }[];
  archived_excluded_count?: number;
  active_count: number;
  provisional_count: number;
  token_estimate: number;
  missing_ids?: string[];
  message?: string;
}

/** twining-mcp's whySpecificity: exact scope, file or symbol (3) > under the query (2) > an ancestor covering it (1). */
function specificity(d: DecisionRecord, scope: string): number {
  const files = Array.isArray(d.affected_files) ? d.affected_files : [];
  const symbols = Array.isArray(d.affected_symbols) ? d.affected_symbols : [];
  if (d.scope === scope || files.includes(scope) || symbols.includes(scope)) return 3;
  if ((typeof d.scope === 'string' && d.scope.startsWith(scope)) || files.some(f => typeof f === 'string' && f.startsWith(scope))) return 2;
  return 1;
}

function full(d: DecisionRecord, detail: boolean): WhyDecision {
  const out: WhyDecision = {
    id: d.id,
    summary: d.summary,
    rationale: d.rationale,
    confidence: d.confidence,
    status: d.status,
    timestamp: d.timestamp,
    alternatives_count: Array.isArray(d.alternatives) ? d.alternatives.length : 0,
    commit_hashes: Array.isArray(d.commit_hashes) ? d.commit_hashes : [],
    ...(typeof d.superseded_by === 'string' ? { superseded_by: d.superseded_by } : {}),
    domain: d.domain,
    scope: d.scope,
    agent_id: d.agent_id,
  };
  if (detail) Object.assign(out, { context: d.context, alternatives: d.alternatives, constraints: d.constraints, depends_on: d.depends_on });
  return out;
}

const compact = (d: WhyCompact): WhyCompact => ({ id: d.id, summary: d.summary, status: d.status, confidence: d.confidence, timestamp: d.timestamp });

/** The JSON length of each list item of an answer, taken once per item (items are not changed once listed). */
const itemLengths = new WeakMap<object, number>();
function itemLength(item: object): number {
  let n = itemLengths.get(item);
  if (n === undefined) itemLengths.set(item, (n = JSON.stringify(item).length));
  return n;
}
/** The JSON length of a list's items, without the brackets and commas. */
const itemsLength = (items: readonly object[] | undefined) => (items ? items.reduce((n, item) => n + itemLength(item), 0) : 0);
/** The JSON length of a list whose items add up to `items`: its brackets, its items and the commas between them. */
const listLength = (items: number, count: number) => (count ? items + count - 1 : 0);

/** The JSON length of each list of an answer's items, kept up to date by whoever cuts them. */
interface ListSizes {
  decisions: number;
  more: number;
  superseded_excluded: number;
}

const listSizesOf = (result: WhyResult): ListSizes => ({
  decisions: itemsLength(result.decisions),
  more: itemsLength(result.more),
  superseded_excluded: itemsLength(result.superseded_excluded),
});

/** The JSON length of `result` from its lists' sizes: the answer with its lists empty, plus each list. */
function lengthWith(result: WhyResult, sizes: ListSizes): number {
  const lists = { decisions: [], ...(result.more && { more: [] }), ...(result.superseded_excluded && { superseded_excluded: [] }) };
  const frame = JSON.stringify({ ...result, ...lists }).length;
  return (
    frame +
    listLength(sizes.decisions, result.decisions.length) +
    listLength(sizes.more, result.more?.length ?? 0) +
    listLength(sizes.superseded_excluded, result.superseded_excluded?.length ?? 0)
  );
}

/**
 * The size of the answer as the token estimate used for every budget here (rules/assembly.ts):
 * the length of `JSON.stringify(result)`, taken as the length of the answer with its lists empty
 * plus each list's items (measured once each), so that measuring it costs its frame, not its
 * items again.
 */
export const tokensOf = (result: WhyResult): number => tokensForLength(lengthWith(result, listSizesOf(result)));

export async function why(ctx: FolderStore, input: InputOf<'why'>): Promise<WhyResult> {
  const args = ctx.validate('why', input);
  if (args.ids && args.ids.length) return whyByIds(ctx, args.ids, args.max_tokens);
  const scope = args.scope!;
  const exclude = args.include_superseded === false;
  // Without max_tokens the library and the CLI answer in full; a model's call gets twining-mcp's 4000 (schemas/model-defaults.ts).
  const budget = args.max_tokens ?? Infinity;
  // Found through the paths the decisions name (rules/decision-paths.ts, cached per version of the index), not by asking each.
  const index = await ctx.decisionIndex.get();
  const inScope = decisionsTouching(decisionPathsOf(ctx), scope)
    .map(at => index[at])
    .filter(d => decisionAffects(d, scope));
  // Queries load the records of the matching index entries; an entry whose file is missing is skipped (docs/format.md §Decision index).
  // Each record is cached while its index entry is unchanged (decision-record-cache.ts): every writer changes both.
  // Those kept are taken as they are (no promise each); only the others are read.
  const kept = keptRecords(ctx, inScope);
  const toRead = inScope.filter((_, i) => kept[i] === undefined);
  if (toRead.length) {
    const read = await mapBounded(toRead, d => cachedDecisionRecord(ctx, d));
    for (let i = 0, j = 0; i < kept.length; i++) if (kept[i] === undefined) kept[i] = read[j++] ?? null;
  }
  const all = kept.filter((r): r is DecisionRecord => !!r);
  // A long-lived engine reads the other records in the background, so the next `why` of any scope reads none.
  warmDecisionRecords(ctx, index);
  const matches = exclude ? all.filter(d => !RETIRED.has(d.status)) : args.include_superseded ? all : all.filter(d => d.status !== 'archived');
  // Each decision's rank worked out once, not at every comparison.
  const ranked = matches.map(d => ({ d, specific: specificity(d, scope), status: STATUS_RANK[d.status] ?? 0 }));
  ranked.sort((a, b) => b.specific - a.specific || b.status - a.status || newestFirst(a.d, b.d));
  ranked.forEach((r, i) => (matches[i] = r.d));

  const retired = all.filter(d => d.status === 'superseded' || d.status === 'overridden');
  const result: WhyResult = {
    decisions: [],
    truncated: false,
    total_in_scope: matches.length,
    superseded_count: retired.length,
    active_count: matches.filter(d => d.status === 'active').length,
    provisional_count: matches.filter(d => d.status === 'provisional').length,
    token_estimate: 0,
  };
  if (exclude) {
    const excluded = retired.slice(0, MAX_EXCLUDED).map(d => ({
      id: d.id,
      summary: d.summary,
      ...(typeof d.superseded_by === 'string' ? { superseded_by: d.superseded_by } : {}),
    }));
    if (args.lineage) for (const e of excluded) Object.assign(e, await lineageHead(ctx, e.id));
    if (excluded.length) result.superseded_excluded = excluded;
    const archived = all.filter(d => d.status === 'archived').length;
    if (archived) result.archived_excluded_count = archived;
  }

  if (budget === Infinity) {
    for (const d of matches) result.decisions.push(wantsLineage(args.lineage, d) ? await withLineage(ctx, fullItem(ctx, d)) : fullItem(ctx, d));
    result.decisions.sort(newestFirst);
    return settle(result, 0);
  }
  // The decisions that might fit in full, in rank order: no more than whose items alone fit.
  const fulls: WhyDecision[] = [];
  for (let length = -1; fulls.length < matches.length;) {
    const d = matches[fulls.length];
    const item = wantsLineage(args.lineage, d) ? await withLineage(ctx, fullItem(ctx, d)) : fullItem(ctx, d);
    length += itemLength(item) + 1;
    if (tokensForLength(length) > budget) break;
    fulls.push(item);
  }
  const excluded = result.superseded_excluded ?? [];
  const tiers = whyTiers({
    budget,
    frame: frameLength(result, budget),
    total: matches.length,
    full: fulls.map(itemLength),
    compact: rank => compactLength(ctx, matches[rank]),
    excluded: excluded.map(itemLength),
  });
  // Chosen by rank, listed newest first (1.9's order).
  result.decisions = fulls.slice(0, tiers.full).sort(newestFirst);
  if (tiers.compact) result.more = matches.slice(tiers.full, tiers.full + tiers.compact).map(d => compactItem(ctx, d));
  if (tiers.excluded) excluded.length = tiers.excluded;
  else delete result.superseded_excluded;
  return settle(result, tiers.omitted);
}

/** A decision in full, its length measured once per record. */
function fullItem(ctx: FolderStore, d: DecisionRecord): WhyDecision {
  const item = full(d, false);
  itemLengths.set(
    item,
    measureOf(ctx, 'why full', d, () => JSON.stringify(item).length),
  );
  return item;
}

/** With `lineage`, a superseded or overridden decision in full gets its current answer (and is measured again); awaited only then. */
async function withLineage(ctx: FolderStore, item: WhyDecision): Promise<WhyDecision> {
  Object.assign(item, await lineageHead(ctx, item.id));
  itemLengths.set(item, JSON.stringify(item).length);
  return item;
}
const wantsLineage = (lineage: boolean | undefined, d: DecisionRecord) => lineage === true && (d.status === 'superseded' || d.status === 'overridden');

const compactLength = (ctx: FolderStore, d: DecisionRecord) => measureOf(ctx, 'why compact', d, () => JSON.stringify(compact(d)).length);

function compactItem(ctx: FolderStore, d: DecisionRecord): WhyCompact {
  const item = compact(d);
  itemLengths.set(item, compactLength(ctx, d));
  return item;
}

/** The JSON length of `result` with no items and none of the fields its tiers decide, as whyTiers takes it (rules/why.ts). */
function frameLength(result: WhyResult, budget: number): number {
  const { more: _more, omitted_count: _omitted, message: _message, superseded_excluded: _excluded, ...rest } = result;
  return JSON.stringify({ ...rest, decisions: [], truncated: false, token_estimate: budget }).length;
}

/**
 * Sets the fields that say what is left out (`omitted_count`, `truncated`, `message`) and the
 * token estimate, the size of the answer with the estimate's own digits in it.
 */
function settle(result: WhyResult, omitted: number): WhyResult {
  if (omitted) result.omitted_count = omitted;
  else delete result.omitted_count;
  const more = result.more?.length ?? 0;
  result.truncated = more > 0 || omitted > 0;
  if (result.truncated) result.message = whyMessage(more, omitted);
  else delete result.message;
  // Measured once with a one-digit estimate; the estimate's own digits are then added until it holds.
  result.token_estimate = 0;
  const rest = lengthWith(result, listSizesOf(result)) - 1;
  let estimate = tokensForLength(rest + 1);
  while (tokensForLength(rest + String(estimate).length) !== estimate) estimate = tokensForLength(rest + String(estimate).length);
  result.token_estimate = estimate;
  return result;
}

/** Follows superseded_by from `id` to the decision that is the current answer (cycle-guarded, depth-capped). */
async function lineageHead(ctx: FolderStore, id: string): Promise<{ lineage_head?: { id: string; summary: string; chain_length: number } }> {
  const seen = new Set([id]);
  let current = await readDecisionRecord(ctx, id).catch(() => undefined);
  let steps = 0;
  while (current && typeof current.superseded_by === 'string' && isUlid(current.superseded_by) && !seen.has(current.superseded_by) && steps < MAX_LINEAGE) {
    const next = await readDecisionRecord(ctx, current.superseded_by).catch(() => undefined);
    if (!next) break;
    seen.add(next.id);
    current = next;
    steps++;
  }
  return current && steps > 0 ? { lineage_head: { id: current.id, summary: current.summary, chain_length: steps } } : {};
}

/** twining-mcp's drill-down: full detail for exactly these ids (no budget unless one is given). */
async function whyByIds(ctx: FolderStore, ids: string[], maxTokens: number | undefined): Promise<WhyResult> {
  const decisions: WhyDecision[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    // An id that is not a ULID names no file (no path is built from it).
    const d = isUlid(id) ? await readDecisionRecord(ctx, id).catch(() => undefined) : undefined;
    if (d) decisions.push(full(d, true));
    else missing.push(id);
  }
  const result: WhyResult = {
    decisions,
    truncated: false,
    total_in_scope: decisions.length,
    superseded_count: decisions.filter(d => d.status === 'superseded').length,
    active_count: decisions.filter(d => d.status === 'active').length,
    provisional_count: decisions.filter(d => d.status === 'provisional').length,
    token_estimate: estimateTokens(JSON.stringify(decisions)),
    ...(missing.length ? { missing_ids: missing } : {}),
  };
  if (maxTokens === undefined) return result;
  // Cut to the budget as a scope's answer is, the ids' order as the rank.
  const tiers = whyTiers({
    budget: maxTokens,
    frame: frameLength(result, maxTokens),
    total: decisions.length,
    full: decisions.map(itemLength),
    compact: rank => itemLength(compact(decisions[rank])),
    excluded: [],
  });
  result.decisions = decisions.slice(0, tiers.full);
  if (tiers.compact) result.more = decisions.slice(tiers.full, tiers.full + tiers.compact).map(compact);
  return settle(result, tiers.omitted);
}
