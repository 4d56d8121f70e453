#!/usr/bin/env node
/**
 * Benchmark of `search` and `why` (dist/core.js; `npm run bench` builds it first) on the folder of
 * bench/run.js: 100k blackboard entries, 10k decisions, 1,000 agents (--size N for another size).
 * In a `node --expose-gc` child process it measures, as medians:
 *   - cold read: a new engine's first `read({limit: 50})` (the blackboard parsed), and the same
 *     plus every decision record read (all that the search index is built from);
 *   - index build: the first search on a new engine (blackboard and decision records read, 110k
 *     documents indexed), against the cold read of the same data: as the engine does it (the
 *     decision records read by a worker thread while this one reads and indexes the blackboard)
 *     and with every record read on this thread (`searchWorker: false`), alternating; and the
 *     first search on an engine that has already read the blackboard;
 *   - search per query, warm: a mix of one- and two-word queries, prefixes, a typo, with and
 *     without filters (limit 20);
 *   - the next search after one appended entry (the index takes only the new entry);
 *   - `why` of a file and of a folder, warm;
 *   - heap growth from building the index.
 * Prints a table and `BENCH_SEARCH_JSON {...}`; checks the targets (search < 20 ms warm, index
 * build < 1.5x the cold read of what it indexes). Exit status 0 even when a target is missed; 1 if the run fails.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { buildFolder, median, timed, gc, emit, requireBuild } = require('./run');

const CORE = process.env.TWINING_BENCH_CORE ? path.resolve(process.env.TWINING_BENCH_CORE) : path.resolve(__dirname, '../dist/core.js');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);

const QUERIES = [
  { query: 'cache' },
  { query: 'token retry' },
  { query: 'migr' },
  { query: 'sesion' },
  { query: 'parser handler queue' },
  { query: 'Decision 4242' },
  { query: 'schema', entry_types: ['warning'] },
  { query: 'timeout', source: 'decisions', status: 'active' },
  { query: 'worker', scope: 'src/mod3/' },
  { query: 'bundle config', domain: 'security' },
];

async function child(size, reps) {
  const { openWorkspace } = require(CORE);
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-search-'));
  const root = path.join(parent, 'bench-project');
  fs.mkdirSync(root);
  try {
    await (await openWorkspace(root)).init();
    const decisions = Math.min(size, 10000);
    buildFolder(root, size, decisions, 1000);
    const dir = path.join(root, '.twining');
    const warn = () => undefined;
    const result = { size, decisions, reps };

    const coldRead = [];
    const coldReadAll = [];
    const build = [];
    const firstSearch = [];
    const firstSearchHere = [];
    let offThread = 0;
    let _keep;
    for (let r = 0; r < reps; r++) {
      _keep = undefined;
      gc();
      coldRead.push((await timed(async () => (_keep = await (await openWorkspace(root, { warn })).read({ limit: 50 }))))[0]);
      _keep = undefined;
      gc();
      coldReadAll.push(
        (
          await timed(async () => {
            const w = await openWorkspace(root, { warn });
            await w.read({ limit: 50 });
            const { decisions: list } = await w.decisions({});
            const records = [];
            for (let i = 0; i < list.length; i += 64) records.push(...(await Promise.all(list.slice(i, i + 64).map(d => w.getDecision(d.id)))));
            _keep = [w, records];
          })
        )[0],
      );
      _keep = undefined;
      gc();
      const w = await openWorkspace(root, { warn });
      await w.read({ limit: 50 });
      build.push((await timed(() => w.search({ query: 'cache' })))[0]);
      const firstSearches = [
        [firstSearch, {}],
        [firstSearchHere, false],
      ];
      for (const [times, searchWorker] of r % 2 ? firstSearches.reverse() : firstSearches) {
        _keep = undefined;
        gc();
        const fresh = await openWorkspace(root, { warn, searchWorker });
        times.push((await timed(async () => (_keep = await fresh.search({ query: 'cache' }))))[0]);
        if (searchWorker) offThread = fresh.ctx.searchIndex.work.offThread;
      }
    }
    _keep = undefined;
    result.cold_read_ms = median(coldRead);
    result.cold_read_with_records_ms = median(coldReadAll);
    result.index_build_ms = median(build);
    result.first_search_cold_ms = median(firstSearch);
    result.first_search_vs_cold_read_all = +(result.first_search_cold_ms / result.cold_read_with_records_ms).toFixed(2);
    result.first_search_here_ms = median(firstSearchHere);
    result.first_search_here_vs_cold_read_all = +(result.first_search_here_ms / result.cold_read_with_records_ms).toFixed(2);
    result.records_off_thread = offThread;

    // Memory the index takes: heap after the blackboard is read, then after the first search.
    gc();
    const ws = await openWorkspace(root, { warn });
    await ws.read({ limit: 50 });
    gc();
    const before = process.memoryUsage().heapUsed;
    await ws.search({ query: 'cache' });
    gc();
    result.index_heap_mb = +((process.memoryUsage().heapUsed - before) / 1048576).toFixed(1);

    // Warm queries.
    const perQuery = QUERIES.map(() => []);
    let matched = QUERIES.map(() => 0);
    for (let r = 0; r < Math.max(reps, 15); r++) {
      for (let q = 0; q < QUERIES.length; q++) {
        const [t, res] = await timed(() => ws.search(QUERIES[q]));
        perQuery[q].push(t);
        matched[q] = res.total_matched;
      }
    }
    result.queries = QUERIES.map((q, i) => ({
      input: q,
      median_ms: +median(perQuery[i]).toFixed(2),
      max_ms: +Math.max(...perQuery[i]).toFixed(2),
      total_matched: matched[i],
    }));
    result.search_warm_ms = median(perQuery.flat());
    result.search_warm_worst_query_ms = Math.max(...result.queries.map(q => q.median_ms));

    // The next search after one appended entry (another process's append).
    const afterAppend = [];
    const file = path.join(dir, 'blackboard.jsonl');
    for (let r = 0; r < Math.max(reps, 15); r++) {
      const id = `01ZZZZZZZZ${String(r).padStart(16, '0')}`;
      fs.appendFileSync(
        file,
        JSON.stringify({
          entry_type: 'warning',
          summary: `appended quokka ${r}`,
          detail: '',
          tags: [],
          scope: 'src/',
          agent_id: 'bench',
          id,
          timestamp: new Date().toISOString(),
        }) + '\n',
      );
      const [t, res] = await timed(() => ws.search({ query: `quokka ${r}` }));
      if (!res.results.some(h => h.id === id)) throw new Error('search did not find the appended entry');
      afterAppend.push(t);
    }
    result.search_after_append_ms = median(afterAppend);

    // why, warm.
    for (const [key, scope] of [
      ['why_file_warm_ms', 'src/mod3/file3.ts'],
      ['why_folder_warm_ms', 'src/mod3/'],
    ]) {
      const times = [];
      let found;
      await ws.why({ scope });
      for (let r = 0; r < Math.max(reps, 15); r++) {
        const [t, res] = await timed(() => ws.why({ scope }));
        times.push(t);
        found = res.decisions.length;
      }
      result[key] = median(times);
      result[key.replace('_warm_ms', '_decisions')] = found;
    }

    emit(result);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

function main() {
  requireBuild(CORE);
  const size = Number(arg('--size', 100000));
  const reps = Number(arg('--reps', 5));
  const t = Date.now();
  const r = spawnSync(process.execPath, ['--expose-gc', __filename, '--child', String(size), String(reps)], { encoding: 'utf8', maxBuffer: 16 * 1048576 });
  const line = (r.stdout || '').split('\n').find(l => l.startsWith('BENCH_RESULT '));
  if (r.status !== 0 || !line) {
    console.error(`bench search: failed (exit ${r.status})\n${r.stderr}`);
    process.exit(1);
  }
  const res = JSON.parse(line.slice('BENCH_RESULT '.length));
  const rows = [
    ['cold read: new engine + read({limit:50}) (ms)', res.cold_read_ms],
    ['cold read of what search indexes: that + every decision record (ms)', res.cold_read_with_records_ms],
    [`index build: first search on a new engine (ms; ${res.records_off_thread} records read by a worker)`, res.first_search_cold_ms],
    ['  / cold read of what it indexes', res.first_search_vs_cold_read_all],
    ['index build, every record read on this thread (ms)', res.first_search_here_ms],
    ['  / cold read of what it indexes', res.first_search_here_vs_cold_read_all],
    ['first search, blackboard already read (ms)', res.index_build_ms],
    ['heap taken by the index (MB)', res.index_heap_mb],
    ['search, warm, median over the query mix (ms)', res.search_warm_ms],
    ['search, warm, slowest query of the mix (median, ms)', res.search_warm_worst_query_ms],
    ['search after one appended entry (ms)', res.search_after_append_ms],
    [`why of a file, warm (ms; ${res.why_file_decisions} decisions)`, res.why_file_warm_ms],
    [`why of a folder, warm (ms; ${res.why_folder_decisions} decisions)`, res.why_folder_warm_ms],
  ];
  console.log(
    `Twining search benchmark: node ${process.version}, ${os.cpus().length} CPU(s), ${res.size.toLocaleString('en')} entries, ${res.decisions.toLocaleString('en')} decisions, medians of ${res.reps} (warm: ${Math.max(res.reps, 15)}) repetitions`,
  );
  const w = Math.max(...rows.map(([l]) => l.length));
  for (const [label, value] of rows) console.log(`| ${label.padEnd(w)} | ${String(value).padStart(8)} |`);
  console.log('\nper query (median / max ms, matches):');
  for (const q of res.queries)
    console.log(`  ${JSON.stringify(q.input).padEnd(64)} ${String(q.median_ms).padStart(7)} / ${String(q.max_ms).padStart(7)}  ${q.total_matched}`);
  const targets = [
    ['search per query, warm < 20 ms (slowest query of the mix)', res.search_warm_worst_query_ms < 20, `${res.search_warm_worst_query_ms} ms`],
    ['index build < 1.5x the cold read of what it indexes', res.first_search_vs_cold_read_all < 1.5, `${res.first_search_vs_cold_read_all}x`],
  ];
  console.log('');
  for (const [name, ok, value] of targets) console.log(`${ok ? 'MET   ' : 'MISSED'} ${name}: ${value}`);
  console.log(
    `\nBENCH_SEARCH_JSON ${JSON.stringify({ node: process.version, cpus: os.cpus().length, result: res, targets: targets.map(([name, met, value]) => ({ name, met, value })) })}`,
  );
  process.stderr.write(`bench search: ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
}

if (require.main === module) {
  if (process.argv[2] === '--child') {
    child(Number(process.argv[3]), Number(process.argv[4])).catch(error => {
      console.error(error.stack || error);
      process.exit(1);
    });
  } else main();
}
