/**
 * A worker process for the reliability suite (not a test file: node's test runner only picks up
 * `*.test.js`). Started with one JSON argument; prints one JSON object per line on stdout:
 * `{"ready":true}` once the engine is loaded, then (after a `go` line on stdin when `barrier` is
 * set) one line per completed operation, then `{"done":true,…}`. A line is printed only after the
 * operation has resolved, so whatever the parent reads was on disk when it was printed (stdout to
 * a pipe is synchronous on Linux, so a SIGKILL cannot swallow a printed line).
 *
 * Modes:
 *  - mix:    `ops` operations mixing registrations (own and shared agents), posts, handoffs and
 *            acknowledgements of open handoffs (preferably other workers').
 *  - decide: `ops` decisions in one domain with overlapping scopes and distinct summaries.
 *  - hold:   takes proper-lockfile locks on `files` exactly as twining-mcp does, optionally appends
 *            `appendLine` to the first file while holding, holds `holdMs`, releases.
 *  - ourlock: takes the engine's own lock (src/core/lock.ts) on `files[0]`, holds `holdMs`, releases.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as readline from 'readline';
import { DIST } from './dist';
import { prng } from './prng';

type Core = typeof import('../../src/core');

interface Config {
  mode: 'mix' | 'decide' | 'hold' | 'ourlock';
  root: string;
  name: string;
  ops?: number;
  seed?: number;
  barrier?: boolean;
  /** Retry register/post/acknowledge when they fail with LOCKED (they wrote nothing). */
  retryLocked?: boolean;
  /** Pause between operations (ms), to let a parent kill the worker mid-loop at leisure. */
  pauseMs?: number;
  files?: string[];
  holdMs?: number;
  appendLine?: string;
  /** hold: false to fail at once on a busy lock instead of retrying as twining-mcp does. */
  retries?: boolean;
  domain?: string;
}

const config: Config = JSON.parse(process.argv[2]);
const emit = (message: Record<string, unknown>) => process.stdout.write(JSON.stringify(message) + '\n');

