/**
 * A twining-mcp 2.x folder (`twining.db` + `records/`) read and written by the engine. Its rows are
 * held in memory (`state`), which the views read through the storage interface's sqlite backend
 * (sqlite-storage.ts); `sync` brings them up to date (before each read). A write stores what the
 * operation changes through the storage interface's writes (`change`: each record's row at once,
 * its file at the commit), as twining-mcp does. Nothing is written outside `.twining/`: no copy of
 * the records is laid out anywhere, and a folder with only `records/` is read from its files (an
 * engine opened again in the same process reads only those whose stamp moved, sqlite-records.ts).
 * A write:
 *
 *  1. `BEGIN IMMEDIATE` on twining.db (SQLite's write lock, waiting up to its 5 s busy timeout), so
 *     the operation reads and writes as one step against every other writer, twining-mcp included;
 *  2. what other processes committed meanwhile is brought in, then the operation runs;
 *  3. a journal (`twining.db-twining-write-<pid>.json`) lists each record file to change (bytes
 *     before and after, its row); the record files (records-dir.ts), the rows, `COMMIT`, and the
 *     journal is removed.
 *
 * A writer killed between 3 and the commit leaves a journal: the next writable open puts back each
 * file whose row did not commit (its bytes before) and writes each one whose row did (after), so
 * the database and `records/` agree again. Without node:sqlite a folder with a database is read
 * from `records/` and not written; a folder with only `records/` (a fresh clone) gets its database
 * made from the record files at the first write, as twining-mcp's ingest does at its start.
 */
import { AsyncLocalStorage } from 'async_hooks';
import { promises as fs } from 'fs';
import * as path from 'path';
import { beginImmediate, databaseFile, hasDatabaseHeader, hasTwiningTables, openDatabase, sqliteMissingReason, SqliteDatabase } from './sqlite-db';
import { TABLE, handoffIndexData, restore, writeRow } from './sqlite-rows';
import { DbSource, Delta, Item, RecordsSource, Source, STATE_KINDS, StateKind, SqliteRecords, seqOrder } from './sqlite-records';
import { copyItem } from './sqlite-tables';
import { RecordKind, readRecordFile, recordFile, recordOfPath, recordsDir, removeRecordFile, writeRecordFile } from './records-dir';
import { recordText } from './record-text';
import { processIsAlive, writeAtomic } from '../json-files';
import { TwiningError } from '../../errors';

/** One record file a write changes: its bytes before and after, and the row text it goes with (null: none). */
interface JournalEntry {
  kind: StateKind;
  id: string;
  file?: string;
  before: string | null;
  after: string | null;
  row: string | null;
}

const JOURNAL = /^twining\.db-twining-write-(\d+)\.json$/;

/** A write running: its record file changes (journal entries) and the state before the changes it stored. */
interface WriteRun {
  entries: JournalEntry[];
  undo: Delta[];
  seqs: Map<StateKind, number>;
}

/** One journal entry per file (a record changed twice in a write): its bytes before the first change, after the last, and its last row. */
function merged(entries: JournalEntry[]): JournalEntry[] {
  const byFile = new Map<string, JournalEntry>();
  for (const e of entries) {
    const key = e.file ?? `${e.kind}/${e.id}`;
    const first = byFile.get(key);
    byFile.set(key, first ? { ...e, before: first.before } : e);
  }
  return [...byFile.values()];
}

export class SqliteFolder {
  readonly state = new SqliteRecords();
  private source?: Source;
  private db?: SqliteDatabase;
  private opened?: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inWrite = new AsyncLocalStorage<boolean>();
  private lastScan = 0;

  constructor(
    /** The project's `.twining/`. */
    readonly dir: string,
    private readonly warn: (m: string) => void,
    private readonly readOnly: boolean,
  ) {}

  /** Whether a writing operation runs now (in this async context). */
  get writing(): boolean {
    return this.inWrite.getStore() === true;
  }

