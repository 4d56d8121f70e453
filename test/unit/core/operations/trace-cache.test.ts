/**
 * trace reads each decision record's depends_on once per engine (trace-ops.ts): a decision made
 * later, by this engine or another process, still shows up in the next trace, and a record that
 * could not be read is read again next time instead of being forgotten.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { FolderStore } from '../../../../src/core/engine/folder-store';
import { trace } from '../../../../src/core/operations/trace-ops';
import { referenceProject } from '../../../support/fixture';
import { tw } from '../../../support/tmp';

const JWT_BEARER = '01M80HHJN7TF8W1N7EW8PHV7MT';
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';

const decision = (summary: string, depends_on: string[]) => ({
  domain: 'security',
  scope: 'src/auth/refresh.ts',
  summary,
  context: 'c',
  rationale: 'r',
  depends_on,
});

test('a decision made after a trace, by another engine on the folder, is in the next trace', async () => {
  const root = referenceProject();
  const ours = await openWorkspace(root, { warn: () => undefined });
  assert.deepEqual(
    (await ours.trace({ decision_id: JWT_BEARER, direction: 'downstream' })).chain.map(e => e.id),
    [RS256],
  );
  const other = await openWorkspace(root, { warn: () => undefined });
  const made = await other.decide(decision('Refresh tokens are RS256 too', [RS256]));
  const chain = (await ours.trace({ decision_id: JWT_BEARER, direction: 'downstream' })).chain;
  assert.deepEqual(
    chain.map(e => e.id),
    [RS256, made.id],
  );
  assert.deepEqual(chain[0].dependents, [made.id]);
  // A status change is seen at once (it comes from the index, not from the record read before).
  await other.reconsider({ decision_id: RS256, new_context: 'keys leak' });
  assert.equal((await ours.trace({ decision_id: made.id, direction: 'upstream' })).chain[0].status, 'provisional');
});

test('a record that cannot be read is left out with a warning, and read again by the next trace', async () => {
  const root = referenceProject();
  const warnings: string[] = [];
  const ws = await openWorkspace(root, { warn: m => void warnings.push(m) });
  const file = tw(root, 'decisions', `${RS256}.json`);
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, '{ not json');
  assert.deepEqual((await ws.trace({ decision_id: JWT_BEARER })).chain, []);
  assert.ok(
    warnings.some(w => w.includes(RS256)),
    warnings.join('\n'),
  );
  fs.writeFileSync(file, text);
  assert.deepEqual(
    (await ws.trace({ decision_id: JWT_BEARER })).chain.map(e => e.id),
    [RS256],
  );
});

test("the records a trace reads are the engine's copies: a why after it reads none, and gives what a new engine gives", async () => {
  const root = referenceProject();
  const ws = await openWorkspace(root, { warn: () => undefined });
  const reads: string[] = [];
  const source = (ws as unknown as { ctx: { storage: { decisions: { read: (id: string) => Promise<unknown> } } } }).ctx.storage.decisions;
  const read = source.read.bind(source);
  source.read = id => (reads.push(id), read(id));
  await ws.trace({ decision_id: JWT_BEARER });
  assert.ok(reads.length >= 4, `the first trace reads every record (${reads.length})`);
  reads.length = 0;
  const got = await ws.why({ scope: 'src/auth/jwt.ts' });
  assert.deepEqual(reads, [], 'no record read again');
  assert.deepEqual(got, await (await openWorkspace(root, { warn: () => undefined })).why({ scope: 'src/auth/jwt.ts' }));
  // The file's own decision and its folder's.
  assert.deepEqual(got.decisions.map(d => d.id).sort(), [JWT_BEARER, RS256].sort());
});

test('traces on an unchanged index share one view of the decisions; a decision written elsewhere makes it again', async () => {
  const root = referenceProject();
  const ctx = new FolderStore(root, { warn: () => undefined });
  const first = await trace(ctx, { decision_id: JWT_BEARER, direction: 'downstream' });
  const view = ctx.derived.peek<{ view?: Map<string, unknown> }>('decision trace view')?.view;
  assert.ok(view, 'a complete view is kept');
  const made = ctx.derived.made;
  assert.deepEqual(await trace(ctx, { decision_id: JWT_BEARER, direction: 'downstream' }), first);
  assert.equal(ctx.derived.peek<{ view?: Map<string, unknown> }>('decision trace view')?.view, view, 'the second trace took the kept view');
  assert.equal(ctx.derived.made, made, 'nothing was made again for an unchanged index');

  const other = await openWorkspace(root, { warn: () => undefined });
  const later = await other.decide(decision('Refresh tokens rotate on every use', [JWT_BEARER]));
  const after = await trace(ctx, { decision_id: JWT_BEARER, direction: 'downstream' });
  assert.ok(
    after.chain.some(e => e.id === later.id),
    'the decision written by another engine is in the next trace',
  );
  assert.notEqual(ctx.derived.peek<{ view?: Map<string, unknown> }>('decision trace view')?.view, view);
});
