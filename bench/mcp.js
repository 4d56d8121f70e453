#!/usr/bin/env node
/**
 * Benchmark of `twining mcp`: MCP tool calls over stdio, timed at the client (the MCP SDK's own
 * Client, as an agent harness would call them), on folders of 1k, 20k and 100k blackboard entries
 * (up to 10k decisions, 1,000 agents; bench/run.js builds them).
 *
 * Per repetition: `twining_post` (a warning in src/mod3/file1.ts), then `twining_read` with the
 * scope src/mod3/ and limit 20. Then `twining_trace` of a decision and `twining_what_changed`
 * since the bench began (both tools of twining-mcp 1.9). Prints medians of the warm calls and the
 * first (cold) call of each.
 *
 * Archiving is off on every folder (config.yml `archive.max_blackboard_entries_before_archive: 0`,
 * which twining-mcp reads as "never"), so both servers work on the same number of entries.
 * With TWINING_MCP_REFERENCE=path/to/twining-mcp/dist/index.js (or --reference PATH), twining-mcp's
 * own server is timed the same way on its own copy of the same folder (its dashboard and
 * telemetry off), and once more at the largest size with its default archive setting (past 500
 * entries it moves everything older than the call to archive/ after a post, so it then works on
 * a small blackboard). It is never a dependency of this project: build it beside the project
 * when you want the comparison.
 *
 * Options: --sizes 1000,20000,100000  --reps N (default 25).
 * Prints a table and `BENCH_MCP_JSON {...}`.
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
const CONFIG = ['archive:', '  auto_archive_on_commit: true', '  auto_archive_on_context_switch: true'];

/** Sets the archive threshold of a folder's config.yml (0: never archive), keeping the rest. */
function setArchiveThreshold(root, threshold) {
  const file = path.join(root, '.twining', 'config.yml');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const kept = text.replace(/^archive:\n(?:[ \t]+.*\n)*/m, '');
  fs.writeFileSync(file, `${kept}${[...CONFIG, `  max_blackboard_entries_before_archive: ${threshold}`].join('\n')}\n`);
}