  /** Where the records are read from now: `database` or `records` (undefined before the first read). */
  get readsFrom(): 'database' | 'records' | undefined {
    return this.source ? (this.source.hasAgents ? 'database' : 'records') : undefined;
  }

  /** Why the agents cannot be listed here (they live only in twining.db), or undefined. */
  agentsUnavailable(): string | undefined {
    if (!this.source || this.source.hasAgents) return undefined;
    const why = hasDatabaseHeader(databaseFile(this.dir))
      ? (sqliteMissingReason() ?? 'twining.db could not be opened')
      : 'it has no twining.db (a fresh clone: the database is not committed)';
    return `${this.dir} keeps its agents only in twining-mcp 2.x's twining.db, which is not read here because ${why}; the other records are read from records/`;
  }

  /** Why this process does not write to the folder, or undefined. */
  writeRefusal(): string | undefined {
    const missing = sqliteMissingReason();
    if (missing)
      return `${this.dir} is in twining-mcp 2.x's SQLite layout and ${missing}; nothing was written (run Twining on Node 22.13 or later, or write through twining-mcp)`;
    return undefined;
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Brings the records held in memory up to date. `paths` (a watcher's report: absolute, or project-relative with
   * `/`) name record files to look at; without them the database's counters (or the records
   * folders' stats, at most every 500 ms) say whether anything changed.
   */
  sync(paths?: readonly string[], kinds: readonly StateKind[] = []): Promise<void> {
    if (this.inWrite.getStore()) return Promise.resolve();
    return this.enqueue(() => this.pull(paths, kinds));
  }

  private async open(): Promise<void> {
    this.opened ??= (async () => {
      if (!sqliteMissingReason() && hasDatabaseHeader(databaseFile(this.dir))) {
        try {
          this.db = openDatabase(this.dir, { readOnly: this.readOnly });
          if (!hasTwiningTables(this.db)) {
            if (this.readOnly) throw new Error("it has none of twining-mcp's tables");
            this.db.close();
            this.db = openDatabase(this.dir, { create: true });
          }
          if (!this.readOnly) await this.recover();
        } catch (error) {
          this.db?.close();
          this.db = undefined;
          this.warn(`${databaseFile(this.dir)} could not be opened (${(error as Error).message}); reading records/ instead`);
        }
      }
      this.source = this.db ? new DbSource(this.db, this.warn) : new RecordsSource(this.dir, this.warn);
    })();
    return this.opened;
  }

  /**
   * Loads the tables of `kinds` not read yet (a view reads only its own: `twining why` reads no
   * post), then brings every table read so far up to date.
   */
  private async pull(paths?: readonly string[], kinds: readonly StateKind[] = STATE_KINDS): Promise<void> {
    await this.open();
    await this.source!.load(this.state, kinds);
    const hints = paths?.map(p => recordOfPath(p)).filter((h): h is { kind: RecordKind; id: string } => h !== undefined);
    if (!this.db && !hints?.length) {
      // records/ without hints: the folders' stats, at most twice a second.
      if (Date.now() - this.lastScan < 500) return;
      this.lastScan = Date.now();
    }
    if (this.db && !this.readOnly && hints?.length && paths) await this.ingest(paths);
    await this.source!.poll(this.state, hints?.length ? hints : undefined);
  }

  /**
   * Record files reported changed (a `git pull`, another clone's export) that differ from their
   * rows: the files win, as in twining-mcp's ingest (src/storage/sync/record-ingest.ts): a missing
   * or different row is written from the file, and the row of a file that is gone is deleted.
   */
  private async ingest(paths: readonly string[]): Promise<void> {
    const db = this.db!;
    const changes: Delta[] = [];
    for (const file of paths) {
      const hint = recordOfPath(file);
      if (!hint || !path.isAbsolute(file) || !file.startsWith(recordsDir(this.dir) + path.sep)) continue;
      const value = await readRecordFile(file, hint.id).catch(() => null);
      if (value === null) continue; // unreadable (being written): the next report has it
      const row = db.prepare(`SELECT data FROM ${TABLE[hint.kind]} WHERE id = ?`).get(hint.id);
      if (value === undefined) {
        if (row && (hint.kind !== 'posts' || recordFile(this.dir, 'posts', JSON.parse(String(row.data)) as { id: string }) === file))
          changes.push({ kind: hint.kind, id: hint.id });
        continue;
      }
      if (row && recordText(JSON.parse(String(row.data))) === recordText(value)) continue;
      const known = this.state.of(hint.kind).get(hint.id);
      const item: Item = { id: hint.id, order: known?.order ?? '', text: JSON.stringify(value), value };
      if (hint.kind === 'handoffs') item.index = handoffIndexData(item, known);
      changes.push({ kind: hint.kind, id: hint.id, item });
    }
    if (!changes.length) return;
    await beginImmediate(db);
    try {
      for (const d of changes) writeRow(db, d);
      db.exec('COMMIT;');
    } catch (error) {
      db.exec('ROLLBACK;');
      this.warn(`records/ files could not be brought into twining.db: ${(error as Error).message}`);
    }
  }

  /** The write running now. */
  private current?: WriteRun;

  /**
   * Stores one change of the running write directly, as twining-mcp's stores do: its row now,
   * inside the write's transaction (a new record gets its seq), its record file at the commit
   * (after the journal), and the state now, so that the rest of the operation reads it.
   */
  change(d: Delta): void {
    const w = this.current;
    if (!w || !this.inWrite.getStore()) throw new Error(`a ${d.kind} record of ${this.dir} was written outside a write`);
    const before = this.state.of(d.kind).get(d.id);
    w.entries.push(...this.plan([d]));
    this.storeRow(this.db!, d);
    w.undo.push({ kind: d.kind, id: d.id, item: before });
    this.state.apply(d);
  }

  /**
   * Runs a writing operation inside one database write transaction: its steps store their records
   * through the storage interface (`change`), and a write inside the running one is part of it.
   */
  write<T>(work: () => Promise<T>): Promise<T> {
    if (this.inWrite.getStore()) return work();
    return this.enqueue(async () => {
      const refusal = this.writeRefusal();
      if (refusal) throw new TwiningError('INVALID_INPUT', refusal);
      await this.open().catch(() => undefined);
      await this.opened;
      if (!this.db) await this.createDatabase();
      const db = this.db!;
      await beginImmediate(db);
      let journal: string | undefined;
      let entries: JournalEntry[] = [];
      let committed = false;
      const w: WriteRun = { entries: [], undo: [], seqs: (this.source as DbSource).seqs() };
      this.current = w;
      try {
        await this.pull();
        const result = await this.inWrite.run(true, work);
        entries = merged(w.entries);
        if (entries.length) {
          journal = path.join(this.dir, `twining.db-twining-write-${process.pid}.json`);
          await writeAtomic(journal, JSON.stringify(entries));
          for (const e of entries) {
            if (!e.file) continue;
            if (e.after === null) await removeRecordFile(e.file);
            else await writeRecordFile(e.file, JSON.parse(e.after));
          }
        }
        db.exec('COMMIT;');
        committed = true;
        this.current = undefined;
        if (journal) await fs.rm(journal, { force: true });
        return result;
      } catch (error) {
        this.current = undefined;
        if (!committed) {
          try {
            db.exec('ROLLBACK;');
          } catch {
            // the connection's state is unknown; the error that stopped the write matters more
          }
          for (const e of entries) if (e.file) await restore(e.file, e.before).catch(() => undefined);
          if (journal) await fs.rm(journal, { force: true }).catch(() => undefined);
          // The changes stored are undone in the state too (last first), and the seqs they took freed.
          for (const d of w.undo.reverse()) this.state.apply(d);
          (this.source as DbSource).restoreSeqs(w.seqs);
        }
        throw error;
      }
    });
  }

  /** The record files a set of deltas changes (journal entries), with the row each goes with. */
  private plan(deltas: Delta[]): JournalEntry[] {
    const entries: JournalEntry[] = [];
    for (const d of deltas) {
      const before = this.state.of(d.kind).get(d.id);
      if (d.item && d.kind === 'handoffs') d.item.index = handoffIndexData(d.item, before);
      const row = d.item ? d.item.text : null;
      if (d.kind === 'agents') {
        entries.push({ kind: d.kind, id: d.id, before: null, after: null, row });
        continue;
      }
      const oldFile = before ? recordFile(this.dir, d.kind, before.value) : undefined;
      const newFile = d.item ? recordFile(this.dir, d.kind, d.item.value) : undefined;
      if (oldFile && oldFile !== newFile) entries.push({ kind: d.kind, id: d.id, file: oldFile, before: recordText(before!.value), after: null, row });
      if (newFile)
        entries.push({
          kind: d.kind,
          id: d.id,
          file: newFile,
          before: before && oldFile === newFile ? recordText(before.value) : null,
          after: recordText(d.item!.value),
          row,
        });
    }
    return entries;
  }

  /** Stores one delta's row and gives a new record its place (its seq). */
  private storeRow(db: SqliteDatabase, d: Delta): void {
    writeRow(db, d);
    if (!d.item) return;
    const known = this.state.of(d.kind).get(d.id);
    if (known) d.item.order = known.order;
    else {
      const key = d.kind === 'agents' ? 'agent_id' : 'id';
      const seqColumn = d.kind === 'entities' || d.kind === 'agents' ? 'rowid' : 'seq';
      const seq = Number(db.prepare(`SELECT ${seqColumn} AS s FROM ${TABLE[d.kind]} WHERE ${key} = ?`).get(d.id)?.s ?? 0);
      d.item.order = seqOrder(seq);
      (this.source as DbSource).noteOwn(d.kind, seq);
    }
  }

  /**
   * A folder with records/ and no database (a fresh clone), at its first write: the database is
   * made and filled from the record files in one transaction, as twining-mcp's ingest does.
   */
  private async createDatabase(): Promise<void> {
    const db = openDatabase(this.dir, { create: true });
    await beginImmediate(db);
    try {
      for (const kind of ['posts', 'decisions', 'handoffs', 'entities', 'relations'] as const) {
        for (const item of this.state.sorted(kind)) {
          const copy = copyItem(item);
          if (kind === 'handoffs') copy.index = handoffIndexData(copy, undefined);
          writeRow(db, { kind, id: copy.id, item: copy });
        }
      }
      db.exec('COMMIT;');
    } catch (error) {
      db.exec('ROLLBACK;');
      db.close();
      throw error;
    }
    this.db = db;
    this.source = new DbSource(db, this.warn);
    this.state.clear();
    await this.source.load(this.state, STATE_KINDS);
  }

  /** Puts the record files of writes killed before or after their commit in agreement with the rows (see the file's comment). */
  private async recover(): Promise<void> {
    for (const name of await fs.readdir(this.dir).catch(() => [] as string[])) {
      const m = JOURNAL.exec(name);
      if (!m || Number(m[1]) === process.pid || processIsAlive(Number(m[1]))) continue;
      const file = path.join(this.dir, name);
      let entries: JournalEntry[] = [];
      try {
        entries = JSON.parse(await fs.readFile(file, 'utf8')) as JournalEntry[];
      } catch {
        entries = [];
      }
      let put = 0;
      for (const e of entries) {
        if (!e.file) continue;
        const row = this.db!.prepare(`SELECT data FROM ${TABLE[e.kind]} WHERE ${e.kind === 'agents' ? 'agent_id' : 'id'} = ?`).get(e.id);
        const committed = (row ? String(row.data) : null) === e.row;
        await restore(e.file, committed ? e.after : e.before);
        put++;
      }
      await fs.rm(file, { force: true });
      this.warn(`a write to ${this.dir} was interrupted (process ${m[1]}): ${put} record file(s) under records/ were put back in agreement with twining.db`);
    }
  }

  /** Closes the database. */
  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}
