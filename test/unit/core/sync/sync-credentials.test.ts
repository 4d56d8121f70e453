/**
 * Missing credentials (issue 28 part 4): a remote that asks for a user name and password gets
 * none from a sync, and nobody is asked for one. The remote is a real HTTP server on the loopback
 * that answers every request with 401 and a Basic challenge, as a hosting service does for a
 * private repository without credentials. The askpass programs an editor or a desktop set up (the
 * GIT_ASKPASS and SSH_ASKPASS variables, the repository's `core.askPass`) are scripts that leave a
 * mark when run: a sync must run none of them, must ask nothing on its terminal, and must fail with an
 * error that names the remote and says what to do, with the record as it was.
 * Run `node esbuild.js --tests` first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { spawn } from 'child_process';
import { CLI_JS, tempProject, withEnv } from '../../../support/tmp';
import { cliOk as ok, git, syncTeam } from '../../../support/git-repo';
import { openWorkspace } from '../../../../src/core/engine/engine';

/** A loopback HTTP "remote" that challenges every request; it counts them. */
async function challengingRemote(): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}${req.headers.authorization ? ' (with credentials)' : ''}`);
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="team"', 'Content-Type': 'text/plain' });
    res.end('authentication required\n');
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/team/shop.git`, requests, close: () => new Promise(resolve => server.close(() => resolve())) };
}

/** An askpass program that leaves a mark and would answer "secret". */
function askpassScript(dir: string, marks: string): string {
  const script = path.join(dir, 'askpass.sh');
  fs.writeFileSync(script, `#!/bin/sh\necho "asked: $1" >> '${marks}'\necho secret\n`, { mode: 0o755 });
  return script;
}

/**
 * `twining ARGS` as a separate process in a terminal of its own (util-linux `script` gives it a
 * pseudo-terminal, as a developer's shell would), so that a prompt on the terminal could happen
 * and be seen; without blocking this process (the remote runs here). Its output is the terminal's:
 * standard output and error together.
 */
function cliInTerminal(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ status: number | null; output: string; ms: number }> {
  const started = Date.now();
  const command = [process.execPath, CLI_JS, ...args].map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    // Nobody types: a prompt would wait until this test's time limit, and fail it.
    const limit = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', status => {
      clearTimeout(limit);
      resolve({ status, output, ms: Date.now() - started });
    });
  });
}

/**
 * A clone that has synced before, whose `origin` now wants credentials it has none for (a token
 * expired, the repository went private), with one post pending and askpass set up everywhere.
 */
function projectAgainst(url: string): { repo: string; vars: Record<string, string>; env: NodeJS.ProcessEnv; marks: string } {
  const top = tempProject('sync-credentials');
  const { a: repo } = syncTeam(top, { path: 'src/auth/jwt.ts', text: 'export {};\n' });
  ok(repo, 'sync');
  git(repo, 'remote', 'set-url', 'origin', url);
  ok(repo, 'post', '--entry-type', 'warning', '--summary', 'token expiry is not checked', '--scope', 'src/auth/jwt.ts', '--agent-id', 'alice');
  const marks = path.join(top, 'askpass-marks.txt');
  const script = askpassScript(top, marks);
  git(repo, 'config', 'core.askPass', script);
  const vars = {
    GIT_ASKPASS: script,
    SSH_ASKPASS: script,
    SSH_ASKPASS_REQUIRE: 'force',
    // What VS Code's git extension sets in its terminals and tasks.
    VSCODE_GIT_ASKPASS_MAIN: script,
    VSCODE_GIT_ASKPASS_NODE: process.execPath,
    GIT_TERMINAL_PROMPT: '1',
  };
  return { repo, vars, env: { ...process.env, ...vars }, marks };
}

const board = (repo: string) => fs.readFileSync(path.join(repo, '.twining', 'blackboard.jsonl'), 'utf8');

test(
  'twining sync against a remote that wants credentials: nobody is asked, the error names the remote and the fix, nothing is lost',
  { timeout: 60_000 },
  async () => {
    const remote = await challengingRemote();
    try {
      const { repo, env, marks } = projectAgainst(remote.url);
      const before = board(repo);
      const r = await cliInTerminal(repo, env, 'sync');
      assert.notEqual(r.status, 0, 'the sync fails');
      assert.ok(remote.requests.length > 0, 'git reached the remote and was challenged');
      assert.ok(
        remote.requests.every(q => !q.includes('with credentials')),
        `no credentials were sent: ${remote.requests.join(', ')}`,
      );
      assert.equal(fs.existsSync(marks), false, `no askpass program ran: ${fs.existsSync(marks) ? fs.readFileSync(marks, 'utf8') : ''}`);
      assert.ok(r.ms < 30_000, `it ended by itself, without waiting for an answer (${r.ms} ms)`);
      assert.match(r.output, /origin/, 'the error names the remote');
      assert.match(r.output, /credentials? .*without asking|never prompts/, `the error says what is wrong and what to do: ${r.output}`);
      // git's own refusal reads "could not read Username for …: terminal prompts disabled"; a prompt is the question alone.
      assert.doesNotMatch(r.output.replace(/could not read (Username|Password) for/g, ''), /(Username|Password) for/, 'nothing was asked on the terminal');
      assert.equal(board(repo), before, 'the record is as it was');
      const status = JSON.parse(ok(repo, 'sync', '--status', '--json'));
      assert.ok(status.pending >= 1, 'the post waits for the next sync');
      assert.match(status.last_error ?? '', /origin/, 'the status keeps the error');
      assert.match(status.fix ?? '', /credential helper|ssh key/, 'the status bar’s fix says how to give git credentials');
    } finally {
      await remote.close();
    }
  },
);

test('the background sync of a long-lived engine asks nobody either, and reports the same error', { timeout: 60_000 }, async () => {
  const remote = await challengingRemote();
  try {
    const { repo, vars, marks } = projectAgainst(remote.url);
    // The engine runs git with this process's environment: make it look like VS Code's.
    await withEnv(vars, async () => {
      const engine = await openWorkspace(repo, { warn: () => undefined });
      const started = Date.now();
      const error = await engine.sync().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      assert.ok(error, 'the sync fails');
      assert.match(error.message, /origin/);
      assert.match(error.message, /without asking|never prompts/);
      assert.ok(Date.now() - started < 30_000);
      assert.equal(fs.existsSync(marks), false, 'no askpass program ran');
      assert.ok(remote.requests.length > 0 && remote.requests.every(q => !q.includes('with credentials')));
      engine.close();
    });
  } finally {
    await remote.close();
  }
});
