/**
 * What a briefing was made from, kept beside the SessionStart hook's briefing cache
 * (briefing-cache.ts), so that a session starting after other agents appended to the blackboard
 * is answered without the engine and without reading the history (issue 29): the candidates the
 * briefing ranked (per blackboard entry in the scope: its kind, time, relevance and token costs,
 * id and time; per decision in the scope the same, and the cost of its record where it was read),
 * the ids resolved, the text of what it showed, where in the blackboard it stopped, and the
 * candidates and decisions in an order that holds at any time (briefing-rank.ts). Brought up to
 * date, the briefing is the engine's (`assemble`, operations/assemble-ops.ts), with the same scores
 * (rules/assembly.ts) and the same budget rule (`fillBudget`, the decisions costed best first as
 * operations/assemble-decisions.ts costs them): the appended lines are read (from the byte offset
 * the basis was made at: version-stamp.ts's identity, with the bytes before it checked), scored at
 * the time asked, and the budget filled again from the heads of that order.
 *
 * It answers only when nothing else the briefing reads moved (the other files' version stamps, the
 * graph's too) and the briefing was of the simple kind: a 1.x folder, no handoff waiting for the
 * agent, no claim in the claims log, the knowledge graph reaching nothing in the scope. It gives up
 * (undefined: the engine assembles) when the answer would need anything it does not hold: a
 * decision record not read then, the text of an entry not shown then, more than `MAX_APPENDED`
 * bytes appended. Derived and local, like the cache; a basis that cannot be read is a miss.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { AssembledDecision } from '../../operations/briefing-types';
import { type Weights, scopeProximity } from '../../rules/assembly';
import type { PlacedEntry } from '../../operations/assemble-result';
import { readBytes } from '../read-file';
import { openRegular } from '../json-files';
import { identityOf, stampOfFile } from '../version-stamp';
import { type RankedGroup, type RankedOrder, decisionOrder, rankedOrder } from './briefing-rank';
import type { BlackboardEntry, DecisionIndexEntry } from '../../records';

/** Bytes appended since the basis beyond which the engine assembles again (and keeps a new basis). */
export const MAX_APPENDED = 1 << 20;
export const TAIL = 64;

/** The files besides the blackboard whose change makes a basis useless (relative to `.twining/`). */
export const OTHER_INPUTS = ['decisions/index.json', 'handoffs/index.jsonl', 'claims/claims.jsonl', 'config.yml', 'twining.db', 'twining.db-wal'];
/** The graph's entities: a post adds some, and the briefing changes only if one is named like the scope (assemble-graph-ops.ts). */
export const ENTITIES = 'graph/entities.json';

export const KINDS = ['', 'warning', 'need', 'finding', 'question'] as const;
export const KIND_CODE = new Map<unknown, number>(KINDS.map((k, i) => [k, i] as const).filter(([k]) => k !== ''));
export const FINDING = 3;
export const CONFIDENCE = ['high', 'medium', 'low'];

/** A string column: one text and where each value ends. */
export interface Strings {
  text: string;
  end: Uint32Array;
}
const column = (values: readonly string[]): Strings => {
  const end = new Uint32Array(values.length);
  let at = 0;
  values.forEach((v, i) => (end[i] = at += v.length));
  return { text: values.join(''), end };
};
export const valueAt = (s: Strings, i: number) => s.text.slice(i ? s.end[i - 1] : 0, s.end[i]);

/** An entry as the briefing shows it. */
export type ShownEntry = PlacedEntry;

/** A decision's record as the briefing shows it (without its reason and status, which the index gives). */
export type ShownDecision = Omit<AssembledDecision, 'reason' | 'status' | 'relevance_path'> & { cost: number };

/** What `assemble` hands over (AssembleOptions.basis) for the basis of its briefing. */
export interface BriefingParts {
  scope: string;
  budget: number;
  weights: Weights;
  /** The tokens the handoffs and claims took before the ranked items. */
  startTokens: number;
  /** Whether the briefing had nothing but decisions and blackboard entries to rank (see above). */
  simple: boolean;
  entries: readonly BlackboardEntry[];
  /** The blackboard candidates: positions in `entries`, with their costs and whether each is a need. */
  candidates: { position: number; cost: number; summaryCost: number }[];
  resolved: ReadonlySet<string>;
  decisions: { list: readonly DecisionIndexEntry[]; reasons: readonly string[]; at: Float64Array; relevance: Float64Array };
  /** The decision records read (costed), by id. */
  records: ReadonlyMap<string, ShownDecision>;
  newestDecision: string | undefined;
  shown: readonly ShownEntry[];
}

