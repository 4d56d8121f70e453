/**
 * What an incremental `twining sync` sends (issue 28 part 7): after new entries on a large record,
 * only what is new reaches the remote. Counted on a real bare remote as the objects it gained
 * (a small push is unpacked there into loose objects), compared with what git itself says the new
 * commit adds to the old one (`rev-list --objects old..new`), for the automatic sync of a
 * long-lived engine (warm: its parts, listings and recent blobs held between syncs) and for the
 * CLI (cold); and the bytes a push of it sends, as git push makes its pack. The record on the remote
 * is the local file byte for byte after each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { tempProject } from '../../../support/tmp';
import { cliOk as ok, git, syncTeam } from '../../../support/git-repo';
import { openWorkspace } from '../../../../src/core/engine/engine';
import { listLocalRecords, treeEntriesOf } from '../../../../src/core/sync/record-files';
import { blobId } from '../../../../src/core/sync/record-tree';

/** Every object id in a bare repository (loose and packed). */
function objectsOf(repo: string): Set<string> {
  const ids = new Set<string>();
  const objects = path.join(repo, 'objects');
  for (const dir of fs.readdirSync(objects)) if (/^[0-9a-f]{2}$/.test(dir)) for (const f of fs.readdirSync(path.join(objects, dir))) ids.add(dir + f);
  for (const f of fs.readdirSync(path.join(objects, 'pack')))
    if (f.endsWith('.idx'))
      for (const line of git(repo, 'verify-pack', '-v', path.join(objects, 'pack', f)).split('\n')) if (/^[0-9a-f]{40} /.test(line)) ids.add(line.slice(0, 40));
  return ids;
}

const entry = (i: number) =>
  JSON.stringify({
    id: `01M8${String(i).padStart(22, '0')}`,
    entry_type: 'finding',
    summary: `entry ${i}: the handler in src/mod${i % 40}.ts retries without a backoff`,
    scope: `src/mod${i % 40}.ts`,
    agent_id: `agent-${i % 7}`,
    timestamp: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(),
  });

/**
 * The record's tree as the local files make it (tree path → blob id, a JSONL file cut into its parts
 * by the sync's own rule): what the remote must hold after a sync with nothing coming in.
 */
async function localTree(dir: string): Promise<Map<string, string>> {
  const tree = new Map<string, string>();
  for (const [rel, file] of await listLocalRecords(dir, 'files'))
    for (const [p, bytes] of treeEntriesOf(rel, fs.readFileSync(file))) tree.set(p, blobId(bytes, 'sha1'));
  return tree;
}

/** A commit's files: tree path → blob id. */
const treeOf = (repo: string, commit: string) =>
  new Map(
    git(repo, 'ls-tree', '-r', commit)
      .split('\n')
      .filter(Boolean)
      .map(l => [l.slice(l.indexOf('\t') + 1), l.split(/\s+/)[2]] as [string, string]),
  );

/** The remote record's blackboard, its parts joined in order. */
const remoteBoard = (remote: string) =>
  git(remote, 'ls-tree', '--name-only', 'refs/heads/twining/record', 'blackboard.jsonl.parts/')
    .split('\n')
    .filter(Boolean)
    .map(p => git(remote, 'cat-file', 'blob', `refs/heads/twining/record:${p}`) + '\n')
    .join('');

