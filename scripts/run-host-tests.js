#!/usr/bin/env node
// Runs the extension host tests (out/host/*.test.js, built by `node esbuild.js --tests`) inside a
// real VS Code extension host: the VS Code server bundled in code-server, with headless Chromium as
// the window (see scripts/host-server.js). Builds nothing itself.
//
//   node scripts/run-host-tests.js [RUN...] [--summary FILE]
//
// Each RUN (default: all of RUNS below) gets a fresh workspace (a writable copy of
// test/fixtures/reference-twining as `.twining` plus a few source files, laid out by
// scripts/workspace.js), its own window (and so its own extension host) and a fresh browser context.
// The runs with the shared server options (trusted, extension under development, no settings or
// env of their own) open their window on the test run's shared server; the others start a server
// of their own (scripts/e2e-session.js). Each window loads a runner file of its own as the
// extensionTestsPath, which sets the run's environment and then loads out/host/index.js: windows
// on one server share the server's environment. The test files see, in the extension host's environment:
//   TWINING_TEST_RUN        the run's name (describe.skip by it: see test/host/helpers.ts)
//   TWINING_TEST_WORKSPACE  what was opened (a folder, or a .code-workspace file)
//   TWINING_TEST_FOLDERS    the workspace folders, joined with the path delimiter
//   TWINING_TEST_TRUSTED    "1" when the workspace is trusted, "0" when it is left untrusted
//   TWINING_TEST_EXTENSION_MODE  "development" or "installed" (see RUNS)
//   TWINING_TEST_EXTENSION_PATH  the repository (the extension's folder)
//   TWINING_NOW             a pinned clock near the fixture's timestamps
//   TWINING_TEST_SUMMARY    where test/host/index.ts writes its JSON summary
// Environment of this script: TWINING_TEST_VERBOSE=1 prints the extension host's console even when
// everything passes; TWINING_TEST_GREP filters tests; TWINING_KEEP_RUN=1 keeps the run folders;
// TWINING_HOST_RUNS=single,multi picks runs like the arguments do.
'use strict';

const fs = require('fs');
const path = require('path');
const { ensureHost } = require('./setup-host');
const { startServer, openWorkbench, waitForExit } = require('./host-server');
const { useSession } = require('./e2e-session');
const { REPO, TWINING_NOW, makeWorkspace, tempDir } = require('./workspace');
const { makeSyncWorkspace } = require('./sync-workspace');

const RUN_TIMEOUT_MS = 10 * 60 * 1000;

/** Workbench console lines that are expected offline and say nothing about the tests. */
const NOISE = [/getaddrinfo ENOTFOUND open-vsx\.org/, /\[Service Worker\] registration/, /Failed to register a ServiceWorker/];

/**
 * The runs, one fresh workspace + window + browser context each:
 *  - `layout`: 'folder' (one folder) or 'multi-root' (a .code-workspace with two folders);
 *  - `trusted`: false starts the server without --disable-workspace-trust and leaves the
 *    workspace untrusted (restricted mode);
 *  - `mode`: 'development' loads the extension as the extension under development (VS Code then
 *    ignores workspace trust for it: it activates even in an untrusted workspace); 'installed'
 *    loads it as an ordinary installed extension (symlinked into the extensions folder) so that VS
 *    Code applies `capabilities.untrustedWorkspaces` of package.json, with an empty harness
 *    extension as the extension under development (needed to load the test runner);
 *  - `settings`: user settings over the quiet defaults of host-server.js (null removes one);
 *  - `env`: more environment for the extension host.
 */
const RUNS = [
  { name: 'single', layout: 'folder', trusted: true, mode: 'development' },
  { name: 'multi', layout: 'multi-root', trusted: true, mode: 'development' },
  { name: 'untrusted', layout: 'folder', trusted: false, mode: 'installed' },
  // twining-mcp 2.x's layouts: a SQLite folder (twining.db + records/) and its fresh clone (records/ only).
  { name: 'two-x', layout: 'two-x', trusted: true, mode: 'development' },
  // A window on a linked git worktree (scripts/workspace.js, makeWorktreeWorkspace): it shows the primary's shared record.
  { name: 'worktree', layout: 'worktree', trusted: true, mode: 'development' },
  // Two clones and their bare remote (scripts/sync-workspace.js); background sync every 5 s.
  { name: 'sync', layout: 'sync', trusted: true, mode: 'development', settings: { 'twining.sync.intervalSeconds': 5 } },
];

