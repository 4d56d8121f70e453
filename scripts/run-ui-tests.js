#!/usr/bin/env node
// Runs the Playwright UI tests (out/ui/*.test.js, built by `node esbuild.js --tests`) against the
// real VS Code workbench: prepares a workspace (the fixture as `.twining` + a few source files),
// opens a window on the test run's shared VS Code server (this repository as the extension under
// development; scripts/e2e-session.js), and runs each UI test file as a child process with the
// workbench URL in its environment (see test/ui/ui.test.ts). Every file opens its workbench in a
// fresh context of the shared browser (TWINING_BROWSER_WS). Files in SERVER_OPTIONS start a server
// of their own with those options. Files in SELF_SERVED start their server themselves, as a user would
// (test/ui/demo.test.ts runs `npm start`'s script, test/ui/package.test.ts the installed .vsix). Builds nothing itself.
//
//   node scripts/run-ui-tests.js [NAME...] [--exclusive | --not-exclusive] [--screenshots DIR] [--summary FILE]
//
// NAME runs only test/ui/NAME.test.ts. --exclusive runs only the files of EXCLUSIVE,
// --not-exclusive all the others (scripts/test.js runs the others beside the unit suite). --screenshots DIR: the demo test saves the README's
// pictures there (`npm run screenshots`). Other screenshots go to .test-output/screenshots/. TWINING_TEST_VERBOSE=1 echoes the extension host's
// console; TWINING_KEEP_RUN=1 keeps the run folders.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { ensureHost } = require('./setup-host');
const { startServer } = require('./host-server');
const { useSession } = require('./e2e-session');
const { REPO, TWINING_NOW, makeWorkspace, tempDir } = require('./workspace');

const FILE_TIMEOUT_MS = 10 * 60 * 1000;
/** Test files that start their own server (the demo through scripts/start.js; the installed .vsix). */
const SELF_SERVED = new Set(['demo.test.js', 'package.test.js']);
/**
 * Test files that rebuild dist/ (npm start's script builds it; `npm run package` builds it for
 * production, then the test builds it again): nothing else may use dist/ meanwhile.
 */
const EXCLUSIVE = new Set(['demo.test.js', 'package.test.js']);
/** The agent id of the person in the chat UI test (so that another process can address handoffs to them). */
const CHAT_AGENT_ID = 'ui-person';
/**
 * Server options of particular files. The chat view needs AI features on (no chat.disableAIFeatures)
 * and a language model: the test-only one in test/ui/fake-lm, installed beside the extension.
 */
const SERVER_OPTIONS = {
  'chat.test.js': {
    installExtensions: [path.join(REPO, 'test', 'ui', 'fake-lm')],
    userSettings: { 'chat.disableAIFeatures': null, 'twining.agentId': CHAT_AGENT_ID },
    env: { TWINING_UI_AGENT_ID: CHAT_AGENT_ID },
  },
  // A newcomer's first run: a project without .twining/, on the real clock.
  'walkthrough.test.js': { layout: 'empty', realClock: true },
};

function runChild(file, env) {
  return new Promise(resolve => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], { cwd: REPO, env: { ...process.env, ...env }, stdio: 'inherit' });
    const timer = setTimeout(() => child.kill('SIGKILL'), FILE_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal ? `signal ${signal}` : code);
    });
  });
}

