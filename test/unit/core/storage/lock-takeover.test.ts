/**
 * Taking over the lock of a dead writer at once, and staying interoperable with twining-mcp's
 * proper-lockfile locks (docs/format.md §Locking): its options are reproduced by the `hold` worker, ours by the
 * `ourlock` worker (writer-process.ts). Holders are real processes killed with SIGKILL.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { fixtureProject, tw, parseJsonl, lockDirs, ownerRecords, startWorker, Worker } from '../../../support/tmp';

const FIXTURE_ENTRIES = 14;

/** Starts an `ourlock` holder on blackboard.jsonl, waits until it holds the lock, and kills it. */
async function killOurHolder(root: string): Promise<Worker> {
  const holder = startWorker({ mode: 'ourlock', root, name: 'victim', files: [tw(root, 'blackboard.jsonl')], holdMs: 60_000 });
  await holder.waitFor(m => m.locked === true);
  holder.child.kill('SIGKILL');
  assert.equal((await holder.exited).signal, 'SIGKILL');
  assert.ok(fs.existsSync(tw(root, 'blackboard.jsonl.lock')), 'the killed holder left its lock directory');
  return holder;
}

/** Makes a lock directory or owner record look `ageMs` old instead of waiting (staleness is judged by mtime). */
function age(lockDir: string, ageMs: number): void {
  const then = new Date(Date.now() - ageMs);
  fs.utimesSync(lockDir, then, then);
}

/** Posts once and reports how long it took (LOCKED fails the test). */
async function timedPost(root: string, summary: string): Promise<{ ms: number; id: string }> {
  const ws = await openWorkspace(root, { warn: () => undefined });
  const started = Date.now();
  const { id } = await ws.post({ entry_type: 'finding', summary, agent_id: 'next-writer' });
  return { ms: Date.now() - started, id };
}

function assertBlackboardIntact(root: string, expected: number): void {
  const lines = parseJsonl(tw(root, 'blackboard.jsonl'));
  assert.equal(lines.length, expected, 'every line parses and none was lost');
  assert.equal(new Set(lines.map(l => l.id)).size, lines.length, 'ids are unique');
}

describe('the lock of a writer killed while holding it', () => {
  test('is taken over at once by the next writer: no 10 s wait', async () => {
    const root = fixtureProject();
    const victim = await killOurHolder(root);
    const owner = JSON.parse(fs.readFileSync(tw(root, 'blackboard.jsonl.lock.owner'), 'utf8'));
    assert.equal(owner.pid, victim.child.pid, 'the owner record beside the lock names the killed process');
    assert.deepEqual(fs.readdirSync(tw(root, 'blackboard.jsonl.lock')), [], 'the lock directory itself stays empty, as twining-mcp makes it');
    const { ms } = await timedPost(root, 'after the kill');
    assert.ok(ms < 1_000, `the post took ${ms} ms`);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 1);
    assert.deepEqual(lockDirs(root), []);
    assert.deepEqual(ownerRecords(root), []);
  });

  test('is taken over by exactly one of several writers racing for it, and nothing is lost', async () => {
    const root = fixtureProject();
    await killOurHolder(root);
    const writers = await Promise.all([0, 1, 2, 3].map(() => openWorkspace(root, { warn: () => undefined })));
    const posted = await Promise.all(writers.flatMap((ws, w) => [0, 1, 2, 3, 4].map(i => ws.post({ entry_type: 'status', summary: `writer ${w} post ${i}` }))));
    assertBlackboardIntact(root, FIXTURE_ENTRIES + posted.length);
    const ids = new Set(parseJsonl(tw(root, 'blackboard.jsonl')).map(l => l.id));
    for (const p of posted) assert.ok(ids.has(p.id), `${p.id} is in the file`);
    assert.deepEqual(lockDirs(root), []);
    assert.deepEqual(ownerRecords(root), []);
  });

  test('can still be broken by twining-mcp once stale: the directory is empty, the owner record lies beside it', async () => {
    const root = fixtureProject();
    await killOurHolder(root);
    age(tw(root, 'blackboard.jsonl.lock'), 11_000);
    const theirs = startWorker({ mode: 'hold', root, name: 'mcp', files: [tw(root, 'blackboard.jsonl')], holdMs: 100, retries: false });
    await theirs.waitFor(m => m.locked === true);
    assert.equal((await theirs.exited).code, 0, theirs.stderr);
    // The dead writer's record now describes a directory that no longer exists: it is ignored,
    // and replaced by the next writer's own.
    const { ms } = await timedPost(root, 'after twining-mcp broke the stale lock');
    assert.ok(ms < 1_000, `the post took ${ms} ms`);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 1);
    assert.deepEqual(ownerRecords(root), []);
  });

  test('a record left empty by a writer killed between creating and filling it is removed after 2 s, and no temporary file exists at any moment', async () => {
    const root = fixtureProject();
    const file = tw(root, 'blackboard.jsonl.lock.owner');
    fs.writeFileSync(file, '');
    age(file, 3_000);
    const { ms } = await timedPost(root, 'after the empty record');
    assert.ok(ms < 1_000, `the post took ${ms} ms`);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 1);
    assert.deepEqual(ownerRecords(root), []);
    // A fresh empty record is a writer filling it in: it is waited for, then taken as abandoned.
    fs.writeFileSync(file, '');
    const second = await timedPost(root, 'after a fresh empty record');
    assert.ok(second.ms >= 1_000 && second.ms < 5_000, `the post waited for the empty record to be 2 s old (${second.ms} ms)`);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 2);
    const names = fs.readdirSync(tw(root));
    assert.deepEqual(
      names.filter(n => n.endsWith('.tmp') || n.includes('.lock')),
      [],
    );
  });

  test('an owner record claimed by a writer killed before removing it is swept by the next process', async () => {
    const root = fixtureProject();
    const holder = startWorker({ mode: 'ourlock', root, name: 'gone', files: [tw(root, 'blackboard.jsonl')], holdMs: 10 });
    assert.equal((await holder.exited).code, 0, holder.stderr);
    const claimed = tw(root, 'agents', `registry.json.lock.owner.${holder.child.pid}.0a1b2c3d.claim`);
    const liveClaim = tw(root, 'agents', `registry.json.lock.owner.${process.pid}.0a1b2c3d.claim`);
    fs.writeFileSync(claimed, '{}');
    fs.writeFileSync(liveClaim, '{}');
    await timedPost(root, 'first write of a new process');
    assert.equal(fs.existsSync(claimed), false, "the dead claimer's file is gone");
    assert.equal(fs.existsSync(liveClaim), true, "a live process's claim is left alone");
  });

  test('of a process on another machine is not taken over: the 10 s rule stands', async () => {
    const root = fixtureProject();
    await killOurHolder(root);
    const file = tw(root, 'blackboard.jsonl.lock.owner');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), host: 'another-machine' }));
    // Both made when the remote writer took the lock, 9 s ago: stale in about 1 s.
    age(tw(root, 'blackboard.jsonl.lock'), 9_000);
    age(file, 9_000);
    const { ms } = await timedPost(root, 'after the remote lock went stale');
    assert.ok(ms >= 700, `the post waited ${ms} ms for the lock to turn stale`);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 1);
  });

  test('is not confused with a live twining-mcp lock made after it: an old record never breaks a newer lock', async () => {
    const root = fixtureProject();
    await killOurHolder(root);
    // twining-mcp broke the dead lock (after 10 s) and now holds its own; the record stays behind.
    age(tw(root, 'blackboard.jsonl.lock.owner'), 11_000);
    fs.rmdirSync(tw(root, 'blackboard.jsonl.lock'));
    const theirs = startWorker({ mode: 'hold', root, name: 'mcp', files: [tw(root, 'blackboard.jsonl')], holdMs: 1_500 });
    await theirs.waitFor(m => m.locked === true);
    const ws = await openWorkspace(root, { warn: () => undefined });
    await ws.post({ entry_type: 'finding', summary: 'waits for twining-mcp' });
    const finished = Date.now();
    const released = await theirs.waitFor(m => m.released === true);
    assert.ok(finished >= released.at, `the post finished (${finished}) only after twining-mcp released (${released.at})`);
    assert.equal((await theirs.exited).code, 0, theirs.stderr);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 1);
  });
});

