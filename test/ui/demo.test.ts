// The demo as a user meets it: starts `node scripts/start.js --reset` (what `npm start -- --reset`
// runs) with the demo in a temporary folder (TWINING_DEMO_DIR) and a free port, opens the address
// it prints in headless Chromium and reads the views of the real workbench: agents in all three
// liveness states, the Expired group, the handoff for the user marked and counted in the status
// bar, the drift of the drifted handoff, and Create Handoff's scope step. Then Ctrl-C (SIGINT) and
// a look at the process table: nothing of the server may be left.
// Run by scripts/run-ui-tests.js without a server of its own (the test starts one the user's way).
// With TWINING_SCREENSHOTS_OUT=DIR (`npm run screenshots`) the pictures of the README go to DIR.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ChildProcess, execFileSync, spawn } from 'child_process';
import {
  Workbench,
  closeQuickInput,
  expandPane,
  expandRow,
  launchWorkbench,
  openFile,
  openViewContainer,
  pane,
  pickQuickItem,
  runCommand,
  screenshot,
  showOnlyPane,
  sleep,
  stableQuickInputState,
  waitForRows,
  waitForWorkbench,
} from './workbench';
import { page, runSteps, step, useWorkbench } from './steps';

const REPO = path.resolve(__dirname, '..', '..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-demo-'));
const demoDir = path.join(root, 'orbit-shop');
const shotsOut = process.env.TWINING_SCREENSHOTS_OUT;

let start: ChildProcess | undefined;
let wb: Workbench | undefined;
let output = '';
let started: { url: string; runDir: string } | undefined;

const has = (rows: string[], ...parts: string[]) => rows.some(r => parts.every(p => r.includes(p)));

