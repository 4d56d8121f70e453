/**
 * twining-mcp 2.x's SQLite folder read and written by the engine (src/core/storage/sqlite/sqlite-folder.ts).
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
import { openWorkspace, TwiningEngine } from '../../../../../src/core';
import { SqliteFolder } from '../../../../../src/core/storage/sqlite/sqlite-folder';
import { spawn, spawnSync } from 'child_process';
import { CORE_JS, fixtureProject, rejectsWith, tempProject, tw } from '../../../../support/tmp';
import { swept } from '../../../../support/sweep';
import {
  assertAgree,
  hasSqlite,
  mcpPost,
  mcpRecordPath,
  mcpHandoffIndex,
  openMcpDb,
  stableStringify,
  twoXFrom1x,
  withWriteTxn,
  mcpResolve,
  mcpTouch,
} from '../../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: (m: string) => (process.env.TWINING_TEST_WARN ? console.error(m) : undefined) };

/** A 2.x twin of the reference fixture (rows and record files), and the 1.x original. */
function twins(): { one: string; two: string } {
  const one = fixtureProject();
  const two = tempProject('demo-project');
  twoXFrom1x(tw(one), tw(two));
  return { one, two };
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
    const a = (await readAll(await openWorkspace(one, quiet))) as {
      decisions: { total_count: number };
      handoffs: { handoffs: unknown[] };
      agents: { agents: unknown[] };
    };
    assert.ok(a.decisions.total_count > 0 && a.handoffs.handoffs.length > 0 && a.agents.agents.length > 0, 'the fixture has records of each kind');
    const b = await readAll(await openWorkspace(two, quiet));
    assert.deepEqual(b, a);
  });

  test('rows that hold no JSON object are left out naming each, whether the table is read whole or a row at a time, and the rest read as in 1.x', async () => {
    const { one, two } = twins();
    const mcp = openMcpDb(tw(two));
    // A text holding U+0001 (never in a JSON text) makes the blackboard read a row at a time; the decisions are read whole.
    mcp
      .prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)')
      .run('bad-text', 'finding', 'src/', '2026-01-01T00:00:00.000Z', 'not json');
    mcp
      .prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)')
      .run('bad-sep', 'finding', 'src/', '2026-01-01T00:00:00.000Z', '{"a":\u0001}');
    mcp.prepare('INSERT INTO decisions (id, status, timestamp, data) VALUES (?, ?, ?, ?)').run('bad-array', 'active', '2026-01-01T00:00:00.000Z', '[1, 2]');
    mcp.close();
    const warnings: string[] = [];
    const b = await readAll(await openWorkspace(two, { warn: m => warnings.push(m) }));
    assert.deepEqual(b, await readAll(await openWorkspace(one, quiet)));
    for (const [table, id] of [
      ['blackboard', 'bad-text'],
      ['blackboard', 'bad-sep'],
      ['decisions', 'bad-array'],
    ])
      assert.ok(
        warnings.includes(`twining.db: the ${table} row ${id} does not hold a JSON object; it is not shown`),
        `${table} ${id}: ${JSON.stringify(warnings)}`,
      );
  });

  test('rows whose texts are not ASCII read as their UTF-8 text (the tables are read as bytes and decoded)', async () => {
    const { two } = twins();
    const mcp = openMcpDb(tw(two));
    const summaries = ['café — naïve', '日本語の決定', 'rocket 🚀 and \u0001 escaped', 'Ωmega ß'];
    summaries.forEach((summary, i) =>
      mcp
        .prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)')
        .run(
          `utf-${i}`,
          'finding',
          'src/',
          '2027-01-01T00:00:00.000Z',
          JSON.stringify({ id: `utf-${i}`, entry_type: 'finding', summary, detail: summary, scope: 'src/', tags: [], timestamp: '2027-01-01T00:00:00.000Z' }),
        ),
    );
    const decision = String(mcp.prepare('SELECT id FROM decisions ORDER BY seq LIMIT 1').get()?.id);
    const data = JSON.parse(String(mcp.prepare('SELECT data FROM decisions WHERE id = ?').get(decision)?.data)) as Record<string, unknown>;
    mcp.prepare('UPDATE decisions SET data = ? WHERE id = ?').run(JSON.stringify({ ...data, summary: summaries[1] + summaries[2] }), decision);
    mcp.close();
    const engine = await openWorkspace(two, quiet);
    const posts = (await engine.read({ limit: 1000 })).entries as { id: string; summary: string; detail: string }[];
    summaries.forEach((summary, i) => {
      const post = posts.find(p => p.id === `utf-${i}`);
      assert.equal(post?.summary, summary);
      assert.equal(post?.detail, summary);
    });
    const listed = (await engine.decisions({})).decisions as { id: string; summary: string }[];
    assert.equal(listed.find(d => d.id === decision)?.summary, summaries[1] + summaries[2]);
  });

  test('a row is held under its key column, whether its text holds the same key, another, none, or the key holds U+0001 (the table then read a row at a time)', async () => {
    const { two } = twins();
    const dir = tw(two);
    const mcp = openMcpDb(dir);
    const decision = (id: string, data: Record<string, unknown>) =>
      mcp
        .prepare('INSERT INTO decisions (id, status, timestamp, data) VALUES (?, ?, ?, ?)')
        .run(id, 'active', '2027-01-01T00:00:00.000Z', JSON.stringify(data));
    const base = { timestamp: '2027-01-01T00:00:00.000Z', agent_id: 'mcp', domain: 'api', scope: 'src/', confidence: 'medium', status: 'active' };
    decision('key-same', { ...base, id: 'key-same', summary: 'Same' });
    decision('key-column', { ...base, id: 'key-in-text', summary: 'Another' });
    decision('key-none', { ...base, summary: 'None' });
    const post = (id: string, own: string) =>
      mcp
        .prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)')
        .run(
          id,
          'finding',
          'src/',
          '2027-01-01T00:00:00.000Z',
          JSON.stringify({ id: own, entry_type: 'finding', summary: id, scope: 'src/', tags: [], timestamp: '2027-01-01T00:00:00.000Z' }),
        );
    post('a\u0001b', 'a\u0001b');
    post('c', 'a');
    const keys = (table: string) =>
      mcp
        .prepare(`SELECT id FROM ${table} ORDER BY seq`)
        .all()
        .map(r => String(r.id));
    const expected = { decisions: keys('decisions'), posts: keys('blackboard') };
    mcp.close();
    const folder = new SqliteFolder(dir, quiet.warn, true);
    await folder.sync(undefined, ['decisions', 'posts']);
    const held = { decisions: folder.state.sorted('decisions').map(i => i.id), posts: folder.state.sorted('posts').map(i => i.id) };
    assert.deepEqual(held, expected);
    assert.equal(folder.state.of('decisions').get('key-column')?.value.summary, 'Another');
    assert.equal(folder.state.of('decisions').get('key-none')?.value.summary, 'None');
    assert.equal(folder.state.of('posts').get('c')?.value.id, 'a');
    folder.close();
  });

  test('a table whose key has no unique index (a database not made by twining-mcp) holds each id once: at its first row, with its last row', async () => {
    const { two } = twins();
    const dir = tw(two);
    const mcp = openMcpDb(dir);
    mcp.exec(`CREATE TABLE blackboard_loose (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, entry_type TEXT NOT NULL, scope TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
INSERT INTO blackboard_loose SELECT seq, id, entry_type, scope, timestamp, data FROM blackboard;
DROP TABLE blackboard;
ALTER TABLE blackboard_loose RENAME TO blackboard;`);
    const rows = mcp.prepare('SELECT id, data FROM blackboard ORDER BY seq').all() as { id: string; data: string }[];
    assert.ok(rows.length >= 2);
    const again: Record<string, unknown> = { ...(JSON.parse(rows[0].data) as Record<string, unknown>), summary: 'The same id again' };
    mcp
      .prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)')
      .run(rows[0].id, String(again.entry_type), String(again.scope), String(again.timestamp), JSON.stringify(again));
    mcp.close();
    const folder = new SqliteFolder(dir, quiet.warn, true);
    await folder.sync(undefined, ['posts']);
    assert.deepEqual(
      folder.state.sorted('posts').map(i => i.id),
      rows.map(r => r.id),
    );
    assert.equal(folder.state.of('posts').get(rows[0].id)?.value.summary, 'The same id again');
    assert.equal(folder.state.of('posts').size, rows.length);
    folder.close();
  });

  test('an engine opened again in this process reads the rows as they now are: changed (at the same length too), removed or put back by another process, as a new process reads them', async () => {
    const { two } = twins();
    const dir = tw(two);
    const reads = async (e: TwiningEngine) => ({ read: await e.read({ limit: 1000 }), decisions: await e.decisions({}), handoffs: await e.handoffs({}) });
    const first = await openWorkspace(two, quiet);
    const before = await reads(first);
    const mcp = openMcpDb(dir);
    /** A row's text with its summary replaced by as many x's: the same length, another text. */
    const sameLength = (table: string, id: string): string => {
      const data = String(mcp.prepare(`SELECT data FROM ${table} WHERE id = ?`).get(id)?.data);
      const summary = (JSON.parse(data) as { summary: string }).summary;
      assert.match(summary, /^[\x20-\x7e]+$/, 'an ASCII summary');
      const changed = data.replace(`"summary":${JSON.stringify(summary)}`, `"summary":${JSON.stringify('x'.repeat(summary.length))}`);
      assert.ok(changed !== data && changed.length === data.length);
      mcp.prepare(`UPDATE ${table} SET data = ? WHERE id = ?`).run(changed, id);
      return 'x'.repeat(summary.length);
    };
    const posts = mcp.prepare('SELECT id, data FROM blackboard ORDER BY seq').all() as { id: string; data: string }[];
    const decisions = mcp.prepare('SELECT id FROM decisions ORDER BY seq').all() as { id: string }[];
    assert.ok(posts.length >= 3 && decisions.length >= 1);
    const postSummary = sameLength('blackboard', posts[0].id);
    const decisionSummary = sameLength('decisions', decisions[0].id);
    mcp.prepare('DELETE FROM blackboard WHERE id = ?').run(posts[1].id);
    mcp.prepare('DELETE FROM blackboard WHERE id = ?').run(posts[2].id);
    mcpPost(mcp, dir, JSON.parse(posts[2].data));
    mcp.close();
    first.close();
    const again = await reads(await openWorkspace(two, quiet));
    const script = `const {openWorkspace}=require(${JSON.stringify(CORE_JS)});(async()=>{const e=await openWorkspace(${JSON.stringify(two)},{warn(){}});process.stdout.write(JSON.stringify({read:await e.read({limit:1000}),decisions:await e.decisions({}),handoffs:await e.handoffs({})}));})().catch(e=>{console.error(e);process.exit(1)})`;
    const fresh = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(fresh.status, 0, fresh.stderr);
    assert.deepEqual(JSON.parse(JSON.stringify(again)), JSON.parse(fresh.stdout));
    assert.ok(again.read.entries.some(e => e.summary === postSummary));
    assert.ok(!again.read.entries.some(e => e.id === posts[1].id));
    assert.equal(again.read.entries.at(-1)?.id, posts[2].id, 'put back: now the last');
    assert.ok(again.decisions.decisions.some(d => d.summary === decisionSummary));
    assert.notDeepEqual(again, before);
  });

  test("another process's appends, updates in place and a row put back under a new seq give the open engine what a new open reads", async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const reads = async (e: TwiningEngine) => ({
      read: await e.read({ limit: 1000 }),
      decisions: await e.decisions({}),
      handoffs: await e.handoffs({}),
      status: await e.status({}),
    });
    await reads(engine);
    const mcp = openMcpDb(dir);
    const post = (n: number) => ({
      entry_type: n % 2 ? 'warning' : 'finding',
      summary: `Later ${n}`,
      detail: '',
      tags: [],
      scope: 'src/',
      agent_id: 'mcp',
      id: `01KB20000000000000000000${String(n).padStart(2, '0')}`,
      timestamp: `2026-11-26T10:${String(n).padStart(2, '0')}:00.000Z`,
    });
    const seen = async () => {
      await engine.refresh(['.twining/twining.db-wal']);
      assert.deepEqual(await reads(engine), await reads(await openWorkspace(two, quiet)));
    };
    // Appended (the lists read on from where they stopped), twice.
    for (const n of [1, 2, 3]) mcpPost(mcp, dir, post(n));
    await seen();
    mcpPost(mcp, dir, post(4));
    await seen();
    // An update in place, and an entry removed and inserted again (a new seq: now the last).
    mcpResolve(mcp, dir, post(1).id, 'mcp', 'done', '2026-11-26T11:00:00.000Z');
    await seen();
    mcp.prepare('DELETE FROM blackboard WHERE id = ?').run(post(2).id);
    mcpPost(mcp, dir, post(2));
    await seen();
    assert.equal((await engine.read({ limit: 1 })).entries[0]?.summary, 'Later 2');
    // Appended after a row was put back, and one of the appended removed in the same commit's wake.
    mcpPost(mcp, dir, post(5));
    mcpPost(mcp, dir, post(6));
    mcp.prepare('DELETE FROM blackboard WHERE id = ?').run(post(5).id);
    await seen();
    mcp.close();
  });
});