export interface Basis {
  version: 2;
  scope: string;
  max_tokens: number | null;
  budget: number;
  weights: Weights;
  startTokens: number;
  stamps: string;
  entities: string;
  blackboard: { identity: string; offset: number; tail: string; last: string | null };
  newestDecision: string | null;
  resolved: string;
  entries: {
    kind: Uint8Array;
    at: Float64Array;
    relevance: Float64Array;
    cost: Float64Array;
    summaryCost: Float64Array;
    ids: Strings;
    times: Strings;
    /** Where each one's line starts and ends in the blackboard (-1: not known), for the text of one not shown then. */
    start: Float64Array;
    end: Float64Array;
  };
  /** The candidates in an order that holds at any time asked (briefing-rank.ts). */
  order: RankedOrder;
  decisions: {
    at: Float64Array;
    relevance: Float64Array;
    confidence: Uint8Array;
    provisional: Uint8Array;
    ids: Strings;
    times: Strings;
    reasons: Strings;
    /** In an order that holds at any time asked (briefing-rank.ts). */
    order: RankedGroup[];
  };
  records: Record<string, ShownDecision>;
  shown: Record<string, ShownEntry>;
}

export const basisFile = (cacheFile: string) => cacheFile.replace(/\.json$/, '.basis');

export const otherStamps = async (twiningDir: string) => (await Promise.all(OTHER_INPUTS.map(f => stampOfFile(path.join(twiningDir, f))))).join('|');

/** Bytes linePlaces reads at a time: a buffer of the whole blackboard (tens of megabytes at 100,000 entries) cost the keep more in garbage collection than the scan itself (bench/README.md, the served start). */
const PLACES_CHUNK = 1 << 20;

const isBlank = (b: number) => b === 32 || b === 9 || b === 13;

/**
 * Where each entry's line is in the blackboard's first `offset` bytes: the lines the reader keeps
 * (jsonl.ts: not blank, a JSON object) counted in order, taking a line that looks like an object
 * (`{` to `}`) for one. A line that looks so but did not parse shifts the count; the reader of a
 * line checks its id and time, so a wrong place is a miss, never a wrong text. Undefined when the
 * file is missing or holds another count of such lines than `expected` (the entries read): then no
 * place is known. Read `chunk` bytes at a time into one buffer.
 */
export async function linePlaces(
  file: string,
  offset: number,
  expected: number,
  chunk = PLACES_CHUNK,
): Promise<{ start: Float64Array; end: Float64Array } | undefined> {
  const handle = await openRegular(file).catch(() => undefined);
  if (!handle) return undefined;
  const start = new Float64Array(expected);
  const end = new Float64Array(expected);
  let n = 0;
  // The line being read: where it starts, and its first and last bytes that are not blank (-1: none yet).
  let lineAt = 0;
  let first = -1;
  let last = -1;
  /** Ends the line at `endAt`; false when it is one more object line than expected. */
  const endLine = (endAt: number): boolean => {
    if (first === 0x7b && last === 0x7d) {
      if (n === expected) return false;
      start[n] = lineAt;
      end[n] = endAt;
      n++;
    }
    lineAt = endAt + 1;
    first = last = -1;
    return true;
  };
  try {
    // A byte-order mark at the start of the file (the reader drops it too).
    const head = Buffer.alloc(3);
    const { bytesRead: headRead } = await handle.read(head, 0, Math.min(3, offset), 0);
    const bom = headRead === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunk, offset)));
    for (let pos = 0; pos < offset;) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, offset - pos), pos);
      if (bytesRead === 0) break;
      let i = pos < bom ? Math.min(bom - pos, bytesRead) : 0;
      while (i < bytesRead) {
        const nl = buffer.indexOf(10, i);
        // A newline found past what this read filled is an earlier chunk's byte.
        const ended = nl >= 0 && nl < bytesRead;
        const stop = ended ? nl : bytesRead;
        if (first < 0) {
          let a = i;
          while (a < stop && isBlank(buffer[a])) a++;
          if (a < stop) first = buffer[a];
        }
        let z = stop - 1;
        while (z >= i && isBlank(buffer[z])) z--;
        if (z >= i) last = buffer[z];
        // The line goes on in the next chunk.
        if (!ended) break;
        if (!endLine(pos + stop)) return undefined;
        i = stop + 1;
      }
      pos += bytesRead;
      // A last line without its newline.
      if (pos === offset && lineAt < offset && !endLine(offset)) return undefined;
    }
  } finally {
    await handle.close();
  }
  return n === expected ? { start, end } : undefined;
}