/** An empty extension to stand as "the extension under development" in 'installed' runs. */
function makeHarnessExtension(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'test-harness', publisher: 'twining-tests', version: '0.0.0', engines: { vscode: '^1.101.0' } }, null, 2),
  );
  return dir;
}

function parseArgs(argv) {
  const out = { runs: [], summary: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--summary') out.summary = argv[++i];
    else if (argv[i].startsWith('--summary=')) out.summary = argv[i].slice('--summary='.length);
    else out.runs.push(...argv[i].split(','));
  }
  if (out.runs.length === 0 && process.env.TWINING_HOST_RUNS) out.runs = process.env.TWINING_HOST_RUNS.split(',');
  return out;
}

function indent(text, by = '    ') {
  return String(text)
    .split('\n')
    .map(l => by + l)
    .join('\n');
}

/** Whether a run opens its window on the shared server (else it needs a server of its own). */
function sharesServer(run) {
  return run.trusted !== false && run.mode !== 'installed' && !run.settings && !run.env;
}

/** The extension host environment of a run (listed at the top of this file). */
function runEnv(run, ws, summaryFile) {
  return {
    TWINING_NOW,
    TWINING_TEST_RUN: run.name,
    TWINING_TEST_WORKSPACE: ws.open,
    TWINING_TEST_FOLDERS: ws.folders.join(path.delimiter),
    TWINING_TEST_TRUSTED: run.trusted === false ? '0' : '1',
    TWINING_TEST_EXTENSION_MODE: run.mode === 'installed' ? 'installed' : 'development',
    TWINING_TEST_EXTENSION_PATH: REPO,
    TWINING_TEST_SUMMARY: summaryFile,
    ...(ws.peer ? { TWINING_TEST_SYNC_PEER: ws.peer } : {}),
    ...(process.env.TWINING_TEST_GREP ? { TWINING_TEST_GREP: process.env.TWINING_TEST_GREP } : {}),
    ...(run.env || {}),
  };
}

/** The run's extensionTestsPath: a module that sets the run's environment, then is out/host/index.js. */
function writeRunner(root, run, env) {
  const file = path.join(root, 'runner.js');
  fs.writeFileSync(
    file,
    [
      `// The host test runner of run "${run.name}" (written by scripts/run-host-tests.js).`,
      `Object.assign(process.env, ${JSON.stringify(env, null, 2)});`,
      `module.exports = require(${JSON.stringify(path.join(REPO, 'out', 'host', 'index.js'))});`,
      '',
    ].join('\n'),
  );
  return file;
}

