// The timeline at 100,000 entries as a person uses it, in the real workbench: Twining: Open
// Timeline on a blackboard of 100,000 entries over 30 days (scripts/workspace.js fillBlackboard,
// the one the benchmark opens), the first frame counting all of them, then a jump to a moment a
// month back, far from anything the first window held: a click on the overview strip at "Last
// hour", the markers of that hour drawn, and the keyboard landing on an entry of that hour (the
// page holds only the window it shows, so each of these is answered on demand by the extension).
// Run by scripts/run-ui-tests.js (`timeline-large`).
import * as path from 'path';
import type { FrameLocator } from 'playwright-core';
import { launchWorkbench, runCommand, screenshot, sleep, waitForWorkbench } from './workbench';
import { page, runSteps, step, uiRun, useWorkbench } from './steps';

const REPO = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fillBlackboard } = require(path.join(REPO, 'scripts', 'workspace.js')) as {
  fillBlackboard: (folder: string, count: number, handoffs: number) => void;
};

const ENTRIES = 100_000;

/** The timeline page: VS Code's webview iframe, then the page's own frame inside it. */
function timeline(): FrameLocator {
  return page().frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/** "N of T entries, V in view as M markers; H handoffs" as numbers. */
function status(text: string): { shown: number; total: number; inView: number; markers: number } | undefined {
  const m = text.replace(/(\d),(?=\d{3})/g, '$1').match(/^(\d+) of (\d+) entries, (\d+) in view as (\d+) markers/);
  return m ? { shown: Number(m[1]), total: Number(m[2]), inView: Number(m[3]), markers: Number(m[4]) } : undefined;
}

/** Waits until the status line satisfies `accept`; returns it. */
async function waitForStatus(accept: (s: NonNullable<ReturnType<typeof status>>) => boolean, what: string, timeout = 30000): Promise<string> {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    text = await timeline()
      .locator('.status')
      .innerText()
      .catch(() => '');
    const s = status(text);
    if (s && accept(s)) return text;
    await sleep(200);
  }
  throw new Error(`${what}: the status line says "${text}"`);
}

async function main(): Promise<void> {
  const { url, folder } = uiRun();

  const opened = 'Open Timeline on 100,000 entries draws its first frame with all of them counted';
  await step(
    opened,
    async () => {
      fillBlackboard(folder, ENTRIES, 300);
      useWorkbench(await launchWorkbench(url, { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' }));
      await waitForWorkbench(page());
      await runCommand(page(), 'Twining: Open Timeline');
      await timeline().locator('.lane').first().waitFor({ state: 'visible', timeout: 60000 });
      // The whole history drawn: every entry counted, and markers standing for them.
      const text = await waitForStatus(s => s.total === ENTRIES && s.shown === ENTRIES && s.markers > 0, 'all 100,000 entries counted');
      console.log(`    ${text}`);
      const lanes = await timeline().locator('.lane').allInnerTexts();
      for (let i = 0; i < 8; i++) if (!lanes.includes(`agent-${i}`)) throw new Error(`no lane agent-${i} in ${JSON.stringify(lanes)}`);
      await screenshot(page(), 'timeline-100k');
    },
    { timeoutMs: 180000 },
  );

  await step(
    'a month back at "Last hour": the overview moves the view there, its markers are drawn and the keyboard reads one of its entries',
    async () => {
      await timeline().locator('button[data-range="hour"]').click();
      await waitForStatus(s => s.inView > 0, 'the last hour');
      // 5 % into the overview strip: about a day and a half after the first entry, 28 days before now.
      const overview = timeline().locator('canvas.overview');
      const box = await overview.boundingBox();
      if (!box) throw new Error('the overview strip is not shown');
      await overview.click({ position: { x: box.width * 0.05, y: box.height / 2 } });
      // At an hour wide every entry has its marker: about 139 entries an hour (100,000 over 720 hours).
      const text = await waitForStatus(s => s.inView > 50 && s.inView < 400 && s.markers > 50, 'the markers of an hour a month back');
      console.log(`    ${text}`);
      await screenshot(page(), 'timeline-100k-month-back');
      // The entry nearest the middle of the view, as the extension finds it among all 100,000.
      const chart = timeline().locator('canvas.chart');
      await chart.focus();
      const live = timeline().locator('[aria-live="polite"]');
      const before = await live.innerText();
      await chart.press('ArrowRight');
      const deadline = Date.now() + 15000;
      let said = before;
      while (Date.now() < deadline && said === before) {
        await sleep(100);
        said = await live.innerText();
      }
      console.log(`    read out: ${said}`);
      const n = Number(said.match(/ number (\d+) about /)?.[1]);
      // Entry i is at i / 100,000 of the 30 days: 5 % in is entry 5,000, give or take the hour in view
      // and the strip's margins.
      if (!(n > 3000 && n < 7000)) throw new Error(`the entry read out is not from a month back: ${said}`);
    },
    { needs: [opened] },
  );
}

runSteps('timeline-large', main);
