/**
 * The search index an engine keeps: every decision (from its record) and every blackboard entry,
 * built on the first search and from then on kept in step with the engine's own cached view of
 * the files, never rebuilt per query.
 *
 * - Blackboard: the entries appended since the last search are added; when the file was read
 *   again from the start (a dismiss or archive rewrote it), entries gone are removed and new
 *   ones added, by id.
 * - Decisions: when the decision index was read again, new ids have their record read and are
 *   added, ids gone are removed, and the index entry of every other one replaces its metadata
 *   (a status change by override, reconsider or promote, a linked commit). A record's text does
 *   not change after it is written.
 *
 * Filters (source, types, domain, status, confidence, scope) apply to the metadata held beside
 * the text index, so they see the same state as the ranking.
 */
import type { BlackboardEntry, DecisionIndexEntry, DecisionRecord } from '../records';
import type { ParsedInputOf } from '../schemas/schemas';
import { overlaps } from '../scope';
import { mapBounded } from '../storage/bounded';
import type { IndexedFields } from './record-reader';
import type { SearchText, TextIndex } from './text-index';
import { grow } from './typed-arrays';

export interface DecisionHit {
  kind: 'decision';
  id: string;
  summary: string;
  domain: string;
  scope: string;
  confidence: string;
  status: string;
  timestamp: string;
  relevance: number;
  commit_hashes: string[];
  agent_id?: string;
}

export interface EntryHit {
  kind: 'entry';
  id: string;
  entry_type: string;
  summary: string;
  scope: string;
  timestamp: string;
  agent_id: string;
  relevance: number;
  /** The whole entry, as twining-mcp's `twining_query` returns it. */
  entry: BlackboardEntry;
}

export type SearchHit = DecisionHit | EntryHit;

export interface SearchResult {
  results: SearchHit[];
  /** How many matched the query and filters (`results` holds the best `limit` of them). */
  total_matched: number;
  /** As twining-mcp: true when the ranking is by keywords, not by meaning. */
  fallback_mode: boolean;
}

/** Where the index reads from: the engine's cached stores. */
export interface SearchSources {
  /** The blackboard's entries as currently cached (a new array after a full re-read). */
  entries(): Promise<readonly BlackboardEntry[]>;
  /** The decision index as currently cached (a new array after a re-read). */
  decisionIndex(): Promise<readonly DecisionIndexEntry[]>;
  /** A decision record, or undefined when it cannot be read. */
  record(id: string): Promise<DecisionRecord | undefined>;
  /**
   * The records of many decisions read off this thread (a worker, record-reader.ts), or undefined
   * to read them here with `record`. Resolves to what was read, id by id (null: read that one
   * with `record`), or to undefined when nothing was.
   */
  records?(ids: string[]): Promise<(IndexedFields | null)[] | undefined> | undefined;
}

interface DecisionDoc {
  kind: 'decision';
  /** 0 until it is indexed. */
  key: number;
  meta: DecisionIndexEntry;
  agent_id?: string;
  /** What it was indexed with (its record may be gone when it has to be removed). */
  text: SearchText;
}
/** What a key stands for: a decision, or a blackboard entry itself (no wrapper: there are 100k of them). */
type Doc = DecisionDoc | BlackboardEntry;

/** Kinds of document by key. */
const NONE = 0;
const DECISION = 1;
const ENTRY = 2;
/** A blackboard entry of type "decision" (the record is what search finds, unless the source is the blackboard). */
const BLACKBOARD_DECISION = 3;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function decisionDoc(meta: DecisionIndexEntry, record: IndexedFields | undefined): DecisionDoc {
  return { kind: 'decision', key: 0, meta, agent_id: typeof record?.agent_id === 'string' ? record.agent_id : undefined, text: decisionText(meta, record) };
}

/** The searchable text of a decision: its record when readable, else what its index entry holds. */
export function decisionText(meta: DecisionIndexEntry, record: IndexedFields | undefined): SearchText {
  const alternatives = Array.isArray(record?.alternatives)
    ? record.alternatives
        .filter(a => a !== null && typeof a === 'object')
        .map(a => [str(a.option), ...strs(a.pros), ...strs(a.cons), str(a.reason_rejected)].join(' '))
        .join('\n')
    : '';
  return {
    summary: str(record?.summary) || str(meta.summary),
    context: str(record?.context),
    rationale: str(record?.rationale),
    alternatives,
    domain: str(record?.domain) || str(meta.domain),
    scope: str(record?.scope) || str(meta.scope),
  };
}

export function entryText(entry: BlackboardEntry): SearchText {
  return { summary: str(entry.summary), detail: str(entry.detail), tags: strs(entry.tags).join(' '), scope: str(entry.scope) };
}

