// The end-to-end session of a test run: one VS Code server and one headless Chromium, started once
// and shared by the host runs (scripts/run-host-tests.js) and the UI files (scripts/run-ui-tests.js)
// whose server options are the shared ones. Each of them still gets a fresh workspace, its own
// window on the server (and so its own extension host) and a fresh browser context (its own
// storage). What needs other server options (workspace trust on, the extension installed rather
// than under development, other user settings or extensions) starts a server of its own.
//
// scripts/test.js opens the session and hands it to the suites' processes in the environment
// (SESSION_ENV); a suite run on its own opens one itself.
'use strict';

const { startServer, attachServer, launchSharedBrowser } = require('./host-server');
const { REPO, TWINING_NOW } = require('./workspace');

/** The environment variables that hand a session to another process. */
const SESSION_ENV = ['TWINING_SHARED_SERVER', 'TWINING_BROWSER_WS'];

/** The shared server's options: the workspace trusted, this repository as the extension under development, the pinned clock. */
const SHARED_SERVER = { extensionDevelopmentPath: REPO, disableWorkspaceTrust: true, env: { TWINING_NOW } };

/**
 * Starts the shared browser and (unless `server: false`: no window needs it) the shared server.
 * `close()` stops both.
 * @param {{ node: string, serverMain: string, chromium: string }} host from ensureHost()
 */
async function openSession(host, { server: withServer = true } = {}) {
  const started = Date.now();
  const browser = await launchSharedBrowser({ chromium: host.chromium });
  let server;
  try {
    if (withServer) server = await startServer({ name: 'shared', host, ...SHARED_SERVER });
  } catch (error) {
    await browser.close();
    throw error;
  }
  const what = server ? `one VS Code server (${server.baseUrl}) and one browser` : 'one browser';
  console.log(`e2e session: ${what}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return {
    server,
    browserWs: browser.wsEndpoint,
    env: { ...(server ? { TWINING_SHARED_SERVER: JSON.stringify(server.info()) } : {}), TWINING_BROWSER_WS: browser.wsEndpoint },
    async close() {
      if (server) await server.stop();
      await browser.close();
    },
  };
}

/** The session another process opened and handed over in `env`, or undefined. Its `close()` leaves it running. */
function sessionFromEnv(env = process.env, { server: withServer = true } = {}) {
  if ((withServer && !env.TWINING_SHARED_SERVER) || !env.TWINING_BROWSER_WS) return undefined;
  return {
    server: env.TWINING_SHARED_SERVER ? attachServer(JSON.parse(env.TWINING_SHARED_SERVER)) : undefined,
    browserWs: env.TWINING_BROWSER_WS,
    env: Object.fromEntries(SESSION_ENV.map(k => [k, env[k]])),
    async close() {},
  };
}

/** The session handed to this process, or a new one of its own (`server: false`: only the browser is needed). */
async function useSession(host, options = {}) {
  return sessionFromEnv(process.env, options) || openSession(host, options);
}

module.exports = { SESSION_ENV, SHARED_SERVER, openSession, sessionFromEnv, useSession };
