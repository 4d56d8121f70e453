#!/usr/bin/env node
/**
 * Side-by-side harness: the same scripted session of every twining-mcp 1.9 tool
 * (test/unit/side-by-side-session.ts) on twining-mcp's own server and on `twining mcp`, each over
 * stdio on its own copy of the reference folder (test/fixtures/reference-twining), then:
 *
 * - prints every difference: a tool one server lacks, a call that fails on one side only, a field
 *   twining-mcp returns that ours does not, deterministic content that differs, the final graph;
 * - with --write, keeps what twining-mcp returned as test/fixtures/side-by-side/twining-mcp-<version>.json
 *   (with its version and commit), which test/unit/side-by-side.test.ts checks our server against.
 *
 * Run by hand, never by `npm test`; twining-mcp is never a dependency of this project:
 *   node esbuild.js && node scripts/side-by-side.js /path/to/twining-mcp [--write]
 * (the folder of a built twining-mcp checkout, or its dist/index.js; or TWINING_MCP_REFERENCE).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const esbuild = require('esbuild');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const ROOT = path.resolve(__dirname, '..');
const REFERENCE_FOLDER = path.join(ROOT, 'test', 'fixtures', 'reference-twining');
const OUT = path.join(ROOT, 'test', 'fixtures', 'side-by-side');

/** The session module, bundled from its TypeScript into a temporary file and loaded. */
function loadSession(tmp) {
  const outfile = path.join(tmp, 'side-by-side-session.js');
  esbuild.buildSync({
    entryPoints: [path.join(ROOT, 'test', 'support', 'side-by-side-session.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return require(outfile);
}

/** dist/index.js of twining-mcp, its version and its git commit (if it is a checkout). */
function reference(arg) {
  if (!arg) throw new Error('Give the path of a built twining-mcp (its folder or dist/index.js), or set TWINING_MCP_REFERENCE.');
  const given = path.resolve(arg);
  const entry = fs.statSync(given).isDirectory() ? path.join(given, 'dist', 'index.js') : given;
  if (!fs.existsSync(entry)) throw new Error(`${entry} does not exist: build twining-mcp first (npm run build in its folder).`);
  const home = path.dirname(path.dirname(entry));
  const version = JSON.parse(fs.readFileSync(path.join(home, 'package.json'), 'utf8')).version;
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', home, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // Not a git checkout (an npm install): the version says which it is.
  }
  return { entry, version, commit };
}

/** A fresh project with a copy of the reference folder. */
function project(tmp, name) {
  const root = path.join(tmp, name, 'demo-project');
  fs.mkdirSync(root, { recursive: true });
  fs.cpSync(REFERENCE_FOLDER, path.join(root, '.twining'), { recursive: true });
  return root;
}

async function session(lib, label, command, args, root) {
  // twining-mcp's dashboard and telemetry stay off; its metrics file is written in .twining/ as usual.
  const env = { ...process.env, TWINING_DASHBOARD: '0', TWINING_DASHBOARD_NO_OPEN: '1', DO_NOT_TRACK: '1' };
  const client = new Client({ name: 'twining-side-by-side', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, cwd: root, stderr: 'ignore' }));
  try {
    const tools = (await client.listTools()).tools.map(t => t.name).sort();
    const steps = await lib.runSession(client, root);
    // twining-mcp archives and writes its graph in the background of some calls: let them land.
    await new Promise(resolve => setTimeout(resolve, 500));
    return { label, tools, steps, graph: lib.graphOf(root) };
  } finally {
    await client.close();
  }
}

/** Where two values differ (up to 8 places): the path, twining-mcp's value and ours. */
function diffs(theirs, ours, at = '', out = []) {
  if (out.length >= 8) return out;
  if (JSON.stringify(theirs) === JSON.stringify(ours)) return out;
  if (theirs && ours && typeof theirs === 'object' && typeof ours === 'object') {
    const keys = Array.isArray(theirs) ? [...Array(Math.max(theirs.length, ours.length)).keys()] : [...new Set([...Object.keys(theirs), ...Object.keys(ours)])];
    for (const k of keys) diffs(theirs[k], ours[k], `${at}/${k}`, out);
    return out;
  }
  out.push(`  at ${at || '/'}\n    theirs ${JSON.stringify(theirs)}\n    ours   ${JSON.stringify(ours)}`);
  return out;
}

/** The automatic-archive session on one server, pausing after each call for twining-mcp's background archive. */
async function archiveSession(lib, command, args, root) {
  const env = { ...process.env, TWINING_DASHBOARD: '0', TWINING_DASHBOARD_NO_OPEN: '1', DO_NOT_TRACK: '1' };
  const client = new Client({ name: 'twining-side-by-side', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, cwd: root, stderr: 'ignore' }));
  try {
    const steps = await lib.runSession(client, root, lib.AUTO_ARCHIVE_SESSION, 400);
    return { steps, graph: lib.graphOf(root), files: lib.filesOf(root) };
  } finally {
    await client.close();
  }
}

/** Every difference between what twining-mcp returned (`theirs`) and what ours did, as lines of text. */
function differences(lib, theirs, ours) {
  const out = [];
  for (const t of theirs.tools) if (!ours.tools.includes(t)) out.push(`tool ${t}: missing in ours`);
  const covered = new Set(theirs.steps.map(s => s.tool));
  for (const t of theirs.tools) if (!covered.has(t)) out.push(`tool ${t}: not in the session`);
  for (const [i, t] of theirs.steps.entries()) {
    const o = ours.steps[i];
    const where = `${t.label} (${t.tool})`;
    if (t.error !== o.error)
      out.push(`${where}: ${t.error ? 'fails on twining-mcp only' : 'fails on ours only'}: ${JSON.stringify((t.error ? t : o).content)}`);
    const missing = t.fields.filter(f => !o.fields.includes(f));
    if (missing.length) out.push(`${where}: fields missing in ours: ${missing.join(', ')}`);
    if (t.content !== undefined && !t.error && JSON.stringify(lib.canonical(t.content)) !== JSON.stringify(lib.sameShape(o.content, t.content)))
      out.push(`${where}: content differs\n${diffs(lib.canonical(t.content), lib.sameShape(o.content, t.content)).join('\n')}`);
  }
  for (const kind of ['entities', 'relations']) {
    const a = new Set(theirs.graph[kind].map(x => JSON.stringify(x)));
    const b = new Set(ours.graph[kind].map(x => JSON.stringify(x)));
    for (const x of a) if (!b.has(x)) out.push(`graph ${kind}: only twining-mcp has ${x}`);
    for (const x of b) if (!a.has(x)) out.push(`graph ${kind}: only ours has ${x}`);
  }
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const ref = reference(args.find(a => !a.startsWith('--')) ?? process.env.TWINING_MCP_REFERENCE);
  const cli = path.join(ROOT, 'dist', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} does not exist: run node esbuild.js first.`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-side-by-side-'));
  try {
    const lib = loadSession(tmp);
    const theirRoot = project(tmp, 'theirs');
    const ourRoot = project(tmp, 'ours');
    const theirs = await session(lib, 'twining-mcp', process.execPath, [ref.entry, '--project', theirRoot], theirRoot);
    const ours = await session(lib, 'ours', process.execPath, [cli, 'mcp', '--dir', ourRoot], ourRoot);
    const found = differences(lib, theirs, ours);
    // Automatic archiving: both folders with a threshold the session's second post reaches.
    const theirArchiveRoot = project(tmp, 'theirs-archive');
    const ourArchiveRoot = project(tmp, 'ours-archive');
    lib.setArchiveThreshold(theirArchiveRoot, lib.ARCHIVE_THRESHOLD);
    lib.setArchiveThreshold(ourArchiveRoot, lib.ARCHIVE_THRESHOLD);
    const theirArchive = await archiveSession(lib, process.execPath, [ref.entry, '--project', theirArchiveRoot], theirArchiveRoot);
    const ourArchive = await archiveSession(lib, process.execPath, [cli, 'mcp', '--dir', ourArchiveRoot], ourArchiveRoot);
    found.push(...differences(lib, { tools: [], ...theirArchive }, { tools: [], ...ourArchive }).map(d => `auto-archive: ${d}`));
    for (const kind of ['blackboard', 'archive'])
      if (JSON.stringify(theirArchive.files[kind]) !== JSON.stringify(ourArchive.files[kind]))
        found.push(`auto-archive: ${kind} differs\n  theirs ${JSON.stringify(theirArchive.files[kind])}\n  ours   ${JSON.stringify(ourArchive.files[kind])}`);
    console.log(`twining-mcp ${ref.version} (${ref.commit}) against twining mcp: ${theirs.steps.length} calls of ${theirs.tools.length} tools`);
    console.log(found.length ? found.join('\n') : 'no difference');
    if (write) {
      fs.mkdirSync(OUT, { recursive: true });
      const file = path.join(OUT, `twining-mcp-${ref.version}.json`);
      const fixture = {
        twining_mcp: { version: ref.version, commit: ref.commit },
        recorded: new Date().toISOString().slice(0, 10),
        tools: theirs.tools,
        steps: theirs.steps,
        graph: theirs.graph,
        auto_archive: { threshold: lib.ARCHIVE_THRESHOLD, steps: theirArchive.steps, graph: theirArchive.graph, files: theirArchive.files },
      };
      fs.writeFileSync(file, JSON.stringify(fixture, null, 2) + '\n');
      console.log(`wrote ${path.relative(ROOT, file)}`);
    }
    process.exitCode = found.length ? 1 : 0;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

main().catch(error => {
  console.error(error.stack || error);
  process.exit(2);
});
