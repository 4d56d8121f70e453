/**
 * The snapshot a handoff hands over is the one that was confirmed: the pure comparison
 * (rules/snapshot-changes.ts), and the handoff operation refusing to write when another process
 * (the CLI, a real process) put a warning in scope or a decision out of it after the snapshot was
 * shown, then writing the new snapshot once that one is confirmed.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { execFile } from 'child_process';
import { promisify } from 'util';
import { openWorkspace } from '../../../../src/core';
import { snapshotDigest } from '../../../../src/core/rules/snapshot';
import { describeSnapshotChanges, snapshotChanges, SnapshotChanges } from '../../../../src/core/rules/snapshot-changes';
import { CLI_JS, changedFiles, fixtureProject, parseJsonl, snapshotTree, tw } from '../../../support/tmp';

const run = promisify(execFile);
const SCOPE = 'src/auth/jwt.ts';

/** Runs one operation through the CLI, in its own process. */
async function cli(root: string, op: string, input: object): Promise<any> {
  const { stdout } = await run(process.execPath, [CLI_JS, op, '--dir', root, '--json', '--input', JSON.stringify(input)]);
  return JSON.parse(stdout);
}

const snap = (d: string[], w: string[], f: string[]) => ({ decision_ids: d, warning_ids: w, finding_ids: f, summaries: [] });

describe('snapshotChanges (pure)', () => {
  test('equal digests: no change', () => {
    const s = snap(['d1'], ['w1'], []);
    assert.equal(
      snapshotChanges({ digest: snapshotDigest(s), snapshot: s }, s, () => undefined),
      undefined,
    );
  });

  test('ids that came into scope and left it, by kind, with their summaries', () => {
    const before = snap(['d1', 'd2'], ['w1'], []);
    const now = snap(['d1'], ['w1', 'w2'], ['f1']);
    const changes = snapshotChanges({ digest: snapshotDigest(before), snapshot: before }, now, (_k, id) => (id === 'w2' ? 'exp not checked' : undefined))!;
    assert.deepEqual(changes.added, [
      { item: 'warning', id: 'w2', summary: 'exp not checked' },
      { item: 'finding', id: 'f1', summary: 'f1' },
    ]);
    assert.deepEqual(changes.removed, [{ item: 'decision', id: 'd2', summary: 'd2' }]);
    assert.equal(changes.current_digest, snapshotDigest(now));
    assert.equal(changes.compared_ids, true);
    assert.match(describeSnapshotChanges(changes), /came into scope: warning "exp not checked" \(w2\), finding "f1" \(f1\); left it: decision "d2" \(d2\)/);
  });

  test('same ids, other summaries: a change all the same', () => {
    const before = { ...snap(['d1'], [], []), summaries: ['Decision: old'] };
    const now = { ...snap(['d1'], [], []), summaries: ['Decision: new'] };
    const changes = snapshotChanges({ digest: snapshotDigest(before), snapshot: before }, now, () => undefined)!;
    assert.deepEqual([changes.added, changes.removed], [[], []]);
    assert.match(describeSnapshotChanges(changes), /summaries changed/);
  });

  test('only a digest: the change is reported with the current snapshot, ids not compared', () => {
    const now = snap([], ['w1'], []);
    const changes = snapshotChanges({ digest: 'sha256:' + '0'.repeat(64) }, now, () => undefined)!;
    assert.equal(changes.compared_ids, false);
    assert.deepEqual(changes.current, now);
    assert.match(describeSnapshotChanges(changes), /1 warning\(s\)/);
  });
});

test("snapshotCounts: one call gives, for each scope, the lengths of that scope's snapshot", async () => {
  const root = fixtureProject();
  await cli(root, 'post', { entry_type: 'warning', summary: 'no id check', scope: 'src/' });
  const ws = await openWorkspace(root, { warn: () => undefined });
  const scopes = [SCOPE, 'src/auth/', 'src/', 'docs/', undefined];
  const counts = await ws.snapshotCounts(scopes);
  for (const [i, scope] of scopes.entries()) {
    const s = await ws.previewSnapshot(scope);
    assert.deepEqual(
      counts[i],
      { decisions: s.decision_ids.length, warnings: s.warning_ids.length, findings: s.finding_ids.length },
      `scope ${scope ?? '(whole project)'}`,
    );
  }
  assert.ok(counts[0].warnings > 0 && counts[0].decisions > 0, 'the file has warnings and decisions in the fixture');
});

