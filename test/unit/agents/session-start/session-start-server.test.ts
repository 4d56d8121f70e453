/**
 * A running engine answering SessionStart hooks over the local socket
 * (src/agents/session-start/session-start-server.ts, src/agents/session-start/local-socket.ts), run as a host runs the hook:
 * after a write (the briefing cache cannot answer) a copy of dist/hook.js without dist/core.js
 * beside it still answers, with what was written, because the engine running in this process
 * answered; the agent is registered and the briefing recorded by that engine. Nobody serving,
 * a stale socket, a server that never answers, a bad request, another project's request and an
 * unsafe socket folder each leave the hook to do the work itself, or refuse, without blocking the agent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { spawn } from 'child_process';
import { SessionStartServer, openWorkspace } from '../../../../src/library';
import { localSocketPath, projectIdentity } from '../../../../src/agents/session-start/local-socket';
import { claude } from '../../../support/hook-inputs';
import { hookAlone } from '../../../support/dist';
import { CLI_JS, fixtureProject, tempProject } from '../../../support/tmp';

const HOOK_JS = path.join(path.dirname(CLI_JS), 'hook.js');

/** Each test's own socket folder (the hook process gets the same through its environment). */
function runtimeDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-runtime-'));
  fs.chmodSync(dir, 0o700);
  process.env.XDG_RUNTIME_DIR = dir;
  return dir;
}

/** Runs the hook as a host does, without blocking this process (its server must answer meanwhile). */
function start(
  hookJs: string,
  root: string,
  session: string,
  agent = 'socket-agent',
  scope = 'src/auth/',
): Promise<{ status: number | null; stderr: string; context?: string; ms: number }> {
  const input = claude(root, session, 'SessionStart', { source: 'startup' });
  const env = { ...process.env };
  delete env.TWINING_NOW;
  const began = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [hookJs, 'SessionStart', '--agent', agent, '--scope', scope], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += d));
    child.stderr.on('data', d => (stderr += d));
    child.on('error', reject);
    child.on('close', status =>
      resolve({
        status,
        stderr,
        ms: Date.now() - began,
        context: stdout.trim() ? (JSON.parse(stdout).hookSpecificOutput.additionalContext as string) : undefined,
      }),
    );
    child.stdin.end(JSON.stringify(input));
  });
}

async function serving(server: SessionStartServer): Promise<void> {
  for (let i = 0; i < 200 && !server.serving; i++) await new Promise(r => setTimeout(r, 10));
  assert.ok(server.serving, 'the server listens');
}

/** A server for `root` answering with `engine`, listening; `asked` counts the requests that reached the engine. */
async function servingWith(root: string, engine: Awaited<ReturnType<typeof openWorkspace>>): Promise<{ server: SessionStartServer; asked: () => number }> {
  let asked = 0;
  const server = new SessionStartServer(
    root,
    work => (asked++, work(engine)),
    () => undefined,
  );
  await serving(server);
  return { server, asked: () => asked };
}

test('after a write, a running engine answers the hook: the new warning, the agent registered, the briefing recorded', async () => {
  runtimeDir();
  const root = fixtureProject();
  const engine = await openWorkspace(root);
  const { server, asked } = await servingWith(root, engine);
  try {
    await engine.post({ entry_type: 'warning', summary: 'Refresh tokens are stored in plain text', scope: 'src/auth/store.ts', agent_id: 'reviewer' });
    const answer = await start(hookAlone(), root, 's1');
    assert.equal(answer.status, 0, answer.stderr);
    assert.ok(asked() >= 1, 'the running engine was asked');
    assert.match(answer.context!, /Refresh tokens are stored in plain text/);
    assert.match(answer.context!, /verifyToken does not check the exp claim/);
    // Registered by the running engine right after it answered.
    let agents: string[] = [];
    for (let i = 0; i < 100 && !agents.includes('socket-agent'); i++, await new Promise(r => setTimeout(r, 20)))
      agents = (await engine.agents({})).agents.map(a => a.agent_id);
    assert.ok(agents.includes('socket-agent'), `registered by the running engine: ${agents.join(', ')}`);
    const mark = JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/assembly-socket-agent.json'), 'utf8'));
    assert.equal(mark.scope, 'src/auth/');
    const session = JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/session-s1.json'), 'utf8'));
    assert.equal(session.agent_id, 'socket-agent');
    // Kept after the answer: the next start on the unchanged folder is answered from the cache, with the server gone.
    for (let i = 0; i < 100 && !fs.readdirSync(path.join(root, '.twining/sessions')).some(f => f.startsWith('briefing-socket-agent')); i++)
      await new Promise(r => setTimeout(r, 20));
    server.close();
    const cached = await start(hookAlone(), root, 's2');
    assert.equal(cached.status, 0, cached.stderr);
    assert.match(cached.context!, /Refresh tokens are stored in plain text/);
  } finally {
    server.close();
  }
});

