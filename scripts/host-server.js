// Starts the VS Code server bundled in code-server (a real VS Code 1.139 with a Node extension
// host) on a free loopback port, and opens its workbench in headless Chromium with playwright-core.
// Used by run-host-tests.js (extension host tests), run-ui-tests.js (Playwright UI tests) and
// start.js (npm start). Node built-ins only, except playwright-core for the browser part.
//
//   const server = await startServer({ workspaceOrFolderUri, extensionDevelopmentPath, env, userSettings });
//   const wb = await openWorkbench({ server, extensionTestsPath, onLog, onExit });
//   ... await wb.close(); await server.stop();
//
// One server serves several windows (each URL names its folder or workspace, and each window gets
// its own extension host), and one browser serves several workbenches, each in a fresh context (its
// own storage, as a fresh profile has). A test run starts both once (scripts/e2e-session.js) and
// hands them to its other processes: TWINING_SHARED_SERVER (see attachServer) and TWINING_BROWSER_WS.
'use strict';

const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');
const util = require('util');
const { spawn } = require('child_process');

const HOST = '127.0.0.1';
/** How long opening the workbench URL may take (the page's document, not the workbench in it). */
const GOTO_TIMEOUT_MS = 120_000;

/** User settings that keep a test window's start-up quiet and offline. */
const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.enableExperiments': false,
  'chat.disableAIFeatures': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.enabled': false,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
};

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A free TCP port on the loopback interface (or `preferred` when it is free). */
function freePort(preferred) {
  const tryPort = port =>
    new Promise((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', reject);
      srv.listen({ host: HOST, port }, () => {
        const { port: got } = srv.address();
        srv.close(() => resolve(got));
      });
    });
  if (preferred) return tryPort(Number(preferred)).catch(() => tryPort(0));
  return tryPort(0);
}

