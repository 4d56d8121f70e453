#!/usr/bin/env node
/**
 * Benchmark of the core library (dist/core.js; build it first: `npm run bench` does).
 *
 * For each size (1k, 10k, 100k blackboard entries, with min(size, 10k) decisions and 1,000 agents)
 * it builds a realistic `.twining/` folder in os.tmpdir() and measures, as medians over several
 * repetitions, in a separate `node --expose-gc` process per size:
 *   - cold read: a new Workspace's first `read({limit: 50})`, against the baseline of only reading,
 *     splitting and JSON.parse-ing the same file (measured interleaved, in the same process);
 *   - handoff with an automatic snapshot (scope src/mod3/), cold (new Workspace) and warm (the
 *     next four on the same Workspace), plus a warm handoff without a scope (every id in the snapshot);
 *   - re-read after one appended line: `blackboard.refresh()` and `read({limit: 1})`;
 *   - discover over 1,000 agents (cold and warm);
 *   - memory (heapUsed, RSS) after loading the blackboard.
 * Prints a table and one JSON line (`BENCH_JSON {...}`), and checks the targets at the largest
 * size. Options: --sizes 1000,10000,100000  --reps N  (default 11; 7 at 100k).
 * Exit status 0 even when a target is missed (the table says so); 1 if the benchmark itself fails.
 */
'use strict';
const { timed } = require('./measure');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

