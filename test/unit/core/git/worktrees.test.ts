/**
 * Agents in git worktrees share one live record (core/git/record-location.ts): real repositories
 * with `git worktree add` (one worktree nested under the repository, one beside it), the CLI, the
 * MCP server and the hooks run as real processes in each.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn, spawnSync } from 'child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ISOLATION_MARKER, resolveRecord } from '../../../../src/core/git/record-location';
import { CLI_JS, FIXTURE, parseJsonl, tempProject } from '../../../support/tmp';
import { commitAll, conflicted, fixtureRepo, git, gitMay, newRepo } from '../../../support/git-repo';
import { claude } from '../../../support/hook-inputs';

interface Repo {
  primary: string;
  /** Nested under the repository, as Claude Code makes them (`.claude/worktrees/…`). */
  nested: string;
  /** Beside the repository, as `git worktree add ../agent-b` makes it. */
  beside: string;
}

/** The reference repository (`.twining/` committed on main) with two linked worktrees on their own branches. */
function repoWithWorktrees(): Repo {
  const primary = fixtureRepo();
  fs.writeFileSync(path.join(primary, '.gitignore'), '.claude/worktrees/\n');
  commitAll(primary, 'ignore worktrees');
  const nested = path.join(primary, '.claude', 'worktrees', 'agent-a');
  const beside = path.join(path.dirname(primary), 'agent-b');
  git(primary, 'worktree', 'add', '-q', '-b', 'agent-a', nested);
  git(primary, 'worktree', 'add', '-q', '-b', 'agent-b', beside);
  return { primary, nested, beside };
}

const real = (p: string) => fs.realpathSync(p);

