/**
 * twining-mcp 2.x's tables as the sqlite backend reads them (storage/sqlite/sqlite-records.ts DbSource): which
 * column is each table's key and order, a row as a held record, and a table read whole in one
 * query. Which row gives what follows twining-mcp (daveangulo/twining-mcp, src/storage/sqlite/
 * sqlite-stores.ts at 017a8780).
 *
 * A table read whole costs one query and one JSON parse per row, not an object and three strings
 * from node:sqlite per row (several times the parse of the same records from a 1.x JSONL file).
 * The records the last read of the same database in this process holds (an engine opened again on
 * the folder: the extension reopening it) are used again where their row is the same text at the
 * same place: the text is the row's version, so nothing changed by another process is missed, and
 * only rows that changed are parsed.
 */
import type { RecordKind, StoredRecord } from './records-dir';

export type StateKind = RecordKind | 'agents';

/** One record: its place in its list (`order` sorts as text), its JSON text as stored, its value. */
export interface Item {
  id: string;
  order: string;
  text: string;
  value: StoredRecord;
  /** A handoff row's `index_data`. */
  index?: string;
}

/** A change: the record as it now is, or undefined when it is gone. */
export interface Delta {
  kind: StateKind;
  id: string;
  item?: Item;
}

/** What the rows kept between reads are read from (storage/sqlite/sqlite-records.ts SqliteRecords). */
export interface HeldRecords {
  of(kind: StateKind): ReadonlyMap<string, Item>;
}
import type { SqliteDatabase } from './sqlite-db';

export interface Table {
  kind: StateKind;
  table: string;
  key: string;
  seq: string;
  extra?: string;
}

export const TABLES: Table[] = [
  { kind: 'posts', table: 'blackboard', key: 'id', seq: 'seq' },
  { kind: 'decisions', table: 'decisions', key: 'id', seq: 'seq' },
  { kind: 'handoffs', table: 'handoffs', key: 'id', seq: 'seq', extra: 'index_data' },
  { kind: 'relations', table: 'relations', key: 'id', seq: 'seq' },
  { kind: 'entities', table: 'entities', key: 'id', seq: 'rowid' },
  { kind: 'agents', table: 'agents', key: 'agent_id', seq: 'rowid' },
];

export const tableOf = (kind: StateKind) => TABLES.find(t => t.kind === kind)!;

/** A row's place in its table as text that sorts as its seq (rowid) does. */
export const seqOrder = (seq: number | bigint) => String(seq).padStart(16, '0');

/**
 * A record read from its row: its order is made from its seq when first asked for, since few ever
 * are (the last of a table, a row read again), rather than a string per row at every open.
 */
export class RowItem implements Item {
  index?: string;
  private made?: string;

  constructor(
    public id: string,
    readonly seq: number,
    public text: string,
    public value: StoredRecord,
  ) {}

  get order(): string {
    return (this.made ??= seqOrder(this.seq));
  }

  set order(order: string) {
    this.made = order;
  }
}

/** A record's own copy, as a plain object (`{...item}` would leave a RowItem's order behind). */
export const copyItem = (item: Item): Item => ({ id: item.id, order: item.order, text: item.text, value: item.value, index: item.index });

export const select = (t: Table) => `SELECT ${t.seq} AS s, ${t.key} AS k, data${t.extra ? `, ${t.extra} AS x` : ''} FROM ${t.table}`;

/** The JSON object a row's text holds, or undefined. */
function objectOf(text: string): StoredRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as StoredRecord) : undefined;
}

export function itemOfRow(t: Table, row: Record<string, unknown>): Item | undefined {
  const text = String(row.data);
  const value = objectOf(text);
  if (!value) return undefined;
  const item: Item = { id: String(row.k), order: seqOrder(row.s as number), text, value };
  if (t.extra) item.index = String(row.x);
  return item;
}

/** The file of the database a connection has open (its `main`). */
export function databasePath(db: SqliteDatabase): string {
  const file = db.prepare("SELECT file FROM pragma_database_list WHERE name = 'main'").get()?.file;
  return typeof file === 'string' ? file : '';
}

/** Per database file, the state that read a table of it last (at most a few files). */
const lastReads = new Map<string, HeldRecords>();
const KEPT_FILES = 4;

/** Notes `state` as the last reader of `file`. */
export function rememberRead(file: string, state: HeldRecords): void {
  if (!file) return;
  lastReads.delete(file);
  lastReads.set(file, state);
  while (lastReads.size > KEPT_FILES) lastReads.delete(lastReads.keys().next().value!);
}

/** The state that read a table of `file` last, if any. */
export function lastReader(file: string): HeldRecords | undefined {
  return lastReads.get(file);
}

/**
 * The texts of a table's rows joined on U+0001 by SQLite, as the bytes SQLite holds when they are
 * UTF-8 (SQLite's default encoding, which twining-mcp's databases keep): node:sqlite makes a JS string
 * of a TEXT value several times slower than Node decodes the same UTF-8 bytes from a buffer, and
 * a table's texts are megabytes. A database in UTF-16 gives the text as before.
 */
const TEXTS_AS_BYTES =
  "CASE WHEN (SELECT encoding FROM pragma_encoding) = 'UTF-8' THEN CAST(group_concat(data, char(1)) AS BLOB) ELSE group_concat(data, char(1)) END";

