#!/usr/bin/env node
// `npm start`: installs what is missing, builds the extension, prepares the demo workspace and
// opens it in a real VS Code (the VS Code server bundled in code-server) that you use from your
// browser, with this repository as the extension under development. Prints the address.
//
//   npm start                  the demo: a sample project whose .twining/ tells a team's story
//                              (scripts/demo.js), written on first use, relative to that moment
//   npm start -- --reset       writes the demo afresh (times are relative to now again)
//   npm start -- FOLDER        opens FOLDER instead
//
// The extension runs on the real clock. Environment: PORT (default 8765; another free port when it
// is taken), TWINING_DEMO_DIR (where the demo lives; default .test-output/demo-workspace),
// TWINING_VERBOSE=1 (the server's output). Rebuild with `npm run build` (or keep `npm run watch`
// running) and run "Developer: Reload Window" in the browser to load changes.
// Ctrl+C stops the server's whole process group (the file watcher and extension host with it).
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { ensureHost } = require('./setup-host');
const { startServer } = require('./host-server');
const { prepareDemo } = require('./demo');
const { prepareSyncDemo, teammatePosts } = require('./demo-sync');

const REPO = path.resolve(__dirname, '..');

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

/** The demo workspace: written when missing or with --reset, else reused as it is. */
async function demoFolder(reset) {
  const folder = path.resolve(process.env.TWINING_DEMO_DIR || path.join(REPO, '.test-output', 'demo-workspace'));
  const marker = `${folder}.prepared.json`;
  let prepared;
  try {
    prepared = JSON.parse(fs.readFileSync(marker, 'utf8'));
  } catch {}
  if (reset || !prepared || !fs.existsSync(path.join(folder, '.twining'))) {
    if (reset || !prepared) fs.rmSync(folder, { recursive: true, force: true });
    const demo = await prepareDemo(folder);
    prepareSyncDemo(folder);
    fs.writeFileSync(marker, JSON.stringify({ at: new Date().toISOString(), agentId: demo.agentId }, null, 2) + '\n');
    console.log(`demo workspace written (you are ${demo.agentId}; a handoff waits for you)`);
  } else {
    const minutes = Math.round((Date.now() - Date.parse(prepared.at)) / 60000);
    console.log(`demo workspace from ${minutes} min ago (its agents and delegations age with the clock; \`npm start -- --reset\` writes it afresh)`);
  }
  return folder;
}

async function main() {
  const args = process.argv.slice(2);
  const reset = args.includes('--reset');
  const folderArg = args.find(a => !a.startsWith('--'));

  ensureDependencies();
  build();
  const host = ensureHost();

  let folder;
  if (folderArg) {
    folder = path.resolve(folderArg);
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`not a folder: ${folder}`);
  } else {
    folder = await demoFolder(reset);
  }

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
    inheritOutput: process.env.TWINING_VERBOSE === '1',
  });
  const url = server.url();
  console.log('');
  console.log(
    `VS Code (${path.basename(host.codeServerDir)} ${require(path.join(host.codeServerDir, 'package.json')).version}) with Twining under development:`,
  );
  console.log(`  workspace: ${folder}`);
  if (process.env.TWINING_NOW) console.log(`  clock pinned: TWINING_NOW=${process.env.TWINING_NOW}`);
  console.log(`  server log: ${server.logFile}`);
  console.log('');
  console.log(`Open in a browser:\n  ${url}`);
  console.log('');
  console.log('Press Ctrl+C to stop.');

  // The demo's second clone (scripts/demo-sync.js) posts and syncs now and then, as a teammate's
  // machine would: the window's background sync brings it in (a warning shows as a notification).
  const teammate = `${folder}.teammate`;
  if (!folderArg && fs.existsSync(teammate)) {
    console.log(`Sync: the demo syncs through ${folder}.remote.git; a teammate's clone (${teammate}) posts and syncs every 3 minutes, the first in 40 s.`);
    let n = 0;
    const post = () => {
      try {
        teammatePosts(teammate, n++);
      } catch (error) {
        console.error(`the teammate's clone could not post and sync: ${error.message}`);
      }
    };
    setTimeout(post, 40_000).unref();
    setInterval(post, 180_000).unref();
  }

  // Ctrl+C: host-server.js ends the server's process group and removes its run folder.
  // Keep running until a signal.
  setInterval(() => {}, 1 << 30);
}

main().catch(error => {
  console.error(error.message || error);
  process.exit(1);
});
