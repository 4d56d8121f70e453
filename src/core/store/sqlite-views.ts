/**
 * The `sqlite` backend of the storage interface (store/storage.ts): a twining-mcp 2.x folder's
 * records as its rows give them, held once in memory (store/two-x-state.ts) and brought up to
 * date before each read by the database's seq and data_version (store/two-x-store.ts `sync`).
 * Which row gives what follows twining-mcp (daveangulo/twining-mcp, src/storage/sqlite/
 * sqlite-stores.ts at 017a8780): the blackboard entries in seq order, each handoff's index line
 * from its `index_data`, the decision index made from the decision rows (2.x keeps no index
 * file), agents by `agent_id`, the graph's entities and relations.
 */
import { parseObject, type RefreshResult } from './jsonl';
import type { Delta, Item, StateChange, StateKind, TwoXState } from './two-x-state';
import type { TwoXStore } from './two-x-store';
import { indexEntryOf, indexLineOf } from './index-lines';
import type { ArrayKind, ArraySource, LineKind, LineSource, RecordSource, Storage, WrittenArrayKind } from './storage';
import { isRecord } from './files';
import type { StoredRecord } from './records-dir';
import type { DecisionRecord, HandoffRecord } from '../records';

/** Each view's own copy of a record (callers may change what they get before writing it back). */
const copyOf = <T>(item: Item): T => JSON.parse(item.text) as T;

