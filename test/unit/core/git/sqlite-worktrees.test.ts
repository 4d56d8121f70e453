/**
 * Worktrees on a twining-mcp 2.x project (twining.db + records/): the database lives in the
 * primary worktree only (ignored by git, as a database is), and a process in a linked worktree
 * uses it and writes records/ there; the worktree gets no database or copy of its own. Runs
 * under Node 24 (node:sqlite): scripts/test.js runs sqlite-*.test.js files so.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { CLI_JS, FIXTURE } from '../../../support/tmp';
import { commitAll, git, newRepo } from '../../../support/git-repo';
import { hasSqlite, openMcpDb, twoXFrom1x } from '../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;

function cli(cwd: string, ...args: string[]) {
  const env = { ...process.env };
  delete env.TWINING_PROJECT;
  const r = spawnSync(process.execPath, [CLI_JS, ...args, '--json'], { cwd, encoding: 'utf8', env });
  assert.equal(r.status, 0, `${args.join(' ')} in ${cwd}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('worktrees on a twining-mcp 2.x (SQLite) project', { skip }, () => {
  test('a linked worktree reads and writes the primary\u2019s twining.db and records/; no database or copy of its own', () => {
    const primary = newRepo();
    twoXFrom1x(FIXTURE, path.join(primary, '.twining'));
    fs.writeFileSync(path.join(primary, '.gitignore'), '.twining/twining.db*\n');
    commitAll(primary, 'the 2.x record');
    const a = path.join(path.dirname(primary), 'agent-a');
    const b = path.join(path.dirname(primary), 'agent-b');
    git(primary, 'worktree', 'add', '-q', '-b', 'agent-a', a);
    git(primary, 'worktree', 'add', '-q', '-b', 'agent-b', b);
    const posted = cli(a, 'post', '--entry-type', 'warning', '--summary', 'From worktree A on 2.x', '--scope', 'src/auth/', '--agent-id', 'alice');
    cli(a, 'claim', '--agent-id', 'alice', '--paths', 'src/auth/jwt.ts', '--reason', 'v2 tokens');
    const db = openMcpDb(path.join(primary, '.twining'));
    try {
      const rows = db.prepare('SELECT data FROM blackboard').all() as { data: string }[];
      assert.ok(
        rows.some(r => JSON.parse(r.data).id === posted.id),
        'the post is a row of the primary\u2019s database',
      );
    } finally {
      db.close();
    }
    const inRecords = (root: string) => fs.readdirSync(path.join(root, '.twining', 'records'), { recursive: true }).some(f => String(f).includes(posted.id));
    assert.ok(inRecords(primary), 'its record file is in the primary\u2019s records/');
    assert.ok(!inRecords(a) && !inRecords(b), 'not in a worktree\u2019s records/');
    const seen = cli(b, 'read', '--entry-types', 'warning');
    assert.ok(
      seen.entries.some((e: { id: string }) => e.id === posted.id),
      'worktree B sees it',
    );
    const refused = spawnSync(process.execPath, [CLI_JS, 'claim', '--agent-id', 'bob', '--paths', 'src/auth/', '--reason', 'me too'], {
      cwd: b,
      encoding: 'utf8',
    });
    assert.equal(refused.status, 4, refused.stderr);
    assert.match(refused.stdout, /alice/);
    for (const wt of [a, b]) {
      assert.ok(!fs.existsSync(path.join(wt, '.twining', 'twining.db')), `no database in ${wt}`);
      assert.equal(git(wt, 'status', '--porcelain', '--untracked-files=all', '--', '.twining'), '', `${wt}'s .twining/ untouched`);
    }
    assert.equal(cli(b, 'status').record.path, path.join(fs.realpathSync(primary), '.twining'));
  });
});
