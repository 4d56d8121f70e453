#!/usr/bin/env node
/**
 * Activation-time benchmark of the extension in a real VS Code extension host (the VS Code server
 * inside code-server, with headless Chromium as the window; see scripts/host-server.js). Needs
 * dist/ built first (`npm run bench` does).
 *
 * Each run gets a fresh temporary workspace (a copy of test/fixtures/reference-twining as
 * `.twining`, see scripts/workspace.js), a fresh server and a fresh browser, with the clock pinned
 * by TWINING_NOW. bench/activation-runner.js, loaded in the extension host as the test runner,
 * activates the extension, reads the Agents view's first children and writes its numbers to a JSON
 * file (see that file for what each number is). This script adds, per run:
 *   serverStartMs     starting the VS Code server until it answers HTTP
 *   launchToRunnerMs  launching the browser + loading the workbench + starting the extension host,
 *                     until the runner's run() was called
 *   runSeconds        the whole run, clean-up included
 * and prints medians, min and max, then one line `BENCH_ACTIVATION_JSON {...}` for machines.
 *
 *   node bench/activation.js [--runs N] [--compare DIR]   (default 5 runs)
 *
 * Then one more run measures the work done per change while the Handoffs view lists 200
 * handoffs (bench/work-runner.js): engine refreshes, verifications, view reloads and the
 * milliseconds until the extension is idle again, for writes by another process and by the
 * extension. `--compare DIR` measures another build of the extension the same way in the same
 * invocation (DIR: a checkout with dist/ built), for before/after figures.
 *
 * Environment: TWINING_BENCH_VERBOSE=1 prints the extension host's console; TWINING_KEEP_RUN=1
 * keeps the run folders (as for the host tests).
 * Exit status 0 when every run produced its numbers, 1 otherwise.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { ensureHost } = require('../scripts/setup-host');
const { startServer, openWorkbench, waitForExit } = require('../scripts/host-server');
const { REPO, TWINING_NOW, makeWorkspace, tempDir } = require('../scripts/workspace');

const RUNNER = path.join(__dirname, 'activation-runner.js');
const WORK_RUNNER = path.join(__dirname, 'work-runner.js');
const WORK_HANDOFFS = 200;
const RUN_TIMEOUT_MS = 60_000;
const VERBOSE = process.env.TWINING_BENCH_VERBOSE === '1';

/** The numbers shown in the table, in this order: [key, label]. */
const METRICS = [
  ['bundleLoadMs', 'bundle load (before activate)'],
  ['activationMs', 'activate() itself'],
  ['runnerToActivatedMs', 'runner start -> activate() resolved'],
  ['agentsFirstChildrenMs', 'first Agents children (getChildren)'],
  ['runnerToAgentsMs', 'runner start -> Agents children'],
  ['engineLoadMs', 'engine load (dist/core.js, first use)'],
  ['refreshMs', 'api.refresh() after that'],
  ['hostUptimeAtRunnerMs', 'extension host uptime at runner start'],
  ['launchToRunnerMs', 'browser launch -> runner start'],
  ['serverStartMs', 'VS Code server start'],
];

function parseArgs(argv) {
  let runs = 5;
  let compare;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--compare') {
      compare = path.resolve(argv[++i] || '');
      continue;
    }
    let value;
    if (a === '--runs') value = argv[++i];
    else if (a.startsWith('--runs=')) value = a.slice('--runs='.length);
    else throw new Error(`unknown argument: ${a} (usage: node bench/activation.js [--runs N] [--compare DIR])`);
    runs = Number(value);
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a positive integer, not ${value}`);
  }
  return { runs, compare };
}

/** Adds handoffs to a project through the library, so that the Handoffs view lists `count`. */
async function addHandoffs(folder, count) {
  const { openWorkspace } = require(path.join(REPO, 'dist', 'core.js'));
  let tick = Date.parse(TWINING_NOW) - 3600_000;
  const ws = await openWorkspace(folder, { now: () => new Date((tick += 1000)), warn: () => undefined });
  const existing = (await ws.handoffs({ limit: 1 })).total_count;
  for (let i = existing; i < count; i++) {
    await ws.handoff({
      source_agent: `bench-${i % 7}`,
      scope: `src/mod${i % 10}/`,
      summary: `Bench handoff ${i}`,
      results: [{ description: 'done', status: 'completed' }],
    });
  }
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** One run: workspace, server, browser, wait for the runner, read its numbers. */
async function runOne(index, host, { runner = RUNNER, extensionPath = REPO, handoffs = 0 } = {}) {
  const started = Date.now();
  const root = tempDir('twining-bench-act-');
  const ws = makeWorkspace(root, 'folder');
  if (handoffs) await addHandoffs(ws.folders[0], handoffs);
  const outFile = path.join(root, 'activation.json');
  const logs = [];
  let server;
  let wb;
  let result;
  try {
    const s0 = Date.now();
    server = await startServer({
      name: `bench-act-${index}`,
      host,
      workspaceOrFolderUri: ws.open,
      extensionDevelopmentPath: extensionPath,
      env: { TWINING_NOW, TWINING_BENCH_ACTIVATION_OUT: outFile, TWINING_BENCH_CLI: path.join(REPO, 'dist', 'cli.js') },
    });
    const serverStartMs = Date.now() - s0;
    const launchedAt = Date.now();
    wb = await openWorkbench({
      server,
      extensionTestsPath: runner,
      onLog: (type, text) => {
        const line = `[bench:${index}] ${type === 'log' ? '' : `[${type}] `}${text}`;
        if (VERBOSE) console.log(line);
        else logs.push(line);
      },
    });
    const code = await waitForExit(wb, RUN_TIMEOUT_MS);
    let data;
    try {
      data = JSON.parse(fs.readFileSync(outFile, 'utf8'));
    } catch {}
    if (code === 'timeout') throw new Error(`no result within ${RUN_TIMEOUT_MS / 1000} s`);
    if (!data) throw new Error(`the runner wrote no numbers (exit code ${code})`);
    if (data.error) throw new Error(`the runner failed: ${data.error}`);
    if (code !== 0) throw new Error(`the runner's run() rejected (exit code ${code})`);
    result = { ...data, serverStartMs, launchToRunnerMs: data.runnerStartEpochMs - launchedAt };
    delete result.runnerStartEpochMs;
  } catch (error) {
    if (!VERBOSE && logs.length) {
      console.log(`---- extension host console of run ${index} ----`);
      for (const line of logs) console.log(line);
      console.log(`---- end of run ${index} ----`);
    }
    if (server) console.log(`server log of run ${index} (tail):\n${server.log().slice(-4000)}`);
    result = { error: (error && error.message) || String(error) };
  } finally {
    if (wb) await wb.close();
    if (server) await server.stop();
    if (!process.env.TWINING_KEEP_RUN) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
  result.runSeconds = (Date.now() - started) / 1000;
  return result;
}