export async function tailBefore(file: string, offset: number): Promise<string | undefined> {
  const bytes = await readBytes(file, 'log', Math.max(0, offset - TAIL), offset);
  return bytes?.toString('base64');
}

/** Keeps the basis of a briefing the engine just assembled, when it is of the kind this module can bring up to date. */
export async function keepBasis(
  twiningDir: string,
  cacheFile: string,
  parts: BriefingParts,
  maxTokens: number | undefined,
  /** Where the engine's reading of the blackboard stopped. */
  offset: number,
): Promise<void> {
  const file = basisFile(cacheFile);
  const blackboardFile = path.join(twiningDir, 'blackboard.jsonl');
  const [st, stamps] = await Promise.all([fs.stat(blackboardFile).catch(() => undefined), otherStamps(twiningDir)]);
  // Only a basis of the simple kind, of the blackboard as the engine read it (nothing appended since).
  if (!parts.simple || !st || st.size !== offset) return fs.rm(file, { force: true });
  const c = parts.candidates;
  const e = parts.entries;
  const d = parts.decisions;
  const last = e.length ? e[e.length - 1].timestamp : undefined;
  // The count of lines matches the entries' (or every place is unknown).
  const placed = await linePlaces(blackboardFile, offset, e.length);
  const kind = Uint8Array.from(c, x => KIND_CODE.get(e[x.position].entry_type) ?? 0);
  const at = Float64Array.from(c, x => Date.parse(e[x.position].timestamp));
  const relevance = Float64Array.from(c, x => 0.5 * scopeProximity(parts.scope, e[x.position].scope));
  const cost = Float64Array.from(c, x => x.cost);
  const summaryCost = Float64Array.from(c, x => x.summaryCost);
  const confidence = Uint8Array.from(d.list, x => {
    const i = CONFIDENCE.indexOf(x.confidence);
    return i < 0 ? 3 : i;
  });
  const basis: Basis = {
    version: 2,
    scope: parts.scope,
    max_tokens: maxTokens ?? null,
    budget: parts.budget,
    weights: parts.weights,
    startTokens: parts.startTokens,
    stamps,
    entities: await stampOfFile(path.join(twiningDir, ENTITIES)),
    blackboard: { identity: identityOf(st), offset, tail: (await tailBefore(blackboardFile, offset)) ?? '', last: typeof last === 'string' ? last : null },
    newestDecision: parts.newestDecision ?? null,
    resolved: [...parts.resolved].join('\n'),
    entries: {
      kind,
      at,
      relevance,
      cost,
      summaryCost,
      ids: column(c.map(x => e[x.position].id)),
      times: column(c.map(x => e[x.position].timestamp)),
      start: Float64Array.from(c, x => (placed ? placed.start[x.position] : -1)),
      end: Float64Array.from(c, x => (placed ? placed.end[x.position] : -1)),
    },
    order: rankedOrder({ kind, at, relevance, cost, summaryCost }, KIND_CODE.get('warning')!, KIND_CODE.get('need')!),
    decisions: {
      at: d.at,
      relevance: d.relevance,
      confidence,
      provisional: Uint8Array.from(d.list, x => (x.status === 'provisional' ? 1 : 0)),
      ids: column(d.list.map(x => x.id)),
      times: column(d.list.map(x => x.timestamp)),
      reasons: column(d.reasons),
      order: decisionOrder(d.at, d.relevance, confidence),
    },
    records: Object.fromEntries(parts.records),
    shown: Object.fromEntries(parts.shown.map(s => [s.id, s])),
  };
  const { serialize } = require('v8') as typeof import('v8');
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, serialize(basis));
  await fs.rename(tmp, file);
}

export async function readBasis(file: string): Promise<Basis | undefined> {
  try {
    const { deserialize } = require('v8') as typeof import('v8');
    const basis = deserialize(await fs.readFile(file)) as Basis;
    return basis && basis.version === 2 ? basis : undefined;
  } catch {
    return undefined;
  }
}
