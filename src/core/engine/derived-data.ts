/**
 * What the engine works out from a folder's record and keeps between operations, in one place:
 * the folder's store owns it (FolderStore.derived), and `DERIVED` below says what each value is
 * derived from. A value is cached with the version stamp of its source when it was made
 * (storage/version-stamp.ts is the one definition of "this file changed"; the store re-reads a file
 * when its stamp moves, and the source's stamp here moves with that read); asked for again after the
 * stamp moved, it is made again. Nothing here reads a file: the callers read (refresh, `get()`)
 * first, as they must to answer at all.
 *
 * The hook index (storage/derived/hook-index.ts) and the SessionStart briefing cache (storage/derived/briefing-cache.ts)
 * are derived too, but on disk, for processes that never load the engine: they keep the same
 * version stamps of the files they were made from in their own files.
 */
import type { DecisionIndexEntry } from '../records';

/**
 * The sources a derived value is cached by:
 *  - `blackboard`: blackboard.jsonl as last read from its start. Appended lines leave the stamp as
 *    it is (each value extends itself with them); a rewrite (dismiss, archive, another writer)
 *    moves it.
 *  - `decisions`: decisions/index.json as last parsed (its version stamp).
 *  - `records`: decision records, each cached by its own index entry (every writer rewrites a
 *    decision's index entry with its record): the value checks each record itself, and is never
 *    dropped whole.
 */
export type DerivedSource = 'blackboard' | 'decisions' | 'records';

/** Every value derived from the record and cached, by name, with its source and who makes it. */
export const DERIVED = {
  /** Per entry: kind, time, token costs, project relevance, resolved (operations/assemble-candidates.ts). */
  'entry facts': 'blackboard',
  /** Open questions by scope (operations/assemble-candidates.ts). */
  'questions by scope': 'blackboard',
  /** Entry positions by timestamp, for "changed since" (operations/entries-by-time.ts). */
  'entries by time': 'blackboard',
  /** The paths each decision names, for the decisions touching a scope (rules/decision-paths.ts). */
  'decision paths': 'decisions',
  /** Index entries by id. */
  'decisions by id': 'decisions',
  /** Each index entry's fields as one string: a cached record is valid while its entry's is the same (operations/decision-record-cache.ts). */
  'decision entry keys': 'decisions',
  /** Index entries ordered by timestamp (operations/entries-by-time.ts). */
  'decisions by time': 'decisions',
  /** Active decisions oldest first (operations/verify-ops.ts). */
  'active decisions by time': 'decisions',
  /** The latest decision timestamp (operations/assemble-ops.ts). */
  'newest decision time': 'decisions',
  /** Per scope: a briefing's decisions, reasons, times and relevance (operations/assemble-decisions.ts). */
  'decisions in scope': 'decisions',
  /** Per scope: the decisions the Context view lists (operations/scope-context-ops.ts). */
  'decisions affecting scope': 'decisions',
  /** Per scope: the active decisions a handoff's snapshot takes (operations/handoff-ops.ts). */
  'active decisions in scope': 'decisions',
  /** Each decision's record as last read (operations/decision-record-cache.ts). */
  'decision records': 'records',
  /** Each decision's `depends_on`, written once with the decision (operations/trace-ops.ts). */
  'decision dependencies': 'records',
  /** Every indexed decision as a trace follows it, once every record's `depends_on` is known (operations/trace-ops.ts). */
  'decision trace view': 'decisions',
  /** Supersessions and the handoffs whose snapshot names a decision (operations/decision-relations.ts). */
  'decision relations': 'records',
} as const satisfies Record<string, DerivedSource>;

export type DerivedName = keyof typeof DERIVED;

/** How many values of one per-scope name are cached for one stamp (one per scope asked about). */
const PER_NAME = 64;

interface Slot {
  stamp: string;
  values: Map<string, unknown>;
}

export class DerivedData {
  private readonly slots = new Map<DerivedName, Slot>();
  /** How many values were made (tests and benchmarks look at it). */
  made = 0;

  /**
   * `stampOf(source)`: the current stamp of a source, from the store's loaded files (no file is
   * read); `decisions()`: the decision index as last read.
   */
  constructor(
    private readonly stampOf: (source: DerivedSource) => string,
    private readonly decisions: () => readonly DecisionIndexEntry[] = () => [],
  ) {}

  /** A value derived from the decision index as last read (`decisionIndex.get()` first), made again when its stamp moves. */
  fromDecisions<R>(name: DerivedName, compute: (items: readonly DecisionIndexEntry[]) => R, part?: string): R {
    return this.of(name, () => compute(this.decisions()), part);
  }

  /**
   * The value `name` (for `part`, a scope, when the name has one per scope), made by `make` when
   * there is none or its source's stamp moved since it was made.
   */
  of<T>(name: DerivedName, make: () => T, part = ''): T {
    const stamp = this.stampOf(DERIVED[name]);
    let slot = this.slots.get(name);
    if (!slot || slot.stamp !== stamp || (slot.values.size >= PER_NAME && !slot.values.has(part))) this.slots.set(name, (slot = { stamp, values: new Map() }));
    if (slot.values.has(part)) return slot.values.get(part) as T;
    const value = make();
    this.made++;
    slot.values.set(part, value);
    return value;
  }

  /** The value `name` (of `part`) if one is cached for its source's current stamp; nothing is made. */
  peek<T>(name: DerivedName, part = ''): T | undefined {
    const slot = this.slots.get(name);
    return slot && slot.stamp === this.stampOf(DERIVED[name]) ? (slot.values.get(part) as T | undefined) : undefined;
  }

  /** Forgets every value (tests; a store that knows its view was replaced). */
  clear(): void {
    this.slots.clear();
  }
}