function fmt(n) {
  return n === undefined || Number.isNaN(n) ? '-' : n.toFixed(1);
}

async function main() {
  const { runs, compare } = parseArgs(process.argv.slice(2));
  const bundle = path.join(REPO, 'dist', 'extension.js');
  if (!fs.existsSync(bundle)) throw new Error('dist/extension.js is missing: build with `node esbuild.js` first');
  const host = ensureHost();
  const started = Date.now();
  console.log(`Activation benchmark: ${runs} run(s), each a fresh VS Code server, browser and workspace (TWINING_NOW=${TWINING_NOW})`);

  const results = [];
  for (let i = 1; i <= runs; i++) {
    const r = await runOne(i, host);
    results.push(r);
    if (r.error) console.log(`  run ${i}: FAILED (${r.error}) (${r.runSeconds.toFixed(1)} s)`);
    else
      console.log(
        `  run ${i}: activate() ${fmt(r.activationMs)} ms, bundle ${fmt(r.bundleLoadMs)} ms, ` +
          `engine ${fmt(r.engineLoadMs)} ms, first Agents children ${fmt(r.agentsFirstChildrenMs)} ms ` +
          `(${r.agents.length} agents) (${r.runSeconds.toFixed(1)} s)`,
      );
  }

  const ok = results.filter(r => !r.error);
  const stats = {};
  for (const [key] of [...METRICS, ['runSeconds']]) {
    const values = ok.map(r => r[key]).filter(v => typeof v === 'number' && !Number.isNaN(v));
    if (values.length) stats[key] = { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
  }

  if (ok.length) {
    const width = Math.max(...METRICS.map(([, label]) => label.length));
    console.log('');
    console.log(`${'ms'.padEnd(width)}  ${'median'.padStart(8)}  ${'min'.padStart(8)}  ${'max'.padStart(8)}`);
    for (const [key, label] of METRICS) {
      const s = stats[key];
      if (!s) continue;
      console.log(`${label.padEnd(width)}  ${fmt(s.median).padStart(8)}  ${fmt(s.min).padStart(8)}  ${fmt(s.max).padStart(8)}`);
    }
    const already = ok.filter(r => r.wasActiveAtRunnerStart).length;
    const engineEarly = ok.filter(r => r.engineLoadedBeforeAgents).length;
    console.log(
      `\n${ok.length}/${runs} runs ok; extension already active when the runner started in ${already}/${ok.length}; ` +
        `engine already loaded before the Agents view asked in ${engineEarly}/${ok.length}.`,
    );
  }
  const work = await workPerChange(host, compare);
  const totalSeconds = (Date.now() - started) / 1000;
  console.log(`Activation benchmark done in ${totalSeconds.toFixed(1)} s.`);
  const round = (_key, v) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 100) / 100 : v);
  console.log(`BENCH_ACTIVATION_JSON ${JSON.stringify({ runs, ok: ok.length, twiningNow: TWINING_NOW, totalSeconds, stats, results, work }, round)}`);
  return ok.length === runs && !work.some(w => w.error);
}

/** The work-per-change run, for this build and (with --compare) another, printed as one table. */
async function workPerChange(host, compare) {
  const builds = [['this build', REPO], ...(compare ? [[path.basename(compare), compare]] : [])];
  const results = [];
  for (const [label, extensionPath] of builds) {
    const r = await runOne(`work-${results.length + 1}`, host, { runner: WORK_RUNNER, extensionPath, handoffs: WORK_HANDOFFS });
    results.push({ build: label, ...r });
    if (r.error) console.log(`  work per change (${label}): FAILED (${r.error})`);
  }
  console.log(
    `\nWork done per change with ${WORK_HANDOFFS} listed handoffs (refreshes, verifications, view reloads agents/delegations/handoffs, ms until idle):`,
  );
  for (const r of results) {
    if (r.error) continue;
    for (const w of r.work) {
      const reloads = `${w.reloads.agents}/${w.reloads.delegations}/${w.reloads.handoffs}`;
      console.log(
        `  ${r.build.padEnd(12)} ${w.name.padEnd(42)} ${String(w.refreshes).padStart(3)} ${String(w.verifications).padStart(5)}  ${reloads.padEnd(6)} ${String(w.ms).padStart(6)} ms  (${w.handoffs} listed)`,
      );
    }
  }
  return results;
}

main()
  .then(allOk => process.exit(allOk ? 0 : 1))
  .catch(error => {
    console.error(error.stack || String(error));
    process.exit(1);
  });
