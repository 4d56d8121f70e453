/**
 * A 2.x folder's records kept between opens in the user's cache (src/core/store/two-x-cache.ts):
 * an open that only reads reads the rows and lays no copy out; the copy a write (or housekeeping's
 * preview) lays out is kept, and a second open reuses it (its files are not written again), and whatever changed
 * while no engine had the folder open (rows another process wrote, a replaced twining.db, record
 * files a `git pull` brought, a kept copy a killed process left half-written) gives exactly what
 * an open without any cache gives. Needs node:sqlite (scripts/test.js runs it under Node 24).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import { openWorkspace, TwiningEngine } from '../../../../src/core';
import { CORE_JS, fixtureProject, tempProject, tw } from '../../../support/tmp';
import { hasSqlite, mcpDecision, mcpPost, mcpRecordPath, openMcpDb, twoXFrom1x, withWriteTxn, writeMcpRecord } from '../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: () => undefined };

function twoX(withDb: boolean): string {
  const two = tempProject('demo-project');
  twoXFrom1x(tw(fixtureProject()), tw(two), { withDb });
  return two;
}

/** What the views, tools and CLI show (the agents' answer or refusal included). */
async function shown(engine: TwiningEngine): Promise<unknown> {
  return {
    read: await engine.read({ limit: 1000 }),
    decisions: await engine.decisions({}),
    handoffs: await engine.handoffs({}),
    agents: await engine.agents({}).catch((e: Error) => e.message),
    status: await engine.status({}),
    why: await engine.why({ scope: 'src/' }),
    search: await engine.search({ query: 'token' }),
  };
}

/**
 * Opens, reads and closes (the kept copy saved for the next open). `layOut`: housekeeping's
 * preview runs first, which reads the write copy (laid out from the rows, as a write lays it out).
 */
async function openRead(root: string, { layOut = false } = {}): Promise<unknown> {
  const engine = await openWorkspace(root, quiet);
  try {
    if (layOut) await engine.housekeeping({});
    return await shown(engine);
  } finally {
    engine.close();
  }
}

/** The same with no cache at all: a copy laid out anew. */
async function fresh(root: string): Promise<unknown> {
  const saved = process.env.TWINING_CACHE_DIR;
  process.env.TWINING_CACHE_DIR = 'off';
  try {
    return await openRead(root);
  } finally {
    process.env.TWINING_CACHE_DIR = saved;
  }
}

/** The kept copies of a project folder (their mirror folders), by their slot names. */
function keptCopies(root: string): string[] {
  const base = path.join(process.env.TWINING_CACHE_DIR!, 'two-x');
  const real = fs.realpathSync(tw(root));
  for (const key of fs.existsSync(base) ? fs.readdirSync(base) : [])
    if (fs.readFileSync(path.join(base, key, 'folder.txt'), 'utf8').trim() === real)
      return fs
        .readdirSync(path.join(base, key))
        .filter(n => n.startsWith('m-'))
        .map(n => path.join(base, key, n, '.twining'));
  return [];
}

const post = (n: number) => ({
  entry_type: 'warning',
  summary: `Written while closed ${n}`,
  detail: '',
  tags: [],
  scope: 'src/',
  agent_id: 'mcp',
  id: `01KB200000000000000000000${n}`,
  timestamp: `2026-11-25T10:0${n}:00.000Z`,
});

