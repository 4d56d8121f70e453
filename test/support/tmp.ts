/**
 * Helpers for the reliability and bad-input suites: temporary project folders made from the
 * reference fixture, byte snapshots of a `.twining/` folder, and worker processes
 * (writer-process.ts) with a line-based JSON protocol on stdout.
 */
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn, ChildProcess } from 'child_process';
import { DIST } from './dist';

/** The reference `.twining/` folder written by twining-mcp (from out/unit or test/unit alike). */
export const FIXTURE = path.resolve(__dirname, '../../test/fixtures/reference-twining');
/** The built library and CLI (child processes use these, never the sources; support/dist.ts says which dist/). */
export const CORE_JS = path.join(DIST, 'core.js');
export const CLI_JS = path.join(DIST, 'cli.js');
/** The worker script, bundled next to this file. */
export const WORKER_JS = path.resolve(__dirname, 'writer-process.js');

const made: string[] = [];
const children = new Set<ChildProcess>();
process.on('exit', () => {
  // A test that fails half-way must not leave an endless writer behind.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (process.env.TWINING_KEEP_TMP) return;
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

// The per-user file the hook launcher reads (src/agents/setup/launcher.ts) goes to a folder of this
// test run too: `twining setup` and `hooks-setup` write it, and the user's own must stay as it is.
if (!process.env.TWINING_TEST_CONFIG_HOME) {
  process.env.TWINING_TEST_CONFIG_HOME = process.env.XDG_CONFIG_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-config-'));
  process.env.APPDATA = process.env.XDG_CONFIG_HOME;
  made.push(process.env.XDG_CONFIG_HOME);
}

/** A new empty project folder `…/demo-project` in os.tmpdir(), removed when the process exits. */
export function tempProject(name = 'demo-project'): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-rel-'));
  made.push(parent);
  const root = path.join(parent, name);
  fs.mkdirSync(root);
  return root;
}

/** A new project folder whose `.twining/` is a copy of the reference fixture. */
export function fixtureProject(): string {
  const root = tempProject();
  fs.cpSync(FIXTURE, path.join(root, '.twining'), { recursive: true });
  return root;
}

export const tw = (root: string, ...rel: string[]) => path.join(root, '.twining', ...rel);
export const readText = (root: string, rel: string) => fs.readFileSync(tw(root, rel), 'utf8');
export const writeText = (root: string, rel: string, text: string | Buffer) => fs.writeFileSync(tw(root, rel), text);

/** Every line of a JSONL file, parsed; throws naming the line that does not parse. */
export function parseJsonl(file: string): Record<string, any>[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: Record<string, any>[] = [];
  text.split('\n').forEach((line, i, all) => {
    if (line === '' && i === all.length - 1) return;
    try {
      out.push(JSON.parse(line));
    } catch (error) {
      throw new Error(`${file}: line ${i + 1} does not parse: ${(error as Error).message}: ${line.slice(0, 200)}`);
    }
  });
  return out;
}

/** Every path under `dir` (folders end with `/`), relative to it, sorted; none when it is missing. */
export function pathsUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .map(e => path.relative(dir, path.join(e.parentPath, e.name)) + (e.isDirectory() ? '/' : ''))
    .sort();
}

/** Every file under `.twining/` (relative path → bytes), lock directories listed as `<dir>/`. */
export function snapshotTree(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) files.set(r, Buffer.from(`-> ${fs.readlinkSync(path.join(dir, entry.name))}`));
      else if (entry.isDirectory()) {
        if (entry.name.endsWith('.lock')) files.set(`${r}/`, Buffer.alloc(0));
        else walk(path.join(dir, entry.name), r);
      } else if (entry.isFile()) files.set(r, fs.readFileSync(path.join(dir, entry.name)));
      else files.set(r, Buffer.from('(not a regular file)')); // a FIFO or device is never read: it could block or never end
    }
  };
  walk(tw(root), '');
  return files;
}

/** Names of the files that differ between two snapshots (added, removed or changed). */
export function changedFiles(before: Map<string, Buffer>, after: Map<string, Buffer>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter(n => !before.has(n) || !after.has(n) || !before.get(n)!.equals(after.get(n)!)).sort();
}

/** Lock directories (`*.lock`) anywhere under `.twining/`. */
export function lockDirs(root: string): string[] {
  return [...snapshotTree(root).keys()].filter(k => k.endsWith('.lock/'));
}

/** Lock owner records (`X.lock.owner`) and claimed ones, which exist only while a lock is held or taken over. */
export function ownerRecords(root: string): string[] {
  return [...snapshotTree(root).keys()].filter(k => /\.lock\.owner(\..*\.claim)?$/.test(k));
}

/** Asserts that `work` fails with a TwiningError of `code` whose message matches `pattern`. */
export async function rejectsWith(work: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(work, (error: any) => {
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

export const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

/**
 * Runs `work` with `vars` set in this process's environment (undefined: unset), handing it a copy
 * of that environment for child processes; every variable is put back as it was afterwards.
 */
export async function withEnv(vars: Record<string, string | undefined>, work: (env: NodeJS.ProcessEnv) => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map(k => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    await work({ ...process.env });
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Worker processes

export interface WorkerMessage {
  [key: string]: any;
}

export interface Worker {
  child: ChildProcess;
  /** Every JSON line the worker printed so far. */
  messages: WorkerMessage[];
  stderr: string;
  /** Resolves at the worker's first `{"ready":true}` line. */
  ready: Promise<void>;
  /** Resolves when the worker has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Releases a worker waiting at the start barrier. */
  go(): void;
  /** Resolves with the first message for which `predicate` holds (or rejects when the worker exits first). */
  waitFor(predicate: (m: WorkerMessage) => boolean): Promise<WorkerMessage>;
}

/** Starts writer-process.js with one JSON config argument. */
export function startWorker(config: Record<string, unknown>): Worker {
  const child = spawn(process.execPath, [WORKER_JS, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  child.on('close', () => children.delete(child));
  const messages: WorkerMessage[] = [];
  const waiters: { predicate: (m: WorkerMessage) => boolean; resolve: (m: WorkerMessage) => void; reject: (e: Error) => void }[] = [];
  let buffered = '';
  let stderr = '';
  let exitedFlag = false;
  const worker = { child, messages, stderr } as Worker;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      let message: WorkerMessage;
      try {
        message = JSON.parse(line);
      } catch {
        message = { op: 'unparsed-output', line };
      }
      messages.push(message);
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i].predicate(message)) {
          waiters[i].resolve(message);
          waiters.splice(i, 1);
        }
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    worker.stderr = stderr;
  });
  worker.exited = new Promise(resolve => {
    child.on('close', (code, signal) => {
      exitedFlag = true;
      for (const w of waiters.splice(0))
        w.reject(new Error(`worker exited (code ${code}, signal ${signal}) before the expected message; stderr: ${stderr.slice(-2000)}`));
      resolve({ code, signal });
    });
  });
  worker.waitFor = predicate =>
    new Promise((resolve, reject) => {
      const found = messages.find(predicate);
      if (found) return resolve(found);
      if (exitedFlag) return reject(new Error(`worker already exited; stderr: ${stderr.slice(-2000)}`));
      waiters.push({ predicate, resolve, reject });
    });
  worker.ready = worker.waitFor(m => m.ready === true).then(() => undefined);
  worker.ready.catch(() => undefined);
  worker.go = () => {
    child.stdin.write('go\n');
  };
  child.stdin.on('error', () => undefined);
  return worker;
}
