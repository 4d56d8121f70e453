/**
 * A lock directory dated in the future (a clock that jumped back, a folder copied with its lock)
 * would block every write until its time had passed plus 10 s. With our owner record naming a dead
 * process it is taken over at once; otherwise the LOCKED error names the lock, its time, why it
 * blocks and how to remove it, and the lock is left alone. Real files, real processes.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import { spawn } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { fixtureProject, tw, parseJsonl, lockDirs, ownerRecords, startWorker, snapshotTree, changedFiles } from '../../../support/tmp';

const HOUR = 3600_000;

/** Sets a path's times `ms` ahead of now. */
function dateAhead(file: string, ms: number): Date {
  const then = new Date(Date.now() + ms);
  fs.utimesSync(file, then, then);
  return then;
}

async function post(root: string, summary: string) {
  const ws = await openWorkspace(root, { warn: () => undefined });
  const started = Date.now();
  const result = await ws.post({ entry_type: 'finding', summary, agent_id: 'next-writer' });
  return { ms: Date.now() - started, id: result.id };
}

describe('a lock dated in the future', () => {
  test('left by a killed writer of ours, after the clock jumped back an hour: taken over at once', async () => {
    const root = fixtureProject();
    const holder = startWorker({ mode: 'ourlock', root, name: 'victim', files: [tw(root, 'blackboard.jsonl')], holdMs: 60_000 });
    await holder.waitFor(m => m.locked === true);
    holder.child.kill('SIGKILL');
    await holder.exited;
    // Both the record and the directory were made by a clock an hour ahead of the one now.
    dateAhead(tw(root, 'blackboard.jsonl.lock.owner'), HOUR);
    dateAhead(tw(root, 'blackboard.jsonl.lock'), HOUR);
    const before = parseJsonl(tw(root, 'blackboard.jsonl')).length;
    const { ms, id } = await post(root, 'after the clock jump');
    assert.ok(ms < 1_500, `the post took ${ms} ms`);
    const lines = parseJsonl(tw(root, 'blackboard.jsonl'));
    assert.equal(lines.length, before + 1);
    assert.equal(lines[lines.length - 1].id, id);
    assert.deepEqual(lockDirs(root), []);
    assert.deepEqual(ownerRecords(root), []);
  });

  test('with no owner record (a copied folder, or twining-mcp): LOCKED naming the lock, its time, why and the remedy; the lock is left alone', async () => {
    const root = fixtureProject();
    const lock = tw(root, 'blackboard.jsonl.lock');
    fs.mkdirSync(lock);
    const then = dateAhead(lock, 2 * HOUR);
    const before = snapshotTree(root);
    const ws = await openWorkspace(root, { warn: () => undefined });
    await assert.rejects(ws.post({ entry_type: 'finding', summary: 'blocked' }), (error: any) => {
      assert.equal(error.code, 'LOCKED');
      assert.ok(error.message.includes(`${fs.realpathSync(tw(root, 'blackboard.jsonl'))}.lock`), error.message);
      assert.ok(error.message.includes(then.toISOString()), error.message);
      assert.match(error.message, /in the future .*120 min ahead of this machine's clock/);
      assert.match(error.message, /clock that jumped back, or a folder copied with its lock/);
      assert.match(error.message, /remove that directory \(rmdir ".*blackboard\.jsonl\.lock"\)/);
      assert.match(error.message, /nothing was written/);
      return true;
    });
    assert.deepEqual(changedFiles(before, snapshotTree(root)), [], 'nothing was written, the lock untouched');
    assert.ok(fs.existsSync(lock));
    // The remedy works.
    fs.rmdirSync(lock);
    await post(root, 'after removing the lock');
  });

  test('with the record of a live process: not taken over, and the message names the owner and the future time', async () => {
    const root = fixtureProject();
    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const target = fs.realpathSync(tw(root, 'blackboard.jsonl'));
      fs.writeFileSync(
        `${target}.lock.owner`,
        JSON.stringify({ host: os.hostname(), pidns: fs.readlinkSync('/proc/self/ns/pid'), pid: alive.pid, at: new Date().toISOString() }),
      );
      fs.mkdirSync(`${target}.lock`);
      dateAhead(`${target}.lock`, HOUR);
      const ws = await openWorkspace(root, { warn: () => undefined });
      await assert.rejects(ws.post({ entry_type: 'finding', summary: 'blocked' }), (error: any) => {
        assert.equal(error.code, 'LOCKED');
        assert.match(error.message, new RegExp(`process ${alive.pid} on `));
        assert.match(error.message, /has its time set in the future/);
        return true;
      });
      assert.ok(fs.existsSync(`${target}.lock`), "a live process's lock is left alone");
    } finally {
      alive.kill('SIGKILL');
    }
  });
});
