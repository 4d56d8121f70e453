/**
 * `twining mcp` keeps its engine current as the folder changes (src/mcp/folder-watch.ts), so an
 * agent's SessionStart asked over the local socket finds a write read already: real file events
 * on a real folder; the hooks' session files and lock folders are not changes; a burst of writes
 * makes few refreshes, one of them after the last; a missing subfolder is no error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { keepCurrent } from '../../../src/mcp/folder-watch';
import { fixtureProject } from '../../support/tmp';

const settle = (ms: number) => new Promise(r => setTimeout(r, ms));

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await settle(10);
  assert.ok(check(), what);
}

test('a write is read at once, a burst with one refresh after its last write; session files and locks are not changes', async () => {
  const dir = path.join(fixtureProject(), '.twining');
  fs.rmSync(path.join(dir, 'claims'), { recursive: true, force: true }); // a subfolder not there: no error
  let refreshes = 0;
  const starts: number[] = [];
  let running = 0;
  let overlapped = false;
  const warnings: string[] = [];
  const watch = keepCurrent(
    dir,
    async () => {
      if (running++) overlapped = true;
      refreshes++;
      starts.push(Date.now());
      await settle(30);
      running--;
    },
    m => warnings.push(m),
  );
  try {
    fs.appendFileSync(path.join(dir, 'blackboard.jsonl'), '{"id":"x"}\n');
    await until('a post is read', () => refreshes === 1);
    await settle(100);
    const before = refreshes;
    fs.mkdirSync(path.join(dir, 'sessions'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'sessions', 'session-s.json'), '{}');
    fs.mkdirSync(path.join(dir, 'blackboard.jsonl.lock'));
    fs.rmdirSync(path.join(dir, 'blackboard.jsonl.lock'));
    await settle(150);
    assert.equal(refreshes, before, 'session files and lock folders are not changes');
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, 'decisions', 'index.json'), `[]${' '.repeat(i)}`);
    const lastWrite = Date.now();
    await until('the burst is read', () => refreshes > before);
    await settle(200);
    assert.ok(refreshes - before <= 3, `a burst of 20 writes made ${refreshes - before} refreshes`);
    assert.ok(starts[starts.length - 1] >= lastWrite, 'a refresh began after the last write');
    assert.equal(running, 0);
    assert.equal(overlapped, false, 'one refresh at a time');
    assert.deepEqual(warnings, []);
  } finally {
    watch.close();
  }
  const after = refreshes;
  fs.appendFileSync(path.join(dir, 'blackboard.jsonl'), '{"id":"y"}\n');
  await settle(150);
  assert.equal(refreshes, after, 'nothing after close');
});