// TWINING_BENCH_CORE: another build of the core to compare (e.g. a patched copy).
const CORE = process.env.TWINING_BENCH_CORE ? path.resolve(process.env.TWINING_BENCH_CORE) : path.resolve(__dirname, '../dist/core.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// -----------------------------------------------------------------------------------------------
// Data generation (written straight to disk, in twining-mcp's exact format)

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function ulidAt(ms, rand) {
  let time = '';
  for (let i = 9, t = ms; i >= 0; i--, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  let r = '';
  for (let i = 0; i < 16; i++) r += CROCKFORD[Math.floor(rand() * 32)];
  return time + r;
}

const WORDS = [
  'cache',
  'token',
  'retry',
  'schema',
  'index',
  'parser',
  'handler',
  'queue',
  'session',
  'config',
  'router',
  'migration',
  'timeout',
  'bundle',
  'worker',
];
const CAPS = [
  'typescript',
  'testing',
  'review',
  'security',
  'react',
  'css',
  'api',
  'database',
  'docs',
  'devops',
  'performance',
  'go',
  'python',
  'rust',
  'sql',
  'graphql',
  'ui',
  'accessibility',
  'i18n',
  'infra',
  'ci',
  'release',
  'design',
  'data',
  'ml',
  'mobile',
  'android',
  'ios',
  'auth',
  'observability',
];
const DOMAINS = ['architecture', 'security', 'api', 'testing', 'performance', 'data', 'ui', 'infra'];

function sentence(rand, n) {
  const words = [];
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return words.join(' ');
}

function buildFolder(root, size, decisionsCount, agentsCount) {
  const rand = rng(size);
  const dir = path.join(root, '.twining');
  const start = Date.now() - size * 1000 - 3600e3;
  // Blackboard: a realistic mix of entry types, scopes src/mod{i}/file{j}.ts, tags.
  const lines = [];
  for (let k = 0; k < size; k++) {
    const ms = start + k * 1000;
    const timestamp = new Date(ms).toISOString();
    const mod = Math.floor(rand() * 50);
    const scope = rand() < 0.1 ? 'project' : rand() < 0.3 ? `src/mod${mod}/` : `src/mod${mod}/file${Math.floor(rand() * 20)}.ts`;
    const r = rand();
    const entry_type =
      r < 0.15
        ? 'warning'
        : r < 0.4
          ? 'finding'
          : r < 0.5
            ? 'need'
            : r < 0.8
              ? 'status'
              : r < 0.9
                ? ['question', 'answer', 'offer', 'artifact', 'constraint'][k % 5]
                : 'decision';
    let detail = sentence(rand, 10 + Math.floor(rand() * 30));
    let tags = [WORDS[k % WORDS.length], `mod${mod}`];
    if (entry_type === 'need' && rand() < 0.7) {
      const urgency = ['high', 'normal', 'low'][k % 3];
      const timeout_ms = { high: 300000, normal: 1800000, low: 14400000 }[urgency];
      detail = JSON.stringify({
        type: 'delegation',
        required_capabilities: [CAPS[k % CAPS.length], CAPS[(k * 7) % CAPS.length]],
        urgency,
        expires_at: new Date(ms + timeout_ms).toISOString(),
        timeout_ms,
      });
      tags = [...tags, 'delegation', urgency];
    }
    const entry = { entry_type, summary: `${entry_type} ${k}: ${sentence(rand, 6)}`, detail, tags, scope };
    if (rand() < 0.1) entry.relates_to = [ulidAt(ms - 5000, rand)];
    entry.agent_id = `agent-${k % 200}`;
    entry.id = ulidAt(ms, rand);
    entry.timestamp = timestamp;
    lines.push(JSON.stringify(entry) + '\n');
  }
  fs.writeFileSync(path.join(dir, 'blackboard.jsonl'), lines.join(''));
  // Decisions: index + one file each.
  const index = [];
  for (let k = 0; k < decisionsCount; k++) {
    const ms = start + k * 997;
    const id = ulidAt(ms, rand);
    const mod = k % 50;
    const scope = k % 3 === 0 ? `src/mod${mod}/` : `src/mod${mod}/file${k % 20}.ts`;
    const status = k % 10 === 0 ? 'provisional' : k % 13 === 0 ? 'superseded' : 'active';
    const domain = DOMAINS[k % DOMAINS.length];
    const summary = `Decision ${k}: ${sentence(rand, 6)}`;
    const affected_files = [`src/mod${mod}/file${k % 20}.ts`];
    const record = {
      agent_id: `agent-${k % 200}`,
      domain,
      scope,
      summary,
      context: sentence(rand, 20),
      rationale: sentence(rand, 20),
      constraints: [],
      alternatives: [],
      depends_on: [],
      confidence: 'medium',
      reversible: true,
      affected_files,
      affected_symbols: [],
      commit_hashes: [],
      assembled_before: false,
      id,
      timestamp: new Date(ms).toISOString(),
      status,
    };
    fs.writeFileSync(path.join(dir, 'decisions', `${id}.json`), JSON.stringify(record, null, 2));
    index.push({
      id,
      timestamp: record.timestamp,
      domain,
      scope,
      summary,
      confidence: 'medium',
      status,
      affected_files,
      affected_symbols: [],
      commit_hashes: [],
    });
  }
  fs.writeFileSync(path.join(dir, 'decisions', 'index.json'), JSON.stringify(index, null, 2));
  // Registry: agents with 3 to 6 capabilities, spread over active, idle and gone.
  const agents = [];
  for (let k = 0; k < agentsCount; k++) {
    const caps = [];
    const n = 3 + Math.floor(rand() * 4);
    while (caps.length < n) {
      const c = CAPS[Math.floor(rand() * CAPS.length)];
      if (!caps.includes(c)) caps.push(c);
    }
    const last = new Date(Date.now() - Math.floor(rand() * 3600e3)).toISOString();
    agents.push({ agent_id: `agent-${k}`, capabilities: caps, role: k % 2 ? 'implementer' : 'reviewer', registered_at: last, last_active: last });
  }
  fs.writeFileSync(path.join(dir, 'agents', 'registry.json'), JSON.stringify(agents, null, 2));
  // A long history kept whole: archiving off (0), else the first post would move it to archive/
  // (config's default, 500 entries, as twining-mcp does) and the benchmarks would time a small folder.
  const config = path.join(dir, 'config.yml');
  if (fs.existsSync(config))
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/max_blackboard_entries_before_archive: \d+/, 'max_blackboard_entries_before_archive: 0'));
  return {
    bytes: Buffer.byteLength(lines.join('')),
    sampleLine: (n, ms) =>
      JSON.stringify({
        entry_type: 'status',
        summary: `appended ${n}`,
        detail: '',
        tags: ['bench'],
        scope: 'src/mod1/',
        agent_id: 'bench',
        id: ulidAt(ms, rand),
        timestamp: new Date(ms).toISOString(),
      }) + '\n',
  };
}

// -----------------------------------------------------------------------------------------------
// Measurement (child process, one per size)

const median = values => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const gc = () => global.gc && global.gc();

