/**
 * twining-mcp 2.x's triage, archive_stale and unarchive on the 1.x layout, from
 * test/fixtures/files-2x (see its README): triage's lanes and paging by src/engine/triage.ts
 * (commit 1a3987bcaec9ab893007098c62feb311b335fe89), archive_stale and unarchive by
 * src/tools/housekeeping-tools.ts (commit 161515b718c6a2896e2580419460c5be3b6e1525) and the
 * tombstone by src/engine/tombstones.ts (commit 71ed32c15b9546559a2bcffa1073ef90e40709d8).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { at, read, readJson } from '../../../support/fixture';
import { changedFiles, snapshotTree, tempProject } from '../../../support/tmp';

const FIXTURE = path.resolve(__dirname, '../../test/fixtures/files-2x');
const NOW = '2026-11-22T08:00:00.000Z';
const W2 = '01KAW0000000000000000WARN2';
const N = '01KAW0000000000000000NEED1';
const Q = '01KAW000000000000000QSTN01';
const F = '01KAW00000000000000FNDNG01';
const D2 = '01KAW0000000000000DECSN002';
const D3 = '01KAW0000000000000DECSN003';

function project(): string {
  const root = tempProject();
  fs.cpSync(FIXTURE, path.join(root, '.twining'), { recursive: true });
  fs.rmSync(path.join(root, '.twining', 'README.md'));
  return root;
}

describe('triage', () => {
  test('open: unresolved warnings, needs and questions oldest first; recent: active decisions in the window; paging with open_after', async () => {
    const ws = await openWorkspace(project(), { now: at(NOW) });
    const all = await ws.triage({});
    assert.deepEqual(
      all.open!.map(i => i.id),
      [W2, N, Q],
    );
    assert.deepEqual(all.counts.open.by_kind, { decision: 0, need: 1, question: 1, warning: 1 });
    assert.deepEqual(
      all.recent!.map(i => [i.kind, i.id, i.status]),
      [['decision', D2, 'active']],
    );
    assert.equal(all.window_ms, 604_800_000);
    assert.equal(all.generated_at, NOW);
    assert.equal(all.open_cursor, undefined);

    const first = await ws.triage({ section: 'open', limit: 2 });
    assert.deepEqual(
      first.open!.map(i => i.id),
      [W2, N],
    );
    assert.equal(first.recent, undefined);
    assert.equal(first.counts.open.total, 3);
    const second = await ws.triage({ section: 'open', limit: 2, open_after: first.open_cursor });
    assert.deepEqual(
      second.open!.map(i => i.id),
      [Q],
    );
    assert.equal(second.open_cursor, undefined);
    // A malformed cursor is ignored; for_agent leaves out that agent's own posts; a scope narrows.
    assert.equal((await ws.triage({ section: 'open', open_after: 'garbage' })).open!.length, 3);
    assert.deepEqual(
      (await ws.triage({ section: 'open', for_agent: 'frontend-dev' })).open!.map(i => i.id),
      [W2, N],
    );
    assert.deepEqual(
      (await ws.triage({ scope: 'src/auth/session.ts', section: 'open' })).open!.map(i => i.id),
      [W2, N, Q],
    );

    await ws.resolve({ ids: [N] });
    assert.deepEqual(
      (await ws.triage({ section: 'open' })).open!.map(i => i.id),
      [W2, Q],
    );
  });
});

describe('archive_stale and unarchive', () => {
  test('a decision is archived with archived_from and restored to it; an entry leaves a tombstone; findings record both', async () => {
    const root = project();
    const ws = await openWorkspace(root, { now: at(NOW), warn: () => undefined });
    const before = read(root, 'blackboard.jsonl');
    const r = await ws.archive_stale({ ids: [D2, F, 'missing'], reason: 'moved to the new auth service', reasons: { [D2]: 'replaced' } });
    assert.deepEqual([r.archived_decisions, r.archived_entries, r.not_found, r.total_archived], [[D2], [F], ['missing'], 2]);
    const d2 = readJson(root, `decisions/${D2}.json`);
    assert.deepEqual([d2.status, d2.archived_from, d2.provenance.branch], ['archived', 'active', 'main']);
    assert.equal(readJson(root, 'decisions/index.json').find((d: { id: string }) => d.id === D2).status, 'archived');
    const fLine = before.split('\n').find(l => l.includes(F))!;
    assert.ok(!read(root, 'blackboard.jsonl').includes(F.slice(-8) + '"'), 'the entry left the blackboard');
    const tomb = read(root, 'archive/2026-11-22-blackboard.jsonl')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l));
    assert.deepEqual(tomb, [
      { ...JSON.parse(fLine), dismissed: { dismissed_at: NOW, dismissed_by: 'archive_stale', reason: 'moved to the new auth service' } },
    ]);
    const finding = (await ws.read({ entry_types: ['finding'] })).entries.find(e => e.id === r.finding_id)!;
    assert.equal(finding.summary, 'Archived 2 stale items via housekeeping');
    assert.match(finding.detail, /Per-item reasons:\n {2}01KAW0000000000000DECSN002: replaced/);
    // Archived decisions are out of why.
    assert.ok(!(await ws.why({ scope: 'src/auth/session.ts' })).decisions.some(d => d.id === D2));

    const u = await ws.unarchive({ ids: [D2, D3, '01KAW0000000000000DECSN001', 'x'], reason: 'false positive' });
    assert.deepEqual([u.restored, u.not_archived, u.not_found], [[D2, D3], ['01KAW0000000000000DECSN001'], ['x']]);
    assert.deepEqual(u.restored_to, { [D2]: 'active', [D3]: 'provisional' });
    const restored = readJson(root, `decisions/${D3}.json`);
    assert.equal(restored.status, 'provisional');
    assert.ok(!('archived_from' in restored));
    assert.ok((await ws.why({ scope: 'src/auth/session.ts' })).decisions.some(d => d.id === D2));
  });

  test('ids that are not ULIDs never become file paths', async () => {
    const root = project();
    const ws = await openWorkspace(root, { now: at(NOW) });
    const r = await ws.unarchive({ ids: ['../config'] });
    assert.deepEqual(r.not_found, ['../config']);
    assert.deepEqual((await ws.archive_stale({ ids: ['../../etc/passwd'] })).not_found, ['../../etc/passwd']);
  });
});

describe('housekeeping', () => {
  test('a preview writes nothing; execute removes duplicates with tombstones and promotes stale provisionals when asked', async () => {
    const root = project();
    const ws = await openWorkspace(root, { now: at(NOW), warn: () => undefined });
    const first = await ws.post({ entry_type: 'finding', summary: 'Cookie parsing is slow', scope: 'src/auth/' });
    const second = await ws.post({ entry_type: 'finding', summary: 'Cookie parsing is slow', scope: 'src/auth/' });
    await ws.unarchive({ ids: [D3] }); // back to provisional, recorded 2026-11-19: older than 2 days
    const before = snapshotTree(root);

    const preview = await ws.housekeeping({ stale_days: 2, promote_provisionals: true, staleness_review: true });
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
    assert.equal(preview.dry_run, true);
    assert.deepEqual(preview.deduplicated.ids, [first.id]);
    assert.deepEqual(
      preview.stale_provisionals.items.map(d => d.id),
      [D3],
    );
    assert.equal(preview.promoted_provisionals.count, 0);
    assert.deepEqual(
      preview.dangling_warnings.items.map(w => w.id),
      [W2],
    );
    assert.deepEqual(preview.not_run, ['staleness_review']);
    assert.match(preview.summary, /^\[preview\] would remove 1 duplicates, 1 stale provisionals need review, 1 unresolved warnings/);

    const done = await ws.housekeeping({ execute: true, stale_days: 2, promote_provisionals: true });
    assert.deepEqual([done.deduplicated.removed, done.promoted_provisionals.ids], [1, [D3]]);
    assert.equal(readJson(root, `decisions/${D3}.json`).status, 'active');
    const board = read(root, 'blackboard.jsonl');
    assert.ok(!board.includes(first.id) && board.includes(second.id));
    const tomb = read(root, 'archive/2026-11-22-blackboard.jsonl')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l));
    assert.deepEqual([tomb[0].id, tomb[0].dismissed.dismissed_by], [first.id, 'housekeeping']);
    assert.equal((await ws.housekeeping({})).summary.includes('duplicates'), false);
  });

  test("the archive pass keeps config.yml's archive.retain_recent newest entries (200 when it sets none)", async () => {
    const root = project();
    const ws = await openWorkspace(root, { now: at(NOW), warn: () => undefined });
    for (let i = 0; i < 5; i++) await ws.post({ entry_type: 'finding', summary: `Finding ${i}`, scope: 'src/' });
    const preview = async () => (await ws.housekeeping({ archive: true })).archived.count;
    const all = await preview();
    assert.equal(all, 0, 'fewer entries than the default 200: nothing to archive');
    const config = path.join(root, '.twining', 'config.yml');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/retain_recent: \d+/, 'retain_recent: 2'));
    const kept2 = await preview();
    assert.ok(kept2 >= 3, `with retain_recent 2, the three older findings (and older closed entries) would go: ${kept2}`);
  });
});
