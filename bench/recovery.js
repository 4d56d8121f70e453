#!/usr/bin/env node
/**
 * Recovery after a crash: how long the next writer waits when a writer was killed (SIGKILL) while
 * it held the blackboard lock. A real writer process posts in a loop with the built library
 * (dist/core.js); it is killed the moment its lock directory exists; then a new Workspace in this
 * process posts, retrying on LOCKED, and the time from the kill to the completed post is taken.
 * Median of several runs (--reps N, default 7). Target: under 1 s (proper-lockfile's staleness
 * alone makes it about 10 s).
 * Prints a table row and `BENCH_RECOVERY_JSON {...}`.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { setImmediate } = require('timers');

const CORE = process.env.TWINING_BENCH_CORE ? path.resolve(process.env.TWINING_BENCH_CORE) : path.resolve(__dirname, '../dist/core.js');
const repsArg = process.argv.indexOf('--reps');
const REPS = repsArg >= 0 ? Number(process.argv[repsArg + 1]) : 7;

const WRITER = `
const { openWorkspace } = require(process.argv[1]);
(async () => {
  const ws = await openWorkspace(process.argv[2], { warn: () => {} });
  process.stdout.write('ready\\n');
  for (let i = 0; ; i++) await ws.post({ entry_type: 'status', summary: 'loop ' + i, detail: 'x'.repeat(2000) }).catch(() => {});
})();
`;

const median = xs => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function once(core) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-recovery-'));
  try {
    await (await core.openWorkspace(root, { warn: () => undefined })).init();
    const lock = path.join(root, '.twining', 'blackboard.jsonl.lock');
    const child = spawn(process.execPath, ['-e', WRITER, CORE, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise(resolve => child.on('close', resolve));
    await new Promise(resolve => child.stdout.once('data', resolve));
    // Let it run a moment, then kill it at an instant when it holds the lock.
    const until = Date.now() + 200;
    while (Date.now() < until) await new Promise(resolve => setImmediate(resolve));
    for (;;) {
      if (fs.existsSync(lock)) {
        child.kill('SIGKILL');
        break;
      }
    }
    const killedAt = Date.now();
    await exited;
    const ws = await core.openWorkspace(root, { warn: () => undefined });
    for (;;) {
      try {
        await ws.post({ entry_type: 'finding', summary: 'after the crash' });
        break;
      } catch (error) {
        if (error.code !== 'LOCKED') throw error;
      }
    }
    return Date.now() - killedAt;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function main() {
  const core = require(CORE);
  const times = [];
  for (let i = 0; i < REPS; i++) times.push(await once(core));
  const ms = median(times);
  console.log(`| next write after a writer was killed holding the lock (ms), median of ${REPS} | ${ms} |`);
  console.log(`  each run: ${times.join(', ')} ms`);
  console.log(`${ms < 1000 ? 'MET   ' : 'MISSED'} recovery after a killed lock holder < 1000 ms: ${ms} ms`);
  console.log(`BENCH_RECOVERY_JSON ${JSON.stringify({ median_ms: ms, runs: times })}`);
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
