#!/usr/bin/env node
/**
 * Benchmark of the git merge driver (`twining merge`, the bundled dist/cli.js; build it first:
 * `npm run bench` does): a blackboard of N entries (default 100,000) as the merge base, and two
 * sides that each add 1,000 entries (interleaved in time) and dismiss 100 base entries. The driver
 * runs as git runs it (`dist/cli.js merge …`), one process per merge, with git's arguments; a
 * preloaded probe reports its wall time, CPU time and peak resident memory (maxRSS), medians and
 * maxima over several runs. The result
 * is checked (every entry once, the dismissed ones gone, ordered by time).
 *
 *   node bench/merge.js [--entries N] [--added N] [--reps N] [--before PATH/cli.js]   (defaults 100000, 1000, 5)
 *
 * With --before (or TWINING_MERGE_BEFORE), another build's cli.js (e.g. main's, built in a
 * temporary worktree) runs the same merges, interleaved with this build's, for a before/after in
 * one run. Prints the machine's load, a table row per build and `BENCH_MERGE_JSON {...}`;
 * targets: under 2 s and under 300 MB.
 * Exit status 0 even when a target is missed; 1 if the benchmark itself fails.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const CLI = path.resolve(__dirname, '../dist/cli.js');
const PROBE = path.resolve(__dirname, 'merge-probe.js');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const BEFORE = (i => (i >= 0 ? process.argv[i + 1] : process.env.TWINING_MERGE_BEFORE))(process.argv.indexOf('--before'));
const ENTRIES = arg('--entries', 100000);
const ADDED = arg('--added', 1000);
const REPS = arg('--reps', 5);
const DISMISSED = 100;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const id = ms => {
  let s = '';
  for (let i = 9, t = ms; i >= 0; i--, t = Math.floor(t / 32)) s = CROCKFORD[t % 32] + s;
  for (let i = 0; i < 16; i++) s += CROCKFORD[Math.floor(rand() * 32)];
  return s;
};
const WORDS = ['cache', 'token', 'retry', 'schema', 'index', 'parser', 'handler', 'queue', 'session', 'config'];
const words = n => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
const line = ms =>
  JSON.stringify({
    entry_type: ['finding', 'warning', 'status', 'need'][Math.floor(rand() * 4)],
    summary: words(8),
    detail: words(25),
    tags: [WORDS[Math.floor(rand() * 10)], 'bench'],
    scope: `src/mod${Math.floor(rand() * 50)}/file${Math.floor(rand() * 20)}.ts`,
    agent_id: `agent-${Math.floor(rand() * 20)}`,
    id: id(ms),
    timestamp: new Date(ms).toISOString(),
  });

function build(dir) {
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const base = Array.from({ length: ENTRIES }, (_, k) => line(start + k * 1000));
  const after = start + ENTRIES * 1000;
  // Both sides post during the same hour, so their new entries interleave in time.
  const add = offset => Array.from({ length: ADDED }, (_, k) => line(after + k * 2000 + offset));
  const dismiss = from => new Set(base.slice(from, from + DISMISSED));
  const [dropOurs, dropTheirs] = [dismiss(1000), dismiss(50000)];
  const write = (name, lines) => fs.writeFileSync(path.join(dir, name), lines.map(l => l + '\n').join(''));
  write('base', base);
  write('ours', [...base.filter(l => !dropOurs.has(l)), ...add(0)]);
  write('theirs', [...base.filter(l => !dropTheirs.has(l)), ...add(1000)]);
  return ENTRIES - 2 * DISMISSED + 2 * ADDED;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One merge by the driver of `cli` as git runs it, checked; its wall time, CPU time and peak memory. */
