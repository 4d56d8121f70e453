/**
 * A SessionStart briefing brought up to date from its basis (briefing-basis.ts says what it holds
 * and when it answers): the lines appended since read, scored with the basis's candidates at the
 * time asked, the budget filled again with the engine's code, and the briefing put together as
 * `assemble` puts it (operations/assemble-result.ts); undefined when the basis cannot tell.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { AssembledContext } from '../../operations/briefing-types';
import { type Costed, byScore, entryScorer, estimateTokens, scopeProximity, scoreAt } from '../../rules/assembly';
import { type Source, bestFirst, fillFromOrder } from './briefing-rank';
import { overlaps } from '../../scope';
import { isResolved } from '../../rules/resolution';
import { briefingOf, changedSince, entryReason, placeChosen, placedEntry } from '../../operations/assemble-result';
import { graphTouches } from '../../operations/assemble-graph-ops';
import { readBytes, readText } from '../read-file';
import { identityOf, stampOfFile } from '../version-stamp';
import type { BlackboardEntry, DecisionIndexEntry } from '../../records';
import {
  type Basis,
  CONFIDENCE,
  ENTITIES,
  FINDING,
  KINDS,
  KIND_CODE,
  MAX_APPENDED,
  type ShownEntry,
  basisFile,
  otherStamps,
  readBasis,
  tailBefore,
  valueAt,
} from './briefing-basis';

type Item = Costed & { score: number; timestamp: string; reason: string; decision?: DecisionIndexEntry; entry?: ShownEntry; position?: number };

/** Whether the graph's entities as they are now add anything to a briefing of `scope` (one that cannot be read adds nothing, as in the engine). */
async function graphTouchesScope(twiningDir: string, scope: string): Promise<boolean> {
  let entities: unknown;
  try {
    entities = JSON.parse((await readText(path.join(twiningDir, ENTITIES), 'index')) ?? '[]');
  } catch {
    return false;
  }
  return Array.isArray(entities) && graphTouches(entities, scope);
}

/** The entry of a basis candidate not shown then, from its line (checked to be that entry). */
async function lineOf(file: string, basis: Basis, item: Item): Promise<ShownEntry | undefined> {
  const i = item.position ?? -1;
  const { start, end } = basis.entries;
  if (i < 0 || start[i] < 0) return undefined;
  const bytes = await readBytes(file, 'log', start[i], end[i]);
  const [e] = parseAppended(bytes?.toString('utf8') ?? '');
  return e && e.id === item.id && e.timestamp === item.timestamp ? placedEntry(e) : undefined;
}

/** Lines of `text` that parse as JSON objects, as the blackboard's reader keeps them (jsonl.ts). */
function parseAppended(text: string): BlackboardEntry[] {
  const out: BlackboardEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(v as BlackboardEntry);
    } catch {
      // Skipped, as the engine skips it.
    }
  }
  return out;
}

/**
 * The briefing of `cached` brought up to date at `now` (see above), or undefined when this basis
 * cannot give the engine's answer. `since`: the agent's previous briefing (its assembly mark).
 */
