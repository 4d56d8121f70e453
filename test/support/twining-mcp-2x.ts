/**
 * twining-mcp 2.x's SQLite store as the tests need it, written here from its source
 * (daveangulo/twining-mcp; test/fixtures/twining-2/README.md names the files and commits): the
 * schema and pragmas of src/storage/sqlite/db.ts, the row writes of src/storage/sqlite/sqlite-stores.ts
 * (`data` = JSON.stringify of the record, a handoff's `index_data`), and the record files of
 * src/storage/sync/record-export.ts (`stableStringify`, the paths). It is the other writer in the
 * tests, and the yardstick our writes are compared with. Needs node:sqlite (Node 22.13+).
 */
import * as fs from 'fs';
import * as path from 'path';
import assert from 'node:assert/strict';
import { randomBytes } from 'crypto';

export interface Db {
  exec(sql: string): void;
  prepare(sql: string): { run(...p: unknown[]): unknown; get(...p: unknown[]): Record<string, any> | undefined; all(...p: unknown[]): Record<string, any>[] };
  close(): void;
}

/** node:sqlite's DatabaseSync, or undefined under a Node without it. */
export function sqliteModule(): { DatabaseSync: new (file: string) => Db } | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node:sqlite');
  } catch {
    return undefined;
  }
}

