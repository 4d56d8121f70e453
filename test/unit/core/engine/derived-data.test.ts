/**
 * The values a folder's store derives from the record (engine/derived-data.ts) are kept by the
 * version stamp of their source: made once while the source is unchanged, made again once it moved
 * (a write by another engine, a rewrite of the blackboard), and extended, not made again, when
 * lines were only appended.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace } from '../../../../src/core';
import { FolderStore } from '../../../../src/core/engine/folder-store';
import { DerivedData } from '../../../../src/core/engine/derived-data';
import { scopeContext } from '../../../../src/core/operations/scope-context-ops';
import { assemble } from '../../../../src/core/operations/assemble-ops';
import { referenceProject } from '../../../support/fixture';

test('a value is made once per stamp of its source, and once per scope asked about', () => {
  let stamp = 'a';
  const derived = new DerivedData(() => stamp);
  let calls = 0;
  const make = () => ({ n: ++calls });
  const first = derived.of('decisions by id', make);
  assert.equal(derived.of('decisions by id', make), first);
  assert.equal(calls, 1);
  const inA = derived.of('decisions in scope', make, 'src/a/');
  assert.notEqual(derived.of('decisions in scope', make, 'src/b/'), inA);
  assert.equal(derived.of('decisions in scope', make, 'src/a/'), inA);
  assert.equal(calls, 3);
  stamp = 'b';
  assert.equal(derived.peek('decisions by id'), undefined);
  const second = derived.of('decisions by id', make);
  assert.notEqual(second, first);
  assert.equal(calls, 4);
  assert.equal(derived.made, 4);
});

test('a scope context is derived again after another engine wrote a decision, and not before', async () => {
  const root = referenceProject();
  const ctx = new FolderStore(root, { warn: () => undefined });
  const before = await scopeContext(ctx, 'src/auth/');
  const made = ctx.derived.made;
  const again = await scopeContext(ctx, 'src/auth/');
  assert.deepEqual(again.decisions, before.decisions);
  assert.equal(ctx.derived.made, made, 'nothing was made again for an unchanged folder');

  const other = await openWorkspace(root, { warn: () => undefined });
  const decided = await other.decide({ domain: 'security', scope: 'src/auth/', summary: 'Sessions expire after 8 hours', context: 'c', rationale: 'r' });
  const after = await scopeContext(ctx, 'src/auth/');
  assert.ok(
    after.decisions.some(d => d.id === decided.id),
    'the new decision is in the context',
  );
  assert.ok(ctx.derived.made > made, 'the values derived from the decision index were made again');
});

test("a briefing's facts about the blackboard are extended by appended lines and made again after a rewrite", async () => {
  const root = referenceProject();
  const ctx = new FolderStore(root, { warn: () => undefined });
  await assemble(ctx, { task: 'refresh tokens', scope: 'src/auth/' });
  const facts = ctx.derived.peek<{ length: number }>('entry facts');
  assert.ok(facts, 'a briefing derives facts about every entry');
  const length = facts.length;

  const other = await openWorkspace(root, { warn: () => undefined });
  const posted = await other.post({ entry_type: 'warning', summary: 'Token rotation is flaky', scope: 'src/auth/refresh.ts' });
  const briefing = await assemble(ctx, { task: 'refresh tokens', scope: 'src/auth/' });
  assert.ok(JSON.stringify(briefing).includes('Token rotation is flaky'));
  assert.equal(ctx.derived.peek('entry facts'), facts, 'the same facts, extended');
  assert.equal(facts.length, length + 1);

  await other.dismiss({ ids: [posted.id], reason: 'fixed' });
  const afterDismiss = await assemble(ctx, { task: 'refresh tokens', scope: 'src/auth/' });
  assert.ok(!JSON.stringify(afterDismiss).includes('Token rotation is flaky'));
  const rebuilt = ctx.derived.peek<{ length: number }>('entry facts');
  assert.ok(rebuilt && rebuilt !== facts, 'a rewritten blackboard starts the facts again');
});