describe('handoff with a confirmed snapshot', () => {
  test('a warning posted in scope by another process after the preview: nothing written, then the new snapshot is handed over', async () => {
    const root = fixtureProject();
    const ws = await openWorkspace(root, { warn: () => undefined });
    const confirmed = await ws.previewSnapshot(SCOPE);
    const posted = await cli(root, 'post', { entry_type: 'warning', summary: 'refresh tokens never expire', scope: 'src/auth/', agent_id: 'reviewer' });

    const before = snapshotTree(root);
    const input = { source_agent: 'me', summary: 'JWT done', results: [], scope: SCOPE };
    let changes: SnapshotChanges | undefined;
    await assert.rejects(ws.handoff(input, { confirmed }), (error: any) => {
      assert.equal(error.code, 'CHANGED');
      assert.match(error.message, /came into scope: warning "refresh tokens never expire"/);
      assert.match(error.message, /Nothing was written/);
      changes = error.details;
      return true;
    });
    assert.deepEqual(changedFiles(before, snapshotTree(root)), [], 'nothing was written');
    assert.deepEqual(changes!.added, [{ item: 'warning', id: posted.id, summary: 'refresh tokens never expire' }]);
    assert.deepEqual(changes!.removed, []);

    // The caller shows the new snapshot; once confirmed, that is what is stored, with its digest.
    const record = await ws.handoff(input, { confirmed: changes!.current });
    assert.ok(record.context_snapshot.warning_ids.includes(posted.id));
    assert.equal(record.snapshot_digest, changes!.current_digest);
    const stored = JSON.parse(fs.readFileSync(tw(root, 'handoffs', `${record.id}.json`), 'utf8'));
    assert.equal(stored.snapshot_digest, snapshotDigest(stored.context_snapshot));
    assert.ok(stored.context_snapshot.warning_ids.includes(posted.id));
  });

  test('a decision superseded by another process: reported as having left the scope', async () => {
    const root = fixtureProject();
    const ws = await openWorkspace(root, { warn: () => undefined });
    const confirmed = await ws.previewSnapshot(SCOPE);
    assert.ok(confirmed.decision_ids.length > 0, 'the fixture has a decision on the file');
    const old = (await ws.decisions({ scope: SCOPE })).decisions.find(d => d.status === 'active' && confirmed.decision_ids.includes(d.id))!;
    await cli(root, 'decide', {
      domain: 'security',
      scope: SCOPE,
      summary: 'Sign JWTs with EdDSA',
      context: 'c',
      rationale: 'r',
      supersedes: old.id,
    });
    await assert.rejects(ws.handoff({ source_agent: 'me', summary: 's', results: [], scope: SCOPE }, { confirmed }), (error: any) => {
      assert.equal(error.code, 'CHANGED');
      assert.deepEqual(
        error.details.removed.map((c: any) => [c.item, c.id]),
        [['decision', old.id]],
      );
      assert.ok(error.details.added.some((c: any) => c.item === 'decision' && c.summary === 'Sign JWTs with EdDSA'));
      return true;
    });
  });

  test('expected_digest (the MCP and CLI field): refuses on a mismatch, writes on a match; without it nothing is compared', async () => {
    const root = fixtureProject();
    const ws = await openWorkspace(root, { warn: () => undefined });
    const input = { source_agent: 'me', summary: 's', results: [], scope: SCOPE };
    const digest = snapshotDigest(await ws.previewSnapshot(SCOPE));
    await cli(root, 'post', { entry_type: 'finding', summary: 'jwt.ts has no tests', scope: SCOPE });
    const count = parseJsonl(tw(root, 'handoffs/index.jsonl')).length;
    await assert.rejects(cli(root, 'handoff', { ...input, expected_digest: digest }), /CHANGED|changed since the snapshot was confirmed/);
    assert.equal(parseJsonl(tw(root, 'handoffs/index.jsonl')).length, count);
    const now = snapshotDigest(await ws.previewSnapshot(SCOPE));
    const record = await cli(root, 'handoff', { ...input, expected_digest: now });
    assert.equal(record.snapshot_digest, now);
    const unchecked = await ws.handoff(input);
    assert.equal(unchecked.snapshot_digest, now);
  });
});
