/**
 * The one report of a change: `TwiningEngine.refresh` decides what each watched path stands for,
 * reads only when a path is not as the engine left it, and reports each changed kind once,
 * whichever call picked the change up first. The extension passes this report on unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { at, referenceProject } from '../../../support/fixture';
import { tw } from '../../../support/tmp';
import { swept } from '../../../support/sweep';

const NOW = at('2026-11-22T03:00:00.000Z');

test("another engine's write is reported once, by kind; its own write's paths read nothing", async () => {
  const root = referenceProject();
  const mine = await openWorkspace(root, { now: NOW });
  const other = await openWorkspace(root, { now: NOW });
  await mine.handoffs({ limit: 5 });
  await mine.refresh();
  assert.deepEqual((await mine.refresh()).kinds, [], 'nothing new since the last report');

  const { id } = await other.handoff({ source_agent: 'elsewhere', summary: 'From another engine', results: [] });
  const paths = ['.twining/handoffs/index.jsonl', `.twining/handoffs/${id}.json`, '.twining/handoffs/index.jsonl.lock', '.twining/blackboard.jsonl'];
  const reads = mine.work.refreshes;
  const report = await mine.refresh(paths);
  assert.equal(mine.work.refreshes, reads + 1);
  assert.ok(report.kinds.includes('handoffs'), report.kinds.join(', '));
  assert.equal(report.error, undefined);
  assert.deepEqual((await mine.refresh(paths)).kinds, [], 'the same files again: nothing read, nothing reported');
  assert.equal(mine.work.refreshes, reads + 1);

  // This engine's own write: reported by the refresh after it, and its watcher report reads nothing.
  await mine.post({ entry_type: 'finding', summary: 'Mine', agent_id: 'me' });
  assert.deepEqual((await mine.refresh()).kinds, ['blackboard']);
  assert.deepEqual((await mine.refresh(['.twining/blackboard.jsonl', '.twining/blackboard.jsonl.lock'])).kinds, []);
  assert.equal(mine.work.refreshes, reads + 2, "the write's own report: no read");
  assert.deepEqual((await mine.refresh(['.twining/agents/.registry.json.1.abcdef12.tmp'])).kinds, [], 'temporary files stand for nothing');
});

test('a file that cannot be read: the kinds of the reported paths come back with the error, nothing throws', async () => {
  const root = referenceProject();
  const engine = await openWorkspace(root, { now: NOW });
  await engine.refresh();
  fs.writeFileSync(tw(root, 'agents', 'registry.json'), '{ half');
  const report = await engine.refresh(['.twining/agents/registry.json']);
  assert.ok(report.error instanceof Error, 'the error comes with the report');
  assert.deepEqual(report.kinds, ['registry']);
});

test('a sweep (the backstop for lost watcher events) finds another engine’s write by stat, reports it once, and reads nothing when nothing changed', async () => {
  const root = referenceProject();
  const mine = await openWorkspace(root, { now: NOW });
  const other = await openWorkspace(root, { now: NOW });
  await mine.handoffs({ limit: 5 });
  await mine.refresh();
  const reads = mine.work.refreshes;
  assert.deepEqual((await swept(mine)).kinds, [], 'nothing changed: nothing reported');
  assert.equal(mine.work.refreshes, reads, 'and nothing read');

  await other.register({ agent_id: 'swept', capabilities: ['ops'] });
  const report = await swept(mine);
  assert.ok(report.kinds.includes('registry'), report.kinds.join(', '));
  assert.equal(mine.work.refreshes, reads + 1);
  assert.ok((await mine.agents({})).agents.some(a => a.agent_id === 'swept'));
  assert.deepEqual((await mine.refresh(['.twining/agents/registry.json'])).kinds, [], "the watcher's late report of the same write: already reported");

  // A session file written by a hook: the sweep lists the sessions folder.
  fs.mkdirSync(tw(root, 'sessions'), { recursive: true });
  fs.writeFileSync(tw(root, 'sessions', 'session-swept.json'), JSON.stringify({ session_id: 'swept' }));
  assert.deepEqual((await swept(mine)).kinds, ['sessions']);
  assert.deepEqual((await swept(mine)).kinds, []);
});
