// The timeline as a person uses it, in the real workbench: the demo's story (scripts/demo.js) in
// the workspace, Twining: Open Timeline from the palette, a lane per agent and the A → B → C
// handoff chain in the webview (Playwright reaches into the webview's frames), the scope filter
// narrowed to src/auth/, a click on a handoff's arrow on the canvas opening its document, and a
// post by another process (the CLI) showing up without a reload, the panel coming back with its
// range and filter after the window is reloaded. Run by scripts/run-ui-tests.js
// (`timeline`).
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import type { FrameLocator } from 'playwright-core';
import { launchWorkbench, openFile, openViewContainer, pickQuickItem, runCommand, screenshot, sleep, waitForRows, waitForWorkbench } from './workbench';
import { page, runSteps, step, uiRun, useWorkbench } from './steps';

const REPO = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareDemo } = require(path.join(REPO, 'scripts', 'demo.js')) as {
  prepareDemo: (folder: string, o: { now: Date }) => Promise<{ agentId: string; handoffs: Record<string, string> }>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TWINING_NOW } = require(path.join(REPO, 'scripts', 'workspace.js')) as { TWINING_NOW: string };

/** The timeline page: VS Code's webview iframe, then the page's own frame inside it. */
function timeline(): FrameLocator {
  return page().frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

async function texts(selector: string): Promise<string[]> {
  return (await timeline().locator(selector).allInnerTexts()).map(t => t.replace(/\s+/g, ' ').trim());
}

/** Waits until the handoffs listed in view satisfy `accept`; returns them. */
async function waitForHandoffs(accept: (rows: string[]) => boolean, what: string, timeout = 20000): Promise<string[]> {
  const deadline = Date.now() + timeout;
  let rows: string[] = [];
  while (Date.now() < deadline) {
    rows = await texts('.handoff').catch(() => []);
    if (accept(rows)) return rows;
    await sleep(250);
  }
  throw new Error(`${what}: the handoffs in view were ${JSON.stringify(rows, null, 1)}`);
}

/** The files named `name` under `dir`, at any depth. */
function filesNamed(dir: string, name: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(e => e.isFile() && e.name === name)
    .map(e => path.join(e.parentPath, e.name));
}

/**
 * Waits until the timeline's state the extension keeps for `folder` (timeline-state.json in the
 * workspace's storage, under the server's run folder) satisfies `accept`; returns its file.
 */
async function waitForPageStateFile(serverDir: string | undefined, folder: string, accept: (s: Record<string, any>) => boolean): Promise<string> {
  if (!serverDir) throw new Error('TWINING_UI_SERVER_DIR is not set (run scripts/run-ui-tests.js)');
  const deadline = Date.now() + 20000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = filesNamed(serverDir, 'timeline-state.json');
    for (const file of seen) {
      let state: Record<string, any> | undefined;
      try {
        state = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {}
      if (state && decodeURIComponent(String(state.folder)).endsWith(folder) && accept(state)) return file;
    }
    await sleep(100);
  }
  throw new Error(`the extension kept no such timeline state for ${folder}: ${seen.map(f => `${f}: ${fs.readFileSync(f, 'utf8')}`).join('; ') || 'no file'}`);
}

async function main(): Promise<void> {
  const { url, folder, serverDir } = uiRun();
  let demo: { agentId: string; handoffs: Record<string, string> } | undefined;

  const opened = 'Open Timeline shows a lane per agent';
  await step(opened, async () => {
    // The story ends at the host's pinned clock, so that the timeline's "last day" holds all of it.
    demo = await prepareDemo(folder, { now: new Date(TWINING_NOW) });
    useWorkbench(await launchWorkbench(url, { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' }));
    await waitForWorkbench(page());
    // The Twining views first: their rows say the extension has read the folder.
    await openViewContainer(page(), 'Twining');
    await waitForRows(page(), 'Agents', rows => rows.some(r => r.includes('db-migrator')));
    await runCommand(page(), 'Twining: Open Timeline');
    await timeline().locator('.lane').first().waitFor({ state: 'visible', timeout: 30000 });
    const lanes = await texts('.lane');
    console.log(`    lanes: ${lanes.join(' | ')}`);
    const expected = [`${demo.agentId} (you)`, 'db-migrator', 'backend-dev', 'frontend-dev', 'security-reviewer', 'docs-writer'];
    for (const lane of expected) if (!lanes.includes(lane)) throw new Error(`no lane "${lane}" in ${JSON.stringify(lanes)}`);
    if (lanes[0] !== `${demo.agentId} (you)`) throw new Error(`your lane is not first: ${lanes[0]}`);
  });

  await step(
    'the handoff chain A → B → C is drawn, the later two continuing the one before',
    async () => {
      const rows = await waitForHandoffs(r => r.length >= 4, 'four handoffs');
      console.log(`    handoffs in view:\n${rows.map(r => `      ${r}`).join('\n')}`);
      const find = (from: string, to: string) => rows.find(r => r.startsWith(`${from} → ${to}:`));
      const a = find('db-migrator', 'backend-dev');
      const b = find('backend-dev', 'frontend-dev');
      const c = find('frontend-dev', demo!.agentId);
      if (!a || !b || !c) throw new Error('an arrow of the chain is missing');
      if (!a.includes('· acknowledged') || a.includes('continues')) throw new Error(`A: ${a}`);
      if (!b.includes('· acknowledged') || !b.includes('continues an earlier handoff')) throw new Error(`B: ${b}`);
      if (!c.includes('not acknowledged') || !c.includes('continues an earlier handoff')) throw new Error(`C: ${c}`);
      await screenshot(page(), 'timeline-demo');
    },
    { needs: [opened] },
  );

  const filtered = 'the scope filter src/auth/ keeps only what bears on src/auth/';
  await step(
    filtered,
    async () => {
      const before = await timeline().locator('.status').innerText();
      const scope = timeline().locator('#scope');
      await scope.fill('src/auth/');
      await scope.press('Enter');
      const rows = await waitForHandoffs(r => r.length === 1, 'only the auth handoff');
      if (!rows[0].startsWith('security-reviewer → backend-dev: Auth review done')) throw new Error(`left: ${rows[0]}`);
      // The handoffs and the entries are drawn from two answers: the status line may show the
      // new handoff count a moment before the new entry count.
      const shown = (s: string) => Number(s.replace(/,/g, '').match(/^(\d+) of/)?.[1]);
      let after = await timeline().locator('.status').innerText();
      for (let i = 0; i < 50 && !(shown(after) > 0 && shown(after) < shown(before)); i++) {
        await sleep(100);
        after = await timeline().locator('.status').innerText();
      }
      console.log(`    before: ${before}\n    after:  ${after}`);
      if (!(shown(after) > 0 && shown(after) < shown(before))) throw new Error(`the entries shown did not narrow: ${before} -> ${after}`);
    },
    { needs: [opened] },
  );

  await step(
    "a click on the handoff's arrow opens its document",
    async () => {
      const button = timeline().locator('.handoff').first();
      const x = Number(await button.getAttribute('data-x'));
      const y = Number(await button.getAttribute('data-y'));
      // The arrow on the canvas, where the page says it drew its middle.
      await timeline().locator('canvas.chart').click({ position: { x, y } });
      const id = demo!.handoffs.review;
      await page()
        .locator('.tabs-container .tab', { hasText: `handoff-${id}` })
        .first()
        .waitFor({ state: 'visible', timeout: 15000 });
      const editor = page().locator('.editor-instance .view-lines').first();
      await editor.waitFor({ state: 'visible', timeout: 15000 });
      const text = (await editor.innerText()).replace(/\s+/g, ' ');
      if (!text.includes('Auth review done')) throw new Error(`the document shows: ${text.slice(0, 300)}`);
    },
    { needs: [filtered] },
  );

  await step(
    'a post by another process shows up without a reload',
    async () => {
      await runCommand(page(), 'Twining: Open Timeline');
      await timeline().locator('.lane').first().waitFor({ state: 'visible', timeout: 15000 });
      // Hidden behind the document and shown again, the page kept its filter (getState/setState).
      const scope = await timeline().locator('#scope').inputValue();
      if (scope !== 'src/auth/') throw new Error(`the scope filter after hide and show: "${scope}"`);
      const at = new Date(Date.parse(TWINING_NOW) + 60_000).toISOString();
      execFileSync(
        process.execPath,
        [
          path.join(REPO, 'dist', 'cli.js'),
          'post',
          '--dir',
          folder,
          '--now',
          at,
          '--entry-type',
          'finding',
          '--scope',
          'src/auth/jwt.ts',
          '--agent-id',
          'ops-bot',
          '--summary',
          'Token clock skew seen in prod',
        ],
        { encoding: 'utf8' },
      );
      const deadline = Date.now() + 20000;
      let lanes: string[] = [];
      while (Date.now() < deadline && !lanes.includes('ops-bot')) {
        lanes = await texts('.lane');
        await sleep(250);
      }
      if (!lanes.includes('ops-bot')) throw new Error(`no lane for the new post's agent: ${JSON.stringify(lanes)}`);
      const status = await timeline().locator('.status').innerText();
      console.log(`    after the post: ${status}`);
      await screenshot(page(), 'timeline-live');
    },
    { needs: [opened] },
  );

  await step(
    'the keyboard moves between entries and a live region reads each one out',
    async () => {
      await runCommand(page(), 'Twining: Open Timeline');
      const chart = timeline().locator('canvas.chart');
      await chart.focus();
      const live = timeline().locator('[aria-live="polite"]');
      const said: string[] = [];
      for (const key of ['ArrowDown', 'ArrowRight', 'ArrowRight']) {
        const before = await live.innerText();
        await chart.press(key);
        const deadline = Date.now() + 10000;
        let text = before;
        while (Date.now() < deadline && text === before) {
          await sleep(100);
          text = await live.innerText();
        }
        said.push(text);
      }
      console.log(`    read out:\n${said.map(t => `      ${t}`).join('\n')}`);
      // Each move lands on an entry, said with its kind, agent, time, summary and scope.
      if (!said.every(t => / by \S+, .*\[[^\]]+\]/.test(t) || t === 'No further entry that way.' || t === 'No further lane that way.'))
        throw new Error(`read out: ${JSON.stringify(said)}`);
      if (new Set(said).size < 2) throw new Error(`the keyboard did not move: ${JSON.stringify(said)}`);
    },
    { needs: [filtered] },
  );

  await step(
    'the timeline comes back after a window reload with its range and filter (the serializer and setState)',
    async () => {
      await runCommand(page(), 'Twining: Open Timeline');
      const week = timeline().locator('button[data-range="week"]');
      await week.click();
      if ((await week.getAttribute('aria-pressed')) !== 'true') throw new Error('"Last week" is not marked as chosen');
      // VS Code saves the open editors and each webview's state; the reloaded window restores the
      // panel through the serializer (activation on onWebviewPanel:twining.timeline). The workbench
      // stores the webview's state lazily (a reload soon after a change brought back the range of a
      // minute before); the extension keeps it too, in the workspace's storage, a moment after the
      // change: once it is on disk, the reload brings it back, however soon after.
      const keptFile = await waitForPageStateFile(serverDir, folder, s => s.range === 'week');
      console.log(`    kept in ${path.relative(serverDir!, keptFile)}`);
      await page().reload();
      await waitForWorkbench(page());
      await timeline().locator('.lane').first().waitFor({ state: 'visible', timeout: 60000 });
      const scope = await timeline().locator('#scope').inputValue();
      if (scope !== 'src/auth/') throw new Error(`the scope filter after the reload: "${scope}"`);
      const pressed = await timeline().locator('button[data-range][aria-pressed="true"]').allInnerTexts();
      if (pressed.join() !== 'Last week') throw new Error(`the range after the reload: ${JSON.stringify(pressed)}`);
      const rows = await waitForHandoffs(r => r.length === 1, 'the auth handoff, filtered, after the reload');
      console.log(`    after the reload: scope ${scope}, range ${pressed[0]}, ${rows[0]}`);
    },
    { needs: [filtered] },
  );

  await step(
    "Show Graph on jwt.ts's Ed25519 decision draws its chain and files, and a click opens the superseded one",
    async () => {
      const p = page();
      await openFile(p, 'src/auth/jwt.ts');
      await runCommand(p, 'Twining: Show Graph');
      await pickQuickItem(p, /Ed25519/);
      const graph = p.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
      const older = graph.locator('.node', { hasText: 'Sign access tokens with RS256' }).first();
      await older.waitFor({ state: 'visible', timeout: 30000 });
      const labels = await graph.locator('.node').evaluateAll(nodes => nodes.map(n => n.getAttribute('aria-label')));
      console.log(`    graph nodes:\n${labels.map(l => `      ${l}`).join('\n')}`);
      if (!labels.some(l => l?.startsWith('this decision: Sign access tokens with Ed25519'))) throw new Error('the decision is not in the middle');
      if (!labels.some(l => l?.startsWith('superseded by this decision: Sign access tokens with RS256'))) throw new Error('no superseded decision');
      if (!labels.some(l => l === 'file this decision affects: src/auth/jwt.ts')) throw new Error('no affected file');
      await screenshot(p, 'decision-graph');
      await older.click();
      await p.locator('.tabs-container .tab', { hasText: 'decision-' }).first().waitFor({ state: 'visible', timeout: 15000 });
    },
    { needs: [opened] },
  );
}

runSteps('timeline', main);