describe('a lock held by a live process', () => {
  test('of ours excludes twining-mcp until released', async () => {
    const root = fixtureProject();
    const ours = startWorker({ mode: 'ourlock', root, name: 'ours', files: [tw(root, 'blackboard.jsonl')], holdMs: 1_500 });
    await ours.waitFor(m => m.locked === true);
    const theirs = startWorker({ mode: 'hold', root, name: 'mcp', files: [tw(root, 'blackboard.jsonl')], holdMs: 10 });
    const theirLock = await theirs.waitFor(m => m.locked === true);
    const ourRelease = await ours.waitFor(m => m.releasing === true);
    assert.ok(theirLock.at >= ourRelease.at, `twining-mcp got the lock (${theirLock.at}) only after ours was released (${ourRelease.at})`);
    assert.equal((await ours.exited).code, 0, ours.stderr);
    assert.equal((await theirs.exited).code, 0, theirs.stderr);
    assert.deepEqual(ownerRecords(root), []);
  });

  test('of ours is not taken over by another of ours, however long it is held within the refresh', async () => {
    const root = fixtureProject();
    const ours = startWorker({ mode: 'ourlock', root, name: 'ours', files: [tw(root, 'blackboard.jsonl')], holdMs: 1_500 });
    await ours.waitFor(m => m.locked === true);
    const ws = await openWorkspace(root, { warn: () => undefined });
    await ws.post({ entry_type: 'finding', summary: 'waits for the live holder' });
    const finished = Date.now();
    const released = await ours.waitFor(m => m.releasing === true);
    assert.ok(finished >= released.at, 'the post waited for the live holder');
    assert.equal((await ours.exited).code, 0, ours.stderr);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 1);
  });

  test('of twining-mcp killed while holding it (no owner record) is waited out by the 10 s rule', async () => {
    const root = fixtureProject();
    const theirs = startWorker({ mode: 'hold', root, name: 'mcp', files: [tw(root, 'blackboard.jsonl')], holdMs: 60_000 });
    await theirs.waitFor(m => m.locked === true);
    theirs.child.kill('SIGKILL');
    await theirs.exited;
    assert.equal(fs.existsSync(tw(root, 'blackboard.jsonl.lock.owner')), false);
    age(tw(root, 'blackboard.jsonl.lock'), 9_000); // stale in about 1 s
    const { ms } = await timedPost(root, 'after the twining-mcp lock went stale');
    assert.ok(ms >= 700, `the post waited ${ms} ms`);
    assertBlackboardIntact(root, FIXTURE_ENTRIES + 1);
  });
});