/** `npm start`'s script as a child process; resolves with the address and run folder it prints. */
function startDemo(timeoutMs: number): Promise<{ url: string; runDir: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TWINING_DEMO_DIR: demoDir, PORT: '0' };
  delete env.TWINING_NOW; // the demo runs on the real clock
  const child = spawn(process.execPath, [path.join(REPO, 'scripts', 'start.js'), '--reset'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  start = child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address within ${timeoutMs / 1000} s; output:\n${output}`)), timeoutMs);
    const onData = (d: Buffer) => {
      output += d.toString();
      const url = output.match(/Open in a browser:\s*\n\s*(http:\/\/\S+)/);
      const log = output.match(/server log: (\S+)[\\/]server\.log/);
      if (url && log) {
        clearTimeout(timer);
        resolve({ url: url[1], runDir: log[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`scripts/start.js ended (${signal || code}) before printing the address:\n${output}`));
    });
  });
}

/** `pid pgid args` of every process. */
function processTable(): { pid: number; pgid: number; line: string }[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map(line => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => !!m)
    .map(m => ({ pid: Number(m[1]), pgid: Number(m[2]), line: m[0] }));
}

/** The server's processes: those naming the run folder, and every member of their process groups. */
function serverProcesses(runDir: string, groups = new Set<number>()): { groups: Set<number>; lines: string[] } {
  const table = processTable();
  for (const p of table) if (p.line.includes(runDir) && p.pid !== process.pid) groups.add(p.pgid);
  return { groups, lines: table.filter(p => groups.has(p.pgid) || p.line.includes(runDir)).map(p => p.line) };
}

/** The PNG for the README when `npm run screenshots` asked for it (always one in .test-output). */
async function picture(name: string): Promise<void> {
  const file = await screenshot(page(), `demo-${name}`);
  if (shotsOut) {
    fs.mkdirSync(shotsOut, { recursive: true });
    fs.copyFileSync(file, path.join(shotsOut, `${name}.png`));
    console.log(`    ${path.join(shotsOut, `${name}.png`)} (${Math.round(fs.statSync(file).size / 1024)} KB)`);
  }
}

/** Drags the side bar's edge so that the views' descriptions fit. */
async function widenSideBar(width: number): Promise<void> {
  const p = page();
  const sidebar = await p.locator('.part.sidebar').boundingBox();
  if (!sidebar || sidebar.width >= width) return;
  const x = sidebar.x + sidebar.width;
  const y = sidebar.y + sidebar.height / 2;
  await p.mouse.move(x, y);
  await p.mouse.down();
  await p.mouse.move(sidebar.x + width, y, { steps: 10 });
  await p.mouse.up();
}

async function main(): Promise<void> {
  const opened = 'the demo opens in the workbench with the Twining container';
  await step(
    'npm start --reset writes the demo and prints the address',
    async () => {
      started = await startDemo(10 * 60 * 1000);
      if (!fs.existsSync(path.join(demoDir, '.twining', 'handoffs', 'index.jsonl'))) throw new Error(`no demo .twining/ in ${demoDir}`);
      if (!fs.existsSync(path.join(demoDir, 'src', 'auth', 'jwt.ts'))) throw new Error(`no sample sources in ${demoDir}`);
      console.log(`    ${started.url}`);
    },
    { timeoutMs: 11 * 60 * 1000 },
  );

  await step(
    opened,
    async () => {
      wb = await launchWorkbench(started!.url, { viewport: { width: 1280, height: 800 }, echoLogs: process.env.TWINING_TEST_VERBOSE === '1' });
      useWorkbench(wb);
      await waitForWorkbench(page());
      await openViewContainer(page(), 'Twining');
      await widenSideBar(640);
      await openFile(page(), 'src/auth/jwt.ts');
    },
    { needs: ['npm start --reset writes the demo and prints the address'] },
  );

  await step(
    'Agents: active, idle and gone',
    async () => {
      await expandPane(page(), 'Agents');
      await waitForRows(
        page(),
        'Agents',
        rows =>
          has(rows, 'backend-dev', 'active') &&
          has(rows, 'security-reviewer', 'active') &&
          has(rows, 'frontend-dev', 'idle') &&
          has(rows, 'db-migrator', 'gone') &&
          has(rows, 'docs-writer', 'gone'),
        {
          what: 'backend-dev and security-reviewer active, frontend-dev idle, db-migrator and docs-writer gone',
        },
      );
    },
    { needs: [opened] },
  );

  await step(
    'Delegations: high, normal and low open, one in the Expired group',
    async () => {
      await expandPane(page(), 'Delegations');
      const rows = await waitForRows(
        page(),
        'Delegations',
        r =>
          has(r, "Review refresh-token rotation before Friday's release") &&
          has(r, 'Add an index on sessions.user_id') &&
          has(r, 'Document the cursor format') &&
          has(r, 'Expired (1)'),
        {
          what: 'three open delegations and "Expired (1)"',
        },
      );
      if (has(rows, 'Reproduce the flaky login test')) throw new Error(`the expired delegation is listed as open: ${JSON.stringify(rows)}`);
      const labels = await pane(page(), 'Delegations')
        .first()
        .locator('.pane-body .monaco-list-row')
        .evaluateAll(els => els.map(e => e.getAttribute('aria-label') || ''));
      for (const urgency of ['high', 'normal', 'low']) {
        if (!labels.some(l => l.startsWith(`${urgency} urgency:`))) throw new Error(`no ${urgency} urgency delegation; rows: ${JSON.stringify(labels)}`);
      }
    },
    { needs: [opened] },
  );

  await step(
    'Handoffs: the one for you is marked and counted in the status bar',
    async () => {
      await expandPane(page(), 'Handoffs');
      await waitForRows(
        page(),
        'Handoffs',
        rows => has(rows, 'User list page follows next_cursor', 'for you', 'frontend-dev → user-') && has(rows, 'Migration 0003 adds users.email'),
        {
          what: 'the handoff for you, marked "for you", and the acknowledged ones',
        },
      );
      const bell = page().locator('.statusbar-item[aria-label="Twining: 1 unacknowledged handoffs for you"]');
      await bell.first().waitFor({ state: 'visible', timeout: 30000 });
      const text = (await bell.first().innerText()).trim();
      if (text !== '1') throw new Error(`status bar item says "${text}", expected 1`);
      // The picture shows every view filled in, the Context view too (it loads after the others).
      await waitForRows(page(), 'Context', rows => has(rows, 'Decisions'), { what: 'the Context view of jwt.ts' });
      await picture('views');
    },
    { needs: [opened] },
  );

  await step(
    'the drifted handoff shows its drift: decision superseded, new warning in scope',
    async () => {
      const summary = 'Auth review done';
      await waitForRows(page(), 'Handoffs', rows => has(rows, summary, '⚠ drift (3)'), { what: `"${summary}" with "⚠ drift (3)"` });
      // Room for the expanded handoff (the list renders only the rows it can show).
      for (const title of ['Agents', 'Delegations', 'Context']) {
        const header = pane(page(), title).first().locator('.pane-header').first();
        if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
      }
      await expandRow(page(), 'Handoffs', summary);
      await waitForRows(page(), 'Handoffs', rows => has(rows, 'Context snapshot') && has(rows, 'Drift (3)'), { what: 'Context snapshot and Drift (3)' });
      await expandRow(page(), 'Handoffs', /^\s*Context snapshot/);
      await expandRow(page(), 'Handoffs', /^\s*Drift \(3\)/);
      await waitForRows(
        page(),
        'Handoffs',
        rows =>
          has(rows, 'Sign access tokens with RS256', 'now superseded') &&
          has(rows, 'Refresh tokens are not rotated when reused') &&
          has(rows, 'Sign access tokens with Ed25519'),
        {
          what: 'the superseded decision in the snapshot and the drift items',
        },
      );
      await page().keyboard.press('Escape');
      await picture('handoff-drift');
    },
    { needs: [opened] },
  );

  await step(
    "Create Handoff's scope step shows what each scope attaches",
    async () => {
      const p = page();
      await openFile(p, 'src/auth/jwt.ts'); // the scope comes from the active editor
      await runCommand(p, 'Twining: Create Handoff');
      let state = await stableQuickInputState(p);
      for (let i = 0; i < 40 && !/^Scope/i.test(state.placeholder); i++) {
        await sleep(250);
        state = await stableQuickInputState(p);
      }
      if (!/^Scope/i.test(state.placeholder)) throw new Error(`no scope step: ${JSON.stringify(state)}`);
      const expect = ['src/auth/jwt.ts', 'src/auth/', 'src/', 'Whole project'];
      for (const e of expect) if (!state.items.some(i => i.includes(e))) throw new Error(`no "${e}" among the scopes: ${JSON.stringify(state.items)}`);
      // src/auth/: the RS256/Ed25519 decisions in scope, two warnings and a finding.
      const auth = state.items.find(i => /src\/auth\/(?!jwt)/.test(i)) || '';
      if (!/decision/i.test(auth) || !/warning/i.test(auth)) throw new Error(`the src/auth/ scope does not say what it attaches: "${auth}"`);
      await picture('create-handoff-scope');
      await closeQuickInput(p);
    },
    { needs: [opened] },
  );

  await step(
    "the issue's scenario: src/auth/jwt.ts shows its two active decisions and the expiry warning in the Context view and the status bar",
    async () => {
      const p = page();
      await showOnlyPane(p, 'Context', ['Agents', 'Delegations', 'Handoffs']);
      await openFile(p, 'src/auth/jwt.ts');
      const expected = [
        'Sign access tokens with Ed25519 (EdDSA)',
        'Access tokens live 15 minutes; refresh tokens carry the session',
        'Token expiry must be checked with the server clock, not the client',
      ];
      await waitForRows(p, 'Context', rows => expected.every(e => has(rows, e)), { what: expected.join(' / ') });
      await p
        .locator('.statusbar-item', { hasText: /2 decisions · 1 warning/ })
        .first()
        .waitFor({ state: 'visible', timeout: 15000 });
      await picture('context-view');
    },
    { needs: [opened] },
  );

  await step(
    'Open Timeline draws a lane per agent and the handoff chain (the README picture)',
    async () => {
      const p = page();
      await runCommand(p, 'Twining: Open Timeline');
      const frame = p.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
      await frame.locator('.lane', { hasText: 'db-migrator' }).first().waitFor({ state: 'visible', timeout: 30000 });
      await frame.locator('.handoff', { hasText: 'continues an earlier handoff' }).first().waitFor({ state: 'visible', timeout: 15000 });
      await sleep(500); // the frame after the last message
      await picture('timeline');
    },
    { needs: [opened] },
  );

  await step(
    "Show Graph on jwt.ts's Ed25519 decision: its chain, files and knowledge graph neighbours by name (the README picture)",
    async () => {
      const p = page();
      // jwt.ts is open from the Context step: its tab brings it back.
      await p.locator('.tabs-container .tab', { hasText: 'jwt.ts' }).first().click();
      await sleep(500);
      await runCommand(p, 'Twining: Show Graph');
      await pickQuickItem(p, /Ed25519/);
      const graph = p.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
      await graph.locator('.node.focus').first().waitFor({ state: 'visible', timeout: 30000 });
      const labels = await graph.locator('.node').evaluateAll(nodes => nodes.map(n => n.getAttribute('aria-label') ?? ''));
      console.log(`    graph nodes:\n${labels.map(l => `      ${l}`).join('\n')}`);
      // A neighbour named by a bare decision id would be unreadable: every label is words.
      const bare = labels.filter(l => /: [0-9A-HJKMNP-TV-Z]{26}$/.test(l));
      if (bare.length) throw new Error(`nodes named by a bare id: ${bare.join('; ')}`);
      // The graph's editor group alone on the screen for the picture, then back as it was.
      await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
      await runCommand(p, 'View: Toggle Maximize Editor Group');
      await sleep(800);
      await picture('decision-graph');
      await runCommand(p, 'View: Toggle Maximize Editor Group');
      await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
    },
    { needs: [opened] },
  );

  await step(
    'Ctrl-C stops npm start and leaves no process behind',
    async () => {
      if (!start || !started) throw new Error('npm start is not running');
      const runDir = started.runDir;
      const before = serverProcesses(runDir);
      if (before.groups.size === 0) throw new Error(`no server process names ${runDir}: the check below would prove nothing`);
      console.log(`    before: ${before.lines.length} processes in group(s) ${[...before.groups].join(', ')}`);
      // The browser is a client only; close it first so that what is left is the server's doing.
      useWorkbench(undefined);
      await wb?.close();
      wb = undefined;
      const exited = new Promise<string>(resolve => start!.once('exit', (code, signal) => resolve(String(signal || code))));
      start.kill('SIGINT');
      const how = await Promise.race([exited, sleep(15000).then(() => 'still running after 15 s')]);
      if (how.startsWith('still')) throw new Error(`scripts/start.js ${how}`);
      let left = serverProcesses(runDir, before.groups).lines;
      for (let i = 0; i < 20 && left.length; i++) {
        await sleep(250);
        left = serverProcesses(runDir, before.groups).lines;
      }
      if (left.length) throw new Error(`processes left after Ctrl-C:\n${left.join('\n')}`);
      if (fs.existsSync(runDir)) throw new Error(`the run folder ${runDir} is still there`);
      start = undefined;
    },
    { needs: ['npm start --reset writes the demo and prints the address'] },
  );
}

runSteps('demo', main, () => {
  if (start && start.exitCode === null) start.kill('SIGTERM');
  if (!process.env.TWINING_KEEP_RUN) fs.rmSync(root, { recursive: true, force: true });
});