export class SearchIndex {
  private nextKey = 1;
  /** Documents by key (an array: the filter looks one up per matching document). */
  private readonly docs: (Doc | undefined)[] = [];
  /**
   * What the filters test, by key, in arrays of one shape: the kind of document (`NONE` once removed)
   * and its entry type and scope. Blackboard entries parsed from JSON have many shapes, and
   * reading their fields in the filter of a query matching 80k of them cost more than the ranking.
   */
  private kinds = new Uint8Array(1024);
  private readonly types: string[] = [];
  /** An entry's scope as a number (0: none), each distinct scope once in `scopeNames`. */
  private scopeIds = new Int32Array(1024);
  private readonly scopeNames: string[] = [''];
  private readonly scopeNumbers = new Map<string, number>();
  private count = 0;
  private readonly decisions = new Map<string, DecisionDoc>();
  /** Blackboard entries' keys by id. */
  private readonly entries = new Map<string, number>();
  private entryArray?: readonly BlackboardEntry[];
  private entryCount = 0;
  private decisionArray?: readonly DecisionIndexEntry[];
  private syncing: Promise<unknown> = Promise.resolve();
  /** Work done, for tests and benchmarks: documents added and removed so far, and decision records read off this thread. */
  readonly work = { added: 0, removed: 0, offThread: 0 };

  constructor(
    private readonly sources: SearchSources,
    private readonly text: TextIndex,
  ) {}

  get size(): number {
    return this.count;
  }

  /**
   * Brings the index up to date with the sources; one sync at a time. When the records of new
   * decisions are read off this thread, the blackboard is read and indexed meanwhile.
   */
  sync(): Promise<void> {
    const run = this.syncing.then(async () => {
      const items = await this.sources.decisionIndex();
      const added = this.updateDecisions(items);
      const offThread = added.length > 0 ? this.sources.records?.(added.map(meta => meta.id)) : undefined;
      if (offThread) this.syncEntries(await this.sources.entries());
      for (const doc of await this.readDecisions(added, offThread)) this.addDecision(doc);
      this.decisionArray = items;
      this.syncEntries(await this.sources.entries());
    });
    this.syncing = run.catch(() => undefined);
    return run;
  }

  /** Indexes `doc` under `key`, with what the filters test of it. */
  private add(key: number, doc: Doc, text: SearchText, kind: number, type: string, scopeId: number): void {
    this.docs[key] = doc;
    if (key >= this.kinds.length) {
      const size = Math.max(key + 1, this.kinds.length * 2);
      this.kinds = grow(this.kinds, size);
      this.scopeIds = grow(this.scopeIds, size);
    }
    this.kinds[key] = kind;
    this.types[key] = type;
    this.scopeIds[key] = scopeId;
    this.count++;
    this.text.add(key, text);
    this.work.added++;
  }

  private scopeNumber(scope: unknown): number {
    if (typeof scope !== 'string') return 0;
    let n = this.scopeNumbers.get(scope);
    if (n === undefined) {
      n = this.scopeNames.push(scope) - 1;
      this.scopeNumbers.set(scope, n);
    }
    return n;
  }

  private remove(key: number): void {
    const doc = this.docs[key];
    if (!doc) return;
    const text = this.kinds[key] === DECISION ? (doc as DecisionDoc).text : entryText(doc as BlackboardEntry);
    this.docs[key] = undefined;
    this.kinds[key] = NONE;
    this.count--;
    this.text.remove(key, text);
    this.work.removed++;
  }

  /**
   * Updates the indexed decisions' metadata from the decision index and removes those gone from it;
   * returns the ones not indexed yet (each id once, its last entry).
   */
  private updateDecisions(items: readonly DecisionIndexEntry[]): DecisionIndexEntry[] {
    if (items === this.decisionArray) return [];
    const latest = new Map<string, DecisionIndexEntry>();
    for (const item of items) if (typeof item.id === 'string') latest.set(item.id, item);
    for (const [id, doc] of this.decisions) {
      const meta = latest.get(id);
      if (meta) doc.meta = meta;
      else {
        this.decisions.delete(id);
        this.remove(doc.key);
      }
    }
    return [...latest.values()].filter(meta => !this.decisions.has(meta.id));
  }

  /** The documents of `added`, from what `offThread` read and, for the rest, their records read here. */
  private async readDecisions(added: DecisionIndexEntry[], offThread: Promise<(IndexedFields | null)[] | undefined> | undefined): Promise<DecisionDoc[]> {
    const found = offThread ? await offThread : undefined;
    const docs: DecisionDoc[] = [];
    const here: DecisionIndexEntry[] = [];
    added.forEach((meta, i) => {
      const record = found?.[i];
      if (!record) return void here.push(meta);
      docs.push(decisionDoc(meta, record));
      this.work.offThread++;
    });
    // A few at a time: 10k decisions are 10k files.
    const records = await mapBounded(here, meta => this.sources.record(meta.id).catch(() => undefined));
    here.forEach((meta, i) => docs.push(decisionDoc(meta, records[i])));
    return docs;
  }

  private addDecision(doc: DecisionDoc): void {
    doc.key = this.nextKey++;
    this.decisions.set(doc.meta.id, doc);
    this.add(doc.key, doc, doc.text, DECISION, 'decision', 0);
  }