function waitForGo(): Promise<void> {
  if (!config.barrier) return Promise.resolve();
  return new Promise(resolve => {
    const rl = readline.createInterface({ input: process.stdin });
    rl.on('line', line => {
      if (line.trim() === 'go') {
        rl.close();
        resolve();
      }
    });
  });
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

async function mix(core: Core): Promise<void> {
  const ws = await core.openWorkspace(config.root, { warn: m => emit({ op: 'warning', message: m }) });
  const W = config.name;
  const rand = prng(config.seed ?? 1);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const own = [0, 1, 2, 3, 4].map(k => `${W}-agent-${k}`);
  const shared = ['shared-0', 'shared-1', 'shared-2'];
  const types = ['warning', 'finding', 'status', 'need', 'question', 'offer'] as const;
  const acked = new Set<string>();
  let lockedRetries = 0;
  let maxLockedWaitMs = 0;
  let maxOpMs = 0;

  /** Runs an operation; LOCKED failures of operations that wrote nothing are retried if asked. */
  async function run<T>(op: string, retryable: boolean, work: () => Promise<T>): Promise<T | undefined> {
    const started = Date.now();
    for (;;) {
      try {
        const result = await work();
        maxOpMs = Math.max(maxOpMs, Date.now() - started);
        if (Date.now() - started > 4000) maxLockedWaitMs = Math.max(maxLockedWaitMs, Date.now() - started);
        return result;
      } catch (error) {
        const e = error as { code?: string; message: string };
        if (config.retryLocked && retryable && e.code === 'LOCKED') {
          lockedRetries++;
          continue;
        }
        emit({ op: 'error', during: op, code: e.code, message: e.message, ms: Date.now() - started });
        return undefined;
      }
    }
  }

  const ops = config.ops ?? 250;
  for (let i = 0; i < ops; i++) {
    if (config.pauseMs) await sleep(config.pauseMs);
    const r = rand();
    if (r < 0.15) {
      const agent_id = pick(own);
      const capabilities = [`${W}-cap-${i}`, 'Common ', pick(['TypeScript', 'testing', 'review'])];
      const rec = await run('register', true, () => ws.register({ agent_id, capabilities, role: 'implementer' }));
      if (rec) emit({ op: 'register', i, agent_id, capabilities });
    } else if (r < 0.3) {
      const agent_id = pick(shared);
      const capabilities = [`${W}-shared-${i}`];
      const rec = await run('register', true, () => ws.register({ agent_id, capabilities }));
      if (rec) emit({ op: 'register', i, agent_id, capabilities });
    } else if (r < 0.6) {
      const entry_type = pick(types);
      const summary = `${W} post ${i}`;
      const res = await run('post', true, () =>
        ws.post({ entry_type, summary, detail: `detail of ${summary}`, tags: [W, 'load'], scope: `src/${W}/file${i % 7}.ts`, agent_id: pick(own) }),
      );
      if (res) emit({ op: 'post', i, id: res.id, summary });
    } else if (r < 0.78) {
      const summary = `${W} handoff ${i}`;
      const target = rand() < 0.5 ? undefined : `w${Math.floor(rand() * 4)}-agent-0`;
      const scope = rand() < 0.5 ? `src/${W}/` : undefined;
      const h = await run('handoff', false, () =>
        ws.handoff({
          source_agent: pick(own),
          ...(target ? { target_agent: target } : {}),
          ...(scope ? { scope } : {}),
          summary,
          results: [{ description: `step ${i}`, status: pick(['completed', 'partial', 'blocked'] as const) }],
        }),
      );
      if (h) emit({ op: 'handoff', i, id: h.id, summary });
    } else {
      const open = await run('handoffs', false, () => ws.handoffs({ acknowledged: false, limit: 100 }));
      let candidates = (open?.handoffs ?? []).filter(h => !acked.has(h.id));
      const others = candidates.filter(h => !String(h.source_agent).startsWith(`${W}-`));
      if (others.length) candidates = others;
      if (candidates.length === 0) candidates = (await run('handoffs', false, () => ws.handoffs({ limit: 100 })))?.handoffs ?? [];
      if (candidates.length === 0) {
        const summary = `${W} post ${i}`;
        const res = await run('post', true, () => ws.post({ entry_type: 'status', summary, tags: [W], agent_id: own[0] }));
        if (res) emit({ op: 'post', i, id: res.id, summary });
        continue;
      }
      const target = pick(candidates);
      const agent_id = pick(own);
      const res = await run('acknowledge', true, () => ws.acknowledge({ handoff_id: target.id, agent_id }));
      if (res) {
        acked.add(target.id);
        emit({ op: 'ack', i, id: target.id, agent_id, own: String(target.source_agent).startsWith(`${W}-`) });
      }
    }
  }
  emit({ done: true, lockedRetries, maxLockedWaitMs, maxOpMs });
}

async function decide(core: Core): Promise<void> {
  const ws = await core.openWorkspace(config.root, { warn: m => emit({ op: 'warning', message: m }) });
  const W = config.name;
  const scopes = ['src/race/', 'src/race/engine.ts', 'src/', 'src/race/util/'];
  for (let j = 0; j < (config.ops ?? 5); j++) {
    const summary = `${W} decision ${j}`;
    try {
      const res = await ws.decide({
        domain: config.domain ?? 'race',
        scope: scopes[(j + W.length) % scopes.length],
        summary,
        context: `context ${j}`,
        rationale: `rationale of ${summary}`,
        agent_id: `${W}-agent`,
      });
      emit({ op: 'decide', id: res.id, summary, conflicts: res.conflicts ?? [] });
    } catch (error) {
      const e = error as { code?: string; message: string };
      emit({ op: 'error', during: 'decide', code: e.code, message: e.message });
    }
  }
  emit({ done: true });
}

async function hold(): Promise<void> {
  // The way twining-mcp locks (docs/format.md §Locking): proper-lockfile, stale 10 s, refresh 5 s, realpath.
  const lockfile = require('proper-lockfile') as typeof import('proper-lockfile');
  const releases: (() => Promise<void>)[] = [];
  for (const file of config.files ?? []) {
    // twining-mcp's options (docs/format.md §Locking): it waits for a busy lock up to 10 retries (~4.5 s).
    const retries = config.retries === false ? 0 : { retries: 10, factor: 1.5, minTimeout: 50, maxTimeout: 1000, randomize: false };
    releases.push(await lockfile.lock(file, { stale: 10000, update: 5000, realpath: true, retries }));
  }
  emit({ locked: true, at: Date.now() });
  if (config.appendLine !== undefined) {
    fs.appendFileSync(config.files![0], config.appendLine);
    emit({ appended: true, at: Date.now() });
  }
  await sleep(config.holdMs ?? 1000);
  const releasing = Date.now();
  for (const release of releases) await release();
  emit({ released: true, at: releasing });
}

async function ourLock(): Promise<void> {
  const { withLock } = require('../../src/core/storage/lock') as typeof import('../../src/core/storage/lock');
  await withLock(config.files![0], '', async () => {
    emit({ locked: true, at: Date.now() });
    await sleep(config.holdMs ?? 1000);
    emit({ releasing: true, at: Date.now() });
  });
  emit({ released: true, at: Date.now() });
}

async function main(): Promise<void> {
  // Child processes use the built library, as the extension's users would.
  const core: Core = config.mode === 'hold' || config.mode === 'ourlock' ? (undefined as unknown as Core) : require(path.join(DIST, 'core.js'));
  emit({ ready: true, pid: process.pid });
  await waitForGo();
  emit({ started: true, at: Date.now() });
  if (config.mode === 'mix') await mix(core);
  else if (config.mode === 'decide') await decide(core);
  else if (config.mode === 'ourlock') await ourLock();
  else await hold();
  process.exit(0);
}

main().catch(error => {
  emit({ op: 'fatal', message: (error as Error).stack ?? String(error) });
  process.exit(1);
});
