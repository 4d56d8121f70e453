/**
 * `twining migrate` stopped half-way (src/core/migrate/migrate-forward.ts, migrate-reverse.ts): a
 * write the file system refuses, and a migration killed while it writes. The folder stays usable,
 * reading what it read before, and the error names the file and what was and was not written; a
 * second run finishes the job. Needs node:sqlite: scripts/test.js runs this file under Node 24.
 * (Permissions cannot make a write fail here, since the tests may run as root: a file where a
 * folder belongs, and a folder where a file belongs, do.)
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import * as yaml from 'js-yaml';
import { migrate, openWorkspace } from '../../../../src/core';
import { CLI_JS, changedFiles, fixtureProject, snapshotTree, sleep, tw } from '../../../support/tmp';
import { hasSqlite } from '../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: () => undefined };

/** What the views show: posts, decisions, handoffs and agents. */
async function shown(root: string): Promise<unknown> {
  const engine = await openWorkspace(root, quiet);
  return {
    read: await engine.read({ limit: 10_000 }),
    decisions: await engine.decisions({}),
    handoffs: await engine.handoffs({}),
    agents: await engine.agents({}),
  };
}

const entityIds = (root: string) => (JSON.parse(fs.readFileSync(tw(root, 'graph', 'entities.json'), 'utf8')) as { id: string }[]).map(e => e.id);

const backendOf = (root: string) => (yaml.load(fs.readFileSync(tw(root, 'config.yml'), 'utf8')) as { storage?: { backend?: string } }).storage?.backend;

describe('twining migrate stopped half-way', { skip }, () => {
  test('forward: a record file that cannot be written stops it; the folder stays on its untouched 1.x files, the files it made are removed, and a second run finishes', async () => {
    const one = fixtureProject();
    const root = fixtureProject();
    fs.mkdirSync(tw(root, 'records'));
    fs.writeFileSync(tw(root, 'records', 'graph'), 'a file where the graph folder belongs');
    const before = snapshotTree(root);
    await assert.rejects(migrate(root, {}), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'IO', error.message);
      // The entities are written several at once, so the one that fails first is any of them.
      const named = /records\/graph\/entities\/([0-9A-Z]{26})\.json/.exec(error.message);
      assert.ok(named, `the error names the entity file it could not write: ${error.message}`);
      assert.ok(entityIds(one).includes(named[1]), `${named[1]} is one of the folder's entities`);
      assert.match(
        error.message,
        /Nothing was migrated: config\.yml says storage\.backend: files, so the folder stays on its 1\.x files, which were not changed/,
      );
      // Written many at once: the posts and decisions, perhaps more, before the first entity failed; all removed again.
      assert.match(error.message, /the \d+ files this run had made under records\/ were removed again; run twining migrate again/);
      assert.doesNotMatch(error.message, /twining\.db it made/, 'the database was not reached');
      return true;
    });
    assert.deepEqual(changedFiles(before, snapshotTree(root)), ['config.yml', 'config.yml.pre-migrate.bak'], 'no record file or database left behind');
    assert.equal(backendOf(root), 'files', 'pinned to files while it is migrated');
    assert.deepEqual(await shown(root), await shown(one));
    fs.rmSync(tw(root, 'records', 'graph'));
    const report = await migrate(root, {});
    assert.equal(report.finalized, true);
    assert.equal(backendOf(root), 'sqlite');
    assert.deepEqual(await shown(root), await shown(one));
  });

  test('reverse: a 1.x file that cannot be written stops it; config.yml still says sqlite, the folder reads as before, and the error says what was written', async () => {
    const one = fixtureProject();
    const root = fixtureProject();
    assert.equal((await migrate(root, {})).finalized, true);
    fs.rmSync(tw(root, 'graph', 'relations.json'));
    fs.mkdirSync(tw(root, 'graph', 'relations.json'));
    await assert.rejects(migrate(root, { reverse: true }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'IO', error.message);
      assert.match(error.message, /graph\/relations\.json/);
      // The 4 decision and 2 handoff records, blackboard.jsonl, decisions/index.json and entities.json were written; relations.json, the handoff index and the registry were not.
      assert.match(
        error.message,
        /config\.yml still says sqlite, so the folder is read from twining\.db and records\/, which were not changed; 9 of the 12 1\.x files had been written/,
      );
      assert.match(error.message, /the 1\.x files as they were are in pre-reverse-backup\//);
      return true;
    });
    assert.equal(backendOf(root), 'sqlite');
    assert.deepEqual(await shown(root), await shown(one));
    fs.rmSync(tw(root, 'graph', 'relations.json'), { recursive: true });
    assert.equal((await migrate(root, { reverse: true })).finalized, true);
    assert.deepEqual(await shown(root), await shown(one));
  });

  test('killed while it writes record files, and while it fills twining.db: the folder reads as before each time, and a second run finishes', async () => {
    const one = fixtureProject();
    // 2,500 more posts, so that a migration takes long enough to be killed in the middle.
    const extra = Array.from({ length: 2500 }, (_, i) => ({
      id: `01KC${String(i).padStart(22, '0')}`,
      timestamp: new Date(Date.UTC(2026, 10, 23, 0, 0, i)).toISOString(),
      agent_id: 'bulk',
      entry_type: 'finding',
      tags: [],
      scope: 'src/',
      summary: `finding ${i}`,
      detail: '',
    }));
    fs.appendFileSync(tw(one, 'blackboard.jsonl'), extra.map(e => JSON.stringify(e) + '\n').join(''));
    const expected = await shown(one);
    const root = fixtureProject();
    fs.copyFileSync(tw(one, 'blackboard.jsonl'), tw(root, 'blackboard.jsonl'));
    const stops: string[] = [];
    for (const when of [tw(root, 'records', 'posts'), tw(root, 'twining.db')]) {
      const child = spawn(process.execPath, [CLI_JS, 'migrate', '--dir', root], { stdio: 'ignore' });
      let done = false;
      const exited = new Promise<void>(resolve =>
        child.on('exit', () => {
          done = true;
          resolve();
        }),
      );
      while (!done && !fs.existsSync(when)) await sleep(2);
      child.kill('SIGKILL');
      await exited;
      stops.push(`${path.basename(when)} ${backendOf(root)}`);
      assert.deepEqual(await shown(root), expected, `killed once ${path.basename(when)} appeared: the folder reads as before`);
    }
    assert.deepEqual(stops, ['posts files', 'twining.db files'], 'both kills came before the migration finished (config.yml still said files)');
    const report = await migrate(root, {});
    assert.equal(report.finalized, true, JSON.stringify(report.notes));
    assert.equal(report.counts.posts, 2514);
    assert.deepEqual(await shown(root), expected);
  });
});
