/**
 * The records of a twining-mcp 2.x folder held in memory, by kind and id, and the two places they
 * are read from: `twining.db` (DbSource) or, without a database or without node:sqlite, the files
 * under `records/` (RecordsSource). A source says what changed since it last looked as deltas,
 * without reading the history again: new rows by their `seq` (rowid), removed rows by a table's
 * count and then its keys alone, rows changed in place by the record files named (a watcher's
 * report) or, when none were named, by a table's byte total moving (agents and entities: their
 * rows compared); record files by their folders' and their own stats.
 */
import * as path from 'path';
import { dataVersion, SqliteDatabase } from './sqlite-db';
import {
  TABLES,
  databasePath,
  itemOfRow,
  keysDiffering,
  lastReader,
  readTableRows,
  readTableWhole,
  rememberRead,
  rowsDiffering,
  select,
  seqOrder,
  tableOf,
} from './sqlite-tables';
import type { Delta, HeldRecords, Item, StateKind } from './sqlite-tables';
import { FileSeen, RECORD_KINDS, RecordKind, kindDir, listFolder, listKind, readRecordFile, readRecordFileSync, recordFile } from './records-dir';
import { promises as fs } from 'fs';
import { mapChunked } from '../parallel-io';
import { stampOf } from '../version-stamp';

export const STATE_KINDS: readonly StateKind[] = [...RECORD_KINDS, 'agents'];
export type { StateKind, Item, Delta };

/** What a view of one kind is told (storage/sqlite/sqlite-storage.ts): a change, or `reset` (every record read again). */
export type StateChange = Delta | 'reset';

export class SqliteRecords {
  readonly kinds = new Map<StateKind, Map<string, Item>>([...RECORD_KINDS, 'agents' as const].map(k => [k, new Map<string, Item>()]));
  /** Per kind: byte total of the texts (a table's fingerprint with the count), once asked for (`byteTotal`). */
  private readonly bytes = new Map<StateKind, number>();
  /** Per kind: how often it changed (the key the sqlite backend's array views are read again by). */
  private readonly changes = new Map<StateKind, number>();
  private readonly listeners = new Map<StateKind, ((change: StateChange) => void)[]>();

  of(kind: StateKind): Map<string, Item> {
    return this.kinds.get(kind)!;
  }

  /** How often `kind` changed since this state was made. */
  version(kind: StateKind): number {
    return this.changes.get(kind) ?? 0;
  }

  /** Calls `listener` with every change of `kind` from now on. */
  listen(kind: StateKind, listener: (change: StateChange) => void): void {
    this.listeners.set(kind, [...(this.listeners.get(kind) ?? []), listener]);
  }

  /** Forgets every record (they are read again): the views of every kind start over. */
  clear(): void {
    this.inOrder.clear();
    for (const [kind, map] of this.kinds) {
      map.clear();
      this.lastOrder.set(kind, '');
      this.changes.set(kind, this.version(kind) + 1);
      for (const listener of this.listeners.get(kind) ?? []) listener('reset');
    }
    this.bytes.clear();
  }

  apply(delta: Delta): void {
    this.inOrder.delete(delta.kind);
    this.changes.set(delta.kind, this.version(delta.kind) + 1);
    for (const listener of this.listeners.get(delta.kind) ?? []) listener(delta);
    const map = this.of(delta.kind);
    const before = map.get(delta.id);
    let total = this.bytes.get(delta.kind);
    if (before && total !== undefined) total -= Buffer.byteLength(before.text);
    if (delta.item) {
      this.keepOrder(delta.kind, before, delta.item);
      map.set(delta.id, delta.item);
      if (total !== undefined) total += Buffer.byteLength(delta.item.text);
    } else map.delete(delta.id);
    if (total !== undefined) this.bytes.set(delta.kind, total);
  }

  /** The byte total of a kind's texts (UTF-8), counted the first time it is asked for and then kept. */
  byteTotal(kind: StateKind): number {
    let total = this.bytes.get(kind);
    if (total === undefined) {
      total = 0;
      for (const item of this.of(kind).values()) total += Buffer.byteLength(item.text);
      this.bytes.set(kind, total);
    }
    return total;
  }

