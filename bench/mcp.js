#!/usr/bin/env node
/**
 * Benchmark of `twining mcp`: MCP tool calls over stdio, timed at the client (the MCP SDK's own
 * Client, as an agent harness would call them), on a folder with 100k blackboard entries, 10k
 * decisions and 1,000 agents (bench/run.js builds it).
 *
 * Per repetition: `twining_post` (a warning in src/mod3/file1.ts), then `twining_read` with the
 * scope src/mod3/ and limit 20. Then `twining_trace` of a decision and `twining_what_changed`
 * since the bench began (both tools of twining-mcp 1.9). Prints medians of the warm calls and the
 * first (cold) call of each.
 *
 * With TWINING_MCP_REFERENCE=path/to/twining-mcp/dist/index.js, twining-mcp's own server is timed
 * the same way on its own copy of the same folder (its dashboard and telemetry off). It is never
 * a dependency of this project: build it beside the project when you want the comparison.
 * Options: --size N (default 100000) --reps N (default 25). Prints a table and `BENCH_MCP_JSON {...}`.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { buildFolder } = require('./run.js');

const CLI = path.resolve(__dirname, '../dist/cli.js');
const CORE = path.resolve(__dirname, '../dist/core.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const clock = () => Number(process.hrtime.bigint()) / 1e6;
const median = values => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function makeFolder(size) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-mcp-'));
  const root = path.join(parent, 'bench-project');
  fs.mkdirSync(root);
  const { openWorkspace } = require(CORE);
  await (await openWorkspace(root)).init();
  buildFolder(root, size, Math.min(size, 10000), 1000);
  return { parent, root };
}

async function timeServer(label, command, args, env, reps, decisionId) {
  const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' });
  const client = new Client({ name: 'twining-bench', version: '1.0.0' });
  await client.connect(transport);
  // Closed whatever happens: the SDK ends the server (stdin, then SIGTERM, then SIGKILL); a server
  // left running by a failed run would weigh on every later measurement.
  try {
    return await timeCalls(label, client, reps, decisionId);
  } finally {
    await client.close();
  }
}

async function timeCalls(label, client, reps, decisionId) {
  const call = async (name, input) => {
    const t = clock();
    const result = await client.callTool({ name, arguments: input });
    const ms = clock() - t;
    const text = result.content?.[0]?.text ?? '';
    if (result.isError || /"error":true/.test(text)) throw new Error(`${label}: ${name} failed: ${text.slice(0, 300)}`);
    return { ms, value: JSON.parse(text) };
  };
  const post = n => call('twining_post', { entry_type: 'warning', summary: `bench warning ${n}`, scope: 'src/mod3/file1.ts', agent_id: 'bench' });
  const read = () => call('twining_read', { scope: 'src/mod3/', limit: 20 });
  const firstPost = await post(0);
  const firstRead = await read();
  const posts = [];
  const reads = [];
  let seen = 0;
  for (let i = 1; i <= reps; i++) {
    posts.push((await post(i)).ms);
    const r = await read();
    // Reported, not required: twining-mcp archives a large blackboard on its own (FORMAT.md §5.10).
    if (r.value.entries.some(e => e.summary === `bench warning ${i}`)) seen++;
    reads.push(r.ms);
  }
  const since = new Date(Date.now() - 60000).toISOString();
  const traces = [];
  const changes = [];
  const firstTrace = await call('twining_trace', { decision_id: decisionId });
  const firstChange = await call('twining_what_changed', { since });
  for (let i = 1; i <= Math.min(reps, 10); i++) {
    traces.push((await call('twining_trace', { decision_id: decisionId })).ms);
    changes.push((await call('twining_what_changed', { since })).ms);
  }
  await client.close();
  return {
    label,
    trace_cold_ms: firstTrace.ms,
    what_changed_cold_ms: firstChange.ms,
    trace_ms: median(traces),
    what_changed_ms: median(changes),
    post_cold_ms: firstPost.ms,
    read_cold_ms: firstRead.ms,
    post_ms: median(posts),
    read_ms: median(reads),
    reads_that_saw_the_post: `${seen}/${reps}`,
  };
}

async function main() {
  const size = arg('--size', 100000);
  const reps = arg('--reps', 25);
  const started = Date.now();
  const { parent, root } = await makeFolder(size);
  const results = [];
  const index = JSON.parse(fs.readFileSync(path.join(root, '.twining', 'decisions', 'index.json'), 'utf8'));
  const decisionId = index[index.length >> 1].id;
  try {
    results.push(await timeServer('twining mcp (this project)', process.execPath, [CLI, 'mcp', '--dir', root], {}, reps, decisionId));
    const reference = process.env.TWINING_MCP_REFERENCE;
    if (reference) {
      const copy = path.join(parent, 'reference-project');
      fs.cpSync(root, copy, { recursive: true });
      const env = { TWINING_DASHBOARD: '0', TWINING_DASHBOARD_NO_OPEN: '1', DO_NOT_TRACK: '1' };
      results.push(await timeServer('twining-mcp (reference)', process.execPath, [path.resolve(reference), '--project', copy], env, reps, decisionId));
    }
  } finally {
    // A server killed on close may still be finishing a write (twining-mcp's metrics): retry.
    try {
      fs.rmSync(parent, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (error) {
      process.stderr.write(`bench mcp: could not remove ${parent}: ${error.message}\n`);
    }
  }
  const f = v => v.toFixed(1).padStart(9);
  console.log(`\nMCP tool calls on ${size.toLocaleString('en')} blackboard entries (ms; medians of ${reps}, first call apart)`);
  console.log(
    `${'server'.padEnd(30)}${'post'.padStart(9)}${'read'.padStart(9)}${'trace'.padStart(9)}${'changed'.padStart(9)}${'1st post'.padStart(9)}${'1st read'.padStart(9)}${'1st trc'.padStart(9)}${'1st chg'.padStart(9)}  read saw the post`,
  );
  for (const r of results)
    console.log(
      `${r.label.padEnd(30)}${f(r.post_ms)}${f(r.read_ms)}${f(r.trace_ms)}${f(r.what_changed_ms)}${f(r.post_cold_ms)}${f(r.read_cold_ms)}${f(r.trace_cold_ms)}${f(r.what_changed_cold_ms)}  ${r.reads_that_saw_the_post}`,
    );
  if (results.length === 2) {
    const [ours, theirs] = results;
    console.log(`ratio (twining-mcp / ours): post ${(theirs.post_ms / ours.post_ms).toFixed(1)}x, read ${(theirs.read_ms / ours.read_ms).toFixed(1)}x`);
  }
  console.log(`\nBENCH_MCP_JSON ${JSON.stringify({ node: process.version, size, reps, results })}`);
  process.stderr.write(`bench mcp: total ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

main().catch(error => {
  console.error(error.stack || error);
  process.exit(1);
});
