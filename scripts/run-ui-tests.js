#!/usr/bin/env node
// Runs the Playwright UI tests (out/ui/*.test.js, built by `node esbuild.js --tests`) against the
// real VS Code workbench: prepares a workspace (the fixture as `.twining` + a few source files),
// starts the VS Code server with this repository as the extension under development, and runs
// each UI test file as a child process with the workbench URL in its environment (see
// test/ui/ui.test.ts). Builds nothing itself.
//
//   node scripts/run-ui-tests.js [--summary FILE]
//
// Screenshots go to .test-output/screenshots/. TWINING_TEST_VERBOSE=1 echoes the extension host's
// console; TWINING_KEEP_RUN=1 keeps the run folders.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { ensureHost } = require('./setup-host');
const { startServer } = require('./host-server');
const { REPO, TWINING_NOW, makeWorkspace, tempDir } = require('./workspace');

const FILE_TIMEOUT_MS = 10 * 60 * 1000;

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

async function runUiTests() {
  const dir = path.join(REPO, 'out', 'ui');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter(f => f.endsWith('.test.js')).sort() : [];
  if (files.length === 0) throw new Error('no out/ui/*.test.js: build with `node esbuild.js --tests`');
  const host = ensureHost();
  const screenshots = path.join(REPO, '.test-output', 'screenshots');
  fs.mkdirSync(screenshots, { recursive: true });
  const total = { passed: 0, failed: 0, skipped: 0, failures: [] };

  for (const f of files) {
    const started = Date.now();
    const root = tempDir('twining-ui-');
    const ws = makeWorkspace(root, 'folder');
    const summaryFile = path.join(root, 'summary.json');
    let server;
    let crashed = false; // no summary from the test file: the server's log may tell why
    try {
      server = await startServer({
        name: 'ui',
        host,
        workspaceOrFolderUri: ws.open,
        extensionDevelopmentPath: REPO,
        env: { TWINING_NOW },
      });
      console.log(`ui: ${f} (workbench ${server.baseUrl})`);
      const code = await runChild(path.join(dir, f), {
        TWINING_UI_URL: server.url(),
        TWINING_UI_WORKSPACE: ws.folders[0],
        TWINING_UI_CHROMIUM: host.chromium,
        TWINING_TEST_SUMMARY: summaryFile,
        TWINING_SCREENSHOTS: screenshots,
      });
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
        await server.stop();
      }
      if (!process.env.TWINING_KEEP_RUN) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    }
    console.log(`ui: ${f} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return total;
}

module.exports = { runUiTests };

if (require.main === module) {
  const i = process.argv.indexOf('--summary');
  const summaryArg = i >= 0 ? process.argv[i + 1] : undefined;
  runUiTests()
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