function httpAnswers(url) {
  return new Promise(resolve => {
    const req = http.get(url, res => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(2000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** Servers started by this process, stopped when it exits however it exits. */
const live = new Set();
let handlersInstalled = false;
function installExitHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const s of live) s.killNow();
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      for (const s of live) s.killNow();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/** `vscode-remote://127.0.0.1:PORT/abs/path`: a path on the server, as the workbench names it. */
function remoteUri(authority, p) {
  const abs = path.resolve(p).split(path.sep).map(encodeURIComponent).join('/');
  return `vscode-remote://${authority}${abs}`;
}

/**
 * Starts server-main.js in its own process group (detached: setsid) in a fresh run folder.
 * @param {object} o
 * @param {string} [o.workspaceOrFolderUri] the folder or `.code-workspace` file to open (a path,
 *   or a file:// URI); a path ending in `.code-workspace` opens as a multi-root workspace
 * @param {string} [o.extensionDevelopmentPath] the extension under development (a folder)
 * @param {Record<string,string>} [o.env] extra environment for the server and so the extension host
 * @param {object} [o.userSettings] merged over QUIET_SETTINGS; a key set to `undefined` or `null` is removed
 * @param {boolean} [o.disableWorkspaceTrust=true] pass --disable-workspace-trust
 * @param {boolean} [o.smokeTestDriver=true] pass --enable-smoke-test-driver (needed for the URL payload)
 * @param {{node: string, serverMain: string}} [o.host] from ensureHost(); computed when missing
 * @param {number|string} [o.port] preferred port (a free one is picked when it is taken)
 * @param {string} [o.runDir] the run folder (default: a fresh one under os.tmpdir())
 * @param {string} [o.name] a label for the run folder and log lines
 * @param {boolean} [o.inheritOutput=false] stream the server's output to this process's stdout
 * @param {string[]} [o.installExtensions] extension folders to install (symlinked into the
 *   extensions dir as `publisher.name-version`): loaded as ordinary installed extensions, so that
 *   workspace trust and the other enablement rules apply to them, unlike to an extension under
 *   development
 */
async function startServer(o = {}) {
  const host = o.host || require('./setup-host').ensureHost();
  const name = (o.name || 'host').replace(/[^\w.-]/g, '-');
  // Short paths under the temp folder: VS Code puts IPC sockets under TMPDIR / XDG_RUNTIME_DIR and
  // a Unix socket path may not be longer than 107 bytes.
  const runDir = o.runDir || fs.mkdtempSync(path.join(os.tmpdir(), `twining-${name}-`));
  const dirs = {
    udd: path.join(runDir, 'udd'),
    sdd: path.join(runDir, 'sdd'),
    exts: path.join(runDir, 'exts'),
    tmp: path.join(runDir, 'tmp'),
    xdgConfig: path.join(runDir, 'xdg', 'config'),
    xdgData: path.join(runDir, 'xdg', 'data'),
    xdgCache: path.join(runDir, 'xdg', 'cache'),
    xdgRuntime: path.join(runDir, 'xdg', 'run'),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true, mode: 0o700 });

  for (const ext of o.installExtensions || []) {
    const manifest = JSON.parse(fs.readFileSync(path.join(ext, 'package.json'), 'utf8'));
    const id = `${manifest.publisher}.${manifest.name}-${manifest.version}`.toLowerCase();
    fs.symlinkSync(path.resolve(ext), path.join(dirs.exts, id), 'dir');
  }

  const settings = { ...QUIET_SETTINGS, ...(o.userSettings || {}) };
  for (const [k, v] of Object.entries(settings)) if (v === undefined || v === null) delete settings[k];
  // The web workbench served by code-server's VS Code keeps the user settings on the server side.
  for (const dir of [path.join(dirs.udd, 'User'), path.join(dirs.sdd, 'User')]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
  }

  const port = await freePort(o.port);
  const authority = `${HOST}:${port}`;
  const args = [
    host.serverMain,
    '--host',
    HOST,
    '--port',
    String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--telemetry-level',
    'off',
    '--user-data-dir',
    dirs.udd,
    '--server-data-dir',
    dirs.sdd,
    '--extensions-dir',
    dirs.exts,
  ];
  if (o.smokeTestDriver !== false) args.push('--enable-smoke-test-driver');
  if (o.disableWorkspaceTrust !== false) args.push('--disable-workspace-trust');

  const env = {
    ...process.env,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: dirs.xdgCache,
    XDG_RUNTIME_DIR: dirs.xdgRuntime,
    VSCODE_CLI: undefined,
    ELECTRON_RUN_AS_NODE: undefined,
    ...(o.env || {}),
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  // Variables of an enclosing VS Code / npm would confuse the server; drop the VS Code ones.
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') && !(o.env && k in o.env)) delete env[k];

  const logFile = path.join(runDir, 'server.log');
  const logFd = fs.openSync(logFile, 'a');
  const child = spawn(host.node, args, {
    cwd: runDir,
    env,
    detached: true, // setsid: its own process group, so that stop() ends the watcher and extension host too
    stdio: ['ignore', o.inheritOutput ? 'inherit' : logFd, o.inheritOutput ? 'inherit' : logFd],
  });
  fs.closeSync(logFd);
  const pid = child.pid;
  let exited = false;
  const exitPromise = new Promise(resolve =>
    child.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    }),
  );

  const killGroup = signal => {
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  };

  const server = {
    name,
    pid,
    port,
    authority,
    baseUrl: `http://${authority}`,
    runDir,
    logFile,
    dirs,
    workspaceOrFolderUri: o.workspaceOrFolderUri,
    extensionDevelopmentPath: o.extensionDevelopmentPath,
    remoteUri: p => remoteUri(authority, p),
    /** The workbench URL; `extensionTestsPath` adds the test runner module to the payload. */
    url(extra = {}) {
      return workbenchUrl(server, extra);
    },
    log() {
      return readLog(logFile);
    },
    /** What another process needs to open windows on this server (see attachServer). */
    info() {
      return { name, port, runDir, logFile, dirs, extensionDevelopmentPath: o.extensionDevelopmentPath };
    },
    /** Synchronous stop for exit and signal handlers: SIGKILL to the group, remove the run folder. */
    killNow() {
      killGroup('SIGKILL');
      live.delete(server);
      // Wait (up to 3 s) until the group is gone, so that nothing writes into the folder we remove.
      const until = Date.now() + 3000;
      while (Date.now() < until && killGroup(0)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      if (!process.env.TWINING_KEEP_RUN && !o.runDir) {
        try {
          fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
        } catch {}
      }
    },
    /** Stops the whole process group; removes the run folder unless `keep`. */
    async stop({ keep = !!process.env.TWINING_KEEP_RUN } = {}) {
      live.delete(server);
      if (killGroup('SIGTERM')) {
        const deadline = Date.now() + 5000;
        // The group may outlive the leader: wait until no member is left, then SIGKILL.
        while (Date.now() < deadline && killGroup(0)) await sleep(100);
        killGroup('SIGKILL');
      }
      await Promise.race([exitPromise, sleep(2000)]);
      if (!keep && !o.runDir) fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  live.add(server);
  installExitHandlers();

  const deadline = Date.now() + 60_000;
  while (!(await httpAnswers(`${server.baseUrl}/version`))) {
    if (exited) {
      live.delete(server);
      throw new Error(`VS Code server exited before answering HTTP:\n${server.log()}`);
    }
    if (Date.now() > deadline) {
      await server.stop({ keep: true });
      throw new Error(`VS Code server did not answer HTTP within 60 s (log: ${logFile}):\n${server.log()}`);
    }
    await sleep(200);
  }
  return server;
}

function readLog(logFile) {
  try {
    return fs.readFileSync(logFile, 'utf8');
  } catch {
    return '';
  }
}

/**
 * A server that another process started and owns (its `info()`, e.g. from TWINING_SHARED_SERVER):
 * the same `url()`, `remoteUri()` and `log()`; `stop()` leaves it running for its owner.
 * @param {{ name: string, port: number, runDir: string, logFile: string, dirs: Record<string, string>, extensionDevelopmentPath?: string }} info
 */
function attachServer(info) {
  const authority = `${HOST}:${info.port}`;
  const server = {
    ...info,
    shared: true,
    authority,
    baseUrl: `http://${authority}`,
    remoteUri: p => remoteUri(authority, p),
    url: (extra = {}) => workbenchUrl(server, extra),
    log: () => readLog(info.logFile),
    async stop() {},
  };
  return server;
}

/**
 * The URL that opens the workbench on the server's folder/workspace, with the smoke-test
 * `payload` naming the extension under development (and the test runner module).
 */
function workbenchUrl(server, { workspaceOrFolderUri, extensionDevelopmentPath, extensionTestsPath } = {}) {
  const target = workspaceOrFolderUri || server.workspaceOrFolderUri;
  const devPath = extensionDevelopmentPath || server.extensionDevelopmentPath;
  const query = [];
  if (target) {
    const abs = target.startsWith('file://') ? new URL(target).pathname : path.resolve(target);
    query.push(`${abs.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(abs)}`);
  }
  const payload = [];
  if (devPath) payload.push(['extensionDevelopmentPath', server.remoteUri(devPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', server.remoteUri(extensionTestsPath)]);
  if (payload.length) query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  return `${server.baseUrl}/${query.length ? `?${query.join('&')}` : ''}`;
}

/**
 * Starts one headless Chromium for several workbenches (playwright-core's browser server): each
 * opens a fresh context in it (launchBrowser with `browserWs`, or TWINING_BROWSER_WS), from this
 * process or another one. `close()` ends it.
 */
async function launchSharedBrowser({ chromium: executablePath = '/usr/bin/chromium' } = {}) {
  const { chromium } = require('playwright-core');
  const browserServer = await chromium.launchServer({ executablePath, headless: true, args: CHROMIUM_ARGS });
  return { wsEndpoint: browserServer.wsEndpoint(), close: () => browserServer.close().catch(() => {}) };
}

/**
 * A fresh context (no cookies, storage or service workers of another one) in the shared browser at
 * `browserWs`. Its `close()` first leaves the workbench (about:blank), so that the workbench shuts
 * its extension host down as a closed window does, then closes the context.
 */
async function sharedBrowserContext(browserWs, viewport) {
  const { chromium } = require('playwright-core');
  const browser = await chromium.connect(browserWs);
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  return {
    context,
    page,
    async close() {
      await page.goto('about:blank', { timeout: 15_000 }).catch(() => {});
      await context.close().catch(() => {});
      await browser.close().catch(() => {}); // disconnects; the browser stays for the others
    },
  };
}

/**
 * Launches headless Chromium with a fresh profile (playwright-core, Debian's /usr/bin/chromium), or,
 * with `browserWs` (default: TWINING_BROWSER_WS), opens a fresh context in that shared browser.
 */
async function launchBrowser({
  profileDir,
  chromium: executablePath = '/usr/bin/chromium',
  viewport = { width: 1400, height: 900 },
  browserWs = process.env.TWINING_BROWSER_WS,
} = {}) {
  if (browserWs) return sharedBrowserContext(browserWs, viewport);
  const { chromium } = require('playwright-core');
  const profile = profileDir || fs.mkdtempSync(path.join(os.tmpdir(), 'twining-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  const page = context.pages()[0] || (await context.newPage());
  return {
    context,
    page,
    profile,
    async close() {
      await context.close().catch(() => {});
      if (!profileDir) fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the workbench of `server` in headless Chromium (a fresh context of the shared one at
 * `browserWs` or TWINING_BROWSER_WS when given). Exposes `codeAutomationLog` (the extension
 * host's console, handed to `onLog(type, text)`; default: stdout with a prefix) and
 * `codeAutomationExit` (resolves `exited` with the code: 0 when the test runner's run() resolved).
 */
async function openWorkbench({
  server,
  extensionTestsPath,
  workspaceOrFolderUri,
  extensionDevelopmentPath,
  onLog,
  prefix,
  viewport,
  chromium,
  browserWs,
} = {}) {
  // A fresh profile per window, removed when it closes (several windows may share a server).
  const browser = await launchBrowser({ viewport, chromium, ...(browserWs ? { browserWs } : {}) });
  const { page } = browser;
  const tag = prefix || `[${server.name}]`;
  const log = onLog || ((type, text) => console.log(`${tag} [${type}] ${text}`));
  let finish;
  const exited = new Promise(resolve => (finish = resolve));
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    let text;
    try {
      text = util.format(...(Array.isArray(args) ? args : [args]));
    } catch {
      text = String(args);
    }
    log(type, text);
  });
  await page.exposeFunction('codeAutomationExit', code => finish(code));
  const url = workbenchUrl(server, { workspaceOrFolderUri, extensionDevelopmentPath, extensionTestsPath });
  // Only until the document is there: the workbench's own readiness is waited for by the caller
  // (the test runner's exit, a view). Playwright's default (the "load" event within 30 s) failed
  // on the shared 2-core machine under a load average of 25 while the workbench came up fine.
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: GOTO_TIMEOUT_MS });
  return { ...browser, url, exited };
}

/** Waits for the test runner's exit code, or 'timeout' after `ms`. */
async function waitForExit(workbench, ms) {
  let timer;
  const code = await Promise.race([workbench.exited, new Promise(resolve => (timer = setTimeout(() => resolve('timeout'), ms)))]);
  clearTimeout(timer);
  return code;
}

module.exports = {
  GOTO_TIMEOUT_MS,
  waitForExit,
  startServer,
  attachServer,
  openWorkbench,
  launchBrowser,
  launchSharedBrowser,
  sharedBrowserContext,
  workbenchUrl,
  remoteUri,
  freePort,
  QUIET_SETTINGS,
  CHROMIUM_ARGS,
};
