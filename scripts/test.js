#!/usr/bin/env node
// `npm test`: installs the dependencies when needed, builds (extension + test bundles) and runs the
// suites, then prints per-suite counts and, as the very last line, `N passed, N failed`.
//
//   node scripts/test.js [lint] [unit] [host] [ui]      (default: all four)
//
//   lint  ESLint (typescript-eslint, eslint.config.mjs), Prettier --check (.prettierrc.json) and the webview's own typecheck:
//         one test each
//   unit  node's test runner on out/unit/*.test.js (TAP parsed: per-file lines, failures in full;
//         the raw TAP is kept in .test-output/unit/*.tap); sqlite-*.test.js under a Node with
//         node:sqlite (the host tools' Node 24 when this one has none)
//   host  the mocha suite inside a real VS Code extension host (scripts/run-host-tests.js), after
//         installing the host tool set once (scripts/setup-host.js)
//   ui    Playwright UI tests against the workbench (scripts/run-ui-tests.js)
//
// What runs at once (2 cores are enough): the host tool install (a child process) starts first,
// beside `npm ci` and the build; then two lanes:
//   checks  lint (beside the build: it reads only the sources), then unit, one file at a time
//           while the e2e lane runs, two after, longest first (their output is printed as a block
//           when each suite ends);
//   e2e     once built and the host tools are there: one VS Code server and one browser for the run
//           (scripts/e2e-session.js), shared by the host runs and the UI files, then host, then the
//           UI files; the UI files that rebuild dist/ (demo, package: EXCLUSIVE in
//           scripts/run-ui-tests.js) last, when nothing else uses dist/: the unit suite runs a copy
//           of it (out/dist, test/support/dist.ts).
//
// Exits non-zero when a test failed or a suite crashed (a crashed suite counts as 1 failed at
// least). Plain Node, no dependency: it runs before `npm ci`.
// TWINING_TEST_VERBOSE=1 prints every unit test line and the extension host's console.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');

