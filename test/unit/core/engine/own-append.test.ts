/**
 * A post's line taken into the engine's copy of the blackboard as it is written (storage/files/jsonl.ts
 * takeAppended): the engine holds the file as written without reading it back, and what it holds
 * stays what the file says when other writers (another process, another engine) append between
 * its posts, or when the file's last line was torn by a killed writer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { execFileSync } from 'child_process';
import * as yaml from 'js-yaml';
import { openWorkspace } from '../../../../src/core';
import { referenceProject } from '../../../support/fixture';
import { CLI_JS, tw } from '../../../support/tmp';

const summaries = async (root: string) => (await (await openWorkspace(root)).read({ limit: 0 })).entries.map(e => e.summary);

/** Archiving off, so that no check for it after a post reads the blackboard. */
function withoutArchiving(root: string): string {
  const file = tw(root, 'config.yml');
  const config = yaml.load(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  config.archive = { ...config.archive, max_blackboard_entries_before_archive: 0 };
  fs.writeFileSync(file, yaml.dump(config));
  return root;
}

test("a post is held as written, nothing read back; others' lines in between are read by the next call, in file order", async () => {
  const root = withoutArchiving(referenceProject());
  const engine = await openWorkspace(root, { warn: () => undefined });
  const other = await openWorkspace(root, { warn: () => undefined });
  await engine.read({ limit: 1 });
  const version = engine.blackboard.version;

  await engine.post({ entry_type: 'finding', summary: 'mine 1', agent_id: 'me' });
  assert.equal(await engine.blackboard.file.isCurrent(), true, 'the file is as the engine holds it, before any refresh');
  assert.ok(engine.blackboard.version > version, 'its own line is a change of the blackboard (views are told)');
  assert.equal(engine.blackboard.entries.at(-1)?.summary, 'mine 1');

  // Another process, then another engine, then this one again.
  execFileSync(process.execPath, [CLI_JS, 'post', '--dir', root, '--entry-type', 'warning', '--summary', 'from the CLI', '--scope', 'src/']);
  await other.post({ entry_type: 'need', summary: 'from another engine', agent_id: 'other' });
  await engine.post({ entry_type: 'finding', summary: 'mine 2', agent_id: 'me' });
  const seen = (await engine.read({ limit: 0 })).entries.map(e => e.summary);
  assert.deepEqual(seen, await summaries(root), 'the same entries as a new engine reads from the file');
  assert.deepEqual(seen.slice(-4), ['mine 1', 'from the CLI', 'from another engine', 'mine 2']);
  assert.deepEqual((await engine.read({ scope: 'src/', entry_types: ['warning'], limit: 1 })).entries[0].summary, 'from the CLI');
});

test('a torn last line (a killed writer) is ended by the append and read back: the engine holds what the file says', async () => {
  const root = referenceProject();
  const engine = await openWorkspace(root, { warn: () => undefined });
  await engine.read({ limit: 1 });
  fs.appendFileSync(tw(root, 'blackboard.jsonl'), '{"entry_type":"finding","summ');
  await engine.post({ entry_type: 'finding', summary: 'after the torn line', agent_id: 'me' });
  const seen = (await engine.read({ limit: 0 })).entries.map(e => e.summary);
  assert.deepEqual(seen, await summaries(root));
  assert.equal(seen.at(-1), 'after the torn line');
});

test('a blackboard rewritten by another engine (a dismissal) between two posts: the next call reads it again', async () => {
  const root = referenceProject();
  const engine = await openWorkspace(root, { warn: () => undefined });
  const other = await openWorkspace(root, { warn: () => undefined });
  const { id } = await engine.post({ entry_type: 'finding', summary: 'to go', agent_id: 'me' });
  await other.dismiss({ ids: [id], reason: 'gone' });
  await engine.post({ entry_type: 'finding', summary: 'stays', agent_id: 'me' });
  const seen = (await engine.read({ limit: 0 })).entries.map(e => e.summary);
  assert.deepEqual(seen, await summaries(root));
  assert.ok(!seen.includes('to go') && seen.at(-1) === 'stays');
});

test("an engine that releases its locks after answering (`twining mcp`'s): writes in a row and at once all land, and settled() leaves no lock behind", async () => {
  const root = withoutArchiving(referenceProject());
  const engine = await openWorkspace(root, { warn: () => undefined, releaseAfterAnswer: true, batchGraph: true });
  const other = await openWorkspace(root, { warn: () => undefined });
  for (let i = 0; i < 5; i++) await engine.post({ entry_type: 'finding', summary: `in a row ${i}`, agent_id: 'me' });
  await Promise.all(Array.from({ length: 5 }, (_, i) => engine.post({ entry_type: 'finding', summary: `at once ${i}`, agent_id: 'me' })));
  await other.post({ entry_type: 'finding', summary: 'another engine', agent_id: 'other' });
  await engine.settled();
  const leftovers = fs.readdirSync(tw(root)).filter(name => name.includes('.lock'));
  assert.deepEqual(leftovers, [], 'no lock directory or owner record is left');
  const seen = await summaries(root);
  for (let i = 0; i < 5; i++) assert.ok(seen.includes(`in a row ${i}`) && seen.includes(`at once ${i}`));
  assert.ok(seen.includes('another engine'));
  assert.deepEqual(
    (await engine.read({ limit: 0 })).entries.map(e => e.summary),
    seen,
  );
});
