#!/usr/bin/env node
/**
 * Benchmark of what the editor shows about a file (dist/core.js; build it first: `npm run bench`
 * does): the Context view's data, `scopeContext(file)`, on a folder of 100k blackboard entries and
 * 10k decisions (bench/run.js's generator), measured as medians:
 *   - cold: a new engine's first context of a file (reads the blackboard and the decision index);
 *   - first look at a file after an editor switch, warm: each repetition a file not asked about
 *     before (its decision records are read then);
 *   - again after a switch back, warm: a file asked about before (the ContextModel of the extension
 *     keeps the result until the data changes, so this is the cost when it did change);
 *   - the whole project (lists cut at 200 each), warm;
 *   - a decision's story (the document's chain and the handoffs that carried it), warm.
 * Prints a table and one line `BENCH_CONTEXT_JSON {...}`. Options: --size N (default 100000),
 * --reps N (default 15). Target: a file after an editor switch under 10 ms warm.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { buildFolder } = require('./run');
const { arg, median, timed } = require('./measure');

const CORE = process.env.TWINING_BENCH_CORE ? path.resolve(process.env.TWINING_BENCH_CORE) : path.resolve(__dirname, '../dist/core.js');

async function main() {
  if (!fs.existsSync(CORE)) throw new Error(`${path.relative(process.cwd(), CORE)} is missing; build first (node esbuild.js)`);
  const { openWorkspace } = require(CORE);
  const size = Number(arg('--size', 100000));
  const reps = Number(arg('--reps', 15));
  const decisions = Math.min(size, 10000);
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-context-'));
  try {
    const root = path.join(parent, 'project');
    fs.mkdirSync(root);
    await (await openWorkspace(root)).init();
    buildFolder(root, size, decisions, 1000);
    const warn = () => undefined;
    const file = (i, j) => `src/mod${i % 50}/file${j % 20}.ts`;

    const cold = [];
    for (let r = 0; r < Math.min(reps, 7); r++) {
      const w = await openWorkspace(root, { warn });
      cold.push((await timed(() => w.scopeContext(file(r, r))))[0]);
    }

    const ws = await openWorkspace(root, { warn });
    await ws.scopeContext(file(0, 0));
    const firstLook = [];
    const again = [];
    const shown = [];
    for (let r = 1; r <= reps; r++) {
      const [t, ctx] = await timed(() => ws.scopeContext(file(r * 7, r * 3)));
      firstLook.push(t);
      shown.push(ctx.decisions.length + ctx.warnings.length + ctx.findings.length);
      again.push((await timed(() => ws.scopeContext(file(r * 7, r * 3))))[0]);
    }
    const project = [];
    for (let r = 0; r < reps; r++) project.push((await timed(() => ws.scopeContext(undefined)))[0]);

    const index = JSON.parse(fs.readFileSync(path.join(root, '.twining', 'decisions', 'index.json'), 'utf8'));
    const [storyFirst] = await timed(() => ws.decisionStory(index[0].id));
    const story = [];
    for (let r = 1; r <= reps; r++) story.push((await timed(() => ws.decisionStory(index[r * 37].id)))[0]);

    const result = {
      size,
      decisions,
      reps,
      cold_ms: median(cold),
      first_look_ms: median(firstLook),
      again_ms: median(again),
      items_per_file: median(shown),
      project_ms: median(project),
      story_first_ms: +storyFirst.toFixed(2),
      story_ms: median(story),
    };
    const rows = [
      ['context of a file, cold (new engine) (ms)', result.cold_ms],
      ['context of a file after an editor switch, first look, warm (ms)', result.first_look_ms],
      ['context of a file after an editor switch, seen before, warm (ms)', result.again_ms],
      ['  decisions + warnings + findings listed per file (median)', result.items_per_file],
      ['context of the whole project, 200 per list, warm (ms)', result.project_ms],
      ['decision story (chain, handoffs that carried it), first (ms)', result.story_first_ms],
      ['decision story, warm (ms)', result.story_ms],
    ];
    const width = Math.max(...rows.map(r => r[0].length));
    // A shared machine's load moves every figure: print it with them.
    result.load_average = +os.loadavg()[0].toFixed(1);
    console.log(
      `Context view data: node ${process.version}, ${os.cpus().length} CPU(s) at load average ${result.load_average}, ${size.toLocaleString('en')} entries, ${decisions.toLocaleString('en')} decisions, medians of ${reps}`,
    );
    for (const [label, value] of rows) console.log(`| ${label.padEnd(width)} | ${String(value).padStart(8)} |`);
    const met = result.first_look_ms < 10;
    console.log(`\n${met ? 'MET   ' : 'MISSED'} a file's context after an editor switch < 10 ms warm: ${result.first_look_ms} ms`);
    console.log(`BENCH_CONTEXT_JSON ${JSON.stringify(result)}`);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

main().catch(error => {
  console.error(error.stack || error);
  process.exit(1);
});
