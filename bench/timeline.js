#!/usr/bin/env node
/**
 * Timeline benchmark in a real VS Code extension host (the VS Code server inside code-server, with
 * headless Chromium as the window; see scripts/host-server.js): a blackboard of 100,000 entries
 * (8 agents, every entry type, 30 days up to the pinned clock; archiving off) plus 300 handoffs,
 * then Twining: Open Timeline. bench/timeline-runner.js measures the time to the page's first paint
 * and to its update after one append by another process (the CLI). Needs dist/ built first.
 *
 *   node bench/timeline.js [--runs N] [--entries N] [--before DIR]   (default 3 runs, 100,000 entries)
 *
 * With --before DIR (another build of the extension: a checkout of an older commit with dist/ built),
 * the runs alternate between it and this one, and the medians of both are printed with their ratio.
 *
 * Prints the medians and one line `BENCH_TIMELINE_JSON {...}`. Exit status 1 when a run failed.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { ensureHost } = require('../scripts/setup-host');
const { startServer, openWorkbench, waitForExit } = require('../scripts/host-server');
const { REPO, TWINING_NOW, fillBlackboard, makeWorkspace, tempDir } = require('../scripts/workspace');

const RUNNER = path.join(__dirname, 'timeline-runner.js');
const median = xs => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

async function runOne(index, host, entries, extension = REPO) {
  const root = tempDir('twining-bench-tl-');
  const ws = makeWorkspace(root, 'folder');
  fillBlackboard(ws.folders[0], entries, 300);
  const outFile = path.join(root, 'timeline.json');
  let server;
  let wb;
  try {
    server = await startServer({
      name: `bench-tl-${index}`,
      host,
      workspaceOrFolderUri: ws.open,
      extensionDevelopmentPath: extension,
      env: { TWINING_NOW, TWINING_BENCH_ACTIVATION_OUT: outFile, TWINING_BENCH_CLI: path.join(REPO, 'dist', 'cli.js') },
    });
    wb = await openWorkbench({
      server,
      extensionTestsPath: RUNNER,
      onLog: (type, text) => process.env.TWINING_BENCH_VERBOSE === '1' && console.log(`[tl:${index}] ${text}`),
    });
    const code = await waitForExit(wb, 240_000);
    const data = JSON.parse(fs.readFileSync(outFile, 'utf8'));
    if (data.error) throw new Error(data.error);
    if (code !== 0) throw new Error(`the runner ended with ${code}`);
    return data;
  } finally {
    if (wb) await wb.close().catch(() => {});
    if (server) await server.stop();
    if (!process.env.TWINING_KEEP_RUN) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

function summarize(entries, results) {
  return {
    entries,
    runs: results.length,
    openToPaintMs: median(results.map(r => r.openToPaintMs)),
    pagePaintMs: median(results.map(r => r.pagePaintMs)),
    appendToPaintMs: median(results.flatMap(r => r.appendToPaintMs)),
    pageAppendMs: median(results.flatMap(r => r.pageAppendMs)),
    firstDrawMs: median(results.map(r => r.firstDrawMs)),
    readMs: median(results.map(r => r.readMs ?? NaN)),
    loadMs: median(results.map(r => r.loadMs ?? NaN)),
    appendDrawMs: median(results.flatMap(r => r.appendDrawMs)),
    frameMs: median(results.map(r => r.frameMs ?? NaN)),
    marks: medianMarks(results),
  };
}

/** Each mark's median time since the command, in the order of those medians (builds that report marks). */
function medianMarks(results) {
  const names = [...new Set(results.flatMap(r => (r.marks || []).map(([name]) => name)))];
  return names
    .map(name => [name, median(results.flatMap(r => (r.marks || []).filter(([n]) => n === name).map(([, ms]) => ms)))])
    .filter(([, ms]) => !Number.isNaN(ms))
    .sort((a, b) => a[1] - b[1]);
}

function print(label, summary) {
  console.log(`  ${label}:`);
  console.log(
    `    Open Timeline -> first paint       ${summary.openToPaintMs.toFixed(0)} ms (of which the page: ${summary.pagePaintMs.toFixed(0)} ms, drawing ${summary.firstDrawMs.toFixed(0)} ms)`,
  );
  console.log(`      of which in the extension: reading the folder ${summary.readMs.toFixed(0)} ms, with the items laid out ${summary.loadMs.toFixed(0)} ms`);
  if (!Number.isNaN(summary.frameMs)) console.log(`    Open Timeline -> the frame after the drawing, on the page's clock: ${summary.frameMs.toFixed(0)} ms`);
  if (summary.marks.length) {
    console.log("    on the way (median ms since the command; the page's marks say so, the others are the extension's):");
    for (const [name, ms] of summary.marks) console.log(`      ${ms.toFixed(0).padStart(6)}  ${name}`);
  }
  console.log(
    `    one append by the CLI -> update    ${summary.appendToPaintMs.toFixed(0)} ms (of which the page: ${summary.pageAppendMs.toFixed(1)} ms, drawing ${summary.appendDrawMs.toFixed(1)} ms)`,
  );
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
  const runs = opt('--runs', 3);
  const entries = opt('--entries', 100000);
  const before = args.includes('--before') ? path.resolve(args[args.indexOf('--before') + 1]) : undefined;
  const host = ensureHost();
  const versions = before
    ? [
        ['before', before, []],
        ['this', REPO, []],
      ]
    : [['this', REPO, []]];
  for (let i = 1; i <= runs; i++) {
    for (const [label, extension, results] of versions) {
      try {
        const r = await runOne(i, host, entries, extension);
        results.push(r);
        console.log(
          `run ${i} (${label}): first paint ${r.openToPaintMs.toFixed(0)} ms (reading the folder ${Number(r.readMs).toFixed(0)} ms, with the layout ${Number(r.loadMs).toFixed(0)} ms; page ${r.pagePaintMs.toFixed(0)} ms, drawing ${r.firstDrawMs.toFixed(0)} ms) for ${r.items} entries; ` +
            `append -> update ${r.appendToPaintMs.map(x => x.toFixed(0)).join(', ')} ms (page ${r.pageAppendMs.map(x => x.toFixed(1)).join(', ')} ms; drawing ${r.appendDrawMs.map(x => x.toFixed(1)).join(', ')} ms)` +
            (r.appendError ? `; appends: ${r.appendError}` : ''),
        );
        if (r.marks?.length) console.log(`  on the way: ${r.marks.map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(', ')}`);
        if (r.appendError) process.exitCode = 1;
      } catch (error) {
        console.log(`run ${i} (${label}) failed: ${error.stack || error}`);
        process.exitCode = 1;
      }
    }
  }
  const summaries = {};
  for (const [label, , results] of versions) if (results.length) summaries[label] = summarize(entries, results);
  if (!Object.keys(summaries).length) return;
  console.log(
    `\nTimeline at ${entries.toLocaleString('en')} entries (medians of ${runs} runs${before ? ' each, alternating' : ''}; load average ${require('os')
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')}):`,
  );
  for (const [label, summary] of Object.entries(summaries)) print(label === 'this' ? 'this build' : `before (${before})`, summary);
  if (summaries.before && summaries.this) {
    console.log(`  first paint, this / before: ${(summaries.this.openToPaintMs / summaries.before.openToPaintMs).toFixed(2)}x`);
  }
  const summary = summaries.this ?? summaries.before;
  console.log(`BENCH_TIMELINE_JSON ${JSON.stringify(before ? { ...summary, before: summaries.before } : summary)}`);
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
