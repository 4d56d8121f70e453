/**
 * The briefing lists the live claims of other agents on its scope (issue 19), on a real folder:
 * who holds what, why, until when and why it is in the briefing; not the agent's own claims, not
 * claims elsewhere, not released ones; and the Markdown briefing names them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { briefingText } from '../../../../src/core/text/briefing-text';
import { tempProject } from '../../../support/tmp';

test("another agent's claim on src/auth/ is in a briefing for src/auth/jwt.ts and not in one for docs/", async () => {
  const root = tempProject();
  fs.mkdirSync(path.join(root, 'src', 'auth'), { recursive: true });
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  const now = new Date('2026-11-22T10:00:00.000Z');
  const ws = await openWorkspace(root, { now: () => now, warn: () => undefined });
  await ws.init();
  const held = await ws.claim({ agent_id: 'alice', paths: ['src/auth'], reason: 'JWT rework', ttl_ms: 600_000 });
  assert.equal(held.granted, true);
  assert.equal((await ws.claim({ agent_id: 'tester', paths: ['docs/'], reason: 'my own' })).granted, true);

  const b = await ws.assemble({ task: 'add token expiry checks', scope: 'src/auth/jwt.ts', agent_id: 'tester' });
  assert.deepEqual(
    b.active_claims.map(c => [c.agent_id, c.target, c.claim_reason, c.expires_at]),
    [['alice', 'src/auth/', 'JWT rework', '2026-11-22T10:10:00.000Z']],
  );
  assert.equal(b.active_claims[0].id, held.claims[0].id);
  assert.match(b.active_claims[0].reason, /claimed by alice: src\/auth\/ overlaps src\/auth\/jwt\.ts/);
  assert.ok(b.token_estimate > 0);
  const text = briefingText(b);
  assert.match(text, /### Claimed by other agents/);
  assert.match(text, /\*\*alice\*\* holds src\/auth\/ since 2026-11-22T10:00:00.000Z until 2026-11-22T10:10:00.000Z: JWT rework/);

  const docs = await ws.assemble({ task: 'write the guide', scope: 'docs/', agent_id: 'tester' });
  assert.deepEqual(docs.active_claims, []);
  assert.doesNotMatch(briefingText(docs), /Claimed by other agents/);

  // The holder's own briefing does not list its claim; once released, nobody's does.
  assert.deepEqual((await ws.assemble({ task: 't', scope: 'src/auth/jwt.ts', agent_id: 'alice' })).active_claims, []);
  await ws.release({ agent_id: 'alice', paths: ['src/auth/'] });
  assert.deepEqual((await ws.assemble({ task: 't', scope: 'src/auth/jwt.ts', agent_id: 'tester' })).active_claims, []);
});

test('claims that do not fit the budget are left out, not over it', async () => {
  const root = tempProject();
  const now = new Date('2026-11-22T10:00:00.000Z');
  const ws = await openWorkspace(root, { now: () => now, warn: () => undefined });
  await ws.init();
  for (let i = 0; i < 20; i++) await ws.claim({ agent_id: `agent-${i}`, paths: [`src/f${i}.ts`], reason: 'a fairly long reason '.repeat(4) });
  const b = await ws.assemble({ task: 't', scope: 'project', agent_id: 'tester', max_tokens: 200 });
  assert.ok(b.active_claims.length > 0 && b.active_claims.length < 20, `${b.active_claims.length} claims`);
  assert.ok(b.token_estimate <= 200);
});
