/**
 * SessionStart's briefing cache (src/core/storage/derived/briefing-cache.ts), run as a host runs the hook: a
 * second session start of the same agent on a folder nobody wrote to is answered with the same
 * briefing by dist/hook.js alone (a copy of it without dist/core.js beside it answers, so the
 * engine is not loaded), records the new briefing, and any write to the folder makes the next
 * start assemble again with what changed; lines another agent appended since are brought into the
 * briefing from its basis (src/core/storage/derived/briefing-basis.ts), again without the engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { CLI_JS, fixtureProject, tempProject, tw } from '../../../support/tmp';
import { hookAlone } from '../../../support/dist';

const HOOK_JS = path.join(path.dirname(CLI_JS), 'hook.js');

function start(hookJs: string, root: string, session: string, scope = 'src/auth/') {
  const input = {
    session_id: session,
    transcript_path: path.join(root, 't.jsonl'),
    cwd: root,
    permission_mode: 'default',
    hook_event_name: 'SessionStart',
    source: 'startup',
  };
  const r = spawnSync(process.execPath, [hookJs, 'SessionStart', '--agent', 'cached-agent', '--scope', scope], {
    input: JSON.stringify(input),
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr, context: r.stdout.trim() ? (JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string) : undefined };
}

test('an unchanged folder: the cached briefing, without the engine; a write: assembled again, with what changed', async () => {
  const root = fixtureProject();
  const alone = hookAlone();
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

test('a change to the knowledge graph after a briefing: the cache does not answer for it (the graph weighs in the decisions a briefing picks)', async () => {
  const root = fixtureProject();
  const alone = hookAlone();
  assert.equal(start(HOOK_JS, root, 'g1').status, 0);
  assert.equal(start(alone, root, 'g2').status, 0, 'nothing written: the cached briefing answers');
  const engine = await openWorkspace(root, { warn: () => undefined });
  await engine.run('add_entity', { name: 'src/auth/session.ts', type: 'file' });
  const after = start(alone, root, 'g3');
  assert.equal(after.status, 1, `a graph write: the cached briefing does not answer, the engine is needed (${after.stderr})`);
  assert.equal(start(HOOK_JS, root, 'g4').status, 0);
  assert.equal(start(alone, root, 'g5').status, 0, 'nothing written since: the cached briefing answers again');
});

test('lines another agent appended since: the briefing brought up to date without the engine, as the engine assembles it', async () => {
  const root = tempProject();
  const engine = await openWorkspace(root, { warn: () => undefined });
  await engine.init();
  for (let i = 0; i < 30; i++)
    await engine.post({ entry_type: i % 3 ? 'finding' : 'warning', summary: `Earlier note ${i}`, scope: i % 2 ? 'src/db/' : 'project', agent_id: 'earlier' });
  const alone = hookAlone();
  const first = start(HOOK_JS, root, 'b1', 'project');
  assert.equal(first.status, 0, first.stderr);

  await engine.post({ entry_type: 'warning', summary: 'The pool leaks connections under load', scope: 'project', agent_id: 'reviewer' });
  const answered = start(alone, root, 'b2', 'project');
  assert.equal(answered.status, 0, `the hook without the engine answers: ${answered.stderr}`);
  assert.match(answered.context!, /\*\*The pool leaks connections under load\*\*/);
  // Counted as changed since the last briefing (and not listed twice: the briefing shows it).
  assert.match(answered.context!, /### Changed in scope since your last briefing \(.*\): 1\n/);
  // The engine, on a copy of the folder as it was, assembles the same (but for the time it gives).
  const copy = tempProject('copy');
  fs.rmSync(tw(copy), { recursive: true, force: true });
  fs.cpSync(tw(root), tw(copy), { recursive: true });
  const mark = JSON.parse(fs.readFileSync(tw(root, 'sessions', 'assembly-cached-agent.json'), 'utf8'));
  const withEngine = start(HOOK_JS, copy, 'b3', 'project');
  assert.equal(withEngine.status, 0, withEngine.stderr);
  assert.ok(mark.assembled_at, 'the brought up to date briefing was recorded for the agent');
  const noTimes = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T');
  assert.equal(
    noTimes(start(alone, root, 'b4', 'project').context!),
    noTimes(withEngine.context!).replace(/\n\n### Changed in scope[^#]*?(?=\n\nWhen you finish)/, ''),
  );

  // A rewrite (a dismiss), not an append: the basis does not answer, the engine does.
  const [warning] = (await engine.read({ entry_types: ['warning'] })).entries;
  await engine.dismiss({ ids: [warning.id] });
  assert.equal(start(alone, root, 'b5', 'project').status, 1, 'after a rewrite the hook needs the engine');
  const rebuilt = start(HOOK_JS, root, 'b6', 'project');
  assert.equal(rebuilt.status, 0, rebuilt.stderr);
  assert.doesNotMatch(rebuilt.context!, new RegExp(`\\[${warning.id}\\]`));
});