/** One run: workspace, window (on the shared server or its own), wait for the exit code, read the summary. */
async function runOne(run, host, session, { verbose }) {
  const started = Date.now();
  const root = tempDir(`twining-ws-${run.name}-`);
  const ws = run.layout === 'sync' ? makeSyncWorkspace(root) : makeWorkspace(root, run.layout, { node: host.node });
  const summaryFile = path.join(root, 'summary.json');
  const env = runEnv(run, ws, summaryFile);
  const logs = [];
  const installed = run.mode === 'installed';
  const result = { name: run.name, passed: 0, failed: 0, pending: 0, failures: [], seconds: 0 };
  let crashed = false; // no result from the test runner: the server's log may tell why
  let server;
  let wb;
  try {
    server = sharesServer(run)
      ? session.server
      : await startServer({
          name: `host-${run.name}`,
          host,
          workspaceOrFolderUri: ws.open,
          extensionDevelopmentPath: installed ? makeHarnessExtension(path.join(root, 'harness')) : REPO,
          installExtensions: installed ? [REPO] : [],
          disableWorkspaceTrust: run.trusted !== false,
          userSettings: run.settings,
          // Also in the server's environment: an installed extension reads TWINING_TEST_RUN when it activates, before the runner runs.
          env,
        });
    wb = await openWorkbench({
      server,
      browserWs: session.browserWs,
      workspaceOrFolderUri: ws.open,
      extensionDevelopmentPath: server.extensionDevelopmentPath,
      extensionTestsPath: writeRunner(root, run, env),
      onLog: (type, text) => {
        if (!verbose && NOISE.some(re => re.test(text))) return;
        const line = `[host:${run.name}] ${type === 'log' ? '' : `[${type}] `}${text}`;
        if (verbose) console.log(line);
        else logs.push(line);
      },
    });
    const code = await waitForExit(wb, RUN_TIMEOUT_MS);
    result.exitCode = code;

    let summary;
    try {
      summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    } catch {}
    if (summary) {
      result.passed = summary.passed;
      result.failed = summary.failed;
      result.pending = summary.pending || 0;
      result.failures = summary.failures || [];
      result.windowWithoutFolders = summary.windowWithoutFolders === true;
    }
    crashed = code === 'timeout' || !summary;
    if (code === 'timeout') {
      result.failed = Math.max(result.failed, 1);
      result.failures.push({ title: `run ${run.name}`, error: `no result within ${RUN_TIMEOUT_MS / 60000} min` });
    } else if (!summary) {
      result.failed = Math.max(result.failed, 1);
      result.failures.push({
        title: `run ${run.name}`,
        error: `the test runner wrote no summary (exit code ${code}); did out/host/index.js load? (build with: node esbuild.js --tests)`,
      });
    } else if (code !== 0 && result.failed === 0) {
      result.failed = 1;
      result.failures.push({ title: `run ${run.name}`, error: `the test runner's run() rejected (exit code ${code}) with no failed test` });
    }
  } catch (error) {
    crashed = true;
    result.failed = Math.max(result.failed, 1);
    result.failures.push({ title: `run ${run.name}`, error: error.stack || String(error) });
  } finally {
    if (wb) await wb.close();
    if (crashed && server) logs.push(`[host:${run.name}] server log (${server.logFile}):\n${indent(server.log().slice(-8000))}`);
    if (server && server !== session.server) await server.stop();
    if (!process.env.TWINING_KEEP_RUN) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
  result.seconds = (Date.now() - started) / 1000;
  if (result.failed > 0 && !verbose && logs.length) {
    console.log(`---- extension host console of run "${run.name}" ----`);
    for (const line of logs) console.log(line);
    console.log(`---- end of run "${run.name}" ----`);
  }
  for (const f of result.failures) console.log(`  FAIL [${run.name}] ${f.title}\n${indent(f.error, '      ')}`);
  console.log(
    `host run "${run.name}": ${result.passed} passed, ${result.failed} failed` +
      `${result.pending ? `, ${result.pending} skipped` : ''} (${result.seconds.toFixed(1)} s)`,
  );
  return result;
}

async function runHostTests({ runs: names = [], verbose = process.env.TWINING_TEST_VERBOSE === '1' } = {}) {
  const runner = path.join(REPO, 'out', 'host', 'index.js');
  if (!fs.existsSync(runner)) throw new Error(`${path.relative(REPO, runner)} is missing: build with \`node esbuild.js --tests\``);
  const unknown = names.filter(n => !RUNS.some(r => r.name === n));
  if (unknown.length) throw new Error(`unknown run(s): ${unknown.join(', ')} (known: ${RUNS.map(r => r.name).join(', ')})`);
  const selected = names.length ? RUNS.filter(r => names.includes(r.name)) : RUNS;
  const host = ensureHost();
  const session = await useSession(host, { server: selected.some(sharesServer) });
  const results = [];
  try {
    for (const run of selected) {
      let result = await runOne(run, host, session, { verbose });
      // Now and then a multi-root window on the shared server comes up without its folders, before
      // any test runs (the runner checks first, test/host/index.ts). That is the launch failing, not
      // a test: open the window once more, and say so. A second such window counts as a failure.
      if (result.windowWithoutFolders) {
        console.log(`host run "${run.name}": the window opened without its workspace folders; opening it once more`);
        result = await runOne(run, host, session, { verbose });
      }
      results.push(result);
    }
  } finally {
    await session.close();
  }
  const total = {
    passed: results.reduce((n, r) => n + r.passed, 0),
    failed: results.reduce((n, r) => n + r.failed, 0),
    pending: results.reduce((n, r) => n + r.pending, 0),
    runs: results,
    failures: results.flatMap(r => r.failures.map(f => ({ ...f, title: `[${r.name}] ${f.title}` }))),
  };
  return total;
}

module.exports = { runHostTests, RUNS };

if (require.main === module) {
  const args = parseArgs(process.argv.slice(2));
  runHostTests({ runs: args.runs })
    .then(total => {
      if (args.summary) fs.writeFileSync(args.summary, JSON.stringify(total, null, 2));
      console.log(`${total.passed} passed, ${total.failed} failed${total.pending ? `, ${total.pending} skipped` : ''}`);
      process.exit(total.failed > 0 ? 1 : 0);
    })
    .catch(error => {
      console.error(error.stack || String(error));
      if (args.summary) {
        fs.writeFileSync(args.summary, JSON.stringify({ passed: 0, failed: 1, failures: [{ title: 'host tests', error: String(error) }] }));
      }
      console.log('0 passed, 1 failed');
      process.exit(1);
    });
}