describe('a records/-only 2.x folder (a fresh clone, or a Node without node:sqlite)', () => {
  test('every read but the agents gives what the same records give in a 1.x folder; the agents are refused naming the folder and why', async () => {
    const one = fixtureProject();
    const two = tempProject('demo-project');
    twoXFrom1x(tw(one), tw(two), { withDb: false });
    const a = (await readAll(await openWorkspace(one, quiet).then(withoutAgents))) as Record<string, unknown>;
    const engine = await openWorkspace(two, quiet);
    const b = (await readAll(withoutAgents(engine))) as Record<string, unknown>;
    // status: the agents are unknown (said in its warnings), everything else as in the 1.x folder.
    const sa = a.status as Record<string, unknown> & { warnings: string[] };
    const sb = b.status as Record<string, unknown> & { warnings: string[] };
    assert.ok(
      sb.warnings.some(w => w.includes('keeps its agents only in')),
      sb.warnings.join('; '),
    );
    for (const s of [sa, sb]) for (const key of ['registered_agents', 'active_agents', 'agents_by_liveness', 'summary', 'warnings']) delete s[key];
    assert.deepEqual(b, a);
    await rejectsWith(
      engine.agents({}),
      'NOT_FOUND',
      new RegExp(`${escape(tw(two))} keeps its agents only in twining-mcp 2\\.x's twining\\.db, which is not read here because it has no twining\\.db`),
    );
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The engine with `agents` answering nothing (a records/-only folder has none to compare). */
function withoutAgents(engine: TwiningEngine): TwiningEngine {
  return Object.assign(Object.create(engine) as TwiningEngine, { agents: () => Promise.resolve('not compared') });
}

/** The row of `id` in `table`, parsed. */
const rowOf = (dir: string, table: string, id: string) => {
  const db = openMcpDb(dir);
  try {
    return db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id);
  } finally {
    db.close();
  }
};

describe('writes to a 2.x SQLite folder', { skip }, () => {
  test('every writing operation leaves the rows and record files twining-mcp would, and they agree', async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const posted = await engine.post({ entry_type: 'warning', summary: 'Tokens expire early', scope: 'src/auth/', agent_id: 'tester' });
    const postRow = rowOf(dir, 'blackboard', posted.id)!;
    const entry = JSON.parse(postRow.data);
    assert.deepEqual([postRow.entry_type, postRow.scope, postRow.timestamp], ['warning', 'src/auth/', posted.timestamp]);
    assert.equal(fs.readFileSync(mcpRecordPath(dir, 'posts', entry), 'utf8'), stableStringify(entry));
    const decided = await engine.decide({
      domain: 'api',
      scope: 'src/api/',
      summary: 'Paginate with cursors',
      context: 'Lists grow',
      rationale: 'Stable under inserts',
      agent_id: 'tester',
    });
    const decisionRow = rowOf(dir, 'decisions', decided.id)!;
    assert.equal(decisionRow.status, JSON.parse(decisionRow.data).status);
    const handoff = await engine.handoff({
      source_agent: 'tester',
      target_agent: 'reviewer',
      summary: 'Review the cursor change',
      results: [{ description: 'done', status: 'completed' }],
      scope: 'src/api/',
    } as never);
    await engine.acknowledge({ handoff_id: handoff.id, agent_id: 'reviewer' });
    const handoffRow = rowOf(dir, 'handoffs', handoff.id)!;
    const record = JSON.parse(handoffRow.data);
    assert.equal(record.acknowledged_by, 'reviewer');
    assert.deepEqual(JSON.parse(handoffRow.index_data), JSON.parse(JSON.stringify(mcpHandoffIndex(record, true))));
    await engine.register({ agent_id: 'cursor-reviewer', capabilities: ['review'] });
    await engine.delegate({ summary: 'Need a security review', required_capabilities: ['security'], agent_id: 'tester' });
    await engine
      .override({ decision_id: decided.id, reason: 'Offsets suffice', overridden_by: 'lead' })
      .catch(() => engine.reconsider({ decision_id: decided.id, new_context: 'Offsets suffice' }));
    await engine.dismiss({ ids: [posted.id], reason: 'fixed' });
    assert.equal(rowOf(dir, 'blackboard', posted.id), undefined, 'a dismissed post has no row');
    assert.equal(fs.existsSync(mcpRecordPath(dir, 'posts', entry)), false, 'nor a record file');
    const db = openMcpDb(dir);
    const agent = db.prepare('SELECT data FROM agents WHERE agent_id = ?').get('cursor-reviewer');
    db.close();
    assert.deepEqual(JSON.parse(agent!.data).capabilities, ['review']);
    assertAgree(dir);
    // A new engine (another window) reads what was written.
    const again = await openWorkspace(two, quiet);
    assert.deepEqual(await again.handoffs({}), await engine.handoffs({}));
    assert.deepEqual(await again.decisions({}), await engine.decisions({}));
  });

  test('a row and record file written by twining-mcp reach the next refresh, and a resolve by it is seen from its record file', async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    await engine.refresh();
    const mcp = openMcpDb(dir);
    const id = '01KB0000000000000000000001';
    const full = {
      entry_type: 'warning',
      summary: 'From twining-mcp',
      detail: '',
      tags: [],
      scope: 'src/',
      agent_id: 'mcp',
      id,
      timestamp: '2026-11-25T10:00:00.000Z',
    };
    mcpPost(mcp, dir, full);
    const report = await engine.refresh(['.twining/twining.db-wal']);
    assert.ok(report.kinds.includes('blackboard'), JSON.stringify(report));
    assert.equal((await engine.read({ limit: 5 })).entries.at(-1)?.summary, 'From twining-mcp');
    mcpResolve(mcp, dir, id, 'mcp', 'fixed upstream', '2026-11-25T11:00:00.000Z');
    const file = path
      .relative(two, mcpRecordPath(dir, 'posts', full))
      .split(path.sep)
      .join('/');
    const resolved = await engine.refresh([file]);
    assert.ok(resolved.kinds.includes('blackboard'));
    assert.equal((await engine.read({ limit: 5 })).entries.at(-1)?.status, 'resolved');
    mcp.close();
  });

  test("a sweep (the backstop for lost watcher events) finds twining-mcp's row by the database's counter, and reports nothing when nothing changed", async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    await engine.read({ limit: 5 });
    await engine.refresh();
    assert.deepEqual((await swept(engine)).kinds, [], 'nothing changed: nothing reported');
    const mcp = openMcpDb(dir);
    const full = {
      entry_type: 'warning',
      summary: 'Swept from twining-mcp',
      detail: '',
      tags: [],
      scope: 'src/',
      agent_id: 'mcp',
      id: '01KB0000000000000000000002',
      timestamp: '2026-11-25T10:00:00.000Z',
    };
    mcpPost(mcp, dir, full);
    mcp.close();
    const report = await swept(engine);
    assert.ok(report.kinds.includes('blackboard'), JSON.stringify(report));
    assert.equal((await engine.read({ limit: 5 })).entries.at(-1)?.summary, 'Swept from twining-mcp');
    assert.deepEqual((await swept(engine)).kinds, [], 'reported once');
    const reads = engine.work.refreshes;
    await swept(engine);
    assert.equal(engine.work.refreshes, reads, 'a sweep that finds nothing reads nothing');
  });

  test("an agent's last_active renewed in place at the same length (no record file to name) by another process or engine is seen by the open engine's next read and refresh", async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const lastActive = async (e: TwiningEngine, id: string) => (await e.agents({})).agents.find(a => a.agent_id === id)?.last_active;
    const before = await lastActive(engine, 'backend-dev');
    assert.ok(before, 'the fixture has the agent');
    const rowOf = (id: string) => {
      const db = openMcpDb(dir);
      try {
        return String((db.prepare('SELECT data FROM agents WHERE agent_id = ?').get(id) as { data: string }).data);
      } finally {
        db.close();
      }
    };
    const length = rowOf('backend-dev').length;
    // twining-mcp's touch from another process: the row rewritten in place, at the same length.
    const at = '2026-11-30T09:08:07.654Z';
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        `const { DatabaseSync } = require('node:sqlite');
         const db = new DatabaseSync(${JSON.stringify(path.join(dir, 'twining.db'))});
         db.exec('PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE;');
         const row = db.prepare('SELECT data FROM agents WHERE agent_id = ?').get('backend-dev');
         db.prepare('UPDATE agents SET data = ? WHERE agent_id = ?').run(JSON.stringify({ ...JSON.parse(row.data), last_active: ${JSON.stringify(at)} }), 'backend-dev');
         db.exec('COMMIT;');
         db.close();`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.equal(rowOf('backend-dev').length, length, 'the same length: only the text tells the change');
    assert.equal(await lastActive(engine, 'backend-dev'), at, 'the next read sees it');
    // The same from a connection of this process, seen by a refresh that names only the database.
    const mcp = openMcpDb(dir);
    const later = '2026-11-30T09:08:08.765Z';
    mcpTouch(mcp, 'frontend-dev', later);
    mcp.close();
    const report = await engine.refresh(['.twining/twining.db-wal']);
    assert.ok(report.kinds.includes('registry'), JSON.stringify(report));
    assert.equal(await lastActive(engine, 'frontend-dev'), later);
    // And from a second engine: its post renews its agent's last_active (twining-mcp's auto-touch).
    const other = await openWorkspace(two, quiet);
    try {
      await other.post({ entry_type: 'finding', summary: 'By the reviewer', scope: 'src/', agent_id: 'reviewer' });
      const renewed = await lastActive(other, 'reviewer');
      assert.equal(await lastActive(engine, 'reviewer'), renewed);
    } finally {
      other.close();
      engine.close();
    }
  });

  test('rows changed in place or removed by another process are seen, whether or not record files were named', async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    await engine.refresh();
    const mcp = openMcpDb(dir);
    const post = (n: number) => ({
      entry_type: 'need',
      summary: `Need ${n}`,
      detail: '',
      tags: [],
      scope: 'src/',
      agent_id: 'mcp',
      id: `01KB100000000000000000000${n}`,
      timestamp: `2026-11-25T10:0${n}:00.000Z`,
    });
    const summaries = async () => (await engine.read({ limit: 500 })).entries.map(e => `${e.summary}${e.status === 'resolved' ? ' (resolved)' : ''}`);
    for (const n of [1, 2, 3]) mcpPost(mcp, dir, post(n));
    await engine.refresh(['.twining/twining.db-wal']);
    assert.deepEqual((await summaries()).slice(-3), ['Need 1', 'Need 2', 'Need 3']);
    // Only the database named: an update in place (same seq) and a removed row.
    mcpResolve(mcp, dir, post(1).id, 'mcp', 'done', '2026-11-25T11:00:00.000Z');
    mcp.prepare('DELETE FROM blackboard WHERE id = ?').run(post(2).id);
    await engine.refresh(['.twining/twining.db-wal']);
    let now = await summaries();
    assert.ok(now.includes('Need 1 (resolved)'), JSON.stringify(now.slice(-3)));
    assert.ok(!now.includes('Need 2'));
    // A record file named (a new post) beside a removed row that has none: the count finds it.
    mcp.prepare('DELETE FROM blackboard WHERE id = ?').run(post(3).id);
    mcpPost(mcp, dir, post(4));
    const file = path
      .relative(two, mcpRecordPath(dir, 'posts', post(4)))
      .split(path.sep)
      .join('/');
    await engine.refresh(['.twining/twining.db-wal', file]);
    now = await summaries();
    assert.ok(now.includes('Need 4') && !now.includes('Need 3'), JSON.stringify(now.slice(-3)));
    mcp.close();
  });

  test("record files brought by a git pull show at the next refresh, and go into twining.db as twining-mcp's ingest puts them (the files win)", async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const before = (await engine.decisions({})).total_count;
    const pulled = {
      id: '01KB3000000000000000000000',
      timestamp: '2026-11-25T09:00:00.000Z',
      agent_id: 'teammate',
      domain: 'api',
      scope: 'src/api/',
      summary: 'Version the API in the path',
      context: 'c',
      rationale: 'r',
      constraints: [],
      alternatives: [],
      depends_on: [],
      confidence: 'high',
      status: 'active',
      reversible: true,
      affected_files: [],
      affected_symbols: [],
      commit_hashes: [],
    };
    const file = mcpRecordPath(dir, 'decisions', pulled);
    fs.writeFileSync(file, stableStringify(pulled));
    const report = await engine.refresh([path.relative(two, file).split(path.sep).join('/')]);
    assert.ok(report.kinds.includes('decisions'), JSON.stringify(report));
    assert.equal((await engine.decisions({})).total_count, before + 1);
    assert.deepEqual(JSON.parse(rowOf(dir, 'decisions', pulled.id)!.data), pulled);
    assertAgree(dir);
  });

  test('init on a 2.x folder known by its records (no storage key) leaves config.yml alone: the key would turn it back to files', async () => {
    const one = fixtureProject();
    const two = tempProject('demo-project');
    twoXFrom1x(tw(one), tw(two), { withDb: false });
    const config = fs.readFileSync(tw(two, 'config.yml'), 'utf8').replace(/^storage:\n {2}backend: sqlite\n/m, '');
    fs.writeFileSync(tw(two, 'config.yml'), config);
    await (await openWorkspace(two, quiet)).init();
    assert.equal(fs.readFileSync(tw(two, 'config.yml'), 'utf8'), config);
  });

  test("two processes writing at once, ours and one with twining-mcp's transactions, lose nothing", async () => {
    const { two } = twins();
    const dir = tw(two);
    const before = openMcpDb(dir);
    const start = Number(before.prepare('SELECT count(*) AS n FROM blackboard').get()!.n);
    before.close();
    const ours = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const script = `const {openWorkspace}=require(${JSON.stringify(CORE_JS)});(async()=>{const ws=await openWorkspace(${JSON.stringify(two)},{warn(){}});for(let i=0;i<${n};i++)await ws.post({entry_type:'finding',summary:'ours '+i,agent_id:'ours-'+process.pid});})().catch(e=>{console.error(e);process.exit(1)})`;
        const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', d => (err += d));
        child.on('exit', code => (code === 0 ? resolve() : reject(new Error(err))));
      });
    const theirs = async (n: number) => {
      const db = openMcpDb(dir);
      for (let i = 0; i < n; i++) {
        const id = `01KB1${String(i).padStart(21, '0')}`;
        withWriteTxn(db, () =>
          mcpPost(db, dir, {
            entry_type: 'finding',
            summary: `theirs ${i}`,
            detail: '',
            tags: [],
            scope: 'project',
            agent_id: 'mcp',
            id,
            timestamp: new Date().toISOString(),
          }),
        );
        await new Promise(r => setTimeout(r, 5));
      }
      db.close();
    };
    await Promise.all([ours(25), ours(25), theirs(40)]);
    const after = openMcpDb(dir);
    assert.equal(Number(after.prepare('SELECT count(*) AS n FROM blackboard').get()!.n), start + 90);
    after.close();
    assertAgree(dir);
    const engine = await openWorkspace(two, quiet);
    assert.equal((await engine.read({ limit: 1000 })).total_count, start + 90);
  });

  test('a writer killed mid-write: after the next open, twining.db and records/ agree', async () => {
    const { two } = twins();
    const dir = tw(two);
    for (let round = 0; round < 4; round++) {
      const script = `const {openWorkspace}=require(${JSON.stringify(CORE_JS)});(async()=>{const ws=await openWorkspace(${JSON.stringify(two)},{warn(){}});for(let i=0;;i++)await ws.post({entry_type:'finding',summary:'loop '+i,agent_id:'killed'});})()`;
      const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
      await new Promise(r => setTimeout(r, 400 + round * 137));
      child.kill('SIGKILL');
      await new Promise(r => child.on('exit', r));
    }
    // A write killed between its record files and its commit, made certain: a journal of a dead process.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const ghost = {
      entry_type: 'finding',
      summary: 'never committed',
      detail: '',
      tags: [],
      scope: 'project',
      agent_id: 'ghost',
      id: '01KB2000000000000000000000',
      timestamp: '2026-11-25T12:00:00.000Z',
    };
    const ghostFile = mcpRecordPath(dir, 'posts', ghost);
    fs.mkdirSync(path.dirname(ghostFile), { recursive: true });
    fs.writeFileSync(ghostFile, stableStringify(ghost));
    fs.writeFileSync(
      path.join(dir, `twining.db-twining-write-${dead}.json`),
      JSON.stringify([{ kind: 'posts', id: ghost.id, file: ghostFile, before: null, after: stableStringify(ghost), row: JSON.stringify(ghost) }]),
    );
    const warnings: string[] = [];
    const engine = await openWorkspace(two, { warn: m => warnings.push(m) });
    await engine.post({ entry_type: 'finding', summary: 'after the crash', agent_id: 'me' });
    assert.ok(
      warnings.some(w => /was interrupted .* put back in agreement with twining\.db/.test(w)),
      warnings.join('\n'),
    );
    assert.equal(fs.existsSync(ghostFile), false, 'the file of a write that never committed is gone');
    assertAgree(dir);
  });
});
