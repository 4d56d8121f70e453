/**
 * One table of operations (src/core/operations/registry.ts): every operation of the schemas has
 * its entry, described by the shared tables; the engine's methods are made from it (no chain of
 * engine classes), and a call by name (`run`, as the CLI, the MCP server and the language model
 * tools make it) and the method of that name do the same on a real folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATION_TABLE } from '../../../../src/core/operations/registry';
import { OPERATION_NAMES, inputs } from '../../../../src/core/schemas/schemas';
import { writes } from '../../../../src/core/operations/operation-writes';
import { OPERATIONS } from '../../../../src/core/operations/operation-info';
import { TwiningEngine, openWorkspace } from '../../../../src/core';
import { at, emptyProject, readLines } from '../../../support/fixture';

test('every operation of the schemas has one entry, with its own schema, write flag and description', () => {
  assert.deepEqual(Object.keys(OPERATION_TABLE).sort(), [...OPERATION_NAMES].sort());
  for (const name of OPERATION_NAMES) {
    const entry = OPERATION_TABLE[name];
    assert.equal(entry.name, name);
    assert.equal(entry.input, inputs[name], `${name}: its schema is the one of schemas.ts`);
    assert.equal(entry.writes, writes(name), `${name}: writes`);
    assert.equal(entry.title, OPERATIONS[name].title);
    assert.equal(entry.description, OPERATIONS[name].model);
  }
  // The write flags are not all alike: the table says which operations write.
  assert.equal(OPERATION_TABLE.post.writes, true);
  assert.equal(OPERATION_TABLE.read.writes, false);
});

test('the engine is one class whose operation methods come from the table', () => {
  // No chain of engine classes: TwiningEngine extends nothing.
  assert.equal(Object.getPrototypeOf(TwiningEngine.prototype), Object.prototype);
  const methods = TwiningEngine.prototype as unknown as Record<string, unknown>;
  for (const name of OPERATION_NAMES) assert.equal(typeof methods[name], 'function', `engine.${name}`);
});

test('a call by name and the method of that name run the same operation on a real folder', async () => {
  const root = emptyProject();
  const engine = await openWorkspace(root, { now: at('2026-11-22T03:00:00.000Z') });
  await engine.init();
  const byName = await engine.run('post', { entry_type: 'finding', summary: 'posted by name', agent_id: 'a' });
  const byMethod = await engine.post({ entry_type: 'finding', summary: 'posted by method', agent_id: 'a' });
  const lines = readLines(root, 'blackboard.jsonl') as { id: string; summary: string }[];
  assert.deepEqual(
    lines.map(l => [l.id, l.summary]),
    [
      [byName.id, 'posted by name'],
      [byMethod.id, 'posted by method'],
    ],
  );
  // An input is validated by the entry's schema either way, before anything is written.
  await assert.rejects(engine.run('post', { entry_type: 'finding', summary: '' }), /summary/);
  await assert.rejects(engine.post({ entry_type: 'nonsense' } as never), /entry_type/);
  assert.equal(readLines(root, 'blackboard.jsonl').length, 2);
  // An operation whose fields are all optional runs without an input, by name or by method.
  assert.equal((await engine.run('read')).total_count, 2);
  assert.equal((await engine.read()).total_count, 2);
  // verify is counted as before (the benchmarks count verifications per change).
  const before = engine.work.verifications;
  await engine.run('verify', { scope: 'src/' }).catch(() => undefined);
  assert.equal(engine.work.verifications, before + 1);
});
