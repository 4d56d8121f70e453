/**
 * twining-mcp 2.x's SQLite folder read and written by the engine (src/core/store/two-x-store.ts).
 * The same records as a 1.x folder (the reference fixture, put into a 2.x folder by the
 * re-implementation of twining-mcp's store in twining-mcp-2x.ts) give the same result from every
 * read; our writes leave the rows and record files twining-mcp's code would leave; writers in
 * several processes lose nothing; a writer killed mid-write leaves database and records/ agreeing
 * after the next open. Needs node:sqlite: `node scripts/test.js unit` runs this file under the
 * Node 24 of the VS Code host tools (scripts/sqlite-node.js).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace, TwiningEngine } from '../../src/core';
import { fixtureProject, tempProject, tw } from './tmp';
import { Db, hasSqlite, mcpPost, mcpRecordPath, mcpHandoffIndex, openMcpDb, stableStringify, twoXFrom1x, withWriteTxn, mcpResolve } from './twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: (m: string) => (process.env.TWINING_TEST_WARN ? console.error(m) : undefined) };

/** A 2.x twin of the reference fixture (rows and record files), and the 1.x original. */
function twins(): { one: string; two: string } {
  const one = fixtureProject();
  const two = tempProject('demo-project');
  twoXFrom1x(tw(one), tw(two));
  return { one, two };
}

const rows = (db: Db, table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all();

/** Every row's record file holds twining-mcp's bytes for it, and every record file has its row. */
function assertAgree(dir: string): void {
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
      for (const row of rows(db, table)) expected.set(mcpRecordPath(dir, kind, JSON.parse(row.data)), stableStringify(JSON.parse(row.data)));
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

/** The results of every reading operation (the ones a view, tool or CLI command shows). */
async function readAll(engine: TwiningEngine): Promise<unknown> {
  const decisions = await engine.decisions({});
  const handoffs = await engine.handoffs({});
  const first = handoffs.handoffs[0]?.id;
  return {
    read: await engine.read({ limit: 1000 }),
    decisions,
    handoffs,
    handoff: first ? await engine.handoffs({}) : undefined,
    agents: await engine.agents({}),
    status: await engine.status({}),
    why: await engine.why({ scope: 'src/' }),
    search: await engine.search({ query: 'token' }),
    verify: first ? await engine.verify({ handoff_id: first }).catch((e: Error) => e.message) : undefined,
  };
}

describe('a twining-mcp 2.x SQLite folder', { skip }, () => {
  test('every read gives what the same records give in a 1.x folder', async () => {
    const { one, two } = twins();
    const a = (await readAll(await openWorkspace(one, quiet))) as { decisions: { total_count: number }; handoffs: { handoffs: unknown[] }; agents: { agents: unknown[] } };
    assert.ok(a.decisions.total_count > 0 && a.handoffs.handoffs.length > 0 && a.agents.agents.length > 0, 'the fixture has records of each kind');
    const b = await readAll(await openWorkspace(two, quiet));
    assert.deepEqual(b, a);
  });
});
