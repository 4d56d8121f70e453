/**
 * What a hook reads from a twining-mcp 2.x folder (`twining.db` + `records/`), from a new
 * process: the rows themselves, never the 1.x files the folder does not have. The hook index
 * (hook-index.ts) is derived from these reads and keyed by the database's version stamp; a
 * decision's rationale is its row's. Only what is asked is read: the active and provisional
 * decisions, and of the blackboard the warnings and the entries that can resolve one.
 *
 * The database is opened read-only with node:sqlite (Node 22.13+), as twining-mcp keeps it
 * (daveangulo/twining-mcp src/storage/sqlite/db.ts: WAL; the `data` column holds each record's
 * JSON). A folder without a database (a fresh clone, `records/` only) or a Node without
 * node:sqlite is read from `records/` (records-dir.ts names the paths), each file through the
 * bounded reader.
 */
import { readdirSync } from 'fs';
import * as path from 'path';
import { databaseFile, databaseSync, hasDatabaseHeader, hasTwiningTables, openDatabase, SqliteDatabase } from './sqlite-db';
import { kindDir } from './records-dir';
import { readTextSync } from '../read-file';
import { stampOfFileSync } from '../version-stamp';

type Row = Record<string, unknown>;

/** Whether the database is there and this Node can read it. */
const readsDatabase = (dir: string) => databaseSync() !== undefined && hasDatabaseHeader(databaseFile(dir));

/**
 * The version stamp of what a 2.x folder's hooks read: the database and its write-ahead log (a
 * commit appends to the log; a checkpoint writes the database), or, read from `records/`, the
 * folders of its decisions and posts (a record written whole is renamed into place).
 */
export function sqliteFolderStamp(dir: string): string {
  if (readsDatabase(dir)) return ['sqlite', stampOfFileSync(databaseFile(dir)), stampOfFileSync(`${databaseFile(dir)}-wal`)].join('|');
  const posts = kindDir(dir, 'posts');
  const months = listNames(posts).sort();
  return ['records', stampOfFileSync(kindDir(dir, 'decisions')), ...months.map(m => stampOfFileSync(path.join(posts, m)))].join('|');
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function parsed(text: string | undefined): Row | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : undefined;
  } catch {
    return undefined; // a record cut short or not JSON: skipped, as every reader of the folder does
  }
}

/** The records of one kind under records/ (posts: across their month folders), unreadable ones skipped. */
function recordFiles(dir: string, kind: 'decisions' | 'posts'): Row[] {
  const base = kindDir(dir, kind);
  const folders = kind === 'posts' ? listNames(base).map(m => path.join(base, m)) : [base];
  const out: Row[] = [];
  for (const folder of folders)
    for (const name of listNames(folder)) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      let text: string | undefined;
      try {
        text = readTextSync(path.join(folder, name), 'record');
      } catch {
        continue; // not a regular file, a link out of the folder, too large: not a record to show
      }
      const r = parsed(text);
      if (r) out.push(r);
    }
  return out;
}

function withDatabase<T>(dir: string, fn: (db: SqliteDatabase) => T): T | undefined {
  const db = openDatabase(dir, { readOnly: true });
  try {
    return hasTwiningTables(db) ? fn(db) : undefined;
  } finally {
    db.close();
  }
}

const rowsData = (rows: Row[]) => rows.map(r => parsed(String(r.data))).filter((r): r is Row => r !== undefined);

/**
 * The active and provisional decisions, and the blackboard entries a hook needs (warnings, and
 * those that resolve one: a resolved status or a `relates_to`), each in seq order.
 */
export function readForHookIndex(dir: string): { decisions: Row[]; entries: Row[] } {
  if (readsDatabase(dir)) {
    const read = withDatabase(dir, db => ({
      decisions: rowsData(db.prepare("SELECT data FROM decisions WHERE status IN ('active', 'provisional') ORDER BY seq").all()),
      entries: rowsData(
        db
          .prepare(
            "SELECT data FROM blackboard WHERE entry_type = 'warning' OR json_extract(data, '$.status') = 'resolved' OR json_array_length(json_extract(data, '$.relates_to')) > 0 ORDER BY seq",
          )
          .all(),
      ),
    }));
    if (read) return read;
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const byTime = (a: Row, b: Row) => text(a.timestamp).localeCompare(text(b.timestamp)) || text(a.id).localeCompare(text(b.id));
  return { decisions: recordFiles(dir, 'decisions').sort(byTime), entries: recordFiles(dir, 'posts').sort(byTime) };
}

/** A decision's record (its row, or its record file), or undefined. */
export function readDecision(dir: string, id: string): Row | undefined {
  if (readsDatabase(dir)) {
    const row = withDatabase(dir, db => db.prepare('SELECT data FROM decisions WHERE id = ?').get(id));
    if (row) return parsed(String(row.data));
  }
  try {
    return parsed(readTextSync(path.join(kindDir(dir, 'decisions'), `${id}.json`), 'record'));
  } catch {
    return undefined;
  }
}

/** Whether `agentId` posted to the blackboard at or after `since` (an ISO time). */
export function postedSince(dir: string, agentId: string, since: string): boolean {
  if (readsDatabase(dir)) {
    const found = withDatabase(
      dir,
      db =>
        db.prepare("SELECT 1 AS found FROM blackboard WHERE timestamp >= ? AND json_extract(data, '$.agent_id') = ? LIMIT 1").get(since, agentId) !== undefined,
    );
    if (found !== undefined) return found;
  }
  return recordFiles(dir, 'posts').some(e => e.agent_id === agentId && typeof e.timestamp === 'string' && e.timestamp >= since);
}