test('nobody serving, or a socket left by a process that died: the hook loads the engine itself; a new server takes the stale socket over', async () => {
  runtimeDir();
  const root = fixtureProject();
  const where = localSocketPath(root)!;
  const answer = await start(HOOK_JS, root, 'n1');
  assert.equal(answer.status, 0, answer.stderr);
  assert.match(answer.context!, /verifyToken does not check the exp claim/);

  // A process serving the socket, killed: its socket file stays, and nobody accepts on it.
  const holder = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(where)}, () => console.log('ready'))`]);
  await new Promise<void>(r => holder.stdout.once('data', () => r()));
  holder.kill('SIGKILL');
  await new Promise(r => holder.once('close', r));
  assert.ok(fs.existsSync(where), 'a stale socket file is there');
  const withStale = await start(HOOK_JS, root, 'n2', 'second-agent');
  assert.equal(withStale.status, 0, withStale.stderr);
  assert.match(withStale.context!, /verifyToken does not check the exp claim/);

  const engine = await openWorkspace(root);
  const server = new SessionStartServer(
    root,
    work => work(engine),
    () => undefined,
  );
  try {
    await serving(server);
  } finally {
    server.close();
  }
});

test('a server that accepts and never answers: the hook gives up on it and answers itself', async () => {
  runtimeDir();
  const root = fixtureProject();
  const silent = net.createServer(() => undefined);
  await new Promise<void>(r => silent.listen(localSocketPath(root)!, r));
  try {
    const answer = await start(HOOK_JS, root, 'q1');
    assert.equal(answer.status, 0, answer.stderr);
    assert.match(answer.context!, /verifyToken does not check the exp claim/);
  } finally {
    silent.close();
  }
});

/**
 * A new project with a few posts: its project-wide briefing is of the kind a basis is kept for
 * (briefing-basis.ts; no scope of a post is named like "project", so the graph adds nothing to it).
 */
async function basisProject(): Promise<{ root: string; engine: Awaited<ReturnType<typeof openWorkspace>> }> {
  const root = tempProject();
  const engine = await openWorkspace(root, { warn: () => undefined });
  await engine.init();
  for (let i = 0; i < 12; i++)
    await engine.post({ entry_type: i % 3 ? 'finding' : 'warning', summary: `Earlier note ${i}`, scope: i % 2 ? 'src/db/' : 'src/api/', agent_id: 'earlier' });
  return { root, engine };
}

/** Waits for the briefing's basis of `agent` (kept after the answer), and says whether it came. */
async function basisKept(root: string, agent: string): Promise<boolean> {
  const sessions = path.join(root, '.twining/sessions');
  const has = () => fs.readdirSync(sessions).some(f => f.startsWith(`briefing-${agent}`) && f.endsWith('.basis'));
  for (let i = 0; i < 200 && !has(); i++) await new Promise(r => setTimeout(r, 20));
  return has();
}

test('a start after a write, with a basis that could answer: the running engine is asked first, and answers with the write', async () => {
  runtimeDir();
  const { root, engine } = await basisProject();
  const { server, asked } = await servingWith(root, engine);
  try {
    const first = await start(hookAlone(), root, 'b1', 'basis-agent', 'project');
    assert.equal(first.status, 0, first.stderr);
    assert.ok(await basisKept(root, 'basis-agent'), 'the running engine kept the basis after it answered');
    const before = asked();
    await engine.post({ entry_type: 'finding', summary: 'Session ids are reused across logins', scope: 'src/auth/session.ts', agent_id: 'reviewer' });
    const second = await start(hookAlone(), root, 'b2', 'basis-agent', 'project');
    assert.equal(second.status, 0, second.stderr);
    assert.ok(asked() > before, 'the running engine was asked, though the basis could have answered');
    assert.match(second.context!, /Session ids are reused across logins/);
  } finally {
    server.close();
  }
});

test('a running engine that does not answer: the basis answers, and the hook ends without waiting for the engine', async () => {
  runtimeDir();
  // A basis kept by an engine this process runs, then a write after it, with nobody serving.
  const { root, engine } = await basisProject();
  const { server } = await servingWith(root, engine);
  try {
    const first = await start(hookAlone(), root, 'w1', 'basis-agent', 'project');
    assert.equal(first.status, 0, first.stderr);
    assert.ok(await basisKept(root, 'basis-agent'), `the basis is kept: ${fs.readdirSync(path.join(root, '.twining/sessions')).join(', ')}`);
  } finally {
    server.close();
  }
  await engine.post({ entry_type: 'warning', summary: 'The refresh endpoint has no rate limit', scope: 'src/auth/refresh.ts', agent_id: 'reviewer' });
  // Now a process that accepts on the socket and never answers (an engine stuck on a long call).
  const silent = net.createServer(() => undefined);
  await new Promise<void>(r => silent.listen(localSocketPath(root)!, r));
  let connections = 0;
  silent.on('connection', () => connections++);
  try {
    // The copy without core.js: only the basis can answer it.
    const answer = await start(hookAlone(), root, 'w2', 'basis-agent', 'project');
    assert.equal(answer.status, 0, answer.stderr);
    assert.match(answer.context!, /The refresh endpoint has no rate limit/);
    assert.equal(connections, 1, 'the hook asked the engine first');
    // Waiting for that engine would take the hook's whole wait for it (3 s) before it could end.
    assert.ok(answer.ms < 3000, `the hook ended after ${answer.ms} ms, so it did not wait for the silent engine`);
  } finally {
    silent.close();
  }
});

test('a hook that stopped waiting before the engine got to it: no briefing is made or recorded for its agent', async () => {
  runtimeDir();
  const { root, engine } = await basisProject();
  let started = 0;
  // An engine busy with an earlier call: the request waits its turn.
  const server = new SessionStartServer(
    root,
    async work => {
      await new Promise(r => setTimeout(r, 300));
      started++;
      return work(engine);
    },
    () => undefined,
  );
  try {
    await serving(server);
    const socket = net.createConnection(localSocketPath(root)!);
    await new Promise<void>(r => socket.on('connect', () => r()));
    socket.write(JSON.stringify({ v: 1, op: 'session-start', agent_id: 'gone-agent', role: 'x', scope: 'project', project: projectIdentity(root) }) + '\n');
    await new Promise(r => setTimeout(r, 50));
    // The hook answered otherwise and closed the connection (agents/hooks/hook-start.ts).
    socket.destroy();
    for (let i = 0; i < 100 && started === 0; i++) await new Promise(r => setTimeout(r, 20));
    assert.equal(started, 1, 'the request reached the engine');
    // Long enough for what a briefing made would keep after it (a second turn on the busy engine).
    await new Promise(r => setTimeout(r, 1200));
    assert.ok(!fs.existsSync(path.join(root, '.twining/sessions/assembly-gone-agent.json')), 'no briefing recorded for an agent that did not receive it');
    assert.ok(!(await engine.agents({})).agents.some(a => a.agent_id === 'gone-agent'), 'not registered on its behalf');
  } finally {
    server.close();
  }
});

test('a bad or oversized request is refused with a reason and runs nothing', async () => {
  runtimeDir();
  const root = fixtureProject();
  const engine = await openWorkspace(root);
  let ran = 0;
  const server = new SessionStartServer(
    root,
    work => (ran++, work(engine)),
    () => undefined,
  );
  const ask = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.createConnection(localSocketPath(root)!);
      let out = '';
      socket.on('data', (d: Buffer) => (out += d.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
      socket.write(text);
    });
  try {
    await serving(server);
    assert.match(await ask('not json\n'), /"ok":false.*not JSON/);
    assert.match(
      await ask(JSON.stringify({ v: 1, op: 'session-start', agent_id: '', role: 'x', scope: 'project' }) + '\n'),
      /"ok":false.*not a session-start request/,
    );
    assert.match(await ask(JSON.stringify({ v: 1, op: 'delete-everything', agent_id: 'a', role: 'x', scope: 'project' }) + '\n'), /"ok":false/);
    assert.match(await ask('x'.repeat(70 * 1024)), /"ok":false.*larger than/);
    // Another project's request (two projects whose names hash alike share the socket's name): refused, the hook does the work itself.
    const other = fixtureProject();
    assert.match(
      await ask(JSON.stringify({ v: 1, op: 'session-start', agent_id: 'a', role: 'x', scope: 'project', project: projectIdentity(other) }) + '\n'),
      /"ok":false.*this engine serves .*, not /,
    );
    assert.equal(ran, 0, 'nothing ran for a refused request');
    assert.match(
      await ask(JSON.stringify({ v: 1, op: 'session-start', agent_id: 'a', role: 'x', scope: 'project', project: projectIdentity(root) }) + '\n'),
      /"ok":true/,
    );
    assert.ok(ran >= 1, 'its own project is answered');
  } finally {
    server.close();
  }
});

test('a socket folder another user could write into is not used', () => {
  const dir = runtimeDir();
  fs.mkdirSync(path.join(dir, 'twining'), { mode: 0o777 });
  fs.chmodSync(path.join(dir, 'twining'), 0o777);
  assert.equal(localSocketPath(fixtureProject()), undefined);
});
