/**
 * twining-mcp 2.x's database, `.twining/twining.db`, opened with the runtime's built-in
 * `node:sqlite` (Node 22.13 and later; absent under Node 20). The schema, the pragmas and the write
 * transaction are twining-mcp's (daveangulo/twining-mcp, src/storage/sqlite/db.ts at 099a37c1):
 * `journal_mode = WAL`, `busy_timeout = 5000`, `PRAGMA user_version` 1, and every read-modify-write
 * inside `BEGIN IMMEDIATE … COMMIT`, which takes SQLite's write lock up front (waiting up to the busy
 * timeout), so two processes never interleave their reads and writes.
 */
import { statSync } from 'fs';
import * as path from 'path';
import { readHeadSync } from '../read-file';
import { identityOf } from '../version-stamp';

/** The part of node:sqlite's DatabaseSync this module uses (typed here: @types/node 20 has none). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
}
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}
type DatabaseSyncClass = new (file: string, options?: { readOnly?: boolean }) => SqliteDatabase;

/** twining-mcp's schema version that this module writes into a database it creates. */
export const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS blackboard (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, entry_type TEXT NOT NULL, scope TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS idx_blackboard_type ON blackboard(entry_type);
CREATE INDEX IF NOT EXISTS idx_blackboard_ts ON blackboard(timestamp);
CREATE TABLE IF NOT EXISTS decisions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, status TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS idx_decisions_status ON decisions(status);
CREATE TABLE IF NOT EXISTS entities (id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS idx_entities_name ON entities(name);
CREATE TABLE IF NOT EXISTS relations (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, source TEXT NOT NULL, target TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS idx_relations_source ON relations(source);
CREATE INDEX IF NOT EXISTS idx_relations_target ON relations(target);
CREATE TABLE IF NOT EXISTS agents (agent_id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS handoffs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, data TEXT NOT NULL, index_data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embeddings (index_name TEXT NOT NULL, id TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (index_name, id));
`;

let loaded: DatabaseSyncClass | null | undefined;

/** node:sqlite's DatabaseSync, or undefined when this runtime has none. */
export function databaseSync(): DatabaseSyncClass | undefined {
  if (loaded === undefined) {
    try {
      // A plain require of a `node:` built-in: bundled code keeps it external, and Node 20 throws here.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = (require('node:sqlite') as { DatabaseSync: DatabaseSyncClass }).DatabaseSync;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** Why this runtime cannot open twining.db, or undefined when it can. */
export function sqliteMissingReason(): string | undefined {
  if (databaseSync()) return undefined;
  return `this Node (${process.version}) has no node:sqlite, which twining-mcp 2.x's twining.db needs (Node 22.13 or later has it)`;
}

export function databaseFile(dir: string): string {
  return path.join(dir, 'twining.db');
}

/**
 * The database files this process holds open through SQLite, by identity (device and inode), with
 * their connection counts. Nothing may open such a file outside SQLite: closing that descriptor
 * would drop every POSIX lock this process holds on it, its connections' too
 * (docs/twining-2.md §Locks held by a process).
 */
const openHere = new Map<string, number>();

function identityNow(file: string): string | undefined {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? identityOf(st) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this process holds `file` open as a database (a stat, no open). */
export function isOpenHere(file: string): boolean {
  const id = identityNow(file);
  return id !== undefined && openHere.has(id);
}

/**
 * Whether `file` is an SQLite database (its first 16 bytes, read bounded: a FIFO or a device is
 * none). A database this process holds open is one without being read: a stat tells it, and its
 * file is not opened beside SQLite's own descriptors.
 */
export function hasDatabaseHeader(file: string): boolean {
  if (isOpenHere(file)) return true;
  return readHeadSync(file, 16)?.toString('latin1') === 'SQLite format 3\0';
}

/** Counts `db` as open on `file` until it is closed. */
function holdWhileOpen(db: SqliteDatabase, file: string): void {
  const id = identityNow(file);
  if (id === undefined) return;
  openHere.set(id, (openHere.get(id) ?? 0) + 1);
  const close = db.close.bind(db);
  let closed = false;
  db.close = () => {
    if (!closed) {
      closed = true;
      const n = (openHere.get(id) ?? 1) - 1;
      if (n > 0) openHere.set(id, n);
      else openHere.delete(id);
    }
    close();
  };
}

/**
 * Opens `.twining/twining.db` as twining-mcp does: WAL, a 5 s busy timeout, its tables created when
 * missing (`create`: a new database gets user_version 1). A database of a later schema version is
 * read as long as its tables have the columns used here (later versions only add columns).
 */
export function openDatabase(dir: string, { readOnly = false, create = false } = {}): SqliteDatabase {
  const DatabaseSync = databaseSync();
  if (!DatabaseSync) throw new Error(sqliteMissingReason());
  const db = readOnly ? new DatabaseSync(databaseFile(dir), { readOnly: true }) : new DatabaseSync(databaseFile(dir));
  holdWhileOpen(db, databaseFile(dir));
  try {
    db.exec('PRAGMA busy_timeout = 5000;');
    if (!readOnly) {
      db.exec('PRAGMA journal_mode = WAL;');
      if (create) db.exec(SCHEMA);
      const row = db.prepare('PRAGMA user_version;').get();
      if (create && Number(row?.user_version ?? 0) === 0) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION};`);
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Whether the database has twining-mcp's tables (a database made by something else is not read). */
export function hasTwiningTables(db: SqliteDatabase): boolean {
  const names = new Set(
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map(r => String(r.name)),
  );
  return ['blackboard', 'decisions', 'entities', 'relations', 'agents', 'handoffs'].every(n => names.has(n));
}

/** `PRAGMA data_version`: changes when another connection commits (one cheap call). */
export function dataVersion(db: SqliteDatabase): number {
  return Number(db.prepare('PRAGMA data_version;').get()?.data_version ?? 0);
}

const BUSY_TIMEOUT_MS = 5000;
const BUSY_POLL_MS = 25;

function isBusy(error: unknown): boolean {
  const e = error as { errcode?: unknown; message?: unknown };
  return e?.errcode === 5 || e?.errcode === 6 || (typeof e?.message === 'string' && /database is locked|SQLITE_BUSY/i.test(e.message));
}

/**
 * `BEGIN IMMEDIATE` as twining-mcp takes it (waiting up to 5 s for another writer), without
 * blocking this thread meanwhile: node:sqlite is synchronous, and in the extension host a busy
 * timeout would freeze every extension while twining-mcp holds the lock. The lock is tried with no
 * busy timeout and tried again every 25 ms until the 5 s are up; then it fails as SQLite would.
 */
export async function beginImmediate(db: SqliteDatabase, timeoutMs = BUSY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  db.exec('PRAGMA busy_timeout = 0;');
  try {
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE;');
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      await new Promise(resolve => setTimeout(resolve, BUSY_POLL_MS));
    }
  } finally {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`);
  }
}
