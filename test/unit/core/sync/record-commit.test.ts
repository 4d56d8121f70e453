/**
 * The commit a sync pushes, made by one `git fast-import` (src/core/sync/record-commit.ts), on a
 * real repository: only the changed files are written on top of the parent's tree, names that
 * would break fast-import's line format are written exactly, the refs named move only when the
 * caller says (after an accepted push) and none when it does not, and bytes that are not the blob
 * the caller named are refused before anything is committed. A fast-import started ahead of the
 * commit (while the fetch runs) ends when the sync is over, and none starts after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { git, newRepo, run } from '../../../support/git-repo';
import { OUTGOING_REF, SpareImport, importCommit } from '../../../../src/core/sync/record-commit';
import { repoOf } from '../../../../src/core/sync/sync-state';
import { blobId } from '../../../../src/core/sync/record-tree';

const who = { name: 'Twining sync (host:<odd>\nlabel)', email: 'twining-sync@abc.invalid' };

test('fast-import writes the changed files on the parent, moves the named refs only when asked, and checks every blob id', async () => {
  const root = newRepo();
  const dir = path.join(root, '.twining');
  fs.mkdirSync(dir, { recursive: true });
  const repo = (await repoOf(dir))!;
  const blob = (text: string) => {
    const bytes = Buffer.from(text);
    return [blobId(bytes, repo.objectFormat), bytes] as const;
  };
  const [a, aBytes] = blob('one\n');
  const [b, bBytes] = blob('two\n');
  const odd = 'clones/a "quoted"\\name\ttab.json';
  const first = await importCommit(repo, {
    fromScratch: false,
    files: new Map([
      ['blackboard.jsonl.parts/000', a],
      ['keep/x.json', b],
      [odd, b],
    ]),
    removed: [],
    blobs: new Map([
      [a, aBytes],
      [b, bBytes],
    ]),
    message: 'first',
    who,
  });
  // Readable by other git processes before the stream ends (the push runs then).
  assert.equal(git(root, 'cat-file', '-t', first.commit), 'commit');
  assert.equal(git(root, 'rev-parse', `${first.commit}:${odd}`), b);
  await first.finish(['refs/twining/synced']);
  assert.equal(git(root, 'rev-parse', 'refs/twining/synced'), first.commit);
  assert.equal(git(root, 'rev-parse', OUTGOING_REF), first.commit);
  assert.match(git(root, 'log', '-1', '--format=%an|%ae|%s', first.commit), /^Twining sync \(host:odd\s*label\)\|twining-sync@abc\.invalid\|first$/);

  // On top of it: one file changed, one removed; the untouched folder's tree is the parent's.
  const [c, cBytes] = blob('three\n');
  const second = await importCommit(repo, {
    parent: first.commit,
    fromScratch: false,
    files: new Map([['blackboard.jsonl.parts/000', c]]),
    removed: [odd],
    blobs: new Map([[c, cBytes]]),
    message: 'second',
    who,
  });
  await second.finish([]); // a rejected push: no ref named moves
  assert.equal(git(root, 'rev-parse', 'refs/twining/synced'), first.commit);
  assert.equal(git(root, 'rev-parse', `${second.commit}^`), first.commit);
  assert.equal(git(root, 'ls-tree', '-r', '--name-only', second.commit), 'blackboard.jsonl.parts/000\nkeep/x.json');
  assert.equal(git(root, 'rev-parse', `${second.commit}:keep`), git(root, 'rev-parse', `${first.commit}:keep`));
  assert.equal(git(root, 'rev-parse', `${second.commit}:blackboard.jsonl.parts/000`), c);

  // From scratch on a parent: the tree is the files given alone.
  const third = await importCommit(repo, {
    parent: second.commit,
    fromScratch: true,
    files: new Map([['m.json', a]]),
    removed: [],
    blobs: new Map([[a, aBytes]]),
    message: 'third',
    who,
  });
  await third.finish([]);
  assert.equal(git(root, 'ls-tree', '-r', '--name-only', third.commit), 'm.json');

  // Bytes that are not the blob named: refused, nothing committed, no ref moved.
  await assert.rejects(
    importCommit(repo, {
      parent: first.commit,
      fromScratch: false,
      files: new Map([['x', a]]),
      removed: [],
      blobs: new Map([[a, bBytes]]),
      message: 'bad',
      who,
    }),
    /git stored a blob as [0-9a-f]+, expected/,
  );
  assert.equal(git(root, 'rev-parse', 'refs/twining/synced'), first.commit);
});

/** This process's child processes running fast-import (their command lines, from ps). */
const importers = () =>
  run(process.cwd(), 'ps', ['-o', 'args=', '--ppid', String(process.pid)], true)
    .stdout.split('\n')
    .filter(l => l.includes('fast-import'));

test('a fast-import started ahead and not used ends when the sync is over, and none starts after', { skip: process.platform !== 'linux' }, async () => {
  const root = newRepo();
  const repo = (await repoOf(root))!;
  const spare = new SpareImport(repo);
  spare.start();
  spare.start(); // one at most
  assert.equal(importers().length, 1, 'one fast-import runs');
  spare.close();
  for (let i = 0; i < 100 && importers().length > 0; i++) await new Promise(resolve => setTimeout(resolve, 50));
  assert.deepEqual(importers(), [], 'it ended');
  spare.start(); // the local record was read after the sync failed: nothing starts
  assert.deepEqual(importers(), []);
  const before = git(root, 'for-each-ref');
  assert.equal(before, '', 'no ref was written');
});
