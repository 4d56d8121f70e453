/**
 * A twining-mcp 2.x folder is read only from its twining.db and records/, through the storage
 * interface (src/core/storage/sqlite/sqlite-folder.ts): no read or write, housekeeping included, and no open
 * of a folder with only records/ writes anything in the user's home, cache or temporary folder, and
 * what other processes changed while no engine had the folder open (rows, a replaced database, a
 * `git pull` of record files) is read as it now is. Until issue 27 a private 1.x copy of the
 * records was kept in the user's cache between opens; these tests replaced the ones of that copy.
 * Needs node:sqlite (scripts/test.js runs it under Node 24).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import { openWorkspace, TwiningEngine } from '../../../../../src/core';
import { CORE_JS, fixtureProject, pathsUnder, tempProject, tw, withEnv } from '../../../../support/tmp';
import { hasSqlite, mcpDecision, mcpPost, mcpRecordPath, openMcpDb, twoXFrom1x, withWriteTxn, writeMcpRecord } from '../../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: () => undefined };

function sqlite(withDb: boolean): string {
  const two = tempProject('demo-project');
  twoXFrom1x(tw(fixtureProject()), tw(two), { withDb });
  return two;
}

const tree = pathsUnder;

/**
 * Runs `work` with the home, the XDG cache and the temporary folder pointed at empty folders of
 * their own (child processes inherit them), and asserts that they are still empty after it, and
 * that nothing appeared in the project beside `.twining/`.
 */
async function nothingOutside<T>(root: string, work: () => Promise<T>): Promise<T> {
  const base = tempProject('outside');
  const dirs = { home: path.join(base, 'home'), cache: path.join(base, 'cache'), tmp: path.join(base, 'tmp') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d);
  const beside = () => tree(root).filter(p => !p.startsWith('.twining/'));
  const before = beside();
  let result: T | undefined;
  await withEnv({ HOME: dirs.home, XDG_CACHE_HOME: dirs.cache, TMPDIR: dirs.tmp }, async () => {
    result = await work();
  });
  assert.deepEqual(
    { home: tree(dirs.home), cache: tree(dirs.cache), tmp: tree(dirs.tmp) },
    { home: [], cache: [], tmp: [] },
    'nothing in the home, cache or temporary folder',
  );
  assert.deepEqual(beside(), before, 'nothing beside .twining/ in the project');
  return result as T;
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

/** Opens, reads (after housekeeping's preview with `housekeeping`) and closes. */
async function openRead(root: string, { housekeeping = false } = {}): Promise<unknown> {
  const engine = await openWorkspace(root, quiet);
  try {
    if (housekeeping) await engine.housekeeping({});
    return await shown(engine);
  } finally {
    engine.close();
  }
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

describe('a 2.x folder read only from twining.db and records/', { skip }, () => {
  test('reads, housekeeping (preview and run) and reopening write nothing outside .twining/, and answer alike', async () => {
    const two = sqlite(true);
    await nothingOutside(two, async () => {
      const read = await openRead(two);
      assert.deepEqual(await openRead(two, { housekeeping: true }), read, "housekeeping's preview changes no answer");
      const engine = await openWorkspace(two, quiet);
      try {
        const preview = await engine.housekeeping({ archive: true });
        const run = await engine.housekeeping({ execute: true, archive: true });
        assert.equal(run.archived.count, preview.archived.count, 'the run archives what the preview said');
        await engine.post({ entry_type: 'finding', summary: 'After housekeeping', scope: 'src/', agent_id: 'tester' });
        assert.equal((await engine.read({ limit: 1 })).entries[0]?.summary, 'After housekeeping');
      } finally {
        engine.close();
      }
      const again = (await openRead(two)) as { read: { entries: { summary: string }[] } };
      assert.equal(again.read.entries.at(-1)?.summary, 'After housekeeping', 'a new open reads what housekeeping and the post stored');
    });
  });

  test('a records/-only folder: every open reads its files, writes nothing outside .twining/, and sees a git pull', async () => {
    const two = sqlite(false);
    const dir = tw(two);
    await nothingOutside(two, async () => {
      const first = await openRead(two, { housekeeping: true });
      assert.deepEqual(await openRead(two), first, 'a second open reads the same');
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
    });
    assert.ok(!fs.existsSync(path.join(dir, 'twining.db')), 'reading made no database');
  });

  test('rows another process wrote while no engine was open are shown', async () => {
    const two = sqlite(true);
    const dir = tw(two);
    await openRead(two);
    const db = openMcpDb(dir);
    mcpPost(db, dir, post(1));
    const row = db.prepare('SELECT data FROM decisions ORDER BY seq LIMIT 1').get() as { data: string };
    const changed = { ...JSON.parse(row.data), summary: 'Changed while closed' };
    withWriteTxn(db, () => db.prepare('UPDATE decisions SET data = ? WHERE id = ?').run(JSON.stringify(changed), changed.id));
    writeMcpRecord(mcpRecordPath(dir, 'decisions', changed), changed);
    db.prepare('DELETE FROM blackboard WHERE seq = (SELECT min(seq) FROM blackboard)').run();
    const first = db.prepare('SELECT id FROM blackboard ORDER BY seq LIMIT 1').get() as { id: string };
    db.close();
    const now = (await nothingOutside(two, () => openRead(two))) as {
      read: { entries: { id: string; summary: string }[] };
      decisions: { decisions: { summary: string }[] };
    };
    assert.equal(now.read.entries.at(-1)?.summary, 'Written while closed 1');
    assert.equal(now.read.entries[0]?.id, first.id, 'the removed entry is gone');
    assert.ok(now.decisions.decisions.some(d => d.summary === 'Changed while closed'));
  });

  test('a replaced twining.db is read as it is', async () => {
    const two = sqlite(true);
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
    const now = (await nothingOutside(two, () => openRead(two))) as { decisions: { decisions: { id: string; rationale?: string }[] } };
    assert.deepEqual(
      now.decisions.decisions.map(d => d.id),
      all.map(r => (JSON.parse(r.data) as { id: string }).id),
      'in the new database’s order',
    );
    assert.ok(JSON.stringify(now).includes('Replaced'));
  });

  test('engines of this process and another process open on the folder at once all read right, and write nothing outside', async () => {
    const two = sqlite(true);
    const expected = await openRead(two);
    await nothingOutside(two, async () => {
      // Another process opens the folder, runs housekeeping's preview and holds it until told to stop.
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
      await a.housekeeping({});
      await b.housekeeping({});
      assert.deepEqual(await shown(a), expected);
      assert.deepEqual(await shown(b), expected);
      a.close();
      b.close();
      child.stdin.write('stop\n');
      await new Promise(resolve => child.once('exit', resolve));
      assert.deepEqual(await openRead(two, { housekeeping: true }), expected);
    });
  });
});