async function makeFolder(parent, size) {
  const root = path.join(parent, `bench-${size}`, 'bench-project');
  fs.mkdirSync(root, { recursive: true });
  const { openWorkspace } = require(CORE);
  await (await openWorkspace(root)).init();
  buildFolder(root, size, Math.min(size, 10000), 1000);
  setArchiveThreshold(root, 0);
  return root;
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
    const t = now();
    const result = await client.callTool({ name, arguments: input });
    const ms = now() - t;
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
  let returned = 0;
  let total = 0;
  for (let i = 1; i <= reps; i++) {
    posts.push((await post(i)).ms);
    const r = await read();
    // Reported, not required: twining-mcp archives a large blackboard on its own (docs/format.md §Dismiss and archive).
    if (r.value.entries.some(e => e.summary === `bench warning ${i}`)) seen++;
    returned = r.value.entries.length;
    total = r.value.total_count;
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
  return {
    label,
    post_ms: median(posts),
    read_ms: median(reads),
    trace_ms: median(traces),
    what_changed_ms: median(changes),
    post_cold_ms: firstPost.ms,
    read_cold_ms: firstRead.ms,
    trace_cold_ms: firstTrace.ms,
    what_changed_cold_ms: firstChange.ms,
    read_returned: returned,
    read_total_count: total,
    reads_that_saw_the_post: `${seen}/${reps}`,
  };
}

function print(rows) {
  const f = v => v.toFixed(1).padStart(9);
  console.log(`\nMCP tool calls over stdio (ms; medians of the warm calls, first call apart)`);
  console.log(
    `${'entries'.padStart(8)}  ${'server'.padEnd(40)}${'post'.padStart(9)}${'read'.padStart(9)}${'trace'.padStart(9)}${'changed'.padStart(9)}${'1st post'.padStart(9)}${'1st read'.padStart(9)}${'1st trc'.padStart(9)}${'1st chg'.padStart(9)}  read: returned/total, saw the post`,
  );
  for (const r of rows)
    console.log(
      `${r.size.toLocaleString('en').padStart(8)}  ${r.label.padEnd(40)}${f(r.post_ms)}${f(r.read_ms)}${f(r.trace_ms)}${f(r.what_changed_ms)}${f(r.post_cold_ms)}${f(r.read_cold_ms)}${f(r.trace_cold_ms)}${f(r.what_changed_cold_ms)}  ${r.read_returned}/${r.read_total_count}, ${r.reads_that_saw_the_post}`,
    );
  const ours = rows.filter(r => r.server === 'ours');
  for (const o of ours) {
    const t = rows.find(r => r.server === 'twining-mcp' && r.size === o.size && r.archive === 'off');
    if (t)
      console.log(
        `${o.size.toLocaleString('en').padStart(8)}  ratio twining-mcp / ours, archiving off: post ${(t.post_ms / o.post_ms).toFixed(1)}x, read ${(t.read_ms / o.read_ms).toFixed(1)}x, trace ${(t.trace_ms / o.trace_ms).toFixed(1)}x, what_changed ${(t.what_changed_ms / o.what_changed_ms).toFixed(1)}x`,
      );
  }
  if (ours.length > 1) {
    const [small, large] = [ours[0], ours[ours.length - 1]];
    console.log(
      `scoped read, ours: ${small.read_ms.toFixed(2)} ms at ${small.size.toLocaleString('en')} entries, ${large.read_ms.toFixed(2)} ms at ${large.size.toLocaleString('en')}`,
    );
  }
}

async function main() {
  const sizes = String(arg('--sizes', '1000,20000,100000'))
    .split(',')
    .map(Number)
    .filter(n => n > 0);
  const reps = Number(arg('--reps', 25));
  const reference = arg('--reference', process.env.TWINING_MCP_REFERENCE);
  const started = Date.now();
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-mcp-'));
  const theirEnv = { TWINING_DASHBOARD: '0', TWINING_DASHBOARD_NO_OPEN: '1', DO_NOT_TRACK: '1' };
  const rows = [];
  try {
    for (const size of sizes) {
      const root = await makeFolder(parent, size);
      const index = JSON.parse(fs.readFileSync(path.join(root, '.twining', 'decisions', 'index.json'), 'utf8'));
      const decisionId = index[index.length >> 1].id;
      // Each server on its own copy, made before either writes.
      const copy = (name, threshold) => {
        const to = path.join(parent, `bench-${size}`, name);
        fs.cpSync(root, to, { recursive: true });
        setArchiveThreshold(to, threshold);
        return to;
      };
      const theirs = reference ? copy('reference-project', 0) : undefined;
      const theirsDefault = reference && size === sizes[sizes.length - 1] ? copy('reference-default', 500) : undefined;
      const ours = await timeServer('twining mcp (this project)', process.execPath, [CLI, 'mcp', '--dir', root], {}, reps, decisionId);
      rows.push({ size, server: 'ours', archive: 'off', ...ours });
      if (theirs) {
        const r = await timeServer('twining-mcp, archiving off', process.execPath, [path.resolve(reference), '--project', theirs], theirEnv, reps, decisionId);
        rows.push({ size, server: 'twining-mcp', archive: 'off', ...r });
      }
      if (theirsDefault) {
        const r = await timeServer(
          'twining-mcp, its default (archive at 500)',
          process.execPath,
          [path.resolve(reference), '--project', theirsDefault],
          theirEnv,
          reps,
          decisionId,
        );
        rows.push({ size, server: 'twining-mcp', archive: 'default', ...r });
      }
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
  print(rows);
  console.log(`\nBENCH_MCP_JSON ${JSON.stringify({ node: process.version, sizes, reps, rows })}`);
  process.stderr.write(`bench mcp: total ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

main().catch(error => {
  console.error(error.stack || error);
  process.exit(1);
});
