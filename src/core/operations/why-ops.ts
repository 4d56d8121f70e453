/**
 * `why`: the decisions behind a file, folder or symbol, kept to a token budget, as twining-mcp 2.x
 * bounds it (its #41: answers reached 350 KB on mature projects): src/engine/decisions.ts `why`,
 * `whyByIds` (commit 017a87802232ba85184c4e6aef9ff78060e73873) and src/tools/decision-tools.ts
 * (the version with `lineage`, 2.11; test/fixtures/twining-2/README.md names them).
 *
 *  - The decisions that fit `max_tokens` come in full (a model's call through the MCP server or a
 *    language model tool gets twining-mcp's default of 4000, schemas/model-defaults.ts; the library
 *    and the CLI answer in full unless given one); the rest as one-liners in
 *    `more` (at most 50), then only counted in `omitted_count`. Unlike twining-mcp, which bounds
 *    the full tier only, the whole answer keeps to the budget: one-liners and the list of left-out
 *    superseded decisions are dropped (and counted) before it would grow past it.
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
import { decisionAffects, newestFirst } from '../rules/why';
import { estimateTokens, tokensForLength } from '../rules/assembly';
import { readDecisionRecord } from './decision-ops';
import { decisionsTouching } from '../rules/decision-paths';
import { decisionPathsOf } from './assemble-decisions';
import { cachedDecisionRecord, keptRecords, measureOf, warmDecisionRecords } from './decision-record-cache';
import type { DecisionRecord } from '../records';

/** twining-mcp's cap on one-liners (WHY_MAX_COMPACT). */
const MAX_COMPACT = 50;
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

const compact = (d: DecisionRecord): WhyCompact => ({ id: d.id, summary: d.summary, status: d.status, confidence: d.confidence, timestamp: d.timestamp });

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

/** The token estimate of `result` from its lists' sizes: the answer with its lists empty, plus each list. */
function tokensWith(result: WhyResult, sizes: ListSizes): number {
  const lists = { decisions: [], ...(result.more && { more: [] }), ...(result.superseded_excluded && { superseded_excluded: [] }) };
  const frame = JSON.stringify({ ...result, ...lists }).length;
  return tokensForLength(
    frame +
      listLength(sizes.decisions, result.decisions.length) +
      listLength(sizes.more, result.more?.length ?? 0) +
      listLength(sizes.superseded_excluded, result.superseded_excluded?.length ?? 0),
  );
}

/**
 * The size of the answer as the token estimate used for every budget here (rules/assembly.ts):
 * the length of `JSON.stringify(result)`, taken as the length of the answer with its lists empty
 * plus each list's items (measured once each), so that cutting an answer down costs what is cut,
 * not the whole answer again at every step.
 */
export const tokensOf = (result: WhyResult): number => tokensWith(result, listSizesOf(result));

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

  // twining-mcp's tiers: the full decisions that fit, in rank order, then one-liners.
  let used = 0;
  const more: WhyCompact[] = [];
  let omitted = 0;
  for (const d of matches) {
    // Once one decision did not fit, the rest are one-liners: none is made in full.
    if (more.length === 0 && omitted === 0) {
      const item = full(d, false);
      const lineage = args.lineage && (d.status === 'superseded' || d.status === 'overridden');
      if (lineage) Object.assign(item, await lineageHead(ctx, d.id));
      // Without a lineage head the item depends on the record alone: measured once per record.
      const length = lineage ? JSON.stringify(item).length : measureOf(ctx, 'why full', d, () => JSON.stringify(item).length);
      itemLengths.set(item, length);
      const cost = tokensForLength(length);
      if (used + cost <= budget) {
        result.decisions.push(item);
        used += cost;
        continue;
      }
    }
    if (more.length < MAX_COMPACT) {
      const item = compact(d);
      itemLengths.set(
        item,
        measureOf(ctx, 'why compact', d, () => JSON.stringify(item).length),
      );
      more.push(item);
    } else omitted++;
  }
  if (more.length) result.more = more;
  // Chosen by rank, listed newest first (1.9's order).
  result.decisions.sort(newestFirst);
  if (budget === Infinity) {
    result.token_estimate = tokensOf(result);
    return result;
  }
  const ranks = new Map(matches.map((d, i) => [d.id, i]));
  return keepTo(result, budget, omitted, id => ranks.get(id) ?? 0);
}

/**
 * Cuts until the whole answer keeps to `budget`: first the named superseded decisions (still
 * counted), then the lowest-ranked full decision becomes a one-liner at the head of `more` (by
 * `rank`, else the last), then one-liners go from the end, counted in `omitted_count`; `message`
 * says how to get what is left out.
 */
function keepTo(result: WhyResult, budget: number, omitted: number, rank: (id: string) => number = () => 0): WhyResult {
  // Each list's size, less what is cut at each step (not all its items added up again).
  const sizes = listSizesOf(result);
  const settle = () => {
    if (omitted) result.omitted_count = omitted;
    else delete result.omitted_count;
    result.truncated = (result.more?.length ?? 0) > 0 || omitted > 0;
    if (result.truncated) {
      const n = result.more?.length ?? 0;
      const parts = [n ? `${n} more decision(s) in scope returned as one-liners in 'more'` : '', omitted ? `${omitted} more only counted (omitted_count)` : ''];
      result.message = `${parts.filter(Boolean).join(', ')} — call twining_why with ids: [...] for full detail on the ones that matter, or a larger max_tokens`;
    } else delete result.message;
    // The estimate's own digits are part of what it measures.
    result.token_estimate = budget;
    const size = tokensWith(result, sizes);
    result.token_estimate = size;
    return size;
  };
  /** One cut, in the order above; false when nothing is left to cut. */
  const cut = (): boolean => {
    if (result.superseded_excluded?.length) {
      sizes.superseded_excluded -= itemLength(result.superseded_excluded.pop()!);
      if (!result.superseded_excluded.length) delete result.superseded_excluded;
    } else if (result.decisions.length) {
      let last = result.decisions.length - 1;
      result.decisions.forEach((d, i) => (rank(d.id) > rank(result.decisions[last].id) ? (last = i) : undefined));
      const [d] = result.decisions.splice(last, 1);
      const oneLiner: WhyCompact = { id: d.id, summary: d.summary, status: d.status, confidence: d.confidence, timestamp: d.timestamp };
      sizes.decisions -= itemLength(d);
      sizes.more += itemLength(oneLiner);
      result.more = [oneLiner, ...(result.more ?? [])];
    } else if (result.more?.length) {
      sizes.more -= itemLength(result.more.pop()!);
      if (!result.more.length) delete result.more;
      omitted++;
    } else return false;
    return true;
  };
  // The lists alone over the budget: the whole answer is too, so it is cut without being measured
  // (the cuts do not depend on the fields settle sets), as long as settle would neither add nor
  // remove a field: the answer's fields then come in the order settling at every cut gives them.
  const listsAlone = () =>
    tokensForLength(
      listLength(sizes.decisions, result.decisions.length) +
        listLength(sizes.more, result.more?.length ?? 0) +
        listLength(sizes.superseded_excluded, result.superseded_excluded?.length ?? 0),
    );
  const fieldsSettled = () => 'omitted_count' in result === omitted > 0 && 'message' in result === ((result.more?.length ?? 0) > 0 || omitted > 0);
  for (;;) {
    if (!(listsAlone() > budget && fieldsSettled()) && settle() <= budget) break;
    if (!cut()) {
      settle();
      break;
    }
  }
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
  return maxTokens === undefined ? result : keepTo(result, maxTokens, 0);
}