const REPO = path.resolve(__dirname, '..');
const OUTPUT = path.join(REPO, '.test-output');
const VERBOSE = process.env.TWINING_TEST_VERBOSE === '1';
const SUITES = ['lint', 'unit', 'host', 'ui'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function banner(text) {
  console.log(`\n=== ${text} ===`);
}

function seconds(since) {
  return ((Date.now() - since) / 1000).toFixed(1);
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** `npm ci` when node_modules is missing or older than package-lock.json; true when it ran. */
function ensureDependencies() {
  const installed = mtime(path.join(REPO, 'node_modules', '.package-lock.json'));
  const lock = mtime(path.join(REPO, 'package-lock.json'));
  if (installed !== undefined && (lock === undefined || lock <= installed)) return false;
  banner(installed === undefined ? 'installing dependencies (npm ci)' : 'package-lock.json changed: npm ci');
  const started = Date.now();
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm ci failed (${r.error ? r.error.message : `exit code ${r.status}`})`);
  console.log(`npm ci took ${seconds(started)} s`);
  return true;
}

async function build() {
  banner('building (node esbuild.js --tests)');
  const started = Date.now();
  const code = await run(process.execPath, ['esbuild.js', '--tests']);
  if (code !== 0) throw new Error(`the build failed (${typeof code === 'string' ? code : `exit code ${code}`})`);
  removeStaleBundles();
  copyDistForUnit();
  console.log(`built in ${seconds(started)} s`);
}

/** The unit suite's own copy of dist/ (test/support/dist.ts): the UI files that rebuild dist/ run beside it. */
const UNIT_DIST = path.join(REPO, 'out', 'dist');

function copyDistForUnit() {
  fs.rmSync(UNIT_DIST, { recursive: true, force: true });
  fs.cpSync(path.join(REPO, 'dist'), UNIT_DIST, { recursive: true, filter: src => !src.endsWith('.vsix') });
}

/** Bundles esbuild.js puts beside the unit tests that are not tests (the search index's worker thread). */
const HELPERS = new Set(['record-worker']);

/**
 * Bundles in out/{unit,host,ui} whose test/…/*.ts is gone would still run: remove them. (Not the
 * whole folder before building: another run in the same work tree may be using it.)
 */
function removeStaleBundles() {
  for (const dir of ['unit', 'host', 'ui']) {
    const out = path.join(REPO, 'out', dir);
    if (!fs.existsSync(out)) continue;
    // out/unit is flat, built from test/unit/**/*.ts (folders that mirror src/) and test/support/*.ts.
    const sources =
      dir === 'unit'
        ? [...tsNames(path.join(REPO, 'test', 'unit')), ...tsNames(path.join(REPO, 'test', 'support'))]
        : tsNames(path.join(REPO, 'test', dir), false);
    const names = new Set(sources);
    for (const f of fs.readdirSync(out)) {
      const m = f.match(/^(.*)\.js(?:\.map)?$/);
      if (m && !HELPERS.has(m[1]) && !names.has(m[1])) fs.rmSync(path.join(out, f), { force: true });
    }
  }
}

/** The names (without .ts) of the TypeScript files in a folder, and in its subfolders when deep. */
function tsNames(dir, deep = true) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(d => {
    if (d.isDirectory()) return deep ? tsNames(path.join(dir, d.name)) : [];
    return d.name.endsWith('.ts') ? [d.name.slice(0, -3)] : [];
  });
}

/**
 * Where a suite's lines go: `streaming` prints them as they come, `buffered` keeps them until
 * flush() (a suite that runs beside another prints its lines as one block when it ends).
 */
function reporter(buffered = false) {
  const lines = [];
  return {
    buffered,
    log: text => (buffered ? lines.push(String(text)) : console.log(text)),
    write: chunk => (buffered ? lines.push(String(chunk).replace(/\n$/, '')) : process.stdout.write(chunk)),
    flush() {
      if (lines.length) console.log(lines.join('\n'));
      lines.length = 0;
    },
  };
}

/** The commands run() started that have not ended: a failed build ends the lint beside it. */
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill();
});

/** Runs a command, streaming its output (or into `out`, a buffered reporter); resolves with its exit code (or signal). */
function run(command, args, { out, ...options } = {}) {
  return new Promise(resolve => {
    const piped = out && out.buffered;
    const child = spawn(command, args, { cwd: REPO, stdio: piped ? ['ignore', 'pipe', 'pipe'] : 'inherit', ...options });
    running.add(child);
    if (piped) {
      child.stdout.on('data', d => out.write(d));
      child.stderr.on('data', d => out.write(d));
    }
    child.on('error', error => {
      running.delete(child);
      resolve(`error ${error.message}`);
    });
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(signal ? `signal ${signal}` : code);
    });
  });
}

// ------------------------------------------------------------------------------------------------
// unit: node --test, one process per file (two at a time), TAP parsed per file

/** Parses node's TAP: totals from the `# pass` / `# fail` lines, plus the failed leaf tests. */
function parseTap(tap) {
  const count = name => {
    const m = tap.match(new RegExp(`^# ${name} (\\d+)$`, 'm'));
    return m ? Number(m[1]) : undefined;
  };
  const lines = tap.split('\n');
  const names = []; // the `# Subtest:` names by depth
  const failures = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const sub = line.match(/^( *)# Subtest: (.*)$/);
    if (sub) {
      const depth = sub[1].length / 4;
      names.length = depth;
      names[depth] = sub[2];
      continue;
    }
    const m = line.match(/^( *)not ok \d+ - (.*?)(?: # (?:SKIP|TODO).*)?$/);
    if (!m) continue;
    const indent = m[1].length;
    const depth = indent / 4;
    const yaml = [];
    if ((lines[i + 1] || '').trim() === '---') {
      for (let j = i + 2; j < lines.length && lines[j].trim() !== '...'; j++) yaml.push(lines[j].slice(indent + 2));
    }
    const text = yaml.join('\n');
    if (/failureType: 'subtestsFailed'/.test(text)) continue; // a suite: its failed children are listed
    if (/^ *# (?:TODO)/.test(line)) continue;
    const title = [...names.slice(0, depth), m[2]].filter(Boolean).join(' › ');
    failures.push({ title, error: text.replace(/^duration_ms: .*\n?/m, '') });
  }
  return {
    passed: count('pass'),
    failed: count('fail'),
    cancelled: count('cancelled') || 0,
    skipped: (count('skipped') || 0) + (count('todo') || 0),
    failures,
  };
}

/** A sqlite-*.test.js file needs node:sqlite. */
const needsSqliteNode = file => /^sqlite-.*\.test\.js$/.test(path.basename(file));

/**
 * The Node that runs a unit test file: this one, except for `sqlite-*.test.js` (twining-mcp 2.x's
 * twining.db needs node:sqlite, Node 22.13+), which run under the Node 24 of the VS Code host tools,
 * located or installed as the host suite does (scripts/setup-host.js) when this Node has no node:sqlite.
 */
function nodeFor(file) {
  if (!needsSqliteNode(file)) return process.execPath;
  return require('./sqlite-node').sqliteNode();
}

function runTapFile(file, tapDir, out) {
  return new Promise(resolve => {
    const started = Date.now();
    // --test-force-exit: once its tests have ended (failed or timed out included), the file's process
    // exits even if a child process it started is still alive; without it node:test waits for
    // that child's pipes, and the whole run hangs at zero CPU after the failure is reported.
    const child = spawn(nodeFor(file), ['--enable-source-maps', '--test', '--test-force-exit', '--test-reporter=tap', file], {
      cwd: REPO,
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, TWINING_TEST_DIST: UNIT_DIST },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tap = '';
    child.stdout.on('data', d => {
      tap += d;
      if (VERBOSE) out.write(d);
    });
    child.stderr.on('data', d => {
      tap += d;
      if (VERBOSE) out.write(d);
    });
    child.on('exit', code => {
      const name = path.relative(REPO, file);
      fs.writeFileSync(path.join(tapDir, `${path.basename(file, '.js')}.tap`), tap);
      const r = parseTap(tap);
      const result = {
        name,
        code,
        seconds: seconds(started),
        passed: r.passed ?? 0,
        failed: (r.failed ?? 0) + r.cancelled,
        skipped: r.skipped,
        failures: r.failures,
      };
      if (r.passed === undefined || (code !== 0 && result.failed === 0)) {
        // No TAP totals (the runner crashed) or a non-zero exit with nothing failed.
        result.failed = Math.max(result.failed, 1);
        result.failures.push({ title: `${name} (exit code ${code})`, error: tap.split('\n').slice(-30).join('\n') });
      }
      resolve(result);
    });
  });
}

/**
 * The files that took longest in a quiet run (slowest first): the order of a run with no earlier
 * TAP in .test-output/unit (a fresh clone). They spawn many processes (git, the CLI, the MCP server).
 */
const SLOW_FIRST = ['worktrees', 'sync', 'hook', 'reliability', 'merge-property', 'git-merge', 'cli-contract', 'claim-race', 'who-is-where', 'background-sync'];

/**
 * Longest first, so that the files left when the end-to-end lane ends and two run at once are the
 * short ones: by each file's time in the last run (its TAP's `# duration_ms`), else by SLOW_FIRST.
 */
function longestFirst(files, tapDir) {
  const last = file => {
    try {
      const m = fs.readFileSync(path.join(tapDir, `${path.basename(file, '.js')}.tap`), 'utf8').match(/^# duration_ms ([\d.]+)$/m);
      return m ? Number(m[1]) : undefined;
    } catch {
      return undefined;
    }
  };
  const known = new Map(files.map(f => [f, last(f)]));
  const rank = f => SLOW_FIRST.indexOf(path.basename(f, '.test.js'));
  if ([...known.values()].every(d => d === undefined)) {
    const order = f => (rank(f) < 0 ? SLOW_FIRST.length : rank(f));
    return [...files].sort((a, b) => order(a) - order(b));
  }
  // A new file (no TAP yet) goes first: its time is unknown.
  return [...files].sort((a, b) => (known.get(b) ?? Infinity) - (known.get(a) ?? Infinity));
}

/**
 * node --test, one process per file, as many at once as there are cores, longest first. The
 * sqlite-*.test.js files come last and first wait for `hostTools` (a host tool install under way:
 * Node 24 is one of them).
 */
async function unitSuite({ out = reporter(), hostTools = Promise.resolve(), e2eRunning = () => false } = {}) {
  const dir = path.join(REPO, 'out', 'unit');
  const all = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter(f => f.endsWith('.test.js'))
        .sort()
        .map(f => path.join(dir, f))
    : [];
  if (all.length === 0) throw new Error('no unit test files in out/unit');
  const tapDir = path.join(OUTPUT, 'unit');
  const files = [
    ...longestFirst(
      all.filter(f => !needsSqliteNode(f)),
      tapDir,
    ),
    ...longestFirst(all.filter(needsSqliteNode), tapDir),
  ];
  fs.mkdirSync(tapDir, { recursive: true });
  const results = [];
  const queue = [...files];
  const workers = Array.from({ length: Math.min(files.length, Math.max(1, os.availableParallelism?.() ?? os.cpus().length)) }, async (_, i) => {
    while (queue.length) {
      // While the end-to-end suites run, one file at a time: their tests wait with timeouts, and a
      // host test timed out (20 s) when the unit files took both cores of a busy machine.
      while (i > 0 && queue.length && e2eRunning()) await new Promise(resolve => setTimeout(resolve, 500));
      if (!queue.length) break;
      const file = queue.shift();
      if (needsSqliteNode(file)) await hostTools;
      const r = await runTapFile(file, tapDir, out);
      results.push(r);
      const mark = r.failed ? 'FAIL' : 'ok  ';
      out.log(`${mark} ${r.name}: ${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''} (${r.seconds} s)`);
      for (const f of r.failures) out.log(`  ✘ ${f.title}\n${f.error.replace(/^/gm, '      ')}`);
    }
  });
  await Promise.all(workers);
  if (results.some(r => r.failed)) out.log(`(full TAP output: ${path.relative(REPO, tapDir)}/)`);
  return {
    passed: results.reduce((n, r) => n + r.passed, 0),
    failed: results.reduce((n, r) => n + r.failed, 0),
    skipped: results.reduce((n, r) => n + r.skipped, 0),
  };
}

// ------------------------------------------------------------------------------------------------
// host / ui: the scripts write a JSON summary

async function summarySuite(script, args = [], options = {}) {
  fs.mkdirSync(OUTPUT, { recursive: true });
  // One file per process: another run may be going on in the same work tree.
  const summaryFile = path.join(OUTPUT, `${path.basename(script, '.js')}.${process.pid}.summary.json`);
  fs.rmSync(summaryFile, { force: true });
  const code = await run(process.execPath, [path.join(__dirname, script), ...args, '--summary', summaryFile], options);
  let summary;
  try {
    summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  } catch {
    throw new Error(`${script} ended with ${code} and wrote no summary`);
  } finally {
    fs.rmSync(summaryFile, { force: true });
  }
  const result = { passed: summary.passed || 0, failed: summary.failed || 0, skipped: summary.pending || summary.skipped || 0 };
  if (code !== 0 && result.failed === 0) result.failed = 1;
  return result;
}

/**
 * Installs the host tool set (scripts/setup-host.js) in a child process, beside `npm ci`, the
 * build and the checks; resolves when it is done (rejects with its error when it failed). Nothing
 * to do (the tools in place) takes a fraction of a second.
 */
function installHostTools() {
  const started = Date.now();
  return run(process.execPath, [path.join(__dirname, 'setup-host.js')]).then(code => {
    if (code !== 0) {
      const error = new Error(`installing the host tools (scripts/setup-host.js) ended with ${code}; its output above says which step and how to retry`);
      error.name = 'SetupError';
      throw error;
    }
    return seconds(started);
  });
}

// ------------------------------------------------------------------------------------------------
// lint: ESLint and Prettier, each a test that passes or fails

async function lintSuite({ out = reporter() } = {}) {
  const checks = [
    // Every rule is an error but max-lines (a file of src/ over 400 lines), which ESLint prints as a warning.
    ['eslint', [path.join(REPO, 'node_modules', 'eslint', 'bin', 'eslint.js'), '.']],
    // Prettier's cache (node_modules/.cache/prettier) keys each file by its content and the options:
    // formatting is a pure function of both. (ESLint gets none: its type-aware rules read other files.)
    [
      'prettier --check',
      [path.join(REPO, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--check', '--cache', '--cache-strategy', 'content', '--log-level', 'warn', '.'],
    ],
    // The webview's code is typed without Node's and VS Code's declarations (src/webview/tsconfig.json).
    ['tsc -p src/webview', [path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(REPO, 'src', 'webview'), '--noEmit']],
  ];
  let passed = 0;
  let failed = 0;
  for (const [name, args] of checks) {
    const started = Date.now();
    const code = await run(process.execPath, args, { out });
    if (code === 0) passed++;
    else failed++;
    out.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${name} (${seconds(started)} s)`);
  }
  return { passed, failed, skipped: 0 };
}

/** One suite's result; a crash counts as 1 failed at least. */
async function runSuite(suite, fn, results) {
  const t = Date.now();
  let r;
  try {
    r = await fn();
  } catch (error) {
    // A failed install step says itself which step, its log and how to retry: no stack needed.
    console.error(`${suite}: crashed: ${error.name === 'SetupError' ? error.message : error.stack || error.message || error}`);
    r = { passed: 0, failed: 1, skipped: 0, crashed: true };
  }
  r.failed = r.crashed ? Math.max(1, r.failed) : r.failed;
  results[suite] = { suite, ...r, seconds: seconds(t) };
}

/**
 * The checks lane: lint (beside the build: it reads only the sources), then unit once the build is
 * done, each printed as one block when it ends (the e2e lane streams beside it; everything streams
 * with TWINING_TEST_VERBOSE=1).
 */
async function checksLane(selected, results, built, hostTools, e2eRunning) {
  for (const suite of ['lint', 'unit'].filter(s => selected.includes(s))) {
    if (suite === 'unit' && !(await built)) return;
    const out = reporter(!VERBOSE);
    await runSuite(suite, () => (suite === 'lint' ? lintSuite({ out }) : unitSuite({ out, hostTools, e2eRunning })), results);
    banner(`${suite} tests (${results[suite].seconds} s)`);
    out.flush();
  }
}

/**
 * The e2e lane: once the host tools are installed, one shared server and browser (scripts/e2e-session.js)
 * for the host runs, then the UI files, the ones that rebuild dist/ last.
 */
async function e2eLane(selected, results, built, hostTools, state) {
  const suites = ['host', 'ui'].filter(s => selected.includes(s));
  if (suites.length === 0 || !(await built)) return;
  const opened = hostTools.then(() => {
    state.running = true;
    return require('./e2e-session').openSession(require('./setup-host').ensureHost());
  });
  opened.catch(() => {}); // a failed install or start crashes each suite with the reason
  // The suite's banner (if named) once the session is there: the lane may wait minutes for the install.
  const options = async suite => {
    const session = await opened;
    if (suite) banner(`${suite} tests`);
    return { env: { ...process.env, ...session.env } };
  };
  try {
    if (suites.includes('host')) {
      await runSuite('host', async () => summarySuite('run-host-tests.js', [], await options('host')), results);
    }
    if (suites.includes('ui')) {
      await runSuite(
        'ui',
        async () => {
          const shared = await summarySuite('run-ui-tests.js', ['--not-exclusive'], await options('ui'));
          // Last: nothing after them uses dist/; the unit suite beside them runs its own copy (copyDistForUnit).
          console.log('ui: the files that rebuild dist/');
          const exclusive = await summarySuite('run-ui-tests.js', ['--exclusive'], await options());
          return { passed: shared.passed + exclusive.passed, failed: shared.failed + exclusive.failed, skipped: shared.skipped + exclusive.skipped };
        },
        results,
      );
    }
  } finally {
    const session = await opened.catch(() => undefined);
    if (session) await session.close();
    state.running = false;
  }
}

async function main() {
  const args = process.argv.slice(2);
  const unknown = args.filter(a => !SUITES.includes(a));
  if (unknown.length) {
    console.error(`unknown suite(s): ${unknown.join(', ')} (known: ${SUITES.join(', ')})`);
    console.log('0 passed, 1 failed');
    process.exit(2);
  }
  const selected = args.length ? SUITES.filter(s => args.includes(s)) : SUITES;
  const started = Date.now();
  const phases = [];
  // The host tools install beside npm ci and the build (setup-host.js needs neither).
  const hostTools = selected.some(s => s === 'host' || s === 'ui') ? installHostTools() : Promise.resolve();
  hostTools.then(
    s => s && phases.push(`host tools ${s} s`),
    () => {},
  );
  const results = {};
  const crashed = error => {
    console.error(`\n${error.message}`);
    console.log('\nbuild: crashed');
    console.log('0 passed, 1 failed');
    process.exit(1);
  };
  try {
    const t = Date.now();
    if (ensureDependencies()) phases.push(`npm ci ${seconds(t)} s`);
  } catch (error) {
    crashed(error);
  }
  const b = Date.now();
  // Resolves true once built; a failed build ends the run (and the lint begun beside it).
  const built = build().then(() => {
    phases.push(`build ${seconds(b)} s`);
    return true;
  }, crashed);
  // A failed install is reported by the suites that need it.
  hostTools.catch(() => {});
  const e2eState = { running: false }; // the unit suite takes one core while the e2e lane runs
  const checks = checksLane(
    selected,
    results,
    built,
    hostTools.catch(() => {}),
    () => e2eState.running,
  );
  const e2e = e2eLane(selected, results, built, hostTools, e2eState);
  await Promise.all([checks, e2e]);

  banner(
    `summary (${seconds(started)} s; ${phases.join(', ')}; load average ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')})`,
  );
  const ordered = SUITES.filter(s => results[s]).map(s => results[s]);
  for (const r of ordered) {
    console.log(
      `${r.suite.padEnd(5)} ${r.crashed ? 'CRASHED ' : ''}${r.passed} passed, ${r.failed} failed` +
        `${r.skipped ? `, ${r.skipped} skipped` : ''} (${r.seconds} s)`,
    );
  }
  const passed = ordered.reduce((n, r) => n + r.passed, 0);
  const failed = ordered.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch(error => {
  console.error(error.stack || String(error));
  console.log('0 passed, 1 failed');
  process.exit(1);
});
