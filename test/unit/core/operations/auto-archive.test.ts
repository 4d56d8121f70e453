/**
 * The blackboard archived on its own past config.yml's archive.max_blackboard_entries_before_archive
 * (auto-archive-ops.ts), as twining-mcp 1.9's post does: everything older than the post moves to
 * archive/{date}-blackboard.jsonl but decision entries, a finding says so; 0 never archives; 2.x's
 * archive.retain_recent keeps the newest N. On a copy of the reference folder (14 entries).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { readLines, referenceProject } from '../../../support/fixture';
import { tw } from '../../../support/tmp';

function withThreshold(root: string, threshold: unknown, extra = ''): void {
  const file = tw(root, 'config.yml');
  const text = fs
    .readFileSync(file, 'utf8')
    .replace(/max_blackboard_entries_before_archive: \d+/, `max_blackboard_entries_before_archive: ${String(threshold)}${extra}`);
  fs.writeFileSync(file, text);
}

const archived = (root: string): Record<string, unknown>[] =>
  fs.existsSync(tw(root, 'archive')) ? fs.readdirSync(tw(root, 'archive')).flatMap(f => readLines(root, `archive/${f}`) as Record<string, unknown>[]) : [];

test('the post that brings the blackboard to the threshold archives all but the decisions, and says so', async () => {
  const root = referenceProject();
  withThreshold(root, 16);
  const before = readLines(root, 'blackboard.jsonl') as { id: string; entry_type: string }[];
  const ws = await openWorkspace(root, { warn: () => undefined });
  const first = await ws.post({ entry_type: 'finding', summary: 'fifteenth', scope: 'src/auth/' });
  assert.equal(readLines(root, 'blackboard.jsonl').length, 15, 'below the threshold nothing moves');
  const second = await ws.post({ entry_type: 'warning', summary: 'sixteenth', scope: 'src/auth/' });
  const left = readLines(root, 'blackboard.jsonl') as { id: string; entry_type: string; summary: string }[];
  const moved = archived(root) as { id: string }[];
  const decisions = before.filter(e => e.entry_type === 'decision').map(e => e.id);
  assert.deepEqual(
    left.filter(e => e.entry_type === 'decision').map(e => e.id),
    decisions,
  );
  assert.deepEqual(
    left.filter(e => e.entry_type !== 'decision').map(e => e.summary),
    ['Archive: 12 entries archived'],
    'older entries and the two posts went, the finding says how many',
  );
  assert.deepEqual(moved.map(e => e.id).sort(), [...before.filter(e => e.entry_type !== 'decision').map(e => e.id), first.id, second.id].sort());
  // Archived, not dismissed: a handoff's drift check tells them apart (loaded-files.ts ArchiveIndex).
  const status = await ws.status();
  assert.equal(status.blackboard_entries, left.length);
});

test('0 never archives; no config file means twining-mcp’s 500', async () => {
  const root = referenceProject();
  withThreshold(root, 0);
  const ws = await openWorkspace(root, { warn: () => undefined });
  for (let i = 0; i < 6; i++) await ws.post({ entry_type: 'status', summary: `post ${i}` });
  assert.equal(readLines(root, 'blackboard.jsonl').length, 20);
  assert.deepEqual(archived(root), []);
  fs.rmSync(tw(root, 'config.yml'));
  const fresh = await openWorkspace(root, { warn: () => undefined });
  await fresh.post({ entry_type: 'status', summary: 'one more' });
  assert.equal(readLines(root, 'blackboard.jsonl').length, 21);
});

test('archive.retain_recent keeps the newest entries whatever their age', async () => {
  const root = referenceProject();
  withThreshold(root, 15, '\n  retain_recent: 3');
  const before = readLines(root, 'blackboard.jsonl') as { id: string; entry_type: string }[];
  const ws = await openWorkspace(root, { warn: () => undefined });
  const posted = await ws.post({ entry_type: 'finding', summary: 'fifteenth' });
  const left = (readLines(root, 'blackboard.jsonl') as { id: string; entry_type: string }[]).map(e => e.id);
  const all = [...before, { id: posted.id, entry_type: 'finding' }];
  const kept = new Set([...all.slice(-3).map(e => e.id), ...all.filter(e => e.entry_type === 'decision').map(e => e.id)]);
  for (const id of kept) assert.ok(left.includes(id), `${id} stays (a decision, or one of the newest 3)`);
  assert.deepEqual(
    archived(root)
      .map(e => e.id)
      .sort(),
    all
      .map(e => e.id)
      .filter(id => !kept.has(id))
      .sort(),
  );
});

test('a threshold that is not a whole number of 0 or more keeps 500, with a warning naming the key', async () => {
  const root = referenceProject();
  withThreshold(root, -3);
  const warnings: string[] = [];
  const ws = await openWorkspace(root, { warn: m => void warnings.push(m) });
  await ws.post({ entry_type: 'status', summary: 'x' });
  assert.ok(
    warnings.some(w => /archive\.max_blackboard_entries_before_archive is -3, but it must be 0 \(never\) or more; using 500/.test(w)),
    warnings.join('\n'),
  );
  assert.deepEqual(archived(root), []);
});
