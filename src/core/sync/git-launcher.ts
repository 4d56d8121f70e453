/**
 * How sync starts its git processes. Starting a process copies the starting process's page
 * tables (fork), so its cost grows with the process's memory: a long-lived engine holding a large
 * record (the extension host, `twining mcp`) paid that copy, synchronously, for every git process
 * of every sync, more than git itself took for a fetch with nothing new.
 *
 * A process that syncs more than once therefore keeps a small helper (this same runtime, running
 * the few lines below) that starts git on its behalf: the request, git's input and output and its
 * exit travel over the helper's IPC channel. The helper is started after a sync, never while one
 * waits on it; until it is ready, and should it ever fail, git is started directly as before. It
 * holds no state of its own, never keeps this process alive (its channel is referenced only while
 * a git it started runs), and ends, stopping any git it started, when this process goes.
 */
import { ChildProcess, spawn } from 'child_process';
import { EventEmitter } from 'events';
import { StringDecoder } from 'string_decoder';

/** What sync uses of a started git: its pipes, its exit, a kill. */
export interface GitProcess {
  stdin: { write(chunk: string | Buffer): void; end(chunk?: string | Buffer): void; on(event: 'error', listener: () => void): void };
  stdout: Output;
  stderr: Output;
  kill(signal?: NodeJS.Signals): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'close', listener: (code: number | null) => void): unknown;
}

/** An output pipe: 'data' events, as Buffers or, after setEncoding, as text. */
class Output extends EventEmitter {
  private decoder?: StringDecoder;
  setEncoding(encoding: BufferEncoding): this {
    this.decoder = new StringDecoder(encoding);
    return this;
  }
  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const data = this.decoder ? this.decoder.write(bytes) : bytes;
    if (data.length > 0) this.emit('data', data);
  }
}

/** The helper: starts each git asked for and relays its pipes and exit; ends with its parent. */
const HELPER = `
const { spawn } = require('child_process');
const kids = new Map();
const send = m => { try { process.send(m); } catch {} };
process.on('message', m => {
  if (m.t === 'spawn') {
    let c;
    try { c = spawn('git', m.args, { cwd: m.cwd, env: m.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true }); }
    catch (e) { send({ t: 'error', id: m.id, message: String(e && e.message) }); return; }
    kids.set(m.id, c);
    c.stdout.on('data', d => send({ t: 'out', id: m.id, d }));
    c.stderr.on('data', d => send({ t: 'err', id: m.id, d }));
    c.stdin.on('error', () => {});
    c.on('error', e => send({ t: 'error', id: m.id, message: String(e && e.message) }));
    c.on('close', (code, signal) => { kids.delete(m.id); send({ t: 'close', id: m.id, code, signal }); });
    return;
  }
  const c = kids.get(m.id);
  if (!c) return;
  if (m.t === 'in') c.stdin.write(m.d);
  else if (m.t === 'end') m.d === undefined ? c.stdin.end() : c.stdin.end(m.d);
  else if (m.t === 'kill') c.kill(m.signal);
});
process.on('disconnect', () => { for (const c of kids.values()) c.kill('SIGKILL'); process.exit(0); });
`;

type Message =
  | { t: 'out' | 'err'; id: number; d: Uint8Array }
  | { t: 'error'; id: number; message: string }
  | { t: 'close'; id: number; code: number | null; signal: string | null };

interface Helper {
  child: ChildProcess;
  ready: boolean;
  running: Map<number, Remote>;
}

let helper: Helper | undefined;
let nextId = 1;
let syncsSeen = 0;

/** A git started by the helper, as the caller sees it. */
class Remote extends EventEmitter implements GitProcess {
  readonly stdout = new Output();
  readonly stderr = new Output();
  readonly stdin;
  private closed = false;
  constructor(
    private readonly h: Helper,
    private readonly id: number,
  ) {
    super();
    const send = (m: object) => {
      if (!this.closed) this.h.child.send({ ...m, id: this.id }, () => undefined);
    };
    this.stdin = {
      write: (chunk: string | Buffer) => send({ t: 'in', d: chunk }),
      end: (chunk?: string | Buffer) => send({ t: 'end', d: chunk }),
      on: () => undefined, // a write to a git that ended is dropped by the helper
    };
  }
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.closed) this.h.child.send({ t: 'kill', id: this.id, signal }, () => undefined);
  }
  handle(m: Message): void {
    if (m.t === 'out') this.stdout.push(m.d);
    else if (m.t === 'err') this.stderr.push(m.d);
    else if (m.t === 'error') this.finish(() => this.emit('error', new Error(m.message)));
    else if (m.t === 'close') this.finish(() => this.emit('close', m.code, m.signal));
  }
  /** Ends this git's life on this side, once. */
  finish(then: () => void): void {
    if (this.closed) return;
    this.closed = true;
    this.h.running.delete(this.id);
    if (this.h.running.size === 0) this.h.child.channel?.unref();
    then();
  }
}

function startHelper(): void {
  if (helper) return;
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ['-e', HELPER], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced', // Buffers travel as bytes
      env: { ...process.env, ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}) },
      windowsHide: true,
    });
  } catch {
    return;
  }
  const h: Helper = { child, ready: false, running: new Map() };
  helper = h;
  child.unref();
  child.channel?.unref();
  const gone = (why: string) => {
    if (helper === h) helper = undefined;
    for (const r of [...h.running.values()]) r.finish(() => r.emit('error', new Error(`the process that started git ended (${why})`)));
  };
  child.on('error', error => gone(error.message));
  child.on('exit', (code, signal) => gone(`exit ${code ?? signal}`));
  child.on('message', (m: Message) => h.running.get(m.id)?.handle(m));
  // Ready once the channel is up: the first message sent is delivered in order with every later one.
  child.on('spawn', () => (h.ready = true));
}

/**
 * Starts `git args` in `cwd` with `env`: through the helper when there is one, else directly.
 * The result behaves like a ChildProcess with piped stdin, stdout and stderr.
 */
export function launchGit(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): GitProcess {
  const h = helper;
  if (!h?.ready || !h.child.connected) return spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  const id = nextId++;
  const remote = new Remote(h, id);
  if (h.running.size === 0) h.child.channel?.ref();
  h.running.set(id, remote);
  h.child.send({ t: 'spawn', id, args, cwd, env }, error => {
    if (error) remote.finish(() => remote.emit('error', error));
  });
  return remote;
}

/**
 * Called as each sync ends: a process that has synced twice is long-lived (the extension's
 * engine, `twining mcp`'s), and its next syncs start git through the helper.
 */
export function syncEnded(): void {
  if (++syncsSeen >= 2 && !helper) setImmediate(startHelper);
}

/** The helper's process id, if one runs (for the tests). */
export function gitHelperPid(): number | undefined {
  return helper?.child.pid;
}
