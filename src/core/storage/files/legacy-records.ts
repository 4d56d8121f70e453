/**
 * Every record of a 1.x folder (the 1.x layout (docs/format.md)), read as twining-mcp's file stores read them
 * for its forward migration (daveangulo/twining-mcp, src/migrate/forward.ts at 75b67af2): the
 * blackboard's entries in line order, the decisions of `decisions/index.json` in its order and then
 * the decision files the index lacks (its "orphan salvage"), the graph's entities and relations,
 * the handoffs of `handoffs/index.jsonl` in its order (and here also the handoff files it lacks),
 * and the agents of `agents/registry.json`. A file that cannot be parsed stops the read with an
 * error naming it (nothing is migrated past a record that cannot be read); a blackboard line that
 * does not parse is left out and named in `notes`, as twining-mcp's reader leaves it out.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { isRecord, readJson, readJsonArray, readTextIfExists } from '../json-files';
import type { RecordKind, StoredRecord } from '../sqlite/records-dir';
import { mapParallel } from '../parallel-io';

export interface LegacyRecords {
  posts: StoredRecord[];
  decisions: StoredRecord[];
  entities: StoredRecord[];
  relations: StoredRecord[];
  handoffs: StoredRecord[];
  agents: Record<string, unknown>[];
  /** Decision and handoff files found beside their index but missing from it. */
  salvaged: number;
  notes: string[];
}

export const KIND_OF_LEGACY: Record<RecordKind, keyof Pick<LegacyRecords, 'posts' | 'decisions' | 'entities' | 'relations' | 'handoffs'>> = {
  posts: 'posts',
  decisions: 'decisions',
  entities: 'entities',
  relations: 'relations',
  handoffs: 'handoffs',
};

const withId = (v: unknown): v is StoredRecord => isRecord(v) && typeof v.id === 'string' && v.id !== '';

export async function readLegacyRecords(dir: string): Promise<LegacyRecords> {
  const notes: string[] = [];
  const blackboard = path.join(dir, 'blackboard.jsonl');
  const posts: StoredRecord[] = [];
  const text = (await readTextIfExists(blackboard)) ?? '';
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (withId(value)) posts.push(value);
    else notes.push(`${blackboard}: line ${i + 1} is not an entry with an id; it is not migrated (it stays in the file)`);
  });
  const decisions = await indexed(dir, 'decisions', path.join(dir, 'decisions', 'index.json'), notes);
  const handoffs = await indexed(dir, 'handoffs', path.join(dir, 'handoffs', 'index.jsonl'), notes);
  const array = async (rel: string, what: string) => (await readJsonArray(path.join(dir, rel), what)).filter(isRecord);
  return {
    posts,
    decisions: decisions.records,
    entities: (await array(path.join('graph', 'entities.json'), 'graph entities')).filter(withId),
    relations: (await array(path.join('graph', 'relations.json'), 'graph relations')).filter(withId),
    handoffs: handoffs.records,
    agents: (await array(path.join('agents', 'registry.json'), 'agent registry')).filter(a => typeof a.agent_id === 'string'),
    salvaged: decisions.salvaged + handoffs.salvaged,
    notes,
  };
}

/** The records of `decisions/` or `handoffs/`: the index's ids in order, then the files it lacks (by name). */
async function indexed(dir: string, sub: 'decisions' | 'handoffs', index: string, notes: string[]): Promise<{ records: StoredRecord[]; salvaged: number }> {
  let ids: string[];
  if (sub === 'decisions') ids = (await readJsonArray(index, 'decision index')).filter(withId).map(e => e.id);
  else
    ids = ((await readTextIfExists(index)) ?? '')
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(l => {
        try {
          const v: unknown = JSON.parse(l);
          return withId(v) ? v.id : undefined;
        } catch {
          return undefined;
        }
      })
      .filter((id): id is string => id !== undefined);
  const names = (await fs.readdir(path.join(dir, sub)).catch(() => [] as string[])).filter(n => /^[0-9A-Za-z]+\.json$/.test(n) && n !== 'index.json').sort();
  const inIndex = new Set(ids);
  const order = [...new Set([...ids, ...names.map(n => n.slice(0, -5))])];
  const values = await mapParallel(order, id => readJson(path.join(dir, sub, `${id}.json`), `${sub === 'decisions' ? 'Decision' : 'Handoff'} ${id}`));
  const records: StoredRecord[] = [];
  let salvaged = 0;
  order.forEach((id, i) => {
    const file = path.join(dir, sub, `${id}.json`);
    const value = values[i];
    if (value === undefined) {
      notes.push(`${index} names ${id}, whose file ${file} does not exist; there is nothing to migrate for it`);
      return;
    }
    if (!withId(value) || value.id !== id) {
      notes.push(`${file} is not a record with id ${id}; it is not migrated (it stays where it is)`);
      return;
    }
    if (!inIndex.has(id)) salvaged++;
    records.push(value);
  });
  if (salvaged) notes.push(`${salvaged} ${sub} file(s) missing from ${path.basename(index)} were found by name and migrated too`);
  return { records, salvaged };
}
