/**
 * A sync with something to push pushes first (src/core/sync/sync-run.ts, leaseOn): the commit
 * made on the remote's record as this clone last fetched it goes out before any fetch, and the
 * remote takes it only if its record is still exactly that one. With real clones of a bare
 * remote, and clone a's fetches counted by the remote's upload-pack (wrapped through
 * `remote.origin.uploadpack`, which every fetch from origin runs):
 *
 *   - written here on an unchanged remote: pushed with no fetch at all, by the CLI's quick sync and
 *     by a warm engine alike, and the report says nothing came in without a fetch;
 *   - nothing written here: a fetch, nothing pushed;
 *   - the remote moved by another clone: the push is refused, the sync fetches, merges and pushes
 *     on top of the other clone's record, nothing lost;
 *   - the remote's record rewritten back to an ancestor of the one last fetched (a plain
 *     fast-forward push would be taken there): the push is refused, the sync says the history was
 *     rewritten, and the remote's ref stays where it was put.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { tempProject } from '../../../support/tmp';
import { cli, cliOk as ok, git, syncTeam } from '../../../support/git-repo';
import { openWorkspace } from '../../../../src/core/engine/engine';

const RECORD = 'refs/heads/twining/record';

/** Makes every fetch of `clone` from origin run a wrapped upload-pack that counts itself; returns the count. */
function countFetches(top: string, clone: string): () => number {
  const log = path.join(top, 'upload-pack.log');
  const wrapper = path.join(top, 'counting-upload-pack');
  fs.writeFileSync(wrapper, `#!/bin/sh\necho fetch >> '${log}'\nexec git upload-pack "$@"\n`, { mode: 0o755 });
  git(clone, 'config', 'remote.origin.uploadpack', wrapper);
  return () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
}

const summaries = (root: string) =>
  fs
    .readFileSync(path.join(root, '.twining', 'blackboard.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => (JSON.parse(l) as { summary: string }).summary);

const post = (clone: string, summary: string) => ok(clone, 'post', '--entry-type', 'finding', '--summary', summary, '--scope', 'src/', '--agent-id', 'alice');
const syncJson = (clone: string) =>
  JSON.parse(ok(clone, 'sync', '--json')) as { pushed: boolean; fetched: boolean; commit: string; attempts: number; incoming: { entries: number } };

test(
  'a sync with something to push on an unchanged remote runs no fetch; a moved or rewound remote refuses that push and the sync fetches',
  { timeout: 180_000, skip: process.platform === 'win32' },
  async () => {
    const top = tempProject('sync-push-first');
    const { remote, a, b } = syncTeam(top, { path: 'src/app.ts', text: 'export {};\n' });
    ok(a, 'sync');
    ok(b, 'sync');
    ok(a, 'sync'); // a's last sync is the remote's record as a last fetched it
    const fetches = countFetches(top, a);
    assert.equal(fetches(), 0);
    ok(a, 'sync');
    assert.equal(fetches(), 1, 'the wrapped upload-pack counts a fetch from origin');

    // Written here, the remote unchanged: the CLI's quick sync pushes without fetching.
    post(a, 'a: first');
    const tip = git(remote, 'rev-parse', RECORD);
    let report = syncJson(a);
    assert.equal(report.pushed, true);
    assert.equal(report.fetched, false, 'the report says no fetch was needed');
    assert.equal(report.incoming.entries, 0);
    assert.equal(fetches(), 1, 'no fetch: the push went first and was accepted');
    assert.equal(git(remote, 'rev-parse', RECORD), report.commit);
    assert.equal(git(remote, 'rev-parse', `${report.commit}^`), tip, 'a fast-forward of the record last fetched');
    assert.match(ok(a, 'sync'), /in: {2}nothing\n/, 'nothing written here: a plain fetch, nothing pushed');
    assert.equal(fetches(), 2);
    post(a, 'a: second');
    assert.match(ok(a, 'sync'), /in: {2}nothing \(the remote was as last fetched: no fetch needed\)/);
    assert.equal(fetches(), 2);

    // The same from a warm engine (the extension's and `twining mcp`'s background sync).
    const engine = await openWorkspace(a, { warn: () => undefined });
    try {
      await engine.post({ entry_type: 'finding', summary: 'a: from the engine', scope: 'src/', agent_id: 'alice' });
      const r = await engine.sync();
      assert.deepEqual([r.pushed, r.fetched, r.attempts], [true, false, 1]);
      assert.equal(fetches(), 2, 'the engine pushed without fetching too');
      assert.equal(git(remote, 'rev-parse', RECORD), r.commit);
    } finally {
      engine.close();
    }

    // Another clone synced meanwhile: the push made on a's last fetch is refused, then a fetches and merges.
    ok(b, 'sync');
    post(b, 'b: meanwhile');
    ok(b, 'sync');
    const bTip = git(remote, 'rev-parse', RECORD);
    post(a, 'a: third');
    report = syncJson(a);
    assert.equal(report.pushed, true);
    assert.equal(report.fetched, true);
    assert.equal(report.attempts, 2, 'one push refused, then one fetch-merge-push');
    assert.equal(report.incoming.entries, 1);
    assert.equal(fetches(), 3);
    assert.equal(git(remote, 'rev-parse', `${RECORD}^`), bTip, "a's commit follows b's");
    assert.ok(summaries(a).includes('b: meanwhile'));
    ok(b, 'sync');
    assert.deepEqual(
      summaries(b)
        .filter(s => /^[ab]: /.test(s))
        .sort(),
      ['a: first', 'a: from the engine', 'a: second', 'a: third', 'b: meanwhile'],
    );

    // The remote's record rewritten back to an ancestor of the one a last fetched: a plain fast-forward
    // push of a's next commit would be accepted there; the lease refuses it, and the fetch then says why.
    const ancestor = git(remote, 'rev-parse', `${RECORD}~2`);
    git(remote, 'update-ref', RECORD, ancestor);
    post(a, 'a: after the rewind');
    const refused = cli(a, 'sync');
    assert.equal(refused.status, 3, refused.stderr);
    assert.match(refused.stderr, /history was rewritten/);
    assert.equal(git(remote, 'rev-parse', RECORD), ancestor, 'the rewound record was not moved');
    assert.equal(fetches(), 4, 'the refused push was followed by a fetch');
    assert.ok(summaries(a).includes('a: after the rewind'), 'nothing local lost');
  },
);