export const hasSqlite = sqliteModule() !== undefined;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS blackboard (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, entry_type TEXT NOT NULL, scope TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, status TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entities (id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS relations (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, source TEXT NOT NULL, target TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agents (agent_id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS handoffs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, data TEXT NOT NULL, index_data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embeddings (index_name TEXT NOT NULL, id TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (index_name, id));
`;

/** db.ts openDatabase. */
export function openMcpDb(dir: string): Db {
  const db = new (sqliteModule()!.DatabaseSync)(path.join(dir, 'twining.db'));
  db.exec('PRAGMA journal_mode = WAL;');
  db.exec('PRAGMA busy_timeout = 5000;');
  db.exec(SCHEMA);
  if (Number(db.prepare('PRAGMA user_version;').get()?.user_version ?? 0) === 0) db.exec('PRAGMA user_version = 1;');
  return db;
}

/** db.ts withWriteTxn. */
export function withWriteTxn<T>(db: Db, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE;');
  try {
    const r = fn();
    db.exec('COMMIT;');
    return r;
  } catch (e) {
    db.exec('ROLLBACK;');
    throw e;
  }
}

/** record-export.ts stableStringify. */
export function stableStringify(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) out[key] = sort((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2) + '\n';
}

/** record-export.ts paths. */
export function mcpRecordPath(dir: string, kind: 'posts' | 'decisions' | 'entities' | 'relations' | 'handoffs', r: Record<string, any>): string {
  const records = path.join(dir, 'records');
  if (kind === 'posts') return path.join(records, 'posts', r.timestamp!.slice(0, 7), `${r.id}.json`);
  if (kind === 'entities' || kind === 'relations') return path.join(records, 'graph', kind, `${r.id}.json`);
  return path.join(records, kind, `${r.id}.json`);
}

/** Record files held back until the transaction of `mcpWrite` commits. */
let heldBack: (() => void)[] | undefined;

/**
 * twining-mcp's order for a write: the rows in one `BEGIN IMMEDIATE` transaction (db.ts
 * withWriteTxn), then the record files, after the commit (record-export.ts wraps each store and
 * exports "after every successful store write"); nothing is exported if the transaction fails.
 */
export function mcpWrite<T>(db: Db, fn: () => T): T {
  const files: (() => void)[] = (heldBack = []);
  try {
    const result = withWriteTxn(db, fn);
    heldBack = undefined;
    for (const write of files) write();
    return result;
  } finally {
    heldBack = undefined;
  }
}

/** file-store atomicWriteFileSync + ensureDir. */
export function writeMcpRecord(file: string, value: unknown): void {
  if (heldBack) {
    heldBack.push(() => writeMcpRecord(file, value));
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, stableStringify(value));
  fs.renameSync(tmp, file);
}

/** sqlite-stores.ts SqliteHandoffStore.toIndexEntry. */
export function mcpHandoffIndex(r: Record<string, any>, acknowledged = false): Record<string, unknown> {
  const results: { status: string }[] = r.results ?? [];
  const statuses = new Set(results.map(x => x.status));
  const result_status = results.length === 0 ? 'completed' : statuses.size === 1 ? results[0].status : 'mixed';
  return {
    id: r.id,
    created_at: r.created_at,
    source_agent: r.source_agent,
    target_agent: r.target_agent,
    scope: r.scope,
    summary: r.summary,
    result_status,
    acknowledged,
  };
}

/** A post as SqliteBlackboardStore.append + the exporter write it. */
export function mcpPost(db: Db, dir: string, full: Record<string, any>): void {
  db.prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)').run(
    full.id,
    full.entry_type,
    full.scope,
    full.timestamp,
    JSON.stringify(full),
  );
  writeMcpRecord(mcpRecordPath(dir, 'posts', full), full);
}

export function mcpDecision(db: Db, dir: string, d: Record<string, any>): void {
  db.prepare('INSERT INTO decisions (id, status, timestamp, data) VALUES (?, ?, ?, ?)').run(d.id, d.status, d.timestamp, JSON.stringify(d));
  writeMcpRecord(mcpRecordPath(dir, 'decisions', d), d);
}

export function mcpHandoff(db: Db, dir: string, h: Record<string, any>, acknowledged = false): void {
  db.prepare('INSERT INTO handoffs (id, created_at, data, index_data) VALUES (?, ?, ?, ?)').run(
    h.id,
    h.created_at,
    JSON.stringify(h),
    JSON.stringify(mcpHandoffIndex(h, acknowledged)),
  );
  writeMcpRecord(mcpRecordPath(dir, 'handoffs', h), h);
}

export function mcpAgent(db: Db, a: Record<string, any>): void {
  db.prepare('INSERT INTO agents (agent_id, data) VALUES (?, ?)').run(a.agent_id, JSON.stringify(a));
}

/** SqliteAgentStore.touch on an agent it has: `last_active` renewed in place (UPDATE, same rowid; agents have no record file). */
export function mcpTouch(db: Db, agentId: string, at: string): void {
  withWriteTxn(db, () => {
    const row = db.prepare('SELECT data FROM agents WHERE agent_id = ?').get(agentId) as { data: string };
    db.prepare('UPDATE agents SET data = ? WHERE agent_id = ?').run(JSON.stringify({ ...JSON.parse(row.data), last_active: at }), agentId);
  });
}

export function mcpEntity(db: Db, dir: string, e: Record<string, any>): void {
  db.prepare('INSERT INTO entities (id, name, type, data) VALUES (?, ?, ?, ?)').run(e.id, e.name, e.type, JSON.stringify(e));
  writeMcpRecord(mcpRecordPath(dir, 'entities', e), e);
}

export function mcpRelation(db: Db, dir: string, r: Record<string, any>): void {
  db.prepare('INSERT INTO relations (id, source, target, data) VALUES (?, ?, ?, ?)').run(r.id, r.source, r.target, JSON.stringify(r));
  writeMcpRecord(mcpRecordPath(dir, 'relations', r), r);
}

/** SqliteBlackboardStore.resolve (first resolve wins) + the exporter's rewrite. */
export function mcpResolve(db: Db, dir: string, id: string, by: string, note: string, at: string): void {
  const row = db.prepare('SELECT data FROM blackboard WHERE id = ?').get(id);
  const entry = JSON.parse(row!.data);
  if (entry.status !== 'resolved') {
    entry.status = 'resolved';
    entry.resolved_at = at;
    entry.resolved_by = by;
    entry.resolution_note = note;
    db.prepare('UPDATE blackboard SET data = ? WHERE id = ?').run(JSON.stringify(entry), id);
  }
  writeMcpRecord(mcpRecordPath(dir, 'posts', entry), entry);
}

/**
 * A 1.x folder's records put into a 2.x folder as twining-mcp's migrate leaves it: rows (data as
 * each store writes it) and record files; config.yml says `storage.backend: sqlite`, version 2.
 * `withDb: false` leaves records/ only (a fresh clone).
 */
export function twoXFrom1x(from: string, to: string, { withDb = true } = {}): void {
  fs.mkdirSync(to, { recursive: true });
  fs.writeFileSync(
    path.join(to, 'config.yml'),
    // A config.yml made by `twining init` already pins `storage: backend: files`: that block is replaced, not repeated (a YAML key twice is invalid).
    fs
      .readFileSync(path.join(from, 'config.yml'), 'utf8')
      .replace(/^version: .*$/m, 'version: 2')
      .replace(/^storage:\n(?:[ \t]+.*\n?)*/m, '') + 'storage:\n  backend: sqlite\n',
  );
  const json = (rel: string) => (fs.existsSync(path.join(from, rel)) ? JSON.parse(fs.readFileSync(path.join(from, rel), 'utf8')) : []);
  const lines = (rel: string) =>
    fs.existsSync(path.join(from, rel))
      ? fs
          .readFileSync(path.join(from, rel), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(l => JSON.parse(l))
      : [];
  const db: Db | undefined = withDb ? openMcpDb(to) : undefined;
  const stub: Db = { exec: () => undefined, prepare: () => ({ run: () => undefined, get: () => undefined, all: () => [] }), close: () => undefined };
  const d = db ?? stub;
  for (const e of lines('blackboard.jsonl')) mcpPost(d, to, e);
  for (const entry of json('decisions/index.json')) mcpDecision(d, to, json(`decisions/${entry.id}.json`));
  const acked = new Map<string, boolean>();
  for (const line of lines('handoffs/index.jsonl')) acked.set(line.id, line.acknowledged === true);
  for (const [id, ack] of acked) mcpHandoff(d, to, json(`handoffs/${id}.json`), ack);
  for (const a of json('agents/registry.json')) mcpAgent(d, a);
  for (const e of json('graph/entities.json')) mcpEntity(d, to, e);
  for (const r of json('graph/relations.json')) mcpRelation(d, to, r);
  db?.close();
}

/** Every row's record file holds twining-mcp's bytes for it, and every record file has its row. */
export function assertAgree(dir: string): void {
  const db = openMcpDb(dir);
  try {
    const expected = new Map<string, string>();
    const kinds = [
      ['blackboard', 'posts'],
      ['decisions', 'decisions'],
      ['handoffs', 'handoffs'],
      ['entities', 'entities'],
      ['relations', 'relations'],
    ] as const;
    for (const [table, kind] of kinds)
      for (const row of db.prepare(`SELECT data FROM ${table} ORDER BY rowid`).all())
        expected.set(mcpRecordPath(dir, kind, JSON.parse(row.data)), stableStringify(JSON.parse(row.data)));
    const found = new Map<string, string>();
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.json')) found.set(p, fs.readFileSync(p, 'utf8'));
      }
    };
    if (fs.existsSync(path.join(dir, 'records'))) walk(path.join(dir, 'records'));
    assert.deepEqual([...found.keys()].sort(), [...expected.keys()].sort(), 'record files and rows name the same records');
    for (const [file, text] of expected) assert.equal(found.get(file), text, `${file} holds twining-mcp's bytes for its row`);
  } finally {
    db.close();
  }
}
