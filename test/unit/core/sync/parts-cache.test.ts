/**
 * The sync's parts cache (src/core/sync/parts-cache.ts) on a real repository and real files: an
 * unchanged file is not cut or hashed again, an appended JSONL file costs only what was appended,
 * and whatever the cache holds, the parts and blob ids are exactly those of cutting the whole file
 * afresh: a file rewritten in place (same inode, grown), a shrunk file and a damaged cache file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { newRepo } from '../../../support/git-repo';
import { readWithParts } from '../../../../src/core/sync/parts-cache';
import { repoOf } from '../../../../src/core/sync/sync-state';
import { treeEntriesOf } from '../../../../src/core/sync/record-files';
import { blobId, Repo } from '../../../../src/core/sync/record-tree';

const line = (i: number) => JSON.stringify({ id: `E${String(i).padStart(8, '0')}`, summary: `entry ${i} about src/mod${i % 9}.ts` }) + '\n';
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => line(from + k)).join('');

function freshIds(rel: string, content: Buffer, repo: Repo): string[] {
  return treeEntriesOf(rel, content).map(([, bytes]) => blobId(bytes, repo.objectFormat));
}

test('parts are kept by version stamp between syncs, and always equal cutting the file afresh', async () => {
  const root = newRepo();
  const dir = path.join(root, '.twining');
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  const board = path.join(dir, 'blackboard.jsonl');
  const registry = path.join(dir, 'agents', 'registry.json');
  fs.writeFileSync(board, lines(0, 3000));
  fs.writeFileSync(registry, '{"agents":[]}\n');
  const repo = (await repoOf(dir))!;
  const files = new Map([
    ['blackboard.jsonl', board],
    ['agents/registry.json', registry],
  ]);
  const check = async () => {
    const r = await readWithParts(repo, files);
    for (const [rel, file] of files) {
      const bytes = fs.readFileSync(file);
      assert.deepEqual(
        r.parts.get(rel)!.map(p => p.id),
        freshIds(rel, bytes, repo),
        `${rel}: ids as if cut afresh`,
      );
      assert.ok(Buffer.concat(r.parts.get(rel)!.map(p => p.bytes)).equals(bytes), `${rel}: the parts are the file`);
    }
    return r.work;
  };
  const first = await check();
  assert.equal(first.reused, 0);
  assert.equal(first.hashedBytes, fs.statSync(board).size + fs.statSync(registry).size);
  assert.ok(freshIds('blackboard.jsonl', fs.readFileSync(board), repo).length > 3, 'the board has several parts');

  // Nothing changed: nothing is cut or hashed.
  assert.deepEqual(await check(), { reused: 2, hashedBytes: 0 });

  // Appended to: only the last part and what follows are cut and hashed.
  const sizeBefore = fs.statSync(board).size;
  fs.appendFileSync(board, lines(3000, 3010));
  const appended = await check();
  assert.equal(appended.reused, 1, 'the registry is reused');
  assert.ok(
    appended.hashedBytes > 0 && appended.hashedBytes < fs.statSync(board).size - sizeBefore + sizeBefore / 2,
    `only the tail is hashed (${appended.hashedBytes} bytes)`,
  );

  // Appended to twice more: what an earlier read gave is unchanged by the later ones (they read into the room after it).
  const earlier = (await readWithParts(repo, files)).contents.get('blackboard.jsonl')!;
  const earlierCopy = Buffer.from(earlier);
  for (let k = 0; k < 2; k++) {
    fs.appendFileSync(board, lines(4000 + k * 10, 4010 + k * 10));
    const again = await check();
    assert.ok(again.hashedBytes < fs.statSync(board).size / 2, `only the tail is hashed (${again.hashedBytes} bytes)`);
  }
  assert.ok(earlier.equals(earlierCopy), 'bytes handed out earlier are never written again');

  // Rewritten in place, same inode, grown: the kept digest no longer matches, so all of it is cut again.
  const inode = fs.statSync(board).ino;
  const fd = fs.openSync(board, 'r+');
  fs.writeSync(fd, Buffer.from('{"id":"X0000000"'), 0, 16, 0);
  fs.writeSync(fd, Buffer.from(line(9999)), 0, undefined, fs.fstatSync(fd).size);
  fs.closeSync(fd);
  assert.equal(fs.statSync(board).ino, inode);
  const rewritten = await check();
  assert.equal(rewritten.hashedBytes, fs.statSync(board).size + 0, 'the whole board is hashed again');

  // Its last part changed in place, same inode, then grown: all of it is cut again.
  const atLast = fs.readFileSync(board).lastIndexOf('"id":"E') + 6;
  const fd2 = fs.openSync(board, 'r+');
  fs.writeSync(fd2, Buffer.from('Z'), 0, 1, atLast);
  fs.writeSync(fd2, Buffer.from(line(10001)), 0, undefined, fs.fstatSync(fd2).size);
  fs.closeSync(fd2);
  assert.equal(fs.statSync(board).ino, inode);
  assert.equal((await check()).hashedBytes, fs.statSync(board).size, 'the whole board is cut again');

  // Replaced (as every rewrite of the record is: a new file renamed over it) by one whose first and last parts are the same and a line between them differs, grown: exact.
  const text = fs.readFileSync(board, 'utf8');
  const middle = text.indexOf('"id":"E', text.length >> 1) + 6;
  fs.writeFileSync(`${board}.new`, text.slice(0, middle) + 'Y' + text.slice(middle + 1) + lines(20000, 20003));
  fs.renameSync(`${board}.new`, board);
  assert.equal((await check()).hashedBytes, fs.statSync(board).size, 'another file: all of it is cut again');

  // Shrunk (an entry removed by a rewrite), then a damaged cache file: still exact.
  fs.writeFileSync(board, lines(5, 2000));
  await check();
  fs.writeFileSync(
    path.join(repo.gitDir, 'twining', 'parts.json'),
    '{"format":2,"objectFormat":"sha1","files":{"blackboard.jsonl":{"stamp":"x","size":3,"parts":[]}}',
  );
  const afterDamage = await check();
  assert.equal(afterDamage.reused, 0, 'a damaged cache is ignored');
  assert.deepEqual(await check(), { reused: 2, hashedBytes: 0 }, 'and written again');
});
