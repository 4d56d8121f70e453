#!/usr/bin/env node
/**
 * Benchmark of Create Handoff's scope step and confirmation (dist/core.js; build it first): on a
 * folder of 100k blackboard entries and 10k decisions (bench/run.js's generator), for a file not
 * asked about before, as medians (warm engine):
 *   - separate: what the command did before: one snapshot per offered scope (the file, its two
 *     folders, the whole project), each its own engine call, then the picked one again for the
 *     confirmation;
 *   - counts: `snapshotCounts` of the four scopes in one call (no snapshot built), then the
 *     picked scope's snapshot once, kept for the confirmation and compared at the write.
 * Prints a table and one line `BENCH_HANDOFF_SCOPE_JSON {...}`. Options: --size N, --reps N.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { buildFolder } = require('./run');
const { arg, median, now } = require('./measure');

const CORE = process.env.TWINING_BENCH_CORE ? path.resolve(process.env.TWINING_BENCH_CORE) : path.resolve(__dirname, '../dist/core.js');

async function main() {
  if (!fs.existsSync(CORE)) throw new Error(`${path.relative(process.cwd(), CORE)} is missing; build first (node esbuild.js)`);
  const { openWorkspace } = require(CORE);
  const size = Number(arg('--size', 100000));
  const reps = Number(arg('--reps', 15));
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-handoff-scope-'));
  try {
    const root = path.join(parent, 'project');
    fs.mkdirSync(root);
    await (await openWorkspace(root)).init();
    buildFolder(root, size, Math.min(size, 10000), 1000);
    const ws = await openWorkspace(root, { warn: () => undefined });
    await ws.previewSnapshot(undefined); // warm: the files read once
    const scopesOf = r => [`src/mod${r % 50}/file${(r * 7) % 20}.ts`, `src/mod${r % 50}/`, 'src/', undefined];
    const separate = [];
    const onePass = [];
    let check = 0;
    for (let r = 0; r < reps; r++) {
      // Each repetition a new file (as after an editor switch), alternating which method goes first.
      const a = scopesOf(2 * r);
      const b = scopesOf(2 * r + 1);
      for (const [method, scopes] of r % 2
        ? [
            ['one', a],
            ['separate', b],
          ]
        : [
            ['separate', a],
            ['one', b],
          ]) {
        const t = now();
        if (method === 'separate') {
          for (const s of scopes) check += (await ws.previewSnapshot(s)).warning_ids.length;
          check += (await ws.previewSnapshot(scopes[0])).warning_ids.length;
          separate.push(now() - t);
        } else {
          check += (await ws.snapshotCounts(scopes)).reduce((n, c) => n + c.warnings, 0);
          check += (await ws.previewSnapshot(scopes[0])).warning_ids.length;
          onePass.push(now() - t);
        }
      }
    }
    const result = { size, reps, separate_ms: median(separate), counts_ms: median(onePass), check };
    console.log(`Create Handoff's scope step + confirmation, ${size} entries (median of ${reps}):`);
    console.log(`  four snapshots + the picked one again:               ${result.separate_ms} ms`);
    console.log(`  counts of the four in one call, then the picked one:  ${result.counts_ms} ms`);
    console.log(`BENCH_HANDOFF_SCOPE_JSON ${JSON.stringify(result)}`);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