describe('a 2.x folder kept between opens', { skip }, () => {
  test('the second open reuses the kept copy: the same result, its record files not written again', async () => {
    const two = twoX(true);
    const read = await openRead(two);
    assert.ok(
      keptCopies(two).every(c => !fs.existsSync(path.join(c, 'decisions'))),
      'an open that only reads lays no copy out: its views read the rows',
    );
    const first = await openRead(two, { layOut: true });
    assert.deepEqual(first, read, 'the rows read directly give what the copy gives');
    const [copy] = keptCopies(two);
    assert.ok(copy && fs.existsSync(path.join(copy, '..', 'manifest.json')), 'the copy and its manifest are kept');
    const decision = fs.readdirSync(path.join(copy, 'decisions')).find(n => n !== 'index.json')!;
    const before = fs.statSync(path.join(copy, 'decisions', decision));
    assert.deepEqual(await openRead(two, { layOut: true }), first);
    const copies = keptCopies(two);
    assert.equal(copies.length, 1, 'one copy, claimed again');
    const after = fs.statSync(path.join(copies[0], 'decisions', decision));
    assert.deepEqual([after.ino, after.mtimeMs], [before.ino, before.mtimeMs], 'the decision file was left as it was');
    assert.deepEqual(await fresh(two), first);
  });

  test('rows another process wrote while no engine was open are shown, as an open without a cache shows them', async () => {
    const two = twoX(true);
    const dir = tw(two);
    await openRead(two);
    const db = openMcpDb(dir);
    mcpPost(db, dir, post(1));
    const row = db.prepare('SELECT data FROM decisions ORDER BY seq LIMIT 1').get() as { data: string };
    const changed = { ...JSON.parse(row.data), summary: 'Changed while closed' };
    withWriteTxn(db, () => db.prepare('UPDATE decisions SET data = ? WHERE id = ?').run(JSON.stringify(changed), changed.id));
    writeMcpRecord(mcpRecordPath(dir, 'decisions', changed), changed);
    db.prepare('DELETE FROM blackboard WHERE seq = (SELECT min(seq) FROM blackboard)').run();
    db.close();
    const now = (await openRead(two)) as { read: { entries: { summary: string }[] }; decisions: { decisions: { summary: string }[] } };
    assert.equal(now.read.entries.at(-1)?.summary, 'Written while closed 1');
    assert.ok(now.decisions.decisions.some(d => d.summary === 'Changed while closed'));
    assert.deepEqual(now, await fresh(two));
  });

  test('a replaced twining.db is read as it is, not as the kept copy remembers it', async () => {
    const two = twoX(true);
    const dir = tw(two);
    await openRead(two);
    // Another database in its place (a restore, a checkout of another branch's folder): rows renumbered.
    const other = tempProject('other');
    twoXFrom1x(tw(fixtureProject()), tw(other));
    const db = openMcpDb(tw(other));
    const all = db.prepare('SELECT data FROM decisions ORDER BY seq').all() as { data: string }[];
    db.prepare('DELETE FROM decisions').run();
    for (const r of all.reverse()) mcpDecision(db, tw(other), { ...JSON.parse(r.data), rationale: 'Replaced' });
    db.exec('PRAGMA wal_checkpoint(TRUNCATE);');
    db.close();
    for (const name of ['twining.db-wal', 'twining.db-shm']) fs.rmSync(path.join(dir, name), { force: true });
    fs.copyFileSync(path.join(tw(other), 'twining.db'), path.join(dir, 'twining.db'));
    const now = await openRead(two);
    assert.deepEqual(now, await fresh(two));
    assert.ok(JSON.stringify(now).includes('Replaced'));
  });

  test('a kept copy changed or left half-written is laid out again where it differs', async () => {
    const two = twoX(true);
    const first = await openRead(two, { layOut: true });
    const [copy] = keptCopies(two);
    const decision = fs.readdirSync(path.join(copy, 'decisions')).find(n => n !== 'index.json')!;
    fs.writeFileSync(path.join(copy, 'decisions', decision), '{"half": ');
    fs.appendFileSync(path.join(copy, 'blackboard.jsonl'), '{"id":"01KB3000000000000000000000","entry_type":"warning","summary":"stray"}\n');
    fs.writeFileSync(path.join(copy, 'decisions', '01KB3000000000000000000000.json'), '{}');
    fs.writeFileSync(path.join(copy, 'archive', 'stray.jsonl'), '');
    assert.deepEqual(await openRead(two, { layOut: true }), first);
    const [again] = keptCopies(two);
    assert.ok(!fs.existsSync(path.join(again, 'decisions', '01KB3000000000000000000000.json')), 'a file the records do not give is removed');
    assert.deepEqual(fs.readdirSync(path.join(again, 'archive')), []);
  });

  test('a records/-only clone after a git pull: changed, new and removed record files are read, the others are not', async () => {
    const two = twoX(false);
    const dir = tw(two);
    await openRead(two);
    const decisions = path.join(dir, 'records', 'decisions');
    const [one, gone] = fs.readdirSync(decisions).sort();
    const changed = JSON.parse(fs.readFileSync(path.join(decisions, one), 'utf8'));
    // Rewritten in place (an editor's save keeps the file), and its folder's stat alone would not tell.
    fs.writeFileSync(path.join(decisions, one), JSON.stringify({ ...changed, summary: 'Pulled summary' }, null, 2) + '\n');
    fs.rmSync(path.join(decisions, gone));
    writeMcpRecord(mcpRecordPath(dir, 'posts', post(2)), post(2));
    const now = JSON.stringify(await openRead(two));
    assert.ok(now.includes('Pulled summary') && now.includes('Written while closed 2'), now.slice(0, 300));
    assert.ok(!now.includes(gone.slice(0, -5)), 'the removed decision is gone');
    assert.deepEqual(JSON.parse(now), await fresh(two));
  });

  test('an engine or another process holding a copy keeps it: a second one gets a copy of its own, both read right', async () => {
    const two = twoX(true);
    const expected = await fresh(two);
    // Another process opens the folder and holds it until told to stop.
    const child = spawn(process.execPath, [
      '-e',
      `const { openWorkspace } = require(${JSON.stringify(CORE_JS)});
       openWorkspace(${JSON.stringify(two)}, { warn() {} }).then(async e => { await e.housekeeping({}); await e.read({ limit: 1 }); console.log('open'); process.stdin.once('data', () => { e.close(); process.exit(0); }); });`,
    ]);
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', code => reject(new Error(`the other process ended (${code})`)));
    });
    const a = await openWorkspace(two, quiet);
    const b = await openWorkspace(two, quiet);
    // Each lays its copy out (housekeeping's preview reads it, as a write does).
    await a.housekeeping({});
    await b.housekeeping({});
    assert.deepEqual(await shown(a), expected);
    assert.deepEqual(await shown(b), expected);
    const copies = keptCopies(two);
    assert.equal(copies.length, 3, copies.join(', '));
    assert.equal(new Set(copies.map(c => /m-(\d+)-/.exec(c)![1])).size, 2, 'two pids: the other process and this one');
    a.close();
    b.close();
    child.stdin.write('stop\n');
    await new Promise(resolve => child.once('exit', resolve));
    assert.deepEqual(await openRead(two, { layOut: true }), expected);
    assert.equal(keptCopies(two).length, 3, 'a free copy is claimed again, none added');
  });
});
