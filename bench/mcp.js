#!/usr/bin/env node
/**
 * Benchmark of `twining mcp`: MCP tool calls over stdio, timed at the client (the MCP SDK's own
 * Client, as an agent harness would call them), on folders of 1k and 20k blackboard entries (up
 * to 10k decisions, 1,000 agents; bench/run.js builds them).
 *
 * The calls an agent makes: `twining_post` (a warning in src/mod3/file1.ts), `twining_read` with
 * the scope src/mod3/ and limit 20, `twining_why` of a file, `twining_assemble` for a folder,
 * `twining_what_changed` since the bench began and `twining_trace` of a decision (all tools of
 * twining-mcp 1.9), and an MCP ping: the floor of any round trip to that server.
 *
 * Servers, each on its own copy of the same folder, all started before the first call and asked
 * in turn (interleaved: each repetition asks every server each call, the order rotating), so that
 * a busy moment of a shared machine weighs on all of them alike:
 *   - ours (dist/cli.js mcp);
 *   - with --before PATH (or TWINING_MCP_BEFORE): another build's cli.js (e.g. main's, built in a
 *     temporary worktree), for a before/after in one run;
 *   - with --reference PATH (or TWINING_MCP_REFERENCE): twining-mcp's own server (its
 *     dist/index.js), its dashboard and telemetry off, and offline: bench/offline-preload.js
 *     refuses any connection beyond the loopback (its embedder would fetch a model, then falls
 *     back to keyword search). It is never a dependency of this project: build it beside the
 *     project when you want the comparison.
 * Archiving is off on every folder (config.yml `archive.max_blackboard_entries_before_archive: 0`,
 * which twining-mcp reads as "never"), so all servers work on the same number of entries.
 *
 * The first call of each kind is a warm-up (reported apart); then medians of --reps (default 9).
 * Target: each call at most half of twining-mcp's time, or within 1 ms of our own ping.
 * Options: --sizes 1000,20000  --reps N. Prints the machine's load, a table and `BENCH_MCP_JSON {...}`.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { buildFolder } = require('./run.js');
const { arg, median, now } = require('./measure.js');

const CLI = path.resolve(__dirname, '../dist/cli.js');
const CORE = path.resolve(__dirname, '../dist/core.js');
const OFFLINE = path.resolve(__dirname, 'offline-preload.js');
const CONFIG = ['archive:', '  auto_archive_on_commit: true', '  auto_archive_on_context_switch: true'];
const CALLS = ['ping', 'post', 'read', 'why', 'assemble', 'what_changed', 'trace'];

/** Sets the archive threshold of a folder's config.yml (0: never archive), keeping the rest. */
function setArchiveThreshold(root, threshold) {
  const file = path.join(root, '.twining', 'config.yml');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const kept = text.replace(/^archive:\n(?:[ \t]+.*\n)*/m, '');
  fs.writeFileSync(file, `${kept}${[...CONFIG, `  max_blackboard_entries_before_archive: ${threshold}`].join('\n')}\n`);
}

async function makeFolder(parent, size) {
  const root = path.join(parent, `bench-${size}`, 'source');
  fs.mkdirSync(root, { recursive: true });
  const { openWorkspace } = require(CORE);
  await (await openWorkspace(root)).init();
  buildFolder(root, size, Math.min(size, 10000), 1000);
  setArchiveThreshold(root, 0);
  return root;
}

