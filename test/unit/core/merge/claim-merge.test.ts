/**
 * Claims merged by git with the twining driver, on two real branches that claimed, renewed and
 * released: union by claim, the newest renewal wins, released stays released; both directions
 * give the same file; and the rule itself on three texts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { mergeTwiningFile } from '../../../../src/core/merge/merge-file';
import { commitAll, conflicted, fixtureRepo, git, gitMay } from '../../../support/git-repo';

const CLAIMS = path.join('.twining', 'claims', 'claims.jsonl');

async function at(repo: string, iso: string) {
  return openWorkspace(repo, { now: () => new Date(iso), warn: () => undefined });
}

test('two branches that claimed and released merge by claim, both ways alike', async () => {
  const repo = fixtureRepo();
  const day = 24 * 3600_000;
  let ws = await at(repo, '2026-11-22T10:00:00.000Z');
  for (const [agent, file] of [
    ['alice', 'src/a.ts'],
    ['bob', 'src/b.ts'],
    ['carol', 'src/c.ts'],
  ])
    await ws.claim({ agent_id: agent, paths: [file], reason: `${agent} base`, ttl_ms: day });
  commitAll(repo, 'base claims');
  const baseCommit = git(repo, 'rev-parse', 'HEAD');

  git(repo, 'checkout', '-q', '-b', 'a');
  ws = await at(repo, '2026-11-22T10:10:00.000Z');
  await ws.claim({ agent_id: 'alice', paths: ['src/a.ts'], reason: 'alice renewed on a', ttl_ms: day });
  await ws.release({ agent_id: 'bob' });
  await ws.claim({ agent_id: 'dave', paths: ['docs/'], reason: 'dave on a', ttl_ms: day });
  commitAll(repo, 'a: renew, release, claim');

  git(repo, 'checkout', '-q', '-b', 'b', baseCommit);
  ws = await at(repo, '2026-11-22T10:05:00.000Z');
  await ws.claim({ agent_id: 'alice', paths: ['src/a.ts'], reason: 'alice renewed on b', ttl_ms: day });
  await ws.claim({ agent_id: 'bob', paths: ['src/b.ts'], reason: 'bob renewed on b', ttl_ms: day });
  await ws.release({ agent_id: 'carol' });
  await ws.claim({ agent_id: 'erin', paths: ['lib/'], reason: 'erin on b', ttl_ms: day });
  commitAll(repo, 'b: renew, release, claim');

  const merged: Record<string, string> = {};
  for (const [ours, theirs] of [
    ['a', 'b'],
    ['b', 'a'],
  ]) {
    git(repo, 'checkout', '-q', '-b', `${ours}${theirs}`, ours);
    const r = gitMay(repo, 'merge', '--no-edit', theirs);
    assert.equal(r.status, 0, `${ours} <- ${theirs}: ${r.stdout}${r.stderr}`);
    assert.deepEqual(conflicted(repo), []);
    merged[ours] = fs.readFileSync(path.join(repo, CLAIMS), 'utf8');
  }
  assert.equal(merged.a, merged.b, 'the same file whichever side is ours');

  const claims = merged.a
    .split('\n')
    .filter(l => l !== '')
    .map(l => JSON.parse(l) as Record<string, string>);
  const byAgent = Object.fromEntries(claims.map(c => [c.agent_id, c]));
  assert.deepEqual(Object.keys(byAgent).sort(), ['alice', 'bob', 'carol', 'dave', 'erin']);
  assert.equal(claims.length, 5, 'one record per claim');
  assert.equal(byAgent.alice.reason, 'alice renewed on a', 'the newest renewal wins');
  assert.equal(byAgent.alice.renewed_at, '2026-11-22T10:10:00.000Z');
  assert.equal(byAgent.alice.released_at, undefined);
  assert.equal(byAgent.bob.released_at, '2026-11-22T10:10:00.000Z', 'released on a, renewed on b: stays released');
  assert.equal(byAgent.bob.released_because, 'released');
  assert.equal(byAgent.carol.released_at, '2026-11-22T10:05:00.000Z');
  // The merged file reads back: live and released as expected.
  const read = await at(repo, '2026-11-22T10:20:00.000Z');
  const live = (await read.claims()).claims.map(c => `${c.agent_id} ${c.state}`);
  assert.deepEqual(live.sort(), ['alice live', 'dave live', 'erin live']);
});

test('the rule on three texts: renewal against renewal, release against renewal, both released', () => {
  const c = (over: Record<string, string>) => ({
    id: '01M80HHKAVJT8FG2B08Q4NGZ4W',
    agent_id: 'alice',
    target: 'src/',
    reason: 'base',
    claimed_at: '2026-11-22T10:00:00.000Z',
    renewed_at: '2026-11-22T10:00:00.000Z',
    expires_at: '2026-11-22T11:00:00.000Z',
    ...over,
  });
  // A log: the base's claim line, then each side's later lines of the same claim (the last one counts).
  const text = (...items: object[]) => [c({}), ...items].map(i => JSON.stringify(i)).join('\n') + '\n';
  const base = JSON.stringify(c({})) + '\n';
  const renewA = c({ reason: 'a', renewed_at: '2026-11-22T10:20:00.000Z', expires_at: '2026-11-22T11:20:00.000Z' });
  const renewB = c({ reason: 'b', renewed_at: '2026-11-22T10:10:00.000Z', expires_at: '2026-11-22T11:10:00.000Z' });
  const released = (at: string, why: string) => c({ released_at: at, released_because: why });
  const merge = (x: object, y: object) => {
    const one = mergeTwiningFile('.twining/claims/claims.jsonl', base, text(x), text(y))!;
    const two = mergeTwiningFile('.twining/claims/claims.jsonl', base, text(y), text(x))!;
    assert.equal(one.text, two.text);
    assert.ok(one.clean);
    assert.equal(one.text.split('\n').length, 2, 'one line per claim');
    return JSON.parse(one.text);
  };
  assert.equal(merge(renewA, renewB).reason, 'a');
  const r = merge(renewA, released('2026-11-22T10:05:00.000Z', 'handoff X'));
  assert.equal(r.released_at, '2026-11-22T10:05:00.000Z');
  assert.equal(r.released_because, 'handoff X');
  assert.equal(merge(released('2026-11-22T10:07:00.000Z', 'released'), released('2026-11-22T10:05:00.000Z', 'handoff X')).released_because, 'handoff X');
});
