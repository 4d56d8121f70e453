/**
 * The rows of twining.db as twining-mcp's stores write them (daveangulo/twining-mcp,
 * src/storage/sqlite/sqlite-stores.ts at 017a8780): the whole record as JSON in `data`, beside the
 * columns its queries use; a handoff's `index_data`; and putting a record file back (recovery).
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { SqliteDatabase } from './sqlite-db';
import type { Delta, Item, StateKind } from './sqlite-records';
import { indexLineOf } from '../index-lines';
import { removeRecordFile } from './records-dir';
import { writeAtomic } from '../json-files';
import type { HandoffRecord } from '../../records';

export const TABLE: Record<StateKind, string> = {
  posts: 'blackboard',
  decisions: 'decisions',
  handoffs: 'handoffs',
  relations: 'relations',
  entities: 'entities',
  agents: 'agents',
};

/** Writes one delta's row as twining-mcp's stores write it: the whole record as JSON in `data`, and the columns it queries. */
export function writeRow(db: SqliteDatabase, d: Delta): void {
  const table = TABLE[d.kind];
  if (!d.item) {
    db.prepare(`DELETE FROM ${table} WHERE ${d.kind === 'agents' ? 'agent_id' : 'id'} = ?`).run(d.id);
    return;
  }
  const v = d.item.value;
  const s = (x: unknown) => (typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : '');
  switch (d.kind) {
    case 'posts':
      db.prepare(
        'INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET entry_type = excluded.entry_type, scope = excluded.scope, timestamp = excluded.timestamp, data = excluded.data',
      ).run(d.id, s(v.entry_type), s(v.scope), s(v.timestamp), d.item.text);
      break;
    case 'decisions':
      db.prepare(
        'INSERT INTO decisions (id, status, timestamp, data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, timestamp = excluded.timestamp, data = excluded.data',
      ).run(d.id, s(v.status), s(v.timestamp), d.item.text);
      break;
    case 'handoffs':
      db.prepare(
        'INSERT INTO handoffs (id, created_at, data, index_data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET created_at = excluded.created_at, data = excluded.data, index_data = excluded.index_data',
      ).run(d.id, s(v.created_at), d.item.text, d.item.index ?? '');
      break;
    case 'relations':
      db.prepare(
        'INSERT INTO relations (id, source, target, data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET source = excluded.source, target = excluded.target, data = excluded.data',
      ).run(d.id, s(v.source), s(v.target), d.item.text);
      break;
    case 'entities':
      db.prepare(
        'INSERT INTO entities (id, name, type, data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, type = excluded.type, data = excluded.data',
      ).run(d.id, s(v.name), s(v.type), d.item.text);
      break;
    case 'agents':
      db.prepare('INSERT INTO agents (agent_id, data) VALUES (?, ?) ON CONFLICT(agent_id) DO UPDATE SET data = excluded.data').run(d.id, d.item.text);
      break;
  }
}

/** A handoff row's `index_data` as twining-mcp keeps it: made at creation, `acknowledged` set on acknowledgement. */
export function handoffIndexData(item: Item, before: Item | undefined): string {
  const acknowledged = item.value.acknowledged_by !== undefined;
  if (before?.index) {
    try {
      const index = JSON.parse(before.index) as Record<string, unknown>;
      if (acknowledged) index.acknowledged = true;
      return JSON.stringify(index);
    } catch {
      // an unreadable index_data is made again from the record
    }
  }
  return JSON.stringify(indexLineOf(item.value as unknown as HandoffRecord, acknowledged));
}

/** Puts a record file back to `text` (null: no file). */
export async function restore(file: string, text: string | null): Promise<void> {
  if (text === null) await removeRecordFile(file);
  else {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeAtomic(file, text);
  }
}