function cli(cwd: string, ...args: string[]) {
  const env = { ...process.env };
  delete env.TWINING_PROJECT;
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { cwd, encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const json = (cwd: string, ...args: string[]) => {
  const r = cli(cwd, ...args, '--json');
  assert.equal(r.status, 0, `${args.join(' ')} in ${cwd}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

function hook(cwd: string, event: string, input: unknown, ...flags: string[]) {
  const r = spawnSync(process.execPath, [CLI_JS, 'hook', event, ...flags], { cwd, input: JSON.stringify(input), encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr, json: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
}

/** What `git status` says about `.twining/` in a work tree (empty: untouched). */
const twiningStatus = (worktree: string) => git(worktree, 'status', '--porcelain', '--untracked-files=all', '--', '.twining');

describe('the record a folder uses (resolveRecord)', () => {
  test('every worktree of a repository, and a subfolder of each, gives the primary worktree\u2019s .twining/ with its reason', () => {
    const { primary, nested, beside } = repoWithWorktrees();
    fs.mkdirSync(path.join(beside, 'src', 'deep'), { recursive: true });
    for (const start of [primary, path.join(primary, '.twining'), nested, beside, path.join(beside, 'src', 'deep')]) {
      const route = resolveRecord(start);
      assert.equal(route.dir, path.join(real(primary), '.twining'), start);
      assert.equal(route.mode, 'shared');
    }
    const b = resolveRecord(path.join(beside, 'src', 'deep'));
    assert.equal(b.linked, true);
    assert.equal(b.worktree, real(beside));
    assert.equal(b.branch, 'agent-b');
    assert.equal(b.worktreeName, 'agent-b');
    assert.equal(b.checkedOutCopy, path.join(real(beside), '.twining'));
    assert.equal(b.reason, `the shared record of ${real(primary)}, used from worktree agent-b on branch agent-b`);
    const p = resolveRecord(primary);
    assert.equal(p.linked, false);
    assert.equal(p.branch, 'main');
    assert.match(p.reason, /main worktree on branch main/);
  });

  test('isolation: a worktree whose git directory holds twining-isolated keeps its own record, and says so', () => {
    const { beside } = repoWithWorktrees();
    const gitDir = git(beside, 'rev-parse', '--absolute-git-dir');
    fs.writeFileSync(path.join(gitDir, ISOLATION_MARKER), '');
    const route = resolveRecord(beside);
    assert.equal(route.mode, 'isolated');
    assert.equal(route.dir, path.join(real(beside), '.twining'));
    assert.match(route.reason, /own record of worktree agent-b on branch agent-b, isolated by .*twining-isolated/);
  });

  test('TWINING_PROJECT names the record as it is', () => {
    const { beside, primary } = repoWithWorktrees();
    const route = resolveRecord(primary, { project: beside });
    assert.equal(route.mode, 'override');
    assert.equal(route.dir, path.join(beside, '.twining'));
    assert.match(route.reason, /named by TWINING_PROJECT/);
  });

  test('a primary without .twining/: the record is still the primary\u2019s, and the note says it will be made there', () => {
    const repo = newRepo();
    fs.writeFileSync(path.join(repo, 'README'), 'x');
    commitAll(repo, 'first');
    const wt = path.join(path.dirname(repo), 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'wt', wt);
    const route = resolveRecord(wt);
    assert.equal(route.dir, path.join(real(repo), '.twining'));
    assert.match(route.note ?? '', /main worktree has no \.twining\/ yet .*the first write \(or twining init\) makes it there/);
  });

  test('a bare repository with linked worktrees only: the record lives inside the repository', () => {
    const source = fixtureRepo();
    const bare = path.join(path.dirname(source), 'shop.git');
    git(path.dirname(source), 'clone', '-q', '--bare', source, bare);
    const wt = path.join(path.dirname(source), 'feature');
    git(bare, 'worktree', 'add', '-q', '-b', 'feature', wt);
    const route = resolveRecord(wt);
    assert.equal(route.projectRoot, real(bare));
    assert.equal(route.dir, path.join(real(bare), '.twining'));
    assert.match(route.reason, /bare repository .* has no main worktree, so the record lives inside it\), used from worktree feature on branch feature/);
    // And it works: a write lands there, the worktree's checkout untouched.
    assert.equal(cli(wt, 'post', '--entry-type', 'warning', '--summary', 'bare and shared', '--agent-id', 'a').status, 0);
    assert.ok(parseJsonl(path.join(bare, '.twining', 'blackboard.jsonl')).some(e => e.summary === 'bare and shared'));
    assert.equal(twiningStatus(wt), '');
    // git-setup from the worktree or the bare repository: the driver goes where every worktree reads it.
    const setup = cli(wt, 'git-setup');
    assert.equal(setup.status, 0, setup.stderr);
    assert.match(setup.stdout, /bare repository: its own record .* is outside every branch/);
    assert.match(fs.readFileSync(path.join(bare, 'info', 'attributes'), 'utf8'), /^\.twining\/blackboard\.jsonl merge=twining$/m);
    assert.match(git(bare, 'config', '--get', 'merge.twining.driver'), / merge %O %A %B/);
    assert.match(cli(bare, 'git-setup').stdout, /Already set up: nothing changed/);
    assert.equal(git(wt, 'check-attr', 'merge', '--', '.twining/decisions/x.json').trim(), '.twining/decisions/x.json: merge: twining');
  });

  test('a moved or removed primary: a clear error naming the .git file and what to run; nothing written', () => {
    const { primary, beside } = repoWithWorktrees();
    const moved = primary + '-moved';
    fs.renameSync(primary, moved);
    assert.throws(
      () => resolveRecord(beside),
      (e: Error) => {
        assert.match(e.message, /\.git points to .* which does not exist: the repository this worktree belongs to was moved or removed/);
        assert.match(e.message, /git worktree repair/);
        return true;
      },
    );
    const r = cli(beside, 'post', '--entry-type', 'warning', '--summary', 'lost?', '--agent-id', 'a');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /moved or removed/);
    assert.ok(!fs.readFileSync(path.join(beside, '.twining', 'blackboard.jsonl'), 'utf8').includes('lost?'), 'the checked-out copy is not written');
    // A hook never stands in the agent's way: it says why and exits 1 (non-blocking).
    const h = hook(beside, 'PreToolUse', claude(beside, 's1', 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(beside, 'a.ts') } }));
    assert.equal(h.status, 1);
    assert.match(h.stderr, /moved or removed/);
  });

  test('submodules and nested repositories keep their own record; a .git that is not a file or folder is refused by name', () => {
    const sub = newRepo();
    fs.writeFileSync(path.join(sub, 'lib.ts'), 'x');
    commitAll(sub, 'lib');
    const superRepo = fixtureRepo();
    git(superRepo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/lib');
    const subRoute = resolveRecord(path.join(superRepo, 'vendor', 'lib'));
    assert.equal(subRoute.dir, path.join(real(superRepo), 'vendor', 'lib', '.twining'));
    assert.equal(subRoute.linked, false);
    const nested = path.join(superRepo, 'tools', 'inner');
    fs.mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    assert.equal(resolveRecord(nested).dir, path.join(real(nested), '.twining'));
    // A folder with a .twining/ of its own below a work tree's root is a project of its own.
    const project = path.join(superRepo, 'examples', 'demo');
    fs.mkdirSync(path.join(project, '.twining'), { recursive: true });
    assert.equal(resolveRecord(path.join(project)).dir, path.join(real(project), '.twining'));
    assert.equal(resolveRecord(path.join(superRepo, 'examples')).dir, path.join(real(superRepo), '.twining'));
    const odd = tempProject('odd');
    spawnSync('mkfifo', [path.join(odd, '.git')]);
    assert.throws(() => resolveRecord(odd), /\.git is neither a folder nor a file/);
  });
});

describe('agents in worktrees share one live record', () => {
  test('claims, warnings and decisions made in one worktree are seen in the others; an overlapping claim is refused naming the holder; .twining/ in the worktrees stays untouched', () => {
    const { primary, nested, beside } = repoWithWorktrees();
    assert.equal(json(nested, 'register', '--agent-id', 'alice', '--capabilities', 'ts').agent_id, 'alice');
    json(nested, 'claim', '--agent-id', 'alice', '--paths', 'src/auth/jwt.ts', '--reason', 'token format');
    const warning = json(nested, 'post', '--entry-type', 'warning', '--summary', 'Tokens move to the v2 format', '--scope', 'src/auth/', '--agent-id', 'alice');
    const decision = json(
      beside,
      'decide',
      '--domain',
      'auth',
      '--scope',
      'src/auth/',
      '--summary',
      'Use EdDSA',
      '--context',
      'c',
      '--rationale',
      'r',
      '--agent-id',
      'bob',
    );
    for (const where of [primary, nested, beside, path.join(beside, '.twining')]) {
      const claims = json(where, 'claims');
      assert.ok(JSON.stringify(claims).includes('src/auth/jwt.ts'), `${where}: ${JSON.stringify(claims)}`);
      assert.ok(
        json(where, 'read', '--entry-types', 'warning').entries.some((e: { id: string }) => e.id === warning.id),
        where,
      );
      assert.ok(
        json(where, 'decisions').decisions.some((d: { id: string }) => d.id === decision.id),
        where,
      );
    }
    json(beside, 'register', '--agent-id', 'bob', '--capabilities', 'ts');
    const refused = cli(beside, 'claim', '--agent-id', 'bob', '--paths', 'src/auth/', '--reason', 'me too');
    assert.equal(refused.status, 4, refused.stderr);
    assert.match(refused.stdout, /alice/);
    // A handoff created in a worktree records its branch; one made in the primary does not.
    const handoff = json(beside, 'handoff', '--source-agent', 'bob', '--summary', 'Over to you', '--scope', 'src/auth/', '--input', '{"results": []}');
    const handoffRecord = JSON.parse(fs.readFileSync(path.join(primary, '.twining', 'handoffs', `${handoff.id}.json`), 'utf8'));
    assert.deepEqual(handoffRecord.provenance, { recorded_at: handoffRecord.created_at, branch: 'agent-b' });
    const fromMain = json(primary, 'handoff', '--source-agent', 'carol', '--summary', 'From main', '--input', '{"results": []}');
    assert.equal(JSON.parse(fs.readFileSync(path.join(primary, '.twining', 'handoffs', `${fromMain.id}.json`), 'utf8')).provenance, undefined);
    const status = json(beside, 'status');
    assert.equal(status.record.path, path.join(real(primary), '.twining'));
    assert.equal(status.record.mode, 'shared');
    assert.equal(status.record.worktree, real(beside));
    assert.equal(status.record.branch, 'agent-b');
    assert.match(cli(beside, 'status').stdout, /Record: the shared record of .*, used from worktree agent-b on branch agent-b/);
    assert.equal(twiningStatus(nested), '');
    assert.equal(twiningStatus(beside), '');
    // The primary's record changed; an agent's branch merged into main brings no .twining/ conflict.
    fs.writeFileSync(path.join(beside, 'feature.ts'), 'export const x = 1;\n');
    commitAll(beside, 'feature');
    commitAll(primary, 'the record');
    const merged = gitMay(primary, 'merge', '--no-edit', 'agent-b');
    assert.equal(merged.status, 0, merged.stdout + merged.stderr);
    assert.deepEqual(conflicted(primary), []);
    assert.ok(
      parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).some(e => e.id === warning.id),
      'nothing lost',
    );
  });

  test('the PreToolUse hook in a worktree refuses an edit of a file claimed from another worktree, naming the holder', () => {
    const { primary, nested, beside } = repoWithWorktrees();
    json(nested, 'register', '--agent-id', 'alice', '--capabilities', 'ts');
    json(nested, 'claim', '--agent-id', 'alice', '--paths', 'src/auth/jwt.ts', '--reason', 'token format');
    json(nested, 'post', '--entry-type', 'warning', '--summary', 'Tokens move to the v2 format', '--scope', 'src/auth/jwt.ts', '--agent-id', 'alice');
    const edit = (agent: string) =>
      hook(
        beside,
        'PreToolUse',
        claude(beside, `s-${agent}`, 'PreToolUse', {
          tool_name: 'Edit',
          tool_input: { file_path: path.join(beside, 'src/auth/jwt.ts'), old_string: 'a', new_string: 'b', replace_all: false },
          tool_use_id: 'toolu_1',
        }),
        '--agent',
        agent,
        '--on-claim',
        'deny',
      );
    const bob = edit('bob');
    assert.equal(bob.status, 0, bob.stderr);
    assert.equal(bob.json.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(bob.json.hookSpecificOutput.permissionDecisionReason, /src\/auth\/jwt\.ts is claimed by alice/);
    json(nested, 'release', '--agent-id', 'alice');
    const after = edit('bob');
    assert.match(after.json.hookSpecificOutput.additionalContext, /Tokens move to the v2 format/);
    // The session's state is in the shared record, with its worktree and branch, and the file as the record names it.
    const post = hook(
      beside,
      'PostToolUse',
      claude(beside, 's-bob', 'PostToolUse', {
        tool_name: 'Edit',
        tool_input: { file_path: path.join(beside, 'src/auth/jwt.ts'), old_string: 'a', new_string: 'b', replace_all: false },
        tool_response: { filePath: path.join(beside, 'src/auth/jwt.ts'), success: true },
        tool_use_id: 'toolu_1',
      }),
      '--agent',
      'bob',
    );
    assert.equal(post.status, 0, post.stderr);
    const sessions = fs.readdirSync(path.join(primary, '.twining', 'sessions')).filter(n => n.startsWith('session-'));
    assert.equal(sessions.length, 1, sessions.join());
    const state = JSON.parse(fs.readFileSync(path.join(primary, '.twining', 'sessions', sessions[0]), 'utf8'));
    assert.equal(state.worktree, real(beside));
    assert.equal(state.branch, 'agent-b');
    assert.deepEqual(state.files_touched, ['src/auth/jwt.ts']);
    assert.equal(twiningStatus(beside), '');
  });

  test('the MCP server run in a worktree says which record it uses, and sees what the other worktree wrote', async () => {
    const { primary, nested, beside } = repoWithWorktrees();
    json(nested, 'post', '--entry-type', 'warning', '--summary', 'From worktree A', '--agent-id', 'alice');
    const env = { ...process.env } as Record<string, string>;
    delete env.TWINING_PROJECT;
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp'], cwd: beside, env, stderr: 'pipe' });
    const client = new Client({ name: 'worktree-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.match(
        client.getInstructions() ?? '',
        new RegExp(`Record in use: the shared record of ${real(primary).replace(/[/\\]/g, '.')}, used from worktree agent-b on branch agent-b`),
      );
      const read = (await client.callTool({ name: 'twining_read', arguments: { entry_types: ['warning'] } })) as { content: { text: string }[] };
      assert.match(read.content[0].text, /From worktree A/);
      await client.callTool({ name: 'twining_post', arguments: { entry_type: 'finding', summary: 'From worktree B over MCP', agent_id: 'bob' } });
    } finally {
      await client.close();
    }
    assert.ok(json(nested, 'read').entries.some((e: { summary: string }) => e.summary === 'From worktree B over MCP'));
    assert.equal(twiningStatus(beside), '');
  });

  test('three worktrees posting at once (three processes) lose nothing', async () => {
    const { primary, nested, beside } = repoWithWorktrees();
    const third = path.join(path.dirname(primary), 'agent-c');
    git(primary, 'worktree', 'add', '-q', '-b', 'agent-c', third);
    const each = 15;
    const script = `
      const { spawnSync } = require('child_process');
      for (let i = 0; i < ${each}; i++) {
        const r = spawnSync(process.execPath, [${JSON.stringify(CLI_JS)}, 'post', '--entry-type', 'finding', '--summary', process.argv[1] + ' ' + i, '--agent-id', process.argv[1]], { encoding: 'utf8' });
        if (r.status !== 0) { process.stderr.write(r.stderr); process.exit(1); }
      }`;
    const runs = [nested, beside, third].map(
      (cwd, n) =>
        new Promise<number | null>(resolve => {
          const child = spawn(process.execPath, ['-e', script, `writer${n}`], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
          child.on('exit', code => resolve(code));
        }),
    );
    assert.deepEqual(await Promise.all(runs), [0, 0, 0]);
    const summaries = new Set(parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).map(e => e.summary as string));
    for (let n = 0; n < 3; n++) for (let i = 0; i < each; i++) assert.ok(summaries.has(`writer${n} ${i}`), `writer${n} ${i}`);
    for (const wt of [nested, beside, third]) assert.equal(twiningStatus(wt), '');
  });

  test("records something else wrote into a worktree's own copy are folded into the shared record once, and said", () => {
    const { primary, beside } = repoWithWorktrees();
    // twining-mcp run inside the worktree appends to the copy it sees.
    const line = {
      id: '01MZZZZZZZZZZZZZZZZZZZZZZ1',
      timestamp: '2026-11-22T02:40:00.000Z',
      agent_id: 'old-tool',
      entry_type: 'warning',
      summary: 'Written into the worktree copy',
      detail: '',
      tags: [],
      scope: 'src/',
    };
    fs.appendFileSync(path.join(beside, '.twining', 'blackboard.jsonl'), JSON.stringify(line) + '\n');
    const first = json(beside, 'status');
    assert.match(first.record.checked_out_copy_changes, /blackboard\.jsonl were folded into the shared record/);
    assert.ok(first.warnings.some((w: string) => /folded into the shared record/.test(w)));
    const count = () => parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).filter(e => e.id === line.id).length;
    assert.equal(count(), 1, 'folded once');
    const fixtureIds = parseJsonl(path.join(beside, '.twining', 'blackboard.jsonl')).map(e => e.id as string);
    const shared = new Set(parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).map(e => e.id as string));
    assert.deepEqual(
      fixtureIds.filter(id => !shared.has(id)),
      [],
      'nothing of the copy lost',
    );
    assert.equal(new Set(parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).map(e => e.id)).size, shared.size, 'nothing doubled');
    // Again: nothing more, nothing said; dismissed from the shared record, it is not brought back by the same copy.
    assert.equal(json(beside, 'status').record.checked_out_copy_changes, undefined);
    json(primary, 'dismiss', '--ids', line.id, '--reason', 'handled', '--agent-id', 'me');
    json(beside, 'status');
    assert.equal(count(), 0, 'not brought back');
    // A later write into the copy is folded, and the text says so.
    fs.appendFileSync(
      path.join(beside, '.twining', 'blackboard.jsonl'),
      JSON.stringify({ ...line, id: '01MZZZZZZZZZZZZZZZZZZZZZZ2', summary: 'A second one' }) + '\n',
    );
    assert.match(cli(beside, 'status').stdout, /Worktree copy: .*blackboard\.jsonl were folded into the shared record/);
    assert.ok(parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).some(e => e.summary === 'A second one'));
    assert.equal(count(), 0, 'the dismissed one still not brought back');
  });
});

describe('absolute paths given in a linked worktree', () => {
  test('a claim, a claims filter, a post scope and a release given as absolute paths of the worktree mean the same files as from the primary', () => {
    const { primary, beside } = repoWithWorktrees();
    const jwt = path.join(beside, 'src', 'auth', 'jwt.ts');
    json(beside, 'claim', '--agent-id', 'bob', '--paths', jwt, '--reason', 'token format');
    const refused = cli(primary, 'claim', '--agent-id', 'alice', '--paths', 'src/auth/jwt.ts', '--reason', 'me too');
    assert.equal(refused.status, 4, refused.stderr);
    assert.match(refused.stdout, /bob/);
    const listed = json(beside, 'claims', '--path', jwt).claims;
    assert.deepEqual(
      listed.map((c: { target: string }) => c.target),
      ['src/auth/jwt.ts'],
    );
    json(beside, 'post', '--entry-type', 'warning', '--summary', 'Absolute scope from a worktree', '--scope', jwt, '--agent-id', 'bob');
    const read = json(primary, 'read', '--scope', 'src/auth/').entries;
    const posted = read.find((e: { summary: string }) => e.summary === 'Absolute scope from a worktree');
    assert.equal(posted?.scope, 'src/auth/jwt.ts');
    // A path outside both the worktree and the project is still refused by name.
    const outside = cli(beside, 'claim', '--agent-id', 'bob', '--paths', path.join(path.dirname(primary), 'elsewhere.ts'), '--reason', 'x');
    assert.notEqual(outside.status, 0);
    assert.match(outside.stderr + outside.stdout, /is outside the project/);
    // A decision's affected files given as absolute paths of the worktree: `why` from the primary finds it.
    json(
      beside,
      'decide',
      '--agent-id',
      'bob',
      '--domain',
      'auth',
      '--scope',
      path.join(beside, 'src', 'auth') + '/',
      '--summary',
      'Tokens carry a kid header',
      '--rationale',
      'key rotation',
      '--context',
      'rotation',
      '--affected-files',
      jwt,
    );
    const why = json(primary, 'why', 'src/auth/jwt.ts');
    assert.ok(JSON.stringify(why).includes('Tokens carry a kid header'), JSON.stringify(why).slice(0, 400));
    const decisionsDir = path.join(primary, '.twining', 'decisions');
    const stored = fs
      .readdirSync(decisionsDir)
      .map(f => JSON.parse(fs.readFileSync(path.join(decisionsDir, f), 'utf8')) as { summary: string; scope: string; affected_files: string[] });
    const kid = stored.find(d => d.summary === 'Tokens carry a kid header');
    assert.deepEqual([kid?.scope, kid?.affected_files], ['src/auth/', ['src/auth/jwt.ts']]);
    json(beside, 'release', '--agent-id', 'bob', '--paths', jwt);
    assert.equal(cli(primary, 'claim', '--agent-id', 'alice', '--paths', 'src/auth/jwt.ts', '--reason', 'now free').status, 0);
    assert.equal(twiningStatus(beside), '');
  });
});

describe('a linked worktree on another file system', () => {
  /** Runs the CLI as a process, started at once with the others of its batch. */
  const spawnCli = (cwd: string, args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>(resolve => {
      const env = { ...process.env };
      delete env.TWINING_PROJECT;
      const child = spawn(process.execPath, [CLI_JS, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      child.on('exit', status => resolve({ status, stdout, stderr }));
    });

  test('a worktree on a tmpfs (/dev/shm) and the primary, writing at once, lose nothing and refuse overlapping claims; the locks are the primary\u2019s', async t => {
    const shm = '/dev/shm';
    if (!fs.statSync(shm, { throwIfNoEntry: false })?.isDirectory()) return t.skip('no /dev/shm on this system');
    const primary = fixtureRepo();
    const away = fs.mkdtempSync(path.join(shm, 'twining-worktree-'));
    const remote = path.join(away, 'agent-shm');
    t.after(() => {
      gitMay(primary, 'worktree', 'remove', '--force', remote);
      fs.rmSync(away, { recursive: true, force: true });
    });
    assert.notEqual(fs.statSync(away).dev, fs.statSync(primary).dev, 'another file system');
    git(primary, 'worktree', 'add', '-q', '-b', 'agent-shm', remote);
    assert.equal(resolveRecord(remote).dir, path.join(real(primary), '.twining'));

    // Posts from both at once, two processes each.
    const each = 5;
    const writers = [primary, remote, primary, remote].map(async (cwd, n) => {
      for (let i = 0; i < each; i++) {
        const r = await spawnCli(cwd, ['post', '--entry-type', 'finding', '--summary', `w${n} ${i}`, '--agent-id', `w${n}`, '--json']);
        assert.equal(r.status, 0, r.stderr);
      }
    });
    await Promise.all(writers);
    const summaries = parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).map(e => e.summary as string);
    for (let n = 0; n < 4; n++) for (let i = 0; i < each; i++) assert.equal(summaries.filter(s => s === `w${n} ${i}`).length, 1, `w${n} ${i}`);

    // The same file claimed from both worktrees at the same moment: one holds it, the other is refused naming the holder.
    for (let round = 0; round < 3; round++) {
      const file = `src/race${round}.ts`;
      const [fromPrimary, fromRemote] = await Promise.all([
        spawnCli(primary, ['claim', '--agent-id', `main-${round}`, '--paths', file, '--reason', 'race']),
        spawnCli(remote, ['claim', '--agent-id', `shm-${round}`, '--paths', file, '--reason', 'race']),
      ]);
      const won = [fromPrimary, fromRemote].filter(r => r.status === 0);
      const lost = [fromPrimary, fromRemote].filter(r => r.status !== 0);
      assert.equal(won.length, 1, `round ${round}: ${fromPrimary.stderr} ${fromRemote.stderr}`);
      assert.equal(lost[0].status, 4, lost[0].stderr);
      assert.match(lost[0].stdout, fromPrimary.status === 0 ? new RegExp(`main-${round}`) : new RegExp(`shm-${round}`));
    }
    const claims = json(remote, 'claims');
    for (let round = 0; round < 3; round++) assert.ok(JSON.stringify(claims).includes(`src/race${round}.ts`), `round ${round} seen from the tmpfs worktree`);
    assert.equal(twiningStatus(remote), '', "the tmpfs worktree's own .twining/ is not written");
  });
});

describe("a worktree's own copy is folded when an MCP server starts there", () => {
  /** Starts `twining mcp` in `cwd` as a real process; returns its instructions, what it wrote on stderr, and what twining_read gives. */
  async function startServer(cwd: string) {
    const env = { ...process.env } as Record<string, string>;
    delete env.TWINING_PROJECT;
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp'], cwd, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const client = new Client({ name: 'fold-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const read = (await client.callTool({ name: 'twining_read', arguments: { entry_types: ['warning'] } })) as { content: { text: string }[] };
      return { instructions: client.getInstructions() ?? '', read: read.content[0].text, stderr: () => stderr };
    } finally {
      await client.close();
    }
  }

  test('the first server folds the copy and says so (stderr and instructions); the next folds nothing and says nothing', async () => {
    const { primary, beside } = repoWithWorktrees();
    const line = {
      id: '01MZZZZZZZZZZZZZZZZZZZZZM1',
      timestamp: '2026-11-22T02:40:00.000Z',
      agent_id: 'old-tool',
      entry_type: 'warning',
      summary: 'Written into the worktree copy before the server started',
      detail: '',
      tags: [],
      scope: 'src/',
    };
    fs.appendFileSync(path.join(beside, '.twining', 'blackboard.jsonl'), JSON.stringify(line) + '\n');
    const first = await startServer(beside);
    assert.match(first.read, /before the server started/, 'the first call already sees the folded record');
    assert.match(first.stderr(), /twining: warning: .*blackboard\.jsonl were folded into the shared record/);
    assert.match(first.instructions, /were folded into the shared record/);
    const count = () => parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).filter(e => e.id === line.id).length;
    assert.equal(count(), 1);
    const second = await startServer(beside);
    assert.equal(count(), 1, 'not doubled');
    assert.doesNotMatch(second.stderr(), /folded/);
    assert.doesNotMatch(second.instructions, /folded/);
  });
});

describe('git merging set up from a linked worktree covers every worktree', () => {
  test('git-setup run in a linked worktree configures the common directory; a merge of two branches that both changed .twining/, done in another worktree, uses the driver', () => {
    // The record committed on main without any set-up; three linked worktrees on their own branches.
    const primary = newRepo();
    fs.cpSync(FIXTURE, path.join(primary, '.twining'), { recursive: true });
    commitAll(primary, 'base without git-setup');
    const [a, b, merger] = ['agent-a', 'agent-b', 'integration'].map(name => {
      const wt = path.join(path.dirname(primary), `${path.basename(primary)}-${name}`);
      git(primary, 'worktree', 'add', '-q', '-b', name, wt);
      return wt;
    });
    const setup = cli(a, 'git-setup', '--json');
    assert.equal(setup.status, 0, setup.stderr);
    const result = JSON.parse(setup.stdout);
    const common = path.join(real(primary), '.git');
    assert.equal(result.sharedAttributesFile, path.join(common, 'info', 'attributes'));
    assert.equal(result.attributesFile, path.join(real(primary), '.twining', '.gitattributes'), 'the shared record, not the worktree copy');
    assert.equal(twiningStatus(a), '', "the worktree's own .twining/ is not written");
    assert.match(git(merger, 'config', '--get', 'merge.twining.driver'), /merge %O %A %B/, 'every worktree sees the driver');
    assert.equal(git(merger, 'check-attr', 'merge', '--', '.twining/blackboard.jsonl'), '.twining/blackboard.jsonl: merge: twining');
    assert.match(cli(b, 'git-setup').stdout, /Already set up: nothing changed/, 'idempotent from another worktree');

    // Each agent's branch appends its own entry to the checked-out blackboard, as another tool would.
    const entry = (id: string, summary: string) =>
      JSON.stringify({ id, timestamp: '2026-11-23T10:00:00.000Z', agent_id: 'x', entry_type: 'finding', summary, detail: '', tags: [], scope: 'src/' }) + '\n';
    fs.appendFileSync(path.join(a, '.twining', 'blackboard.jsonl'), entry('01MAAAAAAAAAAAAAAAAAAAAAA1', 'from agent-a'));
    commitAll(a, 'agent-a finding');
    fs.appendFileSync(path.join(b, '.twining', 'blackboard.jsonl'), entry('01MBBBBBBBBBBBBBBBBBBBBBB1', 'from agent-b'));
    commitAll(b, 'agent-b finding');
    for (const branch of ['agent-a', 'agent-b']) {
      const m = gitMay(merger, 'merge', '--no-edit', '-q', branch);
      assert.equal(m.status, 0, `merge ${branch}: ${m.stdout}${m.stderr}`);
    }
    assert.deepEqual(conflicted(merger), []);
    const text = fs.readFileSync(path.join(merger, '.twining', 'blackboard.jsonl'), 'utf8');
    assert.doesNotMatch(text, /^(<{7}|={7}|>{7})/m, 'no conflict markers');
    const summaries = parseJsonl(path.join(merger, '.twining', 'blackboard.jsonl')).map(e => e.summary);
    assert.ok(summaries.includes('from agent-a') && summaries.includes('from agent-b'), 'both sides kept');
    const base = parseJsonl(path.join(primary, '.twining', 'blackboard.jsonl')).length;
    assert.equal(summaries.length, base + 2, 'nothing lost, nothing doubled');
  });
});