  private syncEntries(all: readonly BlackboardEntry[]): void {
    if (all === this.entryArray) {
      for (let i = this.entryCount; i < all.length; i++) this.addEntry(all[i]);
      this.entryCount = all.length;
      return;
    }
    // Read again from the start: keep what is still there, remove what went, add what is new.
    if (this.entries.size > 0) {
      const ids = new Set<string>();
      for (const entry of all) if (typeof entry.id === 'string') ids.add(entry.id);
      for (const [id, key] of this.entries) {
        if (ids.has(id)) continue;
        this.entries.delete(id);
        this.remove(key);
      }
    }
    for (const entry of all) this.addEntry(entry);
    this.entryArray = all;
    this.entryCount = all.length;
  }

  /** Indexes an entry unless one with its id is indexed already (an entry without an id cannot be opened, so it is left out). */
  private addEntry(entry: BlackboardEntry): void {
    if (typeof entry.id !== 'string' || this.entries.has(entry.id)) return;
    const key = this.nextKey++;
    this.entries.set(entry.id, key);
    this.add(key, entry, entryText(entry), entry.entry_type === 'decision' ? BLACKBOARD_DECISION : ENTRY, str(entry.entry_type), this.scopeNumber(entry.scope));
  }

  /** The filters of a search as one test of a key. */
  private acceptor(args: ParsedInputOf<'search'>): (key: number) => boolean {
    const { kinds, types: typeOf, scopeIds, scopeNames, docs } = this;
    const types = args.entry_types?.length ? new Set<string>(args.entry_types) : undefined;
    const statuses = args.status === undefined ? undefined : new Set<string>(Array.isArray(args.status) ? args.status : [args.status]);
    // Filters only decisions have leave blackboard entries out.
    const decisionsOnly = args.source === 'decisions' || statuses !== undefined || args.domain !== undefined || args.confidence !== undefined;
    const decisionsToo = args.source !== 'blackboard' && (!types || types.has('decision'));
    // Without source, each decision is found once, from its record; the blackboard's copy only with source "blackboard".
    const blackboardDecisions = args.source === 'blackboard';
    const scope = args.scope;
    // Scopes repeat (a file has many entries): each distinct one is compared once per query
    // (by number for entries: 1 in scope, 2 not, 0 not yet compared).
    const entryInScope = new Uint8Array(scope ? scopeNames.length : 0);
    const entryScopeOk = (n: number): boolean => {
      if (!scope) return true;
      if (n === 0) return false;
      if (entryInScope[n] === 0) entryInScope[n] = overlaps(scopeNames[n], scope) ? 1 : 2;
      return entryInScope[n] === 1;
    };
    return key => {
      const kind = kinds[key];
      if (kind === DECISION) {
        if (!decisionsToo) return false;
        const d = (docs[key] as DecisionDoc).meta;
        return (
          (!statuses || statuses.has(d.status)) &&
          (args.domain === undefined || d.domain === args.domain) &&
          (args.confidence === undefined || d.confidence === args.confidence) &&
          (!scope || (typeof d.scope === 'string' && overlaps(d.scope, scope)))
        );
      }
      if (kind === NONE || decisionsOnly || (kind === BLACKBOARD_DECISION && !blackboardDecisions)) return false;
      return (!types || types.has(typeOf[key])) && entryScopeOk(scopeIds[key]);
    };
  }

  /** The best matches for the query among the records the filters let through. */
  query(args: ParsedInputOf<'search'>): SearchResult {
    const limit = args.limit ?? 20;
    const { matches, total } = this.text.search(args.query, this.acceptor(args), limit);
    // The text index gives the best `limit` and all that tie with the last; ties go newest first.
    const top = matches.map(m =>
      this.kinds[m.key] === DECISION ? decisionHit(this.docs[m.key] as DecisionDoc, m.score) : entryHit(this.docs[m.key] as BlackboardEntry, m.score),
    );
    top.sort((a, b) => b.relevance - a.relevance || (a.timestamp === b.timestamp ? (a.id < b.id ? 1 : -1) : a.timestamp < b.timestamp ? 1 : -1));
    return { results: top.slice(0, limit), total_matched: total, fallback_mode: !this.text.semantic };
  }
}

function decisionHit(doc: DecisionDoc, relevance: number): DecisionHit {
  const d = doc.meta;
  return {
    kind: 'decision',
    id: d.id,
    summary: str(d.summary),
    domain: str(d.domain),
    scope: str(d.scope),
    confidence: str(d.confidence),
    status: str(d.status),
    timestamp: str(d.timestamp),
    relevance,
    commit_hashes: strs(d.commit_hashes),
    ...(doc.agent_id !== undefined ? { agent_id: doc.agent_id } : {}),
  };
}

function entryHit(e: BlackboardEntry, relevance: number): EntryHit {
  return {
    kind: 'entry',
    id: e.id,
    entry_type: str(e.entry_type),
    summary: str(e.summary),
    scope: str(e.scope),
    timestamp: str(e.timestamp),
    agent_id: str(e.agent_id),
    relevance,
    entry: e,
  };
}