/**
 * A table's rows in one query, in seq order: each column's values joined into one string by
 * SQLite, the texts on U+0001, which a JSON text never holds unescaped (JSON escapes control characters), the keys
 * and seqs as JSON arrays. A row of `before` with the same key, text (and index) at the same seq
 * is used as it is. Undefined when the pieces do not come out one per row (a text that is not
 * JSON holds the separator) or a key cannot be put into JSON: the caller reads the rows one by one.
 */
export function readTableWhole(
  db: SqliteDatabase,
  t: Table,
  before: ReadonlyMap<string, Item> | undefined,
  unreadable: (key: unknown) => void,
): { items: Item[]; last: number } | undefined {
  const sql =
    `SELECT count(*) AS n, json_group_array(s) AS ss, json_group_array(k) AS ks, ${TEXTS_AS_BYTES} AS ds` +
    `${t.extra ? ', json_group_array(x) AS xs' : ''} FROM (${select(t)} ORDER BY ${t.seq})`;
  let row: Record<string, unknown> | undefined;
  let seqs: unknown, keys: unknown, extras: unknown;
  try {
    row = db.prepare(sql).get();
    seqs = JSON.parse(String(row?.ss));
    keys = JSON.parse(String(row?.ks));
    extras = t.extra ? JSON.parse(String(row?.xs)) : undefined;
  } catch {
    return undefined;
  }
  const n = Number(row?.n);
  if (n === 0) return { items: [], last: 0 };
  const joined = row?.ds instanceof Uint8Array ? Buffer.from(row.ds.buffer, row.ds.byteOffset, row.ds.byteLength).toString('utf8') : row?.ds;
  const texts = typeof joined === 'string' ? joined.split('\u0001') : [];
  if (!Array.isArray(seqs) || !Array.isArray(keys) || texts.length !== n || seqs.length !== n || keys.length !== n) return undefined;
  if (t.extra && (!Array.isArray(extras) || extras.length !== n)) return undefined;
  // SQLite gives an aggregate's values in the order it visits the rows, the same for every column;
  // rows out of seq order are read one by one (not seen: the subquery gives them in order).
  for (let i = 1; i < n; i++) if (!(Number(seqs[i]) > Number(seqs[i - 1]))) return undefined;
  const items: Item[] = [];
  for (let i = 0; i < n; i++) {
    const seq = Number(seqs[i]);
    const id = String(keys[i]);
    const text = texts[i];
    const index = t.extra ? String((extras as unknown[])[i]) : undefined;
    const known = before?.get(id);
    // The same seq: compared as a number (no string made for each row).
    if (known && known.text === text && known.index === index && (known instanceof RowItem ? known.seq : Number(known.order)) === seq) {
      items.push(known);
      continue;
    }
    const value = objectOf(text);
    if (!value) {
      unreadable(keys[i]);
      continue;
    }
    // A row read again alone holds its own copy of its text, not a part of this read's whole string
    // (which then goes, where the rest of the rows are the ones read before).
    const item = new RowItem(id, seq, before ? Buffer.from(text).toString() : text, value);
    if (t.extra) item.index = index;
    items.push(item);
  }
  return { items, last: Math.max(Number(seqs[n - 1]), 0) };
}

/** A table's rows one by one, in seq order (what `readTableWhole` cannot read). */
export function readTableRows(db: SqliteDatabase, t: Table, unreadable: (key: unknown) => void): { items: Item[]; last: number } {
  const items: Item[] = [];
  let last = 0;
  for (const row of db.prepare(`${select(t)} ORDER BY ${t.seq}`).all()) {
    last = Math.max(last, Number(row.s));
    const item = itemOfRow(t, row);
    if (item) items.push(item);
    else unreadable(row.k);
  }
  return { items, last };
}

/** Rows gone, and rows present that `held` lacks (a rowid used again), by their keys only. */
export function keysDiffering(db: SqliteDatabase, t: Table, held: ReadonlyMap<string, Item>): Delta[] {
  const deltas: Delta[] = [];
  const seen = new Set<string>();
  for (const row of db.prepare(`SELECT ${t.key} AS k FROM ${t.table}`).all()) {
    const id = String(row.k);
    seen.add(id);
    if (held.has(id)) continue;
    const full = db.prepare(`${select(t)} WHERE ${t.key} = ?`).get(id);
    const item = full && itemOfRow(t, full);
    if (item) deltas.push({ kind: t.kind, id, item });
  }
  for (const id of held.keys()) if (!seen.has(id)) deltas.push({ kind: t.kind, id });
  return deltas;
}

/** Every row whose text (or index) differs from what `held` has, and the rows gone. */
export function rowsDiffering(db: SqliteDatabase, t: Table, held: ReadonlyMap<string, Item>): Delta[] {
  const deltas: Delta[] = [];
  const seen = new Set<string>();
  for (const row of db.prepare(select(t)).all()) {
    const id = String(row.k);
    seen.add(id);
    const known = held.get(id);
    if (known && known.text === String(row.data) && known.index === (t.extra ? String(row.x) : undefined)) continue;
    const item = itemOfRow(t, row);
    if (item) deltas.push({ kind: t.kind, id, item });
  }
  for (const id of held.keys()) if (!seen.has(id)) deltas.push({ kind: t.kind, id });
  return deltas;
}
