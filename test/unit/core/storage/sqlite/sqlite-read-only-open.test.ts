/**
 * A twining-mcp 2.x folder opened to read (a window showing the views, `twining why` and
 * `twining status` as one-shot processes) is read from its rows (storage/sqlite/sqlite-storage.ts): nothing
 * is written outside `.twining/`, neither in the user's cache nor in the temporary folder, and the
 * answers are those of the same records in a 1.x folder. A post, a dismissal and housekeeping are
 * stored as rows and records/ files directly: no copy of the records is laid out anywhere (there was
 * one in the user's cache for housekeeping until issue 27). Needs node:sqlite (scripts/test.js runs
 * it under Node 24).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../../src/core';
import { CLI_JS, fixtureProject, pathsUnder, tempProject, tw, withEnv } from '../../../../support/tmp';
import { hasSqlite, twoXFrom1x } from '../../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: () => undefined };

const tree = pathsUnder;

/**
 * Runs `work` with the home, the user cache and the temporary folder pointed at empty folders of
 * their own; gives what the cache (the home's and XDG's) and the temporary folder hold after.
 */
async function watched(work: (env: NodeJS.ProcessEnv) => Promise<void>): Promise<{ cache: string[]; tmp: string[] }> {
  const base = tempProject('watched');
  const [home, cache, tmp] = ['home', 'cache', 'tmp'].map(n => path.join(base, n));
  for (const d of [home, cache, tmp]) fs.mkdirSync(d);
  await withEnv({ HOME: home, XDG_CACHE_HOME: cache, TMPDIR: tmp }, work);
  return { cache: [...tree(home), ...tree(cache)], tmp: tree(tmp) };
}

describe('a 2.x folder opened to read', { skip }, () => {
  test('the views, `twining why` and `twining status` write nothing outside .twining/ and answer as the same records in a 1.x folder', async () => {
    const one = fixtureProject();
    const two = tempProject('demo-project');
    twoXFrom1x(tw(one), tw(two), { withDb: true });
    const outside = () => tree(two).filter(p => !p.startsWith('.twining/') && p !== '.twining/');
    const projectBefore = outside();
    let answers: unknown[] = [];
    const seen = await watched(async env => {
      const engine = await openWorkspace(two, quiet);
      try {
        answers = [await engine.read({ limit: 1000 }), await engine.decisions({}), await engine.why({ scope: 'src/' }), await engine.handoffs({})];
      } finally {
        engine.close();
      }
      for (const args of [['why', 'src/'], ['status']]) {
        const r = spawnSync(process.execPath, [CLI_JS, ...args], { cwd: two, env, encoding: 'utf8' });
        assert.equal(r.status, 0, `twining ${args.join(' ')}: ${r.stderr}`);
        const same = spawnSync(process.execPath, [CLI_JS, ...args], { cwd: one, encoding: 'utf8' });
        if (args[0] === 'why') assert.equal(r.stdout, same.stdout, 'twining why answers as in the 1.x folder');
      }
    });
    assert.deepEqual(seen.cache, [], 'nothing in the user cache');
    assert.deepEqual(seen.tmp, [], 'nothing in the temporary folder');
    assert.deepEqual(outside(), projectBefore, 'nothing beside .twining/ in the project');
    const oneX = await openWorkspace(one, quiet);
    try {
      assert.deepEqual(answers, [await oneX.read({ limit: 1000 }), await oneX.decisions({}), await oneX.why({ scope: 'src/' }), await oneX.handoffs({})]);
    } finally {
      oneX.close();
    }
  });

  test('posts, dismissals and housekeeping write nothing outside .twining/; the writes are read back from the rows', async () => {
    const two = tempProject('demo-project');
    twoXFrom1x(tw(fixtureProject()), tw(two), { withDb: true });
    const outside = () => tree(two).filter(p => !p.startsWith('.twining/') && p !== '.twining/');
    const projectBefore = outside();
    const posted = await watched(async () => {
      const engine = await openWorkspace(two, quiet);
      try {
        await engine.post({ entry_type: 'finding', summary: 'Stored as a row', scope: 'src/', agent_id: 'tester' });
      } finally {
        engine.close();
      }
    });
    assert.deepEqual(posted, { cache: [], tmp: [] }, 'a post is stored as rows and records/ files, with no copy anywhere');
    const seen = await watched(async () => {
      const engine = await openWorkspace(two, quiet);
      try {
        await engine.post({ entry_type: 'finding', summary: 'To be dismissed', scope: 'src/', agent_id: 'tester' });
        const dismissed = (await engine.read({ limit: 1 })).entries[0].id;
        await engine.dismiss({ ids: [dismissed], reason: 'Written through the copy' });
        await engine.post({ entry_type: 'finding', summary: 'Written through the copy', scope: 'src/', agent_id: 'tester' });
        assert.deepEqual(tree(process.env.XDG_CACHE_HOME!), [], 'a dismissal is stored as rows too');
        // Housekeeping's preview reads the rows too.
        await engine.housekeeping({});
      } finally {
        engine.close();
      }
    });
    // Until issue 27 housekeeping laid a 1.x copy out in the user cache; now nothing is written there.
    assert.deepEqual(seen.cache, [], 'nothing in the user cache or home');
    assert.deepEqual(seen.tmp, [], 'nothing in the temporary folder');
    assert.deepEqual(outside(), projectBefore, 'nothing beside .twining/ in the project');
    const again = await openWorkspace(two, quiet);
    try {
      assert.deepEqual(
        (await again.read({ limit: 3 })).entries.map(e => e.summary),
        ['Stored as a row', 'Dismissed finding "To be dismissed": Written through the copy', 'Written through the copy'],
      );
    } finally {
      again.close();
    }
  });
});