/** A connected client on one server, and a timed call that fails loudly on an error result. */
async function connect(server, root) {
  const transport = new StdioClientTransport({ command: process.execPath, args: server.args(root), env: { ...process.env, ...server.env }, stderr: 'ignore' });
  const client = new Client({ name: 'twining-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, input) {
      const t = now();
      if (name === 'ping') {
        await client.ping();
        return { ms: now() - t };
      }
      const result = await client.callTool({ name: `twining_${name}`, arguments: input });
      const ms = now() - t;
      const text = result.content?.[0]?.text ?? '';
      if (result.isError || /^\{"error":true/.test(text)) throw new Error(`${server.label}: ${name} failed: ${text.slice(0, 300)}`);
      return { ms, value: JSON.parse(text) };
    },
  };
}

/** The input of each call at repetition `n`. */
function inputs(n, since, decisionId) {
  return {
    ping: undefined,
    post: { entry_type: 'warning', summary: `bench warning ${n}`, scope: 'src/mod3/file1.ts', agent_id: 'bench' },
    read: { scope: 'src/mod3/', limit: 20 },
    why: { scope: `src/mod${n % 50}/file${n % 20}.ts` },
    assemble: { task: 'change the cache retry', scope: `src/mod${(n * 7) % 50}/`, agent_id: 'bench' },
    what_changed: { since },
    trace: { decision_id: decisionId },
  };
}

async function measureSize(parent, size, servers, reps) {
  const source = await makeFolder(parent, size);
  const index = JSON.parse(fs.readFileSync(path.join(source, '.twining', 'decisions', 'index.json'), 'utf8'));
  const decisionId = index[index.length >> 1].id;
  // Each server on its own copy, made before any writes.
  const live = [];
  try {
    for (const server of servers) {
      const root = path.join(parent, `bench-${size}`, server.key);
      fs.cpSync(source, root, { recursive: true });
      live.push({ server, ...(await connect(server, root)), times: Object.fromEntries(CALLS.map(c => [c, []])), first: {}, seen: 0 });
    }
    const since = new Date(Date.now() - 60000).toISOString();
    // Warm-up: the first call of each kind reads what it needs (reported apart).
    for (const s of live) {
      const input = inputs(0, since, decisionId);
      for (const c of CALLS) s.first[c] = (await s.call(c, input[c])).ms;
    }
    for (let r = 1; r <= reps; r++) {
      const input = inputs(r, since, decisionId);
      for (const c of CALLS) {
        // The order of the servers rotates with the repetition.
        for (let k = 0; k < live.length; k++) {
          const s = live[(k + r) % live.length];
          const { ms, value } = await s.call(c, input[c]);
          s.times[c].push(ms);
          if (c === 'read' && value.entries.some(e => e.summary === `bench warning ${r}`)) s.seen++;
        }
      }
    }
  } finally {
    for (const s of live) await s.client.close().catch(() => {});
  }
  return live.map(s => ({
    size,
    server: s.server.key,
    label: s.server.label,
    ...Object.fromEntries(CALLS.map(c => [`${c}_ms`, median(s.times[c])])),
    first: Object.fromEntries(CALLS.map(c => [c, +s.first[c].toFixed(2)])),
    reads_that_saw_the_post: `${s.seen}/${reps}`,
  }));
}

/** Met: at most half of twining-mcp's time, or within 1 ms of our own ping. */
const met = (ours, theirs, ping) => ours <= theirs / 2 || ours <= ping + 1;

function print(rows, sizes, reps) {
  const f = v => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
  console.log(
    `\nMCP calls over stdio: ms, medians of ${reps}, interleaved; load average ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')} (${os.cpus().length} CPUs)`,
  );
  const calls = CALLS;
  console.log(`| entries | server | ${calls.join(' | ')} |`);
  console.log(`|---|---|${calls.map(() => '--:').join('|')}|`);
  for (const r of rows) console.log(`| ${r.size.toLocaleString('en')} | ${r.label} | ${calls.map(c => f(r[`${c}_ms`])).join(' | ')} |`);
  for (const size of sizes) {
    const at = rows.filter(r => r.size === size);
    const ours = at.find(r => r.server === 'ours');
    const before = at.find(r => r.server === 'before');
    const theirs = at.find(r => r.server === 'twining-mcp');
    if (before)
      console.log(`${size.toLocaleString('en')}: before / after: ${calls.map(c => `${c} ${(before[`${c}_ms`] / ours[`${c}_ms`]).toFixed(2)}x`).join(', ')}`);
    if (theirs) {
      const verdicts = calls
        .filter(c => c !== 'ping')
        .map(c => `${met(ours[`${c}_ms`], theirs[`${c}_ms`], ours.ping_ms) ? 'MET' : 'MISSED'} ${c} ${f(ours[`${c}_ms`])} / ${f(theirs[`${c}_ms`])}`);
      console.log(`${size.toLocaleString('en')}: ours / twining-mcp (half of theirs, or within 1 ms of our ping ${f(ours.ping_ms)}): ${verdicts.join(', ')}`);
    }
  }
  console.log(`first calls (ms): ${rows.map(r => `${r.size} ${r.server}: ${calls.map(c => `${c} ${f(r.first[c])}`).join(' ')}`).join('; ')}`);
  console.log(`reads that saw the post just made: ${rows.map(r => `${r.size} ${r.server} ${r.reads_that_saw_the_post}`).join(', ')}`);
}

async function main() {
  const sizes = String(arg('--sizes', '1000,20000'))
    .split(',')
    .map(Number)
    .filter(n => n > 0);
  const reps = Number(arg('--reps', 9));
  const reference = arg('--reference', process.env.TWINING_MCP_REFERENCE);
  const before = arg('--before', process.env.TWINING_MCP_BEFORE);
  // TWINING_BENCH_NODE_ARGS: Node options for our server, e.g. `--cpu-prof --cpu-prof-dir=DIR` to see where its time goes.
  const nodeArgs = (process.env.TWINING_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const servers = [{ key: 'ours', label: 'twining mcp (this build)', args: root => [...nodeArgs, CLI, 'mcp', '--dir', root], env: {} }];
  if (before)
    servers.push({
      key: 'before',
      label: `twining mcp (${path.relative(process.cwd(), before) || before})`,
      args: root => [path.resolve(before), 'mcp', '--dir', root],
      env: {},
    });
  if (reference)
    servers.push({
      key: 'twining-mcp',
      label: 'twining-mcp',
      args: root => ['--require', OFFLINE, path.resolve(reference), '--project', root],
      env: { TWINING_DASHBOARD: '0', TWINING_DASHBOARD_NO_OPEN: '1', DO_NOT_TRACK: '1' },
    });
  const started = Date.now();
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-mcp-'));
  const rows = [];
  try {
    for (const size of sizes) {
      rows.push(...(await measureSize(parent, size, servers, reps)));
      // A server killed on close may still be finishing a write (twining-mcp's metrics): retry.
      fs.rmSync(path.join(parent, `bench-${size}`), { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    }
  } finally {
    try {
      fs.rmSync(parent, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (error) {
      process.stderr.write(`bench mcp: could not remove ${parent}: ${error.message}\n`);
    }
  }
  print(rows, sizes, reps);
  console.log(`\nBENCH_MCP_JSON ${JSON.stringify({ node: process.version, loadavg: os.loadavg(), sizes, reps, rows })}`);
  process.stderr.write(`bench mcp: total ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

main().catch(error => {
  console.error(error.stack || error);
  process.exit(1);
});
