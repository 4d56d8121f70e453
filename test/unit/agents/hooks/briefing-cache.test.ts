/**
 * SessionStart's briefing cache (src/core/store/briefing-cache.ts), run as a host runs the hook: a
 * second session start of the same agent on a folder nobody wrote to is answered with the same
 * briefing by dist/hook.js alone (a copy of it without dist/core.js beside it answers, so the
 * engine is not loaded), records the new briefing, and any write to the folder makes the next
 * start assemble again with what changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { CLI_JS, fixtureProject } from '../../../support/tmp';

const HOOK_JS = path.join(path.dirname(CLI_JS), 'hook.js');

function start(hookJs: string, root: string, session: string) {
  const input = {
    session_id: session,
    transcript_path: path.join(root, 't.jsonl'),
    cwd: root,
    permission_mode: 'default',
    hook_event_name: 'SessionStart',
    source: 'startup',
  };
  const r = spawnSync(process.execPath, [hookJs, 'SessionStart', '--agent', 'cached-agent', '--scope', 'src/auth/'], {
    input: JSON.stringify(input),
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr, context: r.stdout.trim() ? (JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string) : undefined };
}

test('an unchanged folder: the cached briefing, without the engine; a write: assembled again, with what changed', async () => {
  const root = fixtureProject();
  const alone = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'twining-hook-alone-')), 'hook.js');
  fs.copyFileSync(HOOK_JS, alone);
  const mark = () => JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/assembly-cached-agent.json'), 'utf8')).assembled_at as string;

  const missAlone = start(alone, root, 'c0');
  assert.equal(missAlone.status, 1, 'without a cached briefing the hook needs the engine (and says so, non-blocking)');
  assert.match(missAlone.stderr, /core\.js/);

  const first = start(HOOK_JS, root, 'c1');
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.context!, /verifyToken does not check the exp claim/);
  const firstMark = mark();

  const second = start(alone, root, 'c2');
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.context, first.context, 'the same briefing');
  assert.ok(mark() > firstMark, 'the new briefing is recorded for the agent');
  const session = JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/session-c2.json'), 'utf8'));
  assert.equal(session.agent_id, 'cached-agent');

  const engine = await openWorkspace(root);
  await engine.post({ entry_type: 'warning', summary: 'Refresh tokens are stored in plain text', scope: 'src/auth/store.ts', agent_id: 'reviewer' });
  assert.equal(start(alone, root, 'c3').status, 1, 'a write to the blackboard: the cache does not answer');
  const third = start(HOOK_JS, root, 'c4');
  assert.equal(third.status, 0, third.stderr);
  assert.match(third.context!, /Refresh tokens are stored in plain text/);
  assert.match(third.context!, /### Changed in scope since your last briefing/);
  const fourth = start(alone, root, 'c5');
  assert.equal(fourth.status, 0, fourth.stderr);
  assert.doesNotMatch(fourth.context!, /### Changed in scope since your last briefing/, 'nothing changed since the last briefing');
  assert.match(fourth.context!, /Refresh tokens are stored in plain text/);
});

test('a claim made after a briefing is in the next SessionStart: the cache does not answer for it', async () => {
  const root = fixtureProject();
  const first = start(HOOK_JS, root, 'k1');
  assert.equal(first.status, 0, first.stderr);
  assert.doesNotMatch(first.context!, /Claimed by other agents/);
  // Another agent claims the file the starting agent's scope covers, through the engine (claims/claims.jsonl).
  const engine = await openWorkspace(root, { warn: () => undefined });
  assert.equal((await engine.claim({ agent_id: 'alice', paths: ['src/auth/jwt.ts'], reason: 'rotating the keys' })).granted, true);
  const next = start(HOOK_JS, root, 'k2');
  assert.equal(next.status, 0, next.stderr);
  assert.match(next.context!, /### Claimed by other agents/);
  assert.match(next.context!, /\*\*alice\*\* holds src\/auth\/jwt\.ts.*rotating the keys/);
});