  /**
   * The records of a kind read whole (DbSource), in their order, into a state that holds none of
   * them: one change for the views of the kind, which read them from the start.
   */
  loadAll(kind: StateKind, items: readonly Item[]): void {
    const map = this.of(kind);
    if (map.size) {
      for (const item of items) this.apply({ kind, id: item.id, item });
      return;
    }
    for (const item of items) map.set(item.id, item);
    // Read whole in their order, each id once: the list `sorted` gives until the next change.
    if (map.size === items.length) this.inOrder.set(kind, items);
    if (items.length) this.lastOrder.set(kind, items[items.length - 1].order);
    this.bytes.delete(kind);
    this.changes.set(kind, this.version(kind) + 1);
    for (const listener of this.listeners.get(kind) ?? []) listener('reset');
  }

  /**
   * Per kind, the order of the record last added, while the map's own order (insertion) is the
   * records' order; a kind missing here has to be sorted (`sorted`).
   */
  private readonly lastOrder = new Map<StateKind, string>([...RECORD_KINDS, 'agents' as const].map(k => [k, '']));

  private keepOrder(kind: StateKind, before: Item | undefined, item: Item): void {
    const last = this.lastOrder.get(kind);
    if (last === undefined) return;
    // A record already held keeps its place in the map: in order while its own order stays.
    if (before ? before.order !== item.order : item.order < last) this.lastOrder.delete(kind);
    else if (!before) this.lastOrder.set(kind, item.order);
  }

  /** Per kind, its items in their order as `sorted` last gave them, until the kind changes. */
  private readonly inOrder = new Map<StateKind, readonly Item[]>();

  /** The items of a kind in their order (one list, kept until the kind changes: not to be changed). */
  sorted(kind: StateKind): readonly Item[] {
    let items = this.inOrder.get(kind);
    if (!items) {
      const all = [...this.of(kind).values()];
      items = this.lastOrder.has(kind) ? all : all.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
      this.inOrder.set(kind, items);
    }
    return items;
  }
}

/** Where a source's records come from, and what it cannot give. */
export interface Source {
  /** Whether agents are known (they live only in the database). */
  readonly hasAgents: boolean;
  /** Reads the records of `kinds` not read yet (records/: every kind at the first call). */
  load(state: SqliteRecords, kinds: readonly StateKind[]): Promise<void>;
  /** What changed since the last look; `hints` name record files reported changed (then only those are looked at besides new rows). */
  poll(state: SqliteRecords, hints?: readonly { kind: RecordKind; id: string }[]): Promise<Delta[]>;
}

export { seqOrder };
/** Order of a record without a row (read from its file): after every row, by time then id. */
export const fileOrder = (value: Record<string, unknown>) => {
  const at = value.timestamp ?? value.created_at;
  return `~${typeof at === 'string' ? at : ''}\u0000${String(value.id)}`;
};

/**
 * The tables whose rows twining-mcp rewrites in place at the same length: an agent's `last_active`
 * renewed by every touch, an entity's `updated_at` when it is added again with the properties it
 * has (docs/twining-2.md §The database). A byte total cannot see those; the tables are small (a row
 * per agent, per entity), so their rows are compared when another connection committed and no
 * record file was named (agents have none: always).
 */
const SAME_LENGTH_UPDATES: ReadonlySet<StateKind> = new Set(['agents', 'entities']);

/** twining.db as the source: rows in seq order; what changed found by seq, data_version and fingerprints. */
export class DbSource implements Source {
  readonly hasAgents = true;
  private version = -1;
  private lastSeq = new Map<StateKind, number>();

  constructor(
    readonly db: SqliteDatabase,
    private readonly warn: (m: string) => void,
  ) {}

  /** The tables read so far: only they are polled. */
  private readonly loaded = new Set<StateKind>();
  /** The database's file, and the state that read it last in this process when this one first did (sqlite-tables.ts). */
  private file?: string;
  private before?: HeldRecords;

  load(state: SqliteRecords, kinds: readonly StateKind[]): Promise<void> {
    // Before the rows: a commit while they are read is looked for again by the next poll.
    if (this.version === -1) this.version = dataVersion(this.db);
    if (this.file === undefined) {
      this.file = databasePath(this.db);
      this.before = lastReader(this.file);
    }
    for (const t of TABLES) {
      if (!kinds.includes(t.kind) || this.loaded.has(t.kind)) continue;
      this.loaded.add(t.kind);
      // The table whole, the rows the state read before holds used again where they are the same (sqlite-tables.ts).
      const unreadable = (key: unknown) => this.warn(`twining.db: the ${t.table} row ${String(key)} does not hold a JSON object; it is not shown`);
      const before = this.before !== state ? this.before?.of(t.kind) : undefined;
      const read = readTableWhole(this.db, t, before, unreadable) ?? readTableRows(this.db, t, unreadable);
      state.loadAll(t.kind, read.items);
      this.lastSeq.set(t.kind, read.last);
      rememberRead(this.file, state);
    }
    // Every table read: the state read before is not needed any more.
    if (this.loaded.size === TABLES.length) this.before = undefined;
    return Promise.resolve();
  }