function mergeOnce(dir, cli, expected) {
  fs.copyFileSync(path.join(dir, 'ours'), path.join(dir, 'work'));
  const started = process.hrtime.bigint();
  const p = spawnSync(process.execPath, ['--require', PROBE, cli, 'merge', 'base', 'work', 'theirs', '.twining/blackboard.jsonl'], {
    cwd: dir,
    encoding: 'utf8',
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (p.status !== 0) throw new Error(`the driver exited ${p.status}: ${p.stderr}`);
  const probe = JSON.parse(/MERGE_PROBE (.*)/.exec(p.stderr)[1]);
  const out = fs.readFileSync(path.join(dir, 'work'), 'utf8').split('\n').filter(Boolean);
  if (out.length !== expected) throw new Error(`merged ${out.length} entries, expected ${expected}`);
  const times = out.map(l => l.slice(l.lastIndexOf('"timestamp":"') + 13, -2));
  if (times.some((t, i) => i > 0 && t < times[i - 1])) throw new Error('the merged blackboard is not in time order');
  return { wallMs, ms: probe.ms, cpuMs: probe.cpuMs, maxRssMB: probe.maxRssMB };
}

function summary(runs, size) {
  return {
    entries: ENTRIES,
    addedPerSide: ADDED,
    dismissedPerSide: DISMISSED,
    baseMB: size / 1048576,
    medianWallMs: median(runs.map(r => r.wallMs)),
    maxWallMs: Math.max(...runs.map(r => r.wallMs)),
    medianCpuMs: median(runs.map(r => r.cpuMs)),
    medianPeakRssMB: median(runs.map(r => r.maxRssMB)),
    maxPeakRssMB: Math.max(...runs.map(r => r.maxRssMB)),
    reps: REPS,
  };
}

function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-merge-'));
  try {
    const expected = build(dir);
    const size = fs.statSync(path.join(dir, 'base')).size;
    const builds = [['this build', CLI], ...(BEFORE ? [['before', path.resolve(BEFORE)]] : [])];
    const runs = builds.map(() => []);
    // Interleaved: each repetition runs every build, so a busy moment weighs on all alike.
    for (let r = 0; r < REPS; r++) builds.forEach(([, cli], b) => runs[b].push(mergeOnce(dir, cli, expected)));
    const results = builds.map(([label], b) => ({ label, ...summary(runs[b], size), runs: runs[b] }));
    const result = results[0];
    console.log(
      `\nMerge driver benchmark: node ${process.version}, ${os.cpus().length} CPU(s), medians of ${REPS} runs${BEFORE ? ', interleaved with the build before' : ''}`,
    );
    console.log(
      `load average ${os
        .loadavg()
        .map(l => l.toFixed(1))
        .join(' ')} (wall time counts waiting for a CPU; CPU time does not)`,
    );
    console.log('| merge | build | base | wall time (median / max) | CPU time (median) | peak RSS (median / max) |');
    console.log('|---|---|--:|--:|--:|--:|');
    for (const r of results)
      console.log(
        `| blackboard.jsonl, ${ENTRIES.toLocaleString('en')} entries, +${ADDED.toLocaleString('en')} / -${DISMISSED} per side | ${r.label} | ${r.baseMB.toFixed(1)} MB | ${r.medianWallMs.toFixed(0)} / ${r.maxWallMs.toFixed(0)} ms | ${r.medianCpuMs.toFixed(0)} ms | ${r.medianPeakRssMB.toFixed(0)} / ${r.maxPeakRssMB.toFixed(0)} MB |`,
      );
    if (results[1])
      console.log(
        `before / after: wall time ${(results[1].medianWallMs / result.medianWallMs).toFixed(2)}x, CPU time ${(results[1].medianCpuMs / result.medianCpuMs).toFixed(2)}x, peak RSS ${(results[1].medianPeakRssMB / result.medianPeakRssMB).toFixed(2)}x`,
      );
    const targets = [
      ['merge of a 100k-entry blackboard under 2 s (median wall time)', result.medianWallMs < 2000, `${result.medianWallMs.toFixed(0)} ms`],
      ['merge of a 100k-entry blackboard under 300 MB (max peak RSS)', result.maxPeakRssMB < 300, `${result.maxPeakRssMB.toFixed(0)} MB`],
    ];
    for (const [name, ok, value] of targets) console.log(`${ok ? 'MET   ' : 'MISSED'} ${name}: ${value}`);
    console.log(
      `BENCH_MERGE_JSON ${JSON.stringify({ ...result, loadavg: os.loadavg(), before: results[1], targets: targets.map(([name, met, value]) => ({ name, met, value })) })}`,
    );
  } finally {
    if (!process.env.TWINING_BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

try {
  main();
} catch (error) {
  console.error(`bench/merge.js: ${error.stack || error}`);
  process.exit(1);
}