export async function updatedBriefing(
  twiningDir: string,
  cacheFile: string,
  b: { agent_id: string; scope: string; task: string; max_tokens: number | undefined },
  since: string,
  now: Date,
): Promise<{ context: AssembledContext; offset: number } | undefined> {
  const blackboardFile = path.join(twiningDir, 'blackboard.jsonl');
  const [basis, st, stamps, entities] = await Promise.all([
    readBasis(basisFile(cacheFile)),
    fs.stat(blackboardFile).catch(() => undefined),
    otherStamps(twiningDir),
    stampOfFile(path.join(twiningDir, ENTITIES)),
  ]);
  if (!basis || !st || basis.scope !== b.scope || basis.max_tokens !== (b.max_tokens ?? null) || basis.stamps !== stamps) return undefined;
  if (entities !== basis.entities && (await graphTouchesScope(twiningDir, b.scope))) return undefined;
  const bb = basis.blackboard;
  if (identityOf(st) !== bb.identity || st.size < bb.offset || st.size - bb.offset > MAX_APPENDED) return undefined;
  // The bytes before the offset as they were: the file was appended to, not rewritten in place.
  if ((await tailBefore(blackboardFile, bb.offset)) !== bb.tail) return undefined;
  const bytes = st.size > bb.offset ? await readBytes(blackboardFile, 'log', bb.offset, st.size) : Buffer.alloc(0);
  if (!bytes) return undefined;
  const complete = bytes.lastIndexOf(10) + 1;
  const appended = parseAppended(bytes.toString('utf8', 0, complete));
  const offset = bb.offset + complete;
  const scope = b.scope;
  const nowMs = now.getTime();

  // The ids resolved: the basis's, and those the appended lines resolve (rules/resolution.ts, as assemble-candidates.ts keeps them).
  const newlyResolved = new Set<string>();
  for (const e of appended) {
    if (isResolved(e) && typeof e.id === 'string') newlyResolved.add(e.id);
    if (Array.isArray(e.relates_to)) for (const r of e.relates_to) if (typeof r === 'string') newlyResolved.add(r);
  }
  const resolved = new Set(basis.resolved ? basis.resolved.split('\n') : []);
  for (const id of newlyResolved) resolved.add(id);

  // Decisions: unchanged since the basis (the index's stamp is one of `stamps`), scored now and
  // costed best first until the budget is spent, as assemble-decisions.ts chooseDecisions costs
  // them, in their standing order (briefing-rank.ts): only those whose turn comes are made items.
  const d = basis.decisions;
  const decision = (i: number) => ({
    kind: 'decision' as const,
    id: '',
    timestamp: '',
    at: d.at[i],
    confidence: CONFIDENCE[d.confidence[i]],
    reachability: undefined,
  });
  const decisions = bestFirst<Item>(d.order, {
    score: i => scoreAt(decision(i), d.relevance[i], nowMs, basis.weights),
    cost: () => 0,
    summaryCost: () => 0,
    need: () => false,
    skip: () => false,
    item: i => {
      const index = {
        id: valueAt(d.ids, i),
        timestamp: valueAt(d.times, i),
        confidence: CONFIDENCE[d.confidence[i]],
        status: d.provisional[i] ? 'provisional' : 'active',
      } as DecisionIndexEntry;
      const score = scoreAt(decision(i), d.relevance[i], nowMs, basis.weights);
      return { id: index.id, kind: 'decision', cost: 0, summaryCost: 0, score, timestamp: index.timestamp, reason: valueAt(d.reasons, i), decision: index };
    },
  });
  const takeable: Item[] = [];
  for (let room = basis.budget, t = room > 0 ? decisions.take() : undefined; t; t = room > 0 ? decisions.take() : undefined) {
    // A record not costed then gives up: the engine would read it.
    const cost = basis.records[t.id]?.cost;
    if (cost === undefined) return undefined;
    t.cost = cost;
    room -= cost;
    takeable.push(t);
  }
  if (decisions.broken) return undefined;

  // Entries: the basis's candidates (less those the appended lines resolved), in their standing
  // order (briefing-rank.ts), and the appended ones in scope; the decisions with the others.
  const e = basis.entries;
  const m = e.kind.length;
  const scorers = KINDS.map(kind => (kind ? entryScorer(kind, nowMs, basis.weights, false) : undefined));
  const dropped = new Set<number>();
  if (newlyResolved.size) for (let i = 0; i < m; i++) if (e.kind[i] !== FINDING && newlyResolved.has(valueAt(e.ids, i))) dropped.add(i);
  const extra: { warnings: Item[]; others: Item[] } = { warnings: [], others: [...takeable] };
  appended.forEach(a => {
    const k = typeof a.id === 'string' && typeof a.scope === 'string' ? (KIND_CODE.get(a.entry_type) ?? 0) : 0;
    if (k === 0 || (k !== FINDING && resolved.has(a.id)) || (scope !== 'project' && !overlaps(a.scope, scope))) return;
    const relevance = 0.5 * scopeProximity(scope, a.scope);
    const item: Item = {
      id: a.id,
      kind: a.entry_type as Item['kind'],
      timestamp: a.timestamp,
      score: scorers[k]!(Date.parse(a.timestamp), relevance),
      cost: estimateTokens(`${a.summary} ${a.detail ?? ''}`),
      summaryCost: estimateTokens(a.summary),
      reason: '',
      entry: placedEntry(a),
    };
    (k === 1 ? extra.warnings : extra.others).push(item);
  });
  let warningCount = extra.warnings.length;
  for (const g of basis.order.warnings) warningCount += g.order.length;
  for (const i of dropped) if (e.kind[i] === 1) warningCount--;
  const source: Source<Item> = {
    score: i => scorers[e.kind[i]]!(e.at[i], e.relevance[i]),
    cost: i => e.cost[i],
    summaryCost: i => e.summaryCost[i],
    need: i => e.kind[i] === 2,
    skip: i => dropped.has(i),
    item: i => ({
      id: valueAt(e.ids, i),
      kind: KINDS[e.kind[i]] as Item['kind'],
      timestamp: valueAt(e.times, i),
      score: scorers[e.kind[i]]!(e.at[i], e.relevance[i]),
      cost: e.cost[i],
      summaryCost: e.summaryCost[i],
      reason: '',
      position: i,
    }),
  };
  const fill = fillFromOrder(basis.order, source, extra, x => x.kind === 'need', { warnings: warningCount }, basis.budget, basis.startTokens);
  if (!fill) return undefined;

  // Every chosen item's text: the decisions' records and the entries shown then, or appended since.
  const chosen = fill.chosen.sort(byScore);
  for (const item of chosen) {
    if (item.decision) continue;
    item.entry ??= basis.shown[item.id] ?? (await lineOf(blackboardFile, basis, item));
    if (!item.entry) return undefined;
    item.reason = entryReason(item.entry, scope);
  }
  const context = briefingOf({ assembled_at: now.toISOString(), task: b.task, scope, agent_id: b.agent_id, max_tokens: basis.budget }, fill, {
    related_entities: [],
    recent_handoffs: [],
    active_claims: [],
  });
  placeChosen(context, chosen, fill.summaryOnly, item => {
    const { cost: _cost, ...r } = basis.records[item.id];
    return { ...r, status: String(item.decision!.status), reason: item.reason };
  });

  // What others wrote since the agent's previous briefing: decisions newer than it (none, when the
  // basis's newest is older), then the blackboard from its end back to the first line not newer.
  if (basis.newestDecision === null || basis.newestDecision > since) return undefined;
  const newer: BlackboardEntry[] = [];
  let stopped = false;
  for (let i = appended.length - 1; i >= 0; i--) {
    if (!(appended[i].timestamp > since)) {
      stopped = true;
      break;
    }
    newer.push(appended[i]);
  }
  if (!stopped && bb.last !== null && bb.last > since) return undefined;
  context.changed_since = changedSince(context, [], newer, since, scope, b.agent_id, fill.selected, basis.budget);
  return { context, offset };
}