async function runUiTests({ only = [], exclusive, screenshotsOut } = {}) {
  const dir = path.join(REPO, 'out', 'ui');
  const all = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter(f => f.endsWith('.test.js'))
        .sort()
    : [];
  const files = (only.length ? all.filter(f => only.includes(f.replace(/\.test\.js$/, ''))) : all).filter(
    f => exclusive === undefined || EXCLUSIVE.has(f) === exclusive,
  );
  if (files.length === 0 && exclusive !== undefined) return { passed: 0, failed: 0, skipped: 0, failures: [] };
  if (files.length === 0) throw new Error(`no out/ui/${only.length ? `{${only.join(',')}}` : '*'}.test.js: build with \`node esbuild.js --tests\``);
  const host = ensureHost();
  const screenshots = path.join(REPO, '.test-output', 'screenshots');
  fs.mkdirSync(screenshots, { recursive: true });
  const total = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const session = await useSession(host, { server: files.some(f => !SELF_SERVED.has(f) && !SERVER_OPTIONS[f]) });
  try {
    for (const f of files) await runFile(f);
  } finally {
    await session.close();
  }
  return total;

  async function runFile(f) {
    const started = Date.now();
    const root = tempDir('twining-ui-');
    const ws = makeWorkspace(root, (SERVER_OPTIONS[f] || {}).layout || 'folder');
    const summaryFile = path.join(root, 'summary.json');
    let server;
    let crashed = false; // no summary from the test file: the server's log may tell why
    try {
      const env = { ...session.env, TWINING_TEST_SUMMARY: summaryFile, TWINING_SCREENSHOTS: screenshots, TWINING_UI_CHROMIUM: host.chromium };
      if (screenshotsOut) env.TWINING_SCREENSHOTS_OUT = path.resolve(screenshotsOut);
      if (SELF_SERVED.has(f)) {
        console.log(`ui: ${f}`);
      } else {
        const extra = SERVER_OPTIONS[f];
        server = extra
          ? await startServer({
              name: 'ui',
              host,
              workspaceOrFolderUri: ws.open,
              extensionDevelopmentPath: REPO,
              env: extra.realClock ? {} : { TWINING_NOW },
              ...(extra.installExtensions ? { installExtensions: extra.installExtensions } : {}),
              ...(extra.userSettings ? { userSettings: extra.userSettings } : {}),
            })
          : session.server;
        Object.assign(env, extra?.env || {});
        console.log(`ui: ${f} (workbench ${server.baseUrl}${extra ? ', a server of its own' : ''})`);
        Object.assign(env, { TWINING_UI_URL: server.url({ workspaceOrFolderUri: ws.open }), TWINING_UI_WORKSPACE: ws.folders[0] });
        // The server's per-user configuration folder: a hook the workbench's host would run sees this one.
        env.TWINING_UI_CONFIG_HOME = server.dirs.xdgConfig;
        // Its run folder: the workspace storage the extension keeps state in is under it.
        env.TWINING_UI_SERVER_DIR = server.runDir;
      }
      const code = await runChild(path.join(dir, f), env);
      let summary;
      try {
        summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
      } catch {}
      if (summary) {
        total.passed += summary.passed;
        total.failed += summary.failed;
        total.skipped += summary.skipped || 0;
        total.failures.push(...summary.failures.map(x => ({ ...x, title: `[${f}] ${x.title}` })));
      }
      if (!summary || (code !== 0 && summary.failed === 0)) {
        crashed = true;
        total.failed++;
        total.failures.push({ title: f, error: `ended with ${code} and ${summary ? 'no failed step' : 'no summary'}` });
      }
    } catch (error) {
      crashed = true;
      total.failed++;
      total.failures.push({ title: f, error: error.stack || String(error) });
      console.log(`✘ ${f}: ${error.stack || error}`);
    } finally {
      if (server) {
        if (crashed) console.log(`---- server log (last lines) ----\n${server.log().slice(-4000)}\n---- end ----`);
        if (server !== session.server) await server.stop();
      }
      if (!process.env.TWINING_KEEP_RUN) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    }
    console.log(`ui: ${f} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

module.exports = { runUiTests };

if (require.main === module) {
  const args = process.argv.slice(2);
  const option = name => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const summaryArg = option('--summary');
  const screenshotsOut = option('--screenshots');
  const only = args.filter((a, i) => !a.startsWith('--') && !['--summary', '--screenshots'].includes(args[i - 1]));
  const exclusive = args.includes('--exclusive') ? true : args.includes('--not-exclusive') ? false : undefined;
  runUiTests({ only, exclusive, screenshotsOut })
    .then(total => {
      if (summaryArg) fs.writeFileSync(summaryArg, JSON.stringify(total, null, 2));
      for (const f of total.failures) console.log(`  FAIL [ui] ${f.title}`);
      console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
      process.exit(total.failed > 0 ? 1 : 0);
    })
    .catch(error => {
      console.error(error.stack || String(error));
      if (summaryArg) fs.writeFileSync(summaryArg, JSON.stringify({ passed: 0, failed: 1, failures: [{ title: 'ui tests', error: String(error) }] }));
      console.log('0 passed, 1 failed');
      process.exit(1);
    });
}
