/**
 * `records/` brought into twining.db as twining-mcp's ingest does it (daveangulo/twining-mcp,
 * src/storage/sync/record-ingest.ts at 4b698631): the files win; a record whose row is missing is
 * inserted, one whose row differs (compared in `recordText`'s bytes) is updated, and the row of a
 * record whose file is gone is deleted, a kind at a time and only for a kind whose folder exists
 * (no folder never means "delete all"); a file that does not parse is skipped, never deleted. The
 * rows are written by two-x-rows.ts (the columns, `data`, a handoff's `index_data`), all of them in
 * one `BEGIN IMMEDIATE` transaction here (twining-mcp: one per kind), so a process killed half-way
 * leaves the database as it was. Used by `twining migrate` both ways (migrate/migrate-*.ts).
 */
import { existsSync } from 'fs';
import type { SqliteDatabase } from './sqlite-db';
import { RECORD_KINDS, RecordKind, kindDir } from './records-dir';
import { recordText } from './record-text';
import { Item, RecordsSource, TwoXState } from './two-x-state';
import { copyItem } from './sqlite-tables';
import { TABLE, handoffIndexData, writeRow } from './two-x-rows';

export interface IngestStats {
  inserted: number;
  updated: number;
  deleted: number;
  /** Record files that could not be read (named in the warnings). */
  skipped: number;
  /** Agents put into the agents table (missing there). */
  agents: number;
}

/** `text` re-serialised in recordText's bytes, or undefined when it is not JSON. */
function canonical(text: string): string | undefined {
  try {
    return recordText(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Every record file under `records/`, read as state (the files' own order: time, then id). */
export async function readRecordsTree(dir: string, warn: (m: string) => void): Promise<{ state: TwoXState; skipped: number }> {
  const state = new TwoXState();
  let skipped = 0;
  await new RecordsSource(dir, m => {
    skipped++;
    warn(m);
  }).load(state);
  return { state, skipped };
}

/**
 * Converges twining.db to `records/` (see the file's comment). `first` lists ids per kind to insert
 * first, in that order (a migration keeps its 1.x order as the rows' seq order); `agents` are put
 * into the agents table where their agent_id has no row (twining.db is their only home in 2.x).
 */
export async function ingestRecordsTree(
  db: SqliteDatabase,
  dir: string,
  warn: (m: string) => void,
  { first, agents = [] }: { first?: Partial<Record<RecordKind, readonly string[]>>; agents?: readonly Record<string, unknown>[] } = {},
): Promise<IngestStats> {
  const { state, skipped } = await readRecordsTree(dir, warn);
  const stats: IngestStats = { inserted: 0, updated: 0, deleted: 0, skipped, agents: 0 };
  db.exec('BEGIN IMMEDIATE;');
  try {
    for (const kind of RECORD_KINDS) {
      if (!existsSync(kindDir(dir, kind))) continue;
      const rows = new Map(
        db
          .prepare(`SELECT id, data${kind === 'handoffs' ? ', index_data' : ''} FROM ${TABLE[kind]}`)
          .all()
          .map(r => [String(r.id), r]),
      );
      const items = state.of(kind);
      const ordered: Item[] = [];
      const placed = new Set<string>();
      for (const id of first?.[kind] ?? []) {
        const item = items.get(id);
        if (!item || placed.has(id)) continue;
        placed.add(id);
        ordered.push(item);
      }
      for (const item of state.sorted(kind)) if (!placed.has(item.id)) ordered.push(item);
      for (const item of ordered) {
        const row = rows.get(item.id);
        if (row && canonical(String(row.data)) === recordText(item.value)) continue;
        const copy = copyItem(item);
        if (kind === 'handoffs') copy.index = handoffIndexData(copy, undefined);
        writeRow(db, { kind, id: item.id, item: copy });
        if (row) stats.updated++;
        else stats.inserted++;
      }
      for (const id of rows.keys()) {
        if (items.has(id)) continue;
        writeRow(db, { kind, id });
        stats.deleted++;
      }
    }
    const known = new Set(
      db
        .prepare('SELECT agent_id FROM agents')
        .all()
        .map(r => String(r.agent_id)),
    );
    for (const agent of agents) {
      const id = String(agent.agent_id);
      if (known.has(id)) continue;
      known.add(id);
      writeRow(db, { kind: 'agents', id, item: { id, order: '', text: JSON.stringify(agent), value: agent as Item['value'] } });
      stats.agents++;
    }
    db.exec('COMMIT;');
  } catch (error) {
    try {
      db.exec('ROLLBACK;');
    } catch {
      // the error that stopped the ingest matters more
    }
    throw error;
  }
  return stats;
}