test('an incremental sync after 10 new entries on a large record sends only the new part, its trees and the commit', { timeout: 180_000 }, async () => {
  const { remote, a } = syncTeam(tempProject('sync-cost'), { path: 'src/app.ts', text: 'export {};\n' });
  const board = path.join(a, '.twining', 'blackboard.jsonl');
  // A long history kept whole (archiving off), as the benchmark has it: else the first post moves it to archive/ and the rounds carry a board of a few entries.
  const config = path.join(a, '.twining', 'config.yml');
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/max_blackboard_entries_before_archive: \d+/, 'max_blackboard_entries_before_archive: 0'));
  assert.match(fs.readFileSync(config, 'utf8'), /max_blackboard_entries_before_archive: 0/);
  fs.writeFileSync(board, Array.from({ length: 20_000 }, (_, i) => entry(i)).join('\n') + '\n');
  ok(a, 'sync');
  const parts = git(remote, 'ls-tree', '--name-only', 'refs/heads/twining/record', 'blackboard.jsonl.parts/').split('\n').length;
  assert.ok(parts > 20, `the record is cut into many parts (${parts})`);

  const engine = await openWorkspace(a, { warn: () => undefined });
  let boardBefore = remoteBoard(remote);
  const round = async (how: string, sync: () => Promise<unknown>) => {
    const old = git(remote, 'rev-parse', 'refs/heads/twining/record');
    const before = objectsOf(remote);
    await sync();
    const now = git(remote, 'rev-parse', 'refs/heads/twining/record');
    assert.notEqual(now, old, `${how}: a new commit was pushed`);
    const sent = [...objectsOf(remote)].filter(id => !before.has(id)).sort();
    const added = git(remote, 'rev-list', '--objects', `${old}..${now}`)
      .split('\n')
      .map(l => l.slice(0, 40))
      .sort();
    assert.deepEqual(sent, added, `${how}: the remote gained exactly the objects the new commit adds`);
    const blobs = git(remote, 'diff-tree', '-r', '--no-renames', '--diff-filter=AM', old, now).split('\n').filter(Boolean);
    // Exactly the files the round changed here, the blackboard cut by the sync's own rule: its last part (and a new one
    // when the new lines cross a cut point), the graph (the posts' concepts and relations), the agents when new.
    const was = treeOf(remote, old);
    const changed = [...(await localTree(path.join(a, '.twining')))].filter(([p, id]) => was.get(p) !== id).map(([p]) => p);
    assert.deepEqual(blobs.map(l => l.split('\t')[1]).sort(), changed.sort(), `${how}: the files changed here, and only those`);
    const lastPart = [...was.keys()]
      .filter(p => p.startsWith('blackboard.jsonl.parts/'))
      .sort()
      .at(-1)!;
    const boardParts = changed.filter(p => p.startsWith('blackboard.jsonl.parts/'));
    assert.ok(boardParts.length >= 1 && boardParts.every(p => p >= lastPart), `${how}: only the blackboard's last part and new ones: ${boardParts.join('; ')}`);
    assert.ok(blobs.length - boardParts.length <= 3, `${how}: besides the blackboard at most the graph's two files and the agents: ${blobs.join('; ')}`);
    // A blob, its folder's tree and the root's tree per changed file at most, and the commit: nothing of the thousands of entries already there.
    assert.ok(sent.length <= 2 * blobs.length + 2, `${how}: ${sent.length} objects sent for ${blobs.length} changed file(s)`);
    assert.equal(remoteBoard(remote), fs.readFileSync(board, 'utf8'), `${how}: the remote's blackboard is the local file byte for byte`);
    // The bytes on the wire: the pack a push of the new commit makes against the remote's old one, made again the way
    // git push makes it (pack-objects --revs --thin, in the clone that pushed). The entries appended go out as a delta
    // against the remote's copy of their part, not as a delta against another file that costs more than they do.
    const pack = spawnSync('git', ['pack-objects', '--revs', '--stdout', '--thin', '--delta-base-offset', '-q'], { cwd: a, input: `${now}\n^${old}\n` });
    assert.equal(pack.status, 0, String(pack.stderr));
    const appended = Buffer.byteLength(remoteBoard(remote)) - Buffer.byteLength(boardBefore);
    assert.ok(pack.stdout.length <= 2 * appended, `${how}: a push sends ${pack.stdout.length} bytes for ${appended} bytes of entries appended`);
    boardBefore = remoteBoard(remote);
  };
  for (let r = 0; r < 2; r++)
    await round(`engine.sync() #${r + 1}`, async () => {
      for (let i = 0; i < 10; i++) await engine.post({ entry_type: 'finding', summary: `round ${r} entry ${i}`, scope: 'src/', agent_id: 'bench' });
      await engine.sync();
    });
  await round('twining sync (CLI)', () => {
    for (let i = 0; i < 10; i++) ok(a, 'post', '--entry-type', 'finding', '--summary', `cli entry ${i}`, '--scope', 'src/', '--agent-id', 'bench');
    ok(a, 'sync');
    return Promise.resolve();
  });
  // Nothing new on either side: nothing is pushed.
  const tip = git(remote, 'rev-parse', 'refs/heads/twining/record');
  const report = await engine.sync();
  assert.equal(report.pushed, false);
  assert.equal(git(remote, 'rev-parse', 'refs/heads/twining/record'), tip);
});

test("a sync right after a post sends the post's graph upkeep too (the MCP server's batched graph)", { timeout: 60_000 }, async () => {
  const { remote, a } = syncTeam(tempProject('sync-graph'), { path: 'src/app.ts', text: 'export {};\n' });
  ok(a, 'sync');
  const engine = await openWorkspace(a, { warn: () => undefined, batchGraph: true });
  const posted = await engine.post({ entry_type: 'finding', summary: 'the retry has no backoff', scope: 'src/app.ts', agent_id: 'bench' });
  await engine.sync(); // at once: the graph's upkeep is still queued (graph-ops.ts changeGraphSoon)
  const entities = git(remote, 'cat-file', 'blob', 'refs/heads/twining/record:graph/entities.json');
  assert.ok(entities.includes(`finding:${posted.id}`), `the remote's graph has the post's concept: ${entities}`);
  assert.equal(entities, fs.readFileSync(path.join(a, '.twining', 'graph', 'entities.json'), 'utf8').trimEnd(), 'and is the local file');
  await engine.settled();
});