test('hundreds of candidates, times shared, a budget they overflow: the basis fills it as the engine does, after each post', async () => {
  const root = tempProject();
  // Posts in bursts that share a time (ties in recency) over the two days before now, in scopes near
  // and far from the briefing's (`project`: a file or folder scope is one the knowledge graph names, where the engine assembles).
  let clock = Date.now() - 2 * 24 * 3_600_000;
  const engine = await openWorkspace(root, { warn: () => undefined, now: () => new Date(clock) });
  await engine.init();
  const types = ['warning', 'need', 'finding', 'question'] as const;
  const scopes = ['src/db/pool.ts', 'project', 'src/', 'docs/api.md', 'docs/'];
  for (let i = 0; i < 400; i++) {
    await engine.post({
      entry_type: types[(i * 7) % 4],
      summary: `Note ${i} ${'word '.repeat(i % 9)}`,
      detail: 'detail '.repeat((i * 13) % 40),
      scope: scopes[(i * 3) % 5],
      agent_id: 'earlier',
    });
    if (i % 5 === 4) clock += 7 * 60_000;
  }
  const alone = hookAlone();
  assert.equal(start(HOOK_JS, root, 'h1', 'project').status, 0);
  const noTimes = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T').replace(/\n\n### Changed in scope[^#]*?(?=\n\nWhen you finish)/, '');
  for (const [n, type] of types.entries()) {
    clock = Date.now();
    await engine.post({ entry_type: type, summary: `Late ${type} ${n}`, detail: 'late '.repeat(n * 5), scope: scopes[n], agent_id: 'reviewer' });
    const answered = start(alone, root, `h${2 + n}`, 'project');
    assert.equal(answered.status, 0, `after a ${type}, the hook without the engine answers: ${answered.stderr}`);
    const copy = tempProject(`copy-${n}`);
    fs.rmSync(tw(copy), { recursive: true, force: true });
    fs.cpSync(tw(root), tw(copy), { recursive: true });
    // The engine on a copy of the folder as the basis saw it, the agent's last briefing being the one just made.
    const withEngine = start(HOOK_JS, copy, `e${n}`, 'project');
    assert.equal(withEngine.status, 0, withEngine.stderr);
    const fromBasis = start(alone, root, `a${n}`, 'project');
    assert.equal(fromBasis.status, 0, fromBasis.stderr);
    assert.equal(noTimes(fromBasis.context!), noTimes(withEngine.context!), `after a ${type}: the basis's briefing is the engine's`);
  }
});

test('a basis an older build wrote (without the standing order) is never read: the engine assembles and keeps a new one', async () => {
  const root = tempProject();
  const engine = await openWorkspace(root, { warn: () => undefined });
  await engine.init();
  for (let i = 0; i < 10; i++) await engine.post({ entry_type: 'finding', summary: `Earlier note ${i}`, scope: 'project', agent_id: 'earlier' });
  const alone = hookAlone();
  assert.equal(start(HOOK_JS, root, 'v1', 'project').status, 0);
  const [basisFile] = fs.readdirSync(tw(root, 'sessions')).filter(f => f.endsWith('.basis'));
  assert.ok(basisFile, 'the briefing kept its basis');
  const v8 = await import('v8');
  const basis = v8.deserialize(fs.readFileSync(tw(root, 'sessions', basisFile))) as { version: number; order?: unknown; decisions: { order?: unknown } };
  // As the previous format had it: version 1, no order.
  delete basis.order;
  delete basis.decisions.order;
  fs.writeFileSync(tw(root, 'sessions', basisFile), v8.serialize({ ...basis, version: 1 }));

  await engine.post({ entry_type: 'warning', summary: 'The pool leaks connections under load', scope: 'project', agent_id: 'reviewer' });
  assert.equal(start(alone, root, 'v2', 'project').status, 1, 'the old basis does not answer: the hook needs the engine');
  const assembled = start(HOOK_JS, root, 'v3', 'project');
  assert.equal(assembled.status, 0, assembled.stderr);
  assert.equal((v8.deserialize(fs.readFileSync(tw(root, 'sessions', basisFile))) as { version: number }).version, 2, 'a basis of this format kept');
  await engine.post({ entry_type: 'finding', summary: 'Retries double the load', scope: 'project', agent_id: 'reviewer' });
  const answered = start(alone, root, 'v4', 'project');
  assert.equal(answered.status, 0, answered.stderr);
  assert.match(answered.context!, /Retries double the load/);
});
