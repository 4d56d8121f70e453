#!/usr/bin/env node
// `npm start`: builds the extension and opens it in a real VS Code (the VS Code server bundled in
// code-server) that you use from your browser, with this repository as the extension under
// development.
//
//   npm start                  opens .test-output/demo-workspace (a copy of the test fixture)
//   npm start -- FOLDER        opens FOLDER instead
//   npm start -- --reset       copies the fixture into the demo workspace afresh
//
// Environment: PORT (default 8765; another free port when it is taken); TWINING_NOW pins the
// extension's clock (the demo workspace pins it near the fixture's timestamps so that its agents
// show as active; set TWINING_NOW= to use the real time). Rebuild with `npm run build` (or keep
// `npm run watch` running) and run "Developer: Reload Window" in the browser to load changes.
// Stop with Ctrl+C: the server's whole process group is stopped.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { ensureHost } = require('./setup-host');
const { startServer } = require('./host-server');
const { REPO, TWINING_NOW, makeProject } = require('./workspace');

function ensureDependencies() {
  const installed = path.join(REPO, 'node_modules', '.package-lock.json');
  const lock = path.join(REPO, 'package-lock.json');
  const mtime = f => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : undefined);
  if (mtime(installed) !== undefined && !(mtime(lock) > mtime(installed))) return;
  console.log('installing dependencies (npm ci)...');
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm ci failed');
}

function build() {
  const r = spawnSync(process.execPath, ['esbuild.js'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('the build failed');
}

async function main() {
  const args = process.argv.slice(2);
  const reset = args.includes('--reset');
  const folderArg = args.find(a => !a.startsWith('--'));

  ensureDependencies();
  build();
  const host = ensureHost();

  let folder;
  const env = {};
  if (folderArg) {
    folder = path.resolve(folderArg);
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`not a folder: ${folder}`);
  } else {
    folder = path.join(REPO, '.test-output', 'demo-workspace');
    if (reset) fs.rmSync(folder, { recursive: true, force: true });
    makeProject(folder, { twining: !fs.existsSync(path.join(folder, '.twining')) });
    env.TWINING_NOW = TWINING_NOW;
  }
  if ('TWINING_NOW' in process.env) env.TWINING_NOW = process.env.TWINING_NOW;
  if (env.TWINING_NOW === '') delete env.TWINING_NOW;

  const server = await startServer({
    name: 'start',
    host,
    port: process.env.PORT || 8765,
    workspaceOrFolderUri: folder,
    extensionDevelopmentPath: REPO,
    // The URL's `payload` (which loads this repository as the extension under development) is
    // honoured only with --enable-smoke-test-driver: without it the workbench opens without the
    // extension (checked with VS Code 1.139 from code-server 4.139.1).
    smokeTestDriver: true,
    env,
    inheritOutput: process.env.TWINING_VERBOSE === '1',
  });
  const url = server.url();
  console.log('');
  console.log(`VS Code (${path.basename(host.codeServerDir)} ${require(path.join(host.codeServerDir, 'package.json')).version}) with Twining under development:`);
  console.log(`  workspace: ${folder}`);
  if (env.TWINING_NOW) console.log(`  clock pinned: TWINING_NOW=${env.TWINING_NOW}`);
  console.log(`  server log: ${server.logFile}`);
  console.log('');
  console.log(`Open in a browser:\n  ${url}`);
  console.log('');
  console.log('Press Ctrl+C to stop.');

  // Ctrl+C: host-server.js ends the server's process group and removes its run folder.
  // Keep running until a signal.
  setInterval(() => {}, 1 << 30);
}

main().catch(error => {
  console.error(error.message || error);
  process.exit(1);
});
