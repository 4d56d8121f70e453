#!/usr/bin/env node
/**
 * The size of the MCP tool list an agent is given, in tokens: the `tools/list` answer of
 * `twining mcp` (its tools as JSON, as a client puts them in front of a model), measured with the
 * token estimate every budget of Twining uses (core `estimateTokens`: characters / 4, rounded up),
 * for config.yml's tool settings: none (every tool), `tools.full_surface: false` (twining-mcp's
 * default surface), and that with `tools.mode: lite`.
 *
 * With --reference PATH (or TWINING_MCP_REFERENCE), a built twining-mcp's dist/index.js, its
 * `tools/list` is measured the same way on its own copy of the same folder (dashboard and
 * telemetry off), with the same settings (a twining-mcp that has no `full_surface`, as 1.9, lists
 * the same tools for both). twining-mcp is never a dependency of this project: build it beside the
 * project when you want the comparison (README "Running the tests", side by side).
 *
 * Prints a table and `BENCH_TOOL_LIST_JSON {...}`, with the load average.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { arg } = require('./measure.js');

const CLI = path.resolve(__dirname, '../dist/cli.js');
const CORE = path.resolve(__dirname, '../dist/core.js');

const SETTINGS = [
  { label: 'no tools settings', tools: '' },
  { label: 'tools.full_surface: false', tools: 'tools:\n  mode: full\n  full_surface: false\n' },
  { label: 'tools.mode: lite, full_surface: false', tools: 'tools:\n  mode: lite\n  full_surface: false\n' },
];

/** A project with an initialized .twining/ whose config.yml has `tools` as given (and nothing else about tools). */
async function project(parent, name, tools) {
  const root = path.join(parent, name, 'bench-project');
  fs.mkdirSync(root, { recursive: true });
  const { openWorkspace } = require(CORE);
  await (await openWorkspace(root)).init();
  const file = path.join(root, '.twining', 'config.yml');
  const text = fs.readFileSync(file, 'utf8').replace(/^tools:\n(?:[ \t]+.*\n)*/m, '');
  fs.writeFileSync(file, text + tools);
  return root;
}

/** The tools/list of a server, as JSON text, with its tool count. */
async function toolList(command, args, env) {
  const client = new Client({ name: 'twining-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' }));
  try {
    const { tools } = await client.listTools();
    return { count: tools.length, text: JSON.stringify(tools) };
  } finally {
    await client.close();
  }
}

async function main() {
  const { estimateTokens } = require(CORE);
  const reference = arg('--reference', process.env.TWINING_MCP_REFERENCE);
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-tools-'));
  const rows = [];
  try {
    for (const [i, s] of SETTINGS.entries()) {
      const ours = await toolList(process.execPath, [CLI, 'mcp', '--dir', await project(parent, `ours-${i}`, s.tools)], {});
      rows.push({ server: 'twining mcp', settings: s.label, tools: ours.count, characters: ours.text.length, tokens: estimateTokens(ours.text) });
      if (reference) {
        const root = await project(parent, `theirs-${i}`, s.tools);
        const theirs = await toolList(process.execPath, [path.resolve(reference), '--project', root], {
          TWINING_DASHBOARD: '0',
          TWINING_DASHBOARD_NO_OPEN: '1',
          DO_NOT_TRACK: '1',
        });
        rows.push({ server: 'twining-mcp', settings: s.label, tools: theirs.count, characters: theirs.text.length, tokens: estimateTokens(theirs.text) });
      }
    }
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
  const load = os.loadavg().map(n => n.toFixed(2));
  console.log(`MCP tool list size (tokens = characters / 4, rounded up); load average ${load.join(' ')}`);
  console.log(`${'server'.padEnd(12)} ${'settings'.padEnd(40)} ${'tools'.padStart(5)} ${'characters'.padStart(11)} ${'tokens'.padStart(7)}`);
  for (const r of rows)
    console.log(
      `${r.server.padEnd(12)} ${r.settings.padEnd(40)} ${String(r.tools).padStart(5)} ${String(r.characters).padStart(11)} ${String(r.tokens).padStart(7)}`,
    );
  if (!reference) console.log('(twining-mcp not measured: pass --reference path/to/twining-mcp/dist/index.js)');
  console.log(`BENCH_TOOL_LIST_JSON ${JSON.stringify({ loadavg: os.loadavg(), rows })}`);
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