  /** The rows written by this process (seq known, nothing to look for again). */
  noteOwn(kind: StateKind, seq: number): void {
    if (seq > (this.lastSeq.get(kind) ?? 0)) this.lastSeq.set(kind, seq);
  }

  /** The last seq seen of each table (`restoreSeqs` puts them back when a write is rolled back: its seqs are used again). */
  seqs(): Map<StateKind, number> {
    return new Map(this.lastSeq);
  }

  restoreSeqs(seqs: Map<StateKind, number>): void {
    this.lastSeq = new Map(seqs);
  }

  /** data_version after this process's own commit (its own writes are already in the state). */
  noteCommitted(): void {
    this.version = dataVersion(this.db);
  }

  poll(state: SqliteRecords, hints?: readonly { kind: RecordKind; id: string }[]): Promise<Delta[]> {
    const version = dataVersion(this.db);
    const deltas: Delta[] = [];
    const push = (d: Delta) => {
      state.apply(d);
      deltas.push(d);
    };
    for (const hint of hints ?? []) {
      if (!this.loaded.has(hint.kind)) continue;
      const t = tableOf(hint.kind);
      const row = this.db.prepare(`${select(t)} WHERE ${t.key} = ?`).get(hint.id);
      const known = state.of(t.kind).get(hint.id);
      if (!row) {
        if (known) push({ kind: t.kind, id: hint.id });
        continue;
      }
      if (known?.text === String(row.data) && known.index === (t.extra ? String(row.x) : undefined)) continue;
      const item = itemOfRow(t, row);
      if (item) push({ kind: t.kind, id: item.id, item });
    }
    if (version === this.version) return Promise.resolve(deltas);
    this.version = version;
    // twining-mcp writes a record's file after its row commits (docs/twining-2.md §Record files): when the watcher
    // named record files, a row updated in place is among them (or in a later report).
    const filesNamed = hints !== undefined && hints.length > 0;
    for (const t of TABLES) {
      if (!this.loaded.has(t.kind)) continue;
      // New rows: past the last seq (rowid for entities and agents) seen, read alone.
      for (const row of this.db.prepare(`${select(t)} WHERE ${t.seq} > ? ORDER BY ${t.seq}`).all(this.lastSeq.get(t.kind) ?? 0)) {
        this.lastSeq.set(t.kind, Math.max(this.lastSeq.get(t.kind) ?? 0, Number(row.s)));
        const known = state.of(t.kind).get(String(row.k));
        // The same text under a new seq (removed and inserted again) moved in the order: a change.
        if (known?.text === String(row.data) && known.index === (t.extra ? String(row.x) : undefined) && known.order === seqOrder(row.s as number)) continue;
        const item = itemOfRow(t, row);
        if (item) push({ kind: t.kind, id: item.id, item });
      }
      // Removed rows (or a rowid used again): the count differs; the keys alone say which.
      if (Number(this.db.prepare(`SELECT count(*) AS n FROM ${t.table}`).get()?.n) !== state.of(t.kind).size)
        for (const d of keysDiffering(this.db, t, state.of(t.kind))) push(d);
      if (filesNamed && t.kind !== 'agents') continue;
      // Updates keep their seq and no record file was named (agents have none). The tables twining-mcp
      // rewrites at the same length are compared row by row; for the others the byte total tells
      // whether to (docs/twining-2.md §How Twining reads and writes a 2.x folder).
      if (!SAME_LENGTH_UPDATES.has(t.kind)) {
        const bytes = this.db.prepare(`SELECT total(length(CAST(data AS BLOB))) AS b FROM ${t.table}`).get();
        if (Number(bytes?.b) === state.byteTotal(t.kind)) continue;
      }
      for (const d of rowsDiffering(this.db, t, state.of(t.kind))) push(d);
    }
    return Promise.resolve(deltas);
  }
}

/**
 * Per `.twining/` folder read from `records/`, each record file the last load in this process read:
 * its version stamp then (version-stamp.ts) and the record it gave. An engine opened again on the
 * folder (the extension reopening it) reads again only the files whose stamp moved; nothing of it is
 * kept outside the process. At most a few folders.
 */
const lastRecordsReads = new Map<string, Map<string, { key: string; item: Item }>>();
const KEPT_FOLDERS = 4;

