/**
 * The claims log (storage/claim-log.ts): a claim, renewal or release is one appended line; two
 * engines on one folder see each other's appends (the engine reports them as the `claims` kind);
 * a log whose lines far outnumber its claims is compacted to one line per claim without losing a
 * claim or an unreadable line; a reader opened before the compaction reads the new file whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { claimsInLogText } from '../../../../src/core/storage/claim-log';
import { checkPath } from '../../../../src/core/storage/claims-file';
import { tempProject } from '../../../support/tmp';

const T0 = '2026-11-22T10:00:00.000Z';

async function twoEngines() {
  const root = tempProject();
  const now = () => new Date(T0);
  const a = await openWorkspace(root, { now, warn: () => undefined });
  await a.init();
  const b = await openWorkspace(root, { now, warn: () => undefined });
  return { root, a, b, log: path.join(root, '.twining', 'claims', 'claims.jsonl') };
}

const linesOf = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(l => l !== '');

test('claim, renew and release each append one line; the last line of a claim is the claim', async () => {
  const { a, log } = await twoEngines();
  await a.claim({ agent_id: 'alice', paths: ['src/a.ts'], reason: 'first' });
  assert.equal(linesOf(log).length, 1);
  await a.claim({ agent_id: 'alice', paths: ['src/a.ts'], reason: 'renewed' });
  await a.release({ agent_id: 'alice' });
  const lines = linesOf(log).map(l => JSON.parse(l));
  assert.equal(lines.length, 3);
  assert.equal(new Set(lines.map(l => l.id)).size, 1, 'one claim, three lines');
  assert.equal(lines[2].released_because, 'released');
  const folded = claimsInLogText(fs.readFileSync(log, 'utf8')) as { reason: string; released_at?: string }[];
  assert.equal(folded.length, 1);
  assert.equal(folded[0].reason, 'renewed');
  assert.equal(typeof folded[0].released_at, 'string');
});

test('another engine sees the appends, and its refresh reports the claims kind once', async () => {
  const { a, b } = await twoEngines();
  await b.refresh();
  await a.claim({ agent_id: 'alice', paths: ['src/'], reason: 'x' });
  assert.deepEqual((await b.refresh(['.twining/claims/claims.jsonl'])).kinds, ['claims']);
  assert.deepEqual((await b.refresh(['.twining/claims/claims.jsonl'])).kinds, [], 'reported once');
  assert.deepEqual(
    (await b.claims()).claims.map(c => `${c.agent_id} ${c.target} ${c.state}`),
    ['alice src/ live'],
  );
  const refused = await b.claim({ agent_id: 'bob', paths: ['src/b.ts'], reason: 'y' });
  assert.equal(refused.granted, false, 'b decides on what a appended');
  await a.release({ agent_id: 'alice' });
  assert.deepEqual((await b.refresh(['.twining/claims/claims.jsonl'])).kinds, ['claims']);
  assert.equal((await b.claim({ agent_id: 'bob', paths: ['src/b.ts'], reason: 'y' })).granted, true);
});

test('a log with far more lines than claims is compacted to one line per claim, keeping unreadable lines', async () => {
  const { root, a, b, log } = await twoEngines();
  fs.mkdirSync(path.dirname(log), { recursive: true });
  fs.writeFileSync(log, 'not json\n');
  await a.claim({ agent_id: 'gone', paths: ['old/'], reason: 'released' });
  await a.release({ agent_id: 'gone' });
  await b.claims(); // b has read the log before the compaction
  // A long task renews its claim again and again: a line each time, the same claim.
  let compacted = false;
  for (let i = 1; i < 400 && !compacted; i++) {
    await a.claim({ agent_id: 'keeper', paths: ['kept/'], reason: `renewal ${i}` });
    compacted = linesOf(log).length < i;
  }
  assert.ok(compacted, 'the log was compacted');
  const lines = linesOf(log);
  assert.ok(lines.includes('not json'), 'the unreadable line is kept');
  const claims = lines.filter(l => l !== 'not json').map(l => JSON.parse(l) as { id: string });
  assert.equal(new Set(claims.map(c => c.id)).size, claims.length, 'one line per claim');
  // The reader opened before sees the compacted file whole, with every claim as it was.
  const seen = (await b.claims({ include_released: true })).claims;
  assert.deepEqual(
    seen.filter(c => c.state === 'live').map(c => `${c.agent_id} ${c.target}`),
    ['keeper kept/'],
  );
  assert.equal(seen.filter(c => c.agent_id === 'gone').length, 1, 'a claim released within the week is kept');
  assert.equal(claims.length, 2);
  assert.deepEqual(
    checkPath(root, 'kept/x.ts', 'other', new Date(T0)).map(c => c.agent_id),
    ['keeper'],
  );
});

test('claims work in twining-mcp 2.x’s SQLite layout too, which other writes refuse, and leave its files alone', async () => {
  const root = tempProject();
  const dir = path.join(root, '.twining');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'twining.db'), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(84)]));
  fs.writeFileSync(path.join(dir, 'config.yml'), 'storage:\n  backend: sqlite\n');
  const ws = await openWorkspace(root, { now: () => new Date(T0), warn: () => undefined });
  await assert.rejects(ws.post({ entry_type: 'finding', summary: 'x', agent_id: 'a' }), /SQLite layout/);
  const granted = await ws.claim({ agent_id: 'alice', paths: ['src/'], reason: 'sqlite folder' });
  assert.equal(granted.granted, true);
  assert.equal((await ws.claim({ agent_id: 'bob', paths: ['src/x.ts'], reason: 'y' })).granted, false);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['claims', 'config.yml', 'twining.db']);
  assert.deepEqual(
    checkPath(root, 'src/x.ts', 'bob', new Date(T0)).map(c => c.agent_id),
    ['alice'],
  );
  assert.equal((await ws.release({ agent_id: 'alice' })).released.length, 1);
});