async function child(size, reps) {
  const { openWorkspace } = require(CORE);
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-'));
  const root = path.join(parent, 'bench-project');
  fs.mkdirSync(root);
  try {
    await (await openWorkspace(root)).init();
    const decisionsCount = Math.min(size, 10000);
    const built = buildFolder(root, size, decisionsCount, 1000);
    const file = path.join(root, '.twining', 'blackboard.jsonl');
    const warn = () => undefined;
    const result = { size, decisions: decisionsCount, agents: 1000, file_mb: +(built.bytes / 1048576).toFixed(1), reps };

    // Memory after loading the blackboard (first thing, so the heap holds little else).
    gc();
    const m0 = process.memoryUsage();
    let ws = await openWorkspace(root, { warn });
    await ws.read({ limit: 50 });
    gc();
    const m1 = process.memoryUsage();
    result.heap_used_mb = +(m1.heapUsed / 1048576).toFixed(1);
    result.heap_delta_mb = +((m1.heapUsed - m0.heapUsed) / 1048576).toFixed(1);
    result.rss_mb = +(m1.rss / 1048576).toFixed(1);
    ws = undefined;

    // Cold read vs. the split+parse baseline, interleaved.
    const cold = [];
    const coldRefresh = [];
    const baseline = [];
    // Holds the last engine until the loop ends, so the timings include no collection of it.
    let _keep;
    for (let r = 0; r < reps; r++) {
      _keep = undefined;
      gc();
      baseline.push(
        (
          await timed(async () => {
            const text = fs.readFileSync(file, 'utf8');
            const out = [];
            for (const line of text.split('\n')) if (line) out.push(JSON.parse(line));
            _keep = out;
          })
        )[0],
      );
      _keep = undefined;
      gc();
      cold.push((await timed(async () => (_keep = await (await openWorkspace(root, { warn })).read({ limit: 50 }))))[0]);
      _keep = undefined;
      gc();
      coldRefresh.push(
        (
          await timed(async () => {
            const w = await openWorkspace(root, { warn });
            await w.blackboard.refresh();
            _keep = w;
          })
        )[0],
      );
    }
    _keep = undefined;
    result.cold_read_ms = median(cold);
    result.cold_refresh_ms = median(coldRefresh);
    result.baseline_parse_ms = median(baseline);
    result.cold_vs_baseline = +(result.cold_read_ms / result.baseline_parse_ms).toFixed(2);

    // Re-read after one appended line (another writer's append), on a warm Workspace.
    ws = await openWorkspace(root, { warn });
    await ws.read({ limit: 50 });
    const refreshAfterAppend = [];
    const readAfterAppend = [];
    const base = Date.now();
    for (let r = 0; r < Math.max(reps, 15); r++) {
      fs.appendFileSync(file, built.sampleLine(r, base + 2 * r));
      const [t, changed] = await timed(() => ws.blackboard.refresh());
      if (!changed) throw new Error('refresh did not see the appended line');
      refreshAfterAppend.push(t);
      fs.appendFileSync(file, built.sampleLine(r, base + 2 * r + 1));
      const [t2, read] = await timed(() => ws.read({ limit: 1 }));
      if (!read.entries[0].summary.startsWith('appended')) throw new Error('read did not return the appended line');
      readAfterAppend.push(t2);
    }
    result.refresh_after_append_ms = median(refreshAfterAppend);
    result.read1_after_append_ms = median(readAfterAppend);

    // Handoffs with an automatic snapshot: cold (new Workspace) and warm (the next one).
    const handoffCold = [];
    const handoffWarm = [];
    const handoffWarmNoScope = [];
    let snapshotSize;
    const input = n => ({
      source_agent: 'agent-1',
      target_agent: 'agent-2',
      scope: 'src/mod3/',
      summary: `bench handoff ${n}`,
      results: [{ description: 'did things', status: 'completed' }],
    });
    for (let r = 0; r < reps; r++) {
      gc();
      const w = await openWorkspace(root, { warn });
      handoffCold.push((await timed(() => w.handoff(input(`cold ${r}`))))[0]);
      let h;
      for (let k = 0; k < 4; k++) {
        const [t, made] = await timed(() => w.handoff(input(`warm ${r}.${k}`)));
        handoffWarm.push(t);
        h = made;
      }
      snapshotSize = {
        decisions: h.context_snapshot.decision_ids.length,
        warnings: h.context_snapshot.warning_ids.length,
        findings: h.context_snapshot.finding_ids.length,
      };
      const [t3, h3] = await timed(() => w.handoff({ ...input(`warm unscoped ${r}`), scope: undefined }));
      handoffWarmNoScope.push(t3);
      result.unscoped_snapshot_ids = h3.context_snapshot.decision_ids.length + h3.context_snapshot.warning_ids.length + h3.context_snapshot.finding_ids.length;
    }
    // verify (drift) of a handoff, warm; then with the snapshot's warnings and findings archived
    // the way twining-mcp's auto-archive moves them (out of the blackboard into archive/, which
    // then holds a history as long as the blackboard).
    const verifyOf = await openWorkspace(root, { warn });
    const probe = await verifyOf.handoff(input('verify probe'));
    const verifyWarm = [];
    for (let r = 0; r < Math.max(reps, 15); r++) verifyWarm.push((await timed(() => verifyOf.verify({ handoff_id: probe.id })))[0]);
    result.verify_warm_ms = median(verifyWarm);
    const moved = new Set([...probe.context_snapshot.warning_ids, ...probe.context_snapshot.finding_ids]);
    const kept = [];
    const archived = [];
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      (moved.has(JSON.parse(line).id) ? archived : kept).push(line + '\n');
    }
    const history = path.join(root, '.twining', 'archive', '2026-11-01-blackboard.jsonl');
    // Older history as long as the blackboard (its lines stand in for it), then the moved entries.
    fs.writeFileSync(history, kept.join('') + archived.join(''));
    fs.writeFileSync(file, kept.join(''));
    const verifyArchived = [];
    let drift;
    for (let r = 0; r < Math.max(reps, 15); r++) {
      const [t, v] = await timed(() => verifyOf.verify({ handoff_id: probe.id }));
      verifyArchived.push(t);
      drift = v.drift.entries_removed;
    }
    if (drift.length !== moved.size || drift.some(d => d.now !== 'archived'))
      throw new Error(`verify did not find the archived entries: ${JSON.stringify(drift)}`);
    result.verify_archived_ms = median(verifyArchived);
    result.archive_mb = +(fs.statSync(history).size / 1048576).toFixed(1);
    fs.rmSync(history);

    result.handoff_cold_ms = median(handoffCold);
    result.handoff_warm_ms = median(handoffWarm);
    result.handoff_warm_unscoped_ms = median(handoffWarmNoScope);
    result.snapshot = snapshotSize;

    // Discover over 1,000 agents.
    const discoverCold = [];
    const discoverWarm = [];
    for (let r = 0; r < reps; r++) {
      const w = await openWorkspace(root, { warn });
      const [t, d] = await timed(() => w.discover({ required_capabilities: ['typescript', 'testing', 'security'] }));
      if (d.agents.length !== 1000) throw new Error('discover did not score every agent');
      discoverCold.push(t);
      discoverWarm.push((await timed(() => w.discover({ required_capabilities: ['typescript', 'testing', 'security'] })))[0]);
    }
    result.discover_cold_ms = median(discoverCold);
    result.discover_warm_ms = median(discoverWarm);

    emit(result);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

// -----------------------------------------------------------------------------------------------
// Driver

/** A child's result to its parent: the `_ms` fields rounded, on one `BENCH_RESULT` line. */
function emit(result) {
  for (const k of Object.keys(result)) if (typeof result[k] === 'number' && k.endsWith('_ms')) result[k] = +result[k].toFixed(2);
  process.stdout.write('BENCH_RESULT ' + JSON.stringify(result) + '\n');
}

/** Stops with a message when the core build to measure is missing. */
function requireBuild(core) {
  if (fs.existsSync(core)) return;
  console.error(`bench: ${path.relative(process.cwd(), core)} is missing; build first (node esbuild.js)`);
  process.exit(1);
}

function main() {
  requireBuild(CORE);
  const sizes = String(arg('--sizes', '1000,10000,100000')).split(',').map(Number);
  const results = [];
  const started = Date.now();
  for (const size of sizes) {
    const reps = Number(arg('--reps', size >= 100000 ? 7 : 11));
    const t = Date.now();
    const r = spawnSync(process.execPath, ['--expose-gc', __filename, '--child', String(size), String(reps)], { encoding: 'utf8', maxBuffer: 16 * 1048576 });
    const line = (r.stdout || '').split('\n').find(l => l.startsWith('BENCH_RESULT '));
    if (r.status !== 0 || !line) {
      console.error(`bench: size ${size} failed (exit ${r.status})\n${r.stderr}`);
      process.exit(1);
    }
    results.push(JSON.parse(line.slice('BENCH_RESULT '.length)));
    process.stderr.write(`bench: ${size} entries done in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  }

  const rows = [
    ['blackboard file (MB)', r => r.file_mb],
    ['cold read: new Workspace + read({limit:50}) (ms)', r => r.cold_read_ms],
    ['  of which blackboard.refresh() alone (ms)', r => r.cold_refresh_ms],
    ['baseline: readFile + split + JSON.parse (ms)', r => r.baseline_parse_ms],
    ['cold read / baseline', r => r.cold_vs_baseline],
    ['re-read after 1 append: blackboard.refresh() (ms)', r => r.refresh_after_append_ms],
    ['re-read after 1 append: read({limit:1}) (ms)', r => r.read1_after_append_ms],
    ['handoff, auto snapshot, scope src/mod3/, cold (ms)', r => r.handoff_cold_ms],
    ['handoff, auto snapshot, scope src/mod3/, warm, 4 per rep (ms)', r => r.handoff_warm_ms],
    ['  snapshot ids (decisions/warnings/findings)', r => `${r.snapshot.decisions}/${r.snapshot.warnings}/${r.snapshot.findings}`],
    ['handoff, auto snapshot, no scope, warm (ms)', r => r.handoff_warm_unscoped_ms],
    ['  snapshot ids, no scope', r => r.unscoped_snapshot_ids],
    ['verify (drift) of that handoff, warm (ms)', r => r.verify_warm_ms],
    ['verify, its warnings/findings archived, warm (ms)', r => r.verify_archived_ms],
    ['  archive/ size (MB)', r => r.archive_mb],
    ['discover, 1,000 agents, cold (ms)', r => r.discover_cold_ms],
    ['discover, 1,000 agents, warm (ms)', r => r.discover_warm_ms],
    ['heapUsed after loading (MB)', r => r.heap_used_mb],
    ['  heap growth from loading (MB)', r => r.heap_delta_mb],
    ['RSS after loading (MB)', r => r.rss_mb],
  ];
  const header = ['', ...results.map(r => `${r.size.toLocaleString('en')} entries`)];
  const table = [header, ...rows.map(([label, f]) => [label, ...results.map(r => String(f(r)))])];
  const widths = header.map((_, c) => Math.max(...table.map(row => row[c].length)));
  const fmt = row => '| ' + row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(' | ') + ' |';
  console.log(
    `Twining core benchmark: node ${process.version}, ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, load average ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')}, medians of ${results.map(r => r.reps).join('/')} repetitions, ${results.map(r => r.decisions).join('/')} decisions, 1,000 agents`,
  );
  console.log(fmt(header));
  console.log('|' + widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|');
  for (const row of table.slice(1)) console.log(fmt(row));

  const big = results[results.length - 1];
  const small = results[0];
  const targets = [
    [`re-read after one append (refresh) < 2 ms at ${big.size}`, big.refresh_after_append_ms < 2, `${big.refresh_after_append_ms} ms`],
    [`re-read after one append (read limit 1) < 2 ms at ${big.size}`, big.read1_after_append_ms < 2, `${big.read1_after_append_ms} ms`],
    // "Independent of size": 100x the entries may cost at most 1 ms (or 3x) more, well below linear.
    [
      `re-read independent of size (${small.size} vs ${big.size}, refresh)`,
      big.refresh_after_append_ms <= Math.max(3 * small.refresh_after_append_ms, small.refresh_after_append_ms + 1),
      `${small.refresh_after_append_ms} vs ${big.refresh_after_append_ms} ms`,
    ],
    [
      `re-read independent of size (${small.size} vs ${big.size}, read limit 1)`,
      big.read1_after_append_ms <= Math.max(3 * small.read1_after_append_ms, small.read1_after_append_ms + 1),
      `${small.read1_after_append_ms} vs ${big.read1_after_append_ms} ms`,
    ],
    [`warm handoff < 10 ms at ${big.size}`, big.handoff_warm_ms < 10, `${big.handoff_warm_ms} ms`],
    [`cold first read within 1.5x of split+parse at ${big.size}`, big.cold_vs_baseline <= 1.5, `${big.cold_vs_baseline}x`],
  ];
  console.log('');
  for (const [name, ok, value] of targets) console.log(`${ok ? 'MET   ' : 'MISSED'} ${name}: ${value}`);
  console.log(
    `\nBENCH_JSON ${JSON.stringify({ node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(), results, targets: targets.map(([name, ok, value]) => ({ name, met: ok, value })) })}`,
  );
  process.stderr.write(`bench: total ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

module.exports = { buildFolder, median, timed, gc, emit, requireBuild };

if (require.main === module) {
  if (process.argv[2] === '--child') {
    child(Number(process.argv[3]), Number(process.argv[4])).catch(error => {
      console.error(error.stack || error);
      process.exit(1);
    });
  } else {
    main();
  }
}