/** `records/` as the source (a fresh clone, or a runtime without node:sqlite): no agents. */
export class RecordsSource implements Source {
  readonly hasAgents = false;
  private files = new Map<RecordKind, Map<string, FileSeen>>();
  private dirKeys = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly warn: (m: string) => void,
  ) {}

  private loaded = false;

  async load(state: SqliteRecords): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    const before = lastRecordsReads.get(this.dir);
    const read = new Map<string, { key: string; item: Item }>();
    for (const kind of RECORD_KINDS) {
      const seen = await listKind(this.dir, kind, this.dirKeys);
      this.files.set(kind, seen);
      // Many files read at once, applied in the listing's order (the same state as one after another):
      // a file the last load read with the same stamp gives the same record; the others are read a
      // chunk at a time, synchronously (several times faster than through promises), and through
      // `read` (which says why) when that fails.
      const items = await mapChunked([...seen], ([id, f]): Item | [string, FileSeen] => {
        const known = before?.get(f.file);
        if (known && known.key === f.key && known.item.id === id) {
          read.set(f.file, known);
          return known.item;
        }
        const value = readRecordFileSync(f.file, id);
        if (!value) return [id, f];
        const item = { id, order: fileOrder(value), text: JSON.stringify(value), value };
        read.set(f.file, { key: f.key, item });
        return item;
      });
      for (const got of items) {
        const item = Array.isArray(got) ? await this.read(got[1].file, got[0]) : got;
        if (item) state.apply({ kind, id: item.id, item });
      }
    }
    lastRecordsReads.delete(this.dir);
    lastRecordsReads.set(this.dir, read);
    while (lastRecordsReads.size > KEPT_FOLDERS) lastRecordsReads.delete(lastRecordsReads.keys().next().value!);
    const posts = kindDir(this.dir, 'posts');
    const st = await fs.stat(posts).catch(() => undefined);
    if (st) this.dirKeys.set(posts, stampOf(st));
  }

  private async read(file: string, id: string): Promise<Item | undefined> {
    try {
      const value = await readRecordFile(file, id);
      return value && { id, order: fileOrder(value), text: JSON.stringify(value), value };
    } catch (error) {
      this.warn((error as Error).message);
      return undefined;
    }
  }

  async poll(state: SqliteRecords, hints?: readonly { kind: RecordKind; id: string }[]): Promise<Delta[]> {
    const deltas: Delta[] = [];
    const look = async (kind: RecordKind, id: string, file: string | undefined) => {
      const known = this.files.get(kind)!;
      const st = file ? await fs.stat(file).catch(() => undefined) : undefined;
      if (!file || !st?.isFile()) {
        known.delete(id);
        if (state.of(kind).has(id)) deltas.push({ kind, id });
        return;
      }
      if (known.get(id)?.key === stampOf(st)) return;
      known.set(id, { file, key: stampOf(st) });
      const item = await this.read(file, id);
      if (item && item.text !== state.of(kind).get(id)?.text) deltas.push({ kind, id, item });
    };
    if (hints) {
      for (const { kind, id } of hints) {
        const current = state.of(kind).get(id);
        const file =
          kind === 'posts' ? (current ? recordFile(this.dir, kind, current.value) : this.files.get(kind)?.get(id)?.file) : recordFile(this.dir, kind, { id });
        if (kind === 'posts' && !file) {
          // A new post's month folder is not known from its id: look at the folders that changed.
          return this.poll(state);
        }
        await look(kind, id, file);
      }
    } else {
      for (const kind of RECORD_KINDS) {
        const base = kindDir(this.dir, kind);
        const folders = kind === 'posts' ? (await fs.readdir(base).catch(() => [] as string[])).map(m => path.join(base, m)) : [base];
        const known = this.files.get(kind)!;
        const knownFolders = new Set([...known.values()].map(f => path.dirname(f.file)));
        for (const folder of new Set([...folders, ...knownFolders])) {
          const st = await fs.stat(folder).catch(() => undefined);
          const key = st ? stampOf(st) : 'missing';
          if (this.dirKeys.get(folder) === key) continue;
          const now = new Map<string, FileSeen>();
          await listFolder(folder, now, this.dirKeys);
          if (!st) this.dirKeys.delete(folder);
          for (const [id, f] of known) if (path.dirname(f.file) === folder && !now.has(id)) await look(kind, id, undefined);
          for (const [id, f] of now) await look(kind, id, f.file);
        }
      }
    }
    for (const d of deltas) state.apply(d);
    return deltas;
  }
}