/** A handoff's index line: its row's `index_data` as stored (made from the record when it has none). */
function handoffLine(item: Item): object | undefined {
  try {
    const line: unknown = JSON.parse(
      item.index ?? JSON.stringify(indexLineOf(item.value as unknown as HandoffRecord, item.value.acknowledged_by !== undefined)),
    );
    return line && typeof line === 'object' && !Array.isArray(line) ? line : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The records of one kind as a list in row order, told of each change: new records after the
 * last one are appended, anything else (a record changed or gone) makes the list again.
 */
class RowLines<T extends object> implements LineSource<T> {
  private records: T[] = [];
  /** The changes not read yet, each record added marked whether the state held none of that id before. */
  private pending: (StateChange | (Delta & { added: boolean }))[] = [];
  private fresh = true;
  private lastOrder = '';
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly state: TwoXState,
    private readonly kind: StateKind,
    private readonly line: (item: Item) => T | undefined,
    private readonly before: () => Promise<void>,
  ) {
    // Told before the state changes: a record the state did not hold is in no list read from it.
    state.listen(kind, change => this.pending.push(change === 'reset' ? change : { ...change, added: !state.of(kind).has(change.id) }));
  }

  get all(): readonly T[] {
    return this.records;
  }

  get size(): number {
    return this.records.length;
  }

  /** Moves with each read from the start (the first, and any change other than appended rows). */
  get origin(): string {
    return `rows:${this.starts}`;
  }
  private starts = 0;

  isCurrent(): Promise<boolean> {
    return Promise.resolve(!this.fresh && this.pending.length === 0);
  }

  refresh(): Promise<RefreshResult<T>> {
    const next = this.queue.then(async () => {
      await this.before();
      return this.read();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private read(): RefreshResult<T> {
    const changes = this.pending;
    this.pending = [];
    if (!this.fresh && !changes.length) return { changed: false, reloaded: false, appended: [] };
    // Appended: records new to the state (so to this list), each once, all after the last one read.
    const appendOnly = !this.fresh && changes.every(c => c !== 'reset' && c.item !== undefined && 'added' in c && c.added && c.item.order > this.lastOrder);
    const items = appendOnly ? changes.map(c => (c as { item: Item }).item).sort((a, b) => (a.order < b.order ? -1 : 1)) : this.state.sorted(this.kind);
    const lines: T[] = [];
    for (const item of items) {
      const line = this.line(item);
      if (line) lines.push(line);
    }
    if (appendOnly) for (const line of lines) this.records.push(line);
    else {
      // A list of its own: the next appended records go into it, not into the `appended` returned now.
      this.records = lines.slice();
      this.starts++;
    }
    if (items.length) this.lastOrder = items[items.length - 1].order;
    else if (!appendOnly) this.lastOrder = '';
    const first = this.fresh;
    this.fresh = false;
    // The first read of nothing is not a change (as a missing 1.x file's).
    if (first && !lines.length) return { changed: false, reloaded: false, appended: [] };
    return { changed: true, reloaded: !appendOnly, appended: lines };
  }
}

/** The `sqlite` backend over a 2.x folder's rows. */
export class SqliteStorage implements Storage {
  readonly backend = 'sqlite' as const;
  readonly handoffs: RecordSource<HandoffRecord>;
  readonly decisions: RecordSource<DecisionRecord>;
  private readonly state: TwoXState;

  constructor(private readonly twoX: TwoXStore) {
    this.state = twoX.state;
    this.handoffs = this.records<HandoffRecord>('handoffs');
    this.decisions = this.records<DecisionRecord>('decisions');
  }

  /** The rows of `kind` read (the first time) and brought up to date. */
  private sync(kind: StateKind): Promise<void> {
    return this.twoX.sync(undefined, [kind]);
  }

  lines<T extends object>(kind: LineKind): LineSource<T> {
    const line = kind === 'posts' ? (item: Item) => item.value as unknown as T : (item: Item) => handoffLine(item) as T | undefined;
    return new RowLines<T>(this.state, kind, line, () => this.sync(kind));
  }

  array(kind: ArrayKind): ArraySource {
    const rows: StateKind = kind === 'decisionIndex' ? 'decisions' : kind;
    return {
      key: async () => {
        await this.sync(rows);
        return `rows ${this.state.version(rows)}`;
      },
      read: () =>
        Promise.resolve(
          kind === 'decisionIndex'
            ? this.state.sorted('decisions').map(d => indexEntryOf(d.value))
            : this.state.sorted(rows).map(item => copyOf<unknown>(item)),
        ),
    };
  }

  /** Records by id: keyed by their row's text (a record written here is keyed by the text its row will hold). */
  private records<T>(kind: 'handoffs' | 'decisions'): RecordSource<T> {
    return {
      key: async id => {
        await this.sync(kind);
        return this.state.of(kind).get(id)?.text;
      },
      read: async id => {
        // Within a write too: every decision and handoff change is stored in the rows (and the state) at once.
        await this.sync(kind);
        const item = this.state.of(kind).get(id);
        return item && copyOf<T>(item);
      },
      written: (_id, record) => Promise.resolve(JSON.stringify(record)),
    };
  }

  /** A record as its row holds it: its JSON text, and the value that text gives (as read back). */
  private item(id: string, record: object): Item {
    const text = JSON.stringify(record);
    return { id, order: '', text, value: JSON.parse(text) as StoredRecord };
  }

  /** Each entry a new blackboard row (and its record file), stored inside the running write. */
  appendEntries(entries: readonly object[]): Promise<undefined> {
    for (const entry of entries) {
      const id = (entry as { id?: unknown }).id;
      if (typeof id !== 'string') throw new Error('a blackboard entry without an id cannot be stored in twining.db');
      this.twoX.change({ kind: 'posts', id, item: this.item(id, entry) });
    }
    return Promise.resolve(undefined);
  }

  /** The posts' rows as the 1.x blackboard's lines (their texts, in seq order), brought up to date first outside a write. */
  async blackboardText(): Promise<string> {
    await this.sync('posts');
    return this.state
      .sorted('posts')
      .map(p => p.text + '\n')
      .join('');
  }

  /**
   * The posts' rows made to hold `lines`: a post left out is deleted (with its record file), one
   * changed is rewritten in place (its seq kept), a line that is not an entry with an id is left out.
   */
  replaceEntries(lines: readonly string[]): Promise<void> {
    const rows = this.state.of('posts');
    const kept = new Set<string>();
    for (const line of lines) {
      const value = parseObject<Record<string, unknown>>(line.replace(/\r$/, ''));
      if (!value || typeof value.id !== 'string') continue;
      kept.add(value.id);
      const item = this.item(value.id, value);
      if (rows.get(value.id)?.text !== item.text) this.twoX.change({ kind: 'posts', id: value.id, item });
    }
    for (const id of [...rows.keys()]) if (!kept.has(id)) this.twoX.change({ kind: 'posts', id });
    return Promise.resolve();
  }

  /** A decision's row (and record file), new or changed, stored inside the running write. */
  writeDecision(record: { id: string }): Promise<void> {
    this.twoX.change({ kind: 'decisions', id: record.id, item: this.item(record.id, record) });
    return Promise.resolve();
  }

  /** A handoff's row (its `index_data` made from the record and the row before: store/two-x-rows.ts) and record file. */
  writeHandoff(id: string, record: HandoffRecord): Promise<void> {
    this.twoX.change({ kind: 'handoffs', id, item: this.item(id, record) });
    return Promise.resolve();
  }

  /** Nothing: a handoff's index line is its row's `index_data`, written with the record (docs/twining-2.md). */
  writeHandoffIndex(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing: the decision index is made from the decision rows (docs/twining-2.md). */
  writeDecisionIndex(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * The rows of `kind` made to hold `items`: a new or changed item upserted by its id (`agent_id`
   * for agents), a row whose id is not among them deleted. An item that is not an object with an
   * id has no row to go in, and is left out (as twining-mcp's stores keep none).
   */
  writeArray(kind: WrittenArrayKind, items: readonly unknown[]): Promise<void> {
    const key = kind === 'agents' ? 'agent_id' : 'id';
    const rows = this.state.of(kind);
    const kept = new Set<string>();
    for (const value of items) {
      const id = isRecord(value) ? value[key] : undefined;
      if (typeof id !== 'string') continue;
      kept.add(id);
      const item = this.item(id, value as object);
      if (rows.get(id)?.text !== item.text) this.twoX.change({ kind, id, item });
    }
    for (const id of [...rows.keys()]) if (!kept.has(id)) this.twoX.change({ kind, id });
    return Promise.resolve();
  }
}
