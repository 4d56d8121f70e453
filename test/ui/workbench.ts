// Reusable Playwright helpers that drive the VS Code workbench as a person would: click the
// activity bar, open view panes, read tree rows, run commands from the palette, answer quick
// picks and input boxes, open files with Quick Open, take screenshots. Used by test/ui/*.test.ts
// (run with scripts/run-ui-tests.js, which starts the server and passes the URL).
import * as fs from 'fs';
import * as path from 'path';
import * as util from 'util';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

// The same Chromium flags as the host test runs (the offline machine refuses background connections),
// and the shared browser of a test run (TWINING_BROWSER_WS), in which each workbench gets a fresh context.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { CHROMIUM_ARGS, GOTO_TIMEOUT_MS, sharedBrowserContext } = require('../../scripts/host-server') as {
  CHROMIUM_ARGS: string[];
  GOTO_TIMEOUT_MS: number;
  sharedBrowserContext: (
    browserWs: string,
    viewport: { width: number; height: number },
  ) => Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }>;
};

/** Console lines that are expected offline (marketplace look-ups, service worker) and say nothing. */
const NOISE = [/getaddrinfo ENOTFOUND/, /\[Service Worker\] registration/, /Failed to register a ServiceWorker/];

export interface Workbench {
  page: Page;
  context: BrowserContext;
  /** The extension host's console lines (codeAutomationLog), newest last. */
  logs: string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/**
 * Opens `url` (the workbench) in a fresh context of the test run's shared browser (TWINING_BROWSER_WS),
 * or, without one, in headless Chromium launched with a fresh profile.
 */
export async function launchWorkbench(
  url: string,
  { profileDir, executablePath = process.env.TWINING_UI_CHROMIUM || '/usr/bin/chromium', viewport = { width: 1400, height: 900 }, echoLogs = false } = {} as {
    profileDir?: string;
    executablePath?: string;
    viewport?: { width: number; height: number };
    echoLogs?: boolean;
  },
): Promise<Workbench> {
  const shared = process.env.TWINING_BROWSER_WS && !profileDir ? await sharedBrowserContext(process.env.TWINING_BROWSER_WS, viewport) : undefined;
  const profile = shared ? undefined : profileDir || fs.mkdtempSync(path.join(require('os').tmpdir(), 'twining-ui-chromium-'));
  const context = shared ? shared.context : await chromium.launchPersistentContext(profile!, { executablePath, headless: true, args: CHROMIUM_ARGS, viewport });
  const page = shared ? shared.page : context.pages()[0] || (await context.newPage());
  const logs: string[] = [];
  // With --enable-smoke-test-driver the workbench forwards the extension host's console here.
  await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
    let text: string;
    try {
      text = util.format(...(Array.isArray(args) ? args : [args]));
    } catch {
      text = String(args);
    }
    const line = `[${type}] ${text}`;
    if (!echoLogs && NOISE.some(re => re.test(text))) return;
    logs.push(line);
    if (echoLogs) console.log(`[ui:exthost] ${line}`);
  });
  await page.exposeFunction('codeAutomationExit', () => {});
  page.on('pageerror', error => logs.push(`[pageerror] ${error.message}`));
  // Only until the document is there: waitForWorkbench and the views are waited for by the steps
  // (see openWorkbench in scripts/host-server.js for why not the "load" event within 30 s).
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: GOTO_TIMEOUT_MS });
  return {
    page,
    context,
    logs,
    async close() {
      if (shared) return shared.close();
      await context.close().catch(() => {});
      if (!profileDir) fs.rmSync(profile!, { recursive: true, force: true });
    },
  };
}

/** Waits until the workbench is there (and its activity bar, so that views can be opened). */
export async function waitForWorkbench(page: Page, timeout = 60000): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout });
  await page.locator('.activitybar .action-item').first().waitFor({ state: 'visible', timeout });
}

/** The activity bar item whose aria-label is `label` (or starts with `label (` / `label -`). */
export function activityBarItem(page: Page, label: string): Locator {
  const esc = label.replace(/"/g, '\\"');
  return page.locator('.activitybar .action-item').filter({ has: page.locator(`[aria-label="${esc}"], [aria-label^="${esc} ("], [aria-label^="${esc} -"]`) });
}

/** Opens a view container by clicking its activity-bar item (unless it is already shown). */
export async function openViewContainer(page: Page, label: string, timeout = 30000): Promise<void> {
  const item = activityBarItem(page, label).first();
  await item.waitFor({ state: 'visible', timeout });
  const isOpen = async () => {
    const cls = (await item.getAttribute('class')) || '';
    const link = item.locator('[aria-label]').first();
    const expanded = await link.getAttribute('aria-expanded').catch(() => null);
    const pressed = await link.getAttribute('aria-pressed').catch(() => null);
    return /\bchecked\b/.test(cls) || expanded === 'true' || pressed === 'true';
  };
  if (!(await isOpen())) await item.click();
  // The side bar shows the container's title once it is open.
  await page
    .locator('.part.sidebar .composite.title')
    .filter({ hasText: new RegExp(escapeRegExp(label), 'i') })
    .first()
    .waitFor({ state: 'visible', timeout });
}

/** The `.pane` (view) whose header title is `title` (case-insensitive, exact). */
export function pane(page: Page, title: string): Locator {
  const header = page.locator('.pane-header').filter({
    has: page.locator('.title', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`, 'i') }),
  });
  return page.locator('.pane').filter({ has: header });
}

/** Expands a view pane by clicking its header when `aria-expanded` is not `true`. */
export async function expandPane(page: Page, title: string, timeout = 30000): Promise<Locator> {
  const p = pane(page, title).first();
  const header = p.locator('.pane-header').first();
  await header.waitFor({ state: 'visible', timeout });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  await p.locator('.pane-body').first().waitFor({ state: 'visible', timeout });
  return p;
}

/** Folds the view panes named `fold` and expands `show`: room for its rows (the list renders only the rows it can show). */
export async function showOnlyPane(page: Page, show: string, fold: readonly string[], timeout = 30000): Promise<Locator> {
  for (const title of fold) {
    const header = pane(page, title).first().locator('.pane-header').first();
    if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
  }
  return expandPane(page, show, timeout);
}

/** The texts of the tree/list rows shown in a view pane. */
export async function paneRows(page: Page, title: string): Promise<string[]> {
  const rows = pane(page, title).first().locator('.pane-body .monaco-list-row');
  const texts = await rows.allInnerTexts();
  return texts.map(t => t.replace(/\s+/g, ' ').trim());
}

/**
 * Waits until the rows of a view pane satisfy `accept` (e.g. contain all expected names).
 * Returns the rows; on timeout throws with the rows it last saw.
 */
export async function waitForRows(page: Page, title: string, accept: (rows: string[]) => boolean, { timeout = 30000, what = 'rows' } = {}): Promise<string[]> {
  const deadline = Date.now() + timeout;
  let rows: string[] = [];
  for (;;) {
    rows = await paneRows(page, title).catch(() => []);
    if (accept(rows)) return rows;
    if (Date.now() > deadline) {
      throw new Error(`view "${title}": ${what} not shown within ${timeout} ms; rows were: ${JSON.stringify(rows)}`);
    }
    await sleep(250);
  }
}

/**
 * Expands the first row of a view pane whose text contains `text`: clicks its twistie while it is
 * collapsed (a refresh of the tree may re-render it) and waits until it says it is expanded.
 */
export async function expandRow(page: Page, title: string, text: string | RegExp, timeout = 15000): Promise<void> {
  const row = pane(page, title).first().locator('.pane-body .monaco-list-row').filter({ hasText: text }).first();
  const deadline = Date.now() + timeout;
  for (;;) {
    await row.waitFor({ state: 'visible', timeout: Math.max(1, deadline - Date.now()) });
    if ((await row.getAttribute('aria-expanded')) === 'true') return;
    if (Date.now() > deadline) throw new Error(`view "${title}": the row "${text}" did not expand within ${timeout} ms`);
    await row.locator('.monaco-tl-twistie').click();
    await sleep(300);
  }
}

/** Expands collapsed tree rows of a pane (one level per call) and returns how many it expanded. */
export async function expandAllRows(page: Page, title: string): Promise<number> {
  const collapsed = pane(page, title).first().locator('.pane-body .monaco-list-row[aria-expanded="false"]');
  const n = await collapsed.count();
  for (let i = 0; i < n; i++) await collapsed.first().click();
  return n;
}

// ---------------------------------------------------------------------------------------------
// Quick input (command palette, quick picks, input boxes)

export function quickInput(page: Page): Locator {
  return page.locator('.quick-input-widget');
}

/** Focuses the workbench (not an input of the page) so that keybindings reach it. */
export async function focusWorkbench(page: Page): Promise<void> {
  await page
    .locator('.monaco-workbench')
    .first()
    .focus()
    .catch(() => {});
}

/** Runs a command from the palette: F1, `>title`, waits for the row, Enter. */
export async function runCommand(page: Page, title: string, timeout = 15000): Promise<void> {
  const input = quickInput(page).locator('input').first();
  // Once in a while the palette lists no match for a command that is there (it offered "similar
  // commands" instead, in one fresh run of 4); a person closes it and types again, and so does this.
  for (let attempt = 1; ; attempt++) {
    await closeQuickInput(page);
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout });
    await input.fill(`>${title}`);
    const found = await quickInput(page)
      .locator('.quick-input-list .monaco-list-row', { hasText: title })
      .first()
      .waitFor({ state: 'visible', timeout: attempt < 3 ? timeout / 3 : timeout })
      .then(
        () => true,
        error => {
          if (attempt >= 3) throw error;
          return false;
        },
      );
    if (found) break;
    console.log(`    the palette did not list "${title}" (attempt ${attempt}); typing it again`);
  }
  await page.keyboard.press('Enter');
  // Wait until the palette has gone (or the command has put its own prompt in the widget).
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (!(await quickInput(page).isVisible())) return;
    const value = await input.inputValue().catch(() => '');
    const placeholder = (await input.getAttribute('placeholder').catch(() => '')) || '';
    if (!value.startsWith('>') && !/name of a command/i.test(placeholder)) return;
    await sleep(100);
  }
  throw new Error(`the command palette did not close after running "${title}"`);
}

/** Closes the quick input if it is open (Escape). */
export async function closeQuickInput(page: Page): Promise<void> {
  for (let i = 0; i < 3 && (await quickInput(page).isVisible()); i++) {
    await page.keyboard.press('Escape');
    await sleep(150);
  }
}

export interface QuickInputState {
  visible: boolean;
  title: string;
  placeholder: string;
  message: string;
  /** Row texts of the list (empty for an input box). */
  items: string[];
}

/** What the quick input shows now. */
export async function quickInputState(page: Page): Promise<QuickInputState> {
  const w = quickInput(page);
  if (!(await w.isVisible())) return { visible: false, title: '', placeholder: '', message: '', items: [] };
  const text = async (l: Locator) =>
    (await l.count())
      ? (
          (await l
            .first()
            .innerText()
            .catch(() => '')) || ''
        ).trim()
      : '';
  const title = await text(w.locator('.quick-input-title'));
  const placeholder =
    (await w
      .locator('input')
      .first()
      .getAttribute('placeholder')
      .catch(() => '')) || '';
  const message = await text(w.locator('.quick-input-message'));
  const list = w.locator('.quick-input-list');
  const items = (await list.isVisible().catch(() => false))
    ? await list.locator('.monaco-list-row').evaluateAll(rows =>
        rows.map(row =>
          // The visible text nodes joined with spaces: "completed add a result", not
          // "completedadd a result" as innerText gives (label and description are separate spans).
          {
            // (Runs in the page: DOM types are not in this project's lib, hence `any`.)
            const doc = (globalThis as any).document;
            const parts: string[] = [];
            const walker = doc.createTreeWalker(row, 4 /* NodeFilter.SHOW_TEXT */);
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              const el = n.parentElement;
              const text = String(n.textContent || '').trim();
              if (text && el && el.checkVisibility()) parts.push(text);
            }
            return parts.join(' ').replace(/\s+/g, ' ');
          },
        ),
      )
    : [];
  return { visible: true, title, placeholder, message, items };
}

/**
 * The quick input's state once it has stopped changing (two reads `settleMs` apart agree): a
 * multi-step flow swaps title, placeholder and items one after the other.
 */
export async function stableQuickInputState(page: Page, { settleMs = 200, timeout = 5000 } = {}): Promise<QuickInputState> {
  const deadline = Date.now() + timeout;
  let prev = await quickInputState(page);
  for (;;) {
    await sleep(settleMs);
    const next = await quickInputState(page);
    if (JSON.stringify(next) === JSON.stringify(prev) || Date.now() > deadline) return next;
    prev = next;
  }
}

/** Waits until the quick input is visible (with any content), returns its state. */
export async function waitForQuickInput(page: Page, timeout = 15000): Promise<QuickInputState> {
  await quickInput(page).waitFor({ state: 'visible', timeout });
  await sleep(150); // let the list render
  return quickInputState(page);
}

/**
 * Picks the quick-pick item whose visible text (label, description and detail joined with spaces,
 * as quickInputState() gives them) matches `label` (string: contains, case-insensitive).
 */
export async function pickQuickItem(page: Page, label: string | RegExp, timeout = 15000): Promise<void> {
  const re = typeof label === 'string' ? new RegExp(escapeRegExp(label), 'i') : label;
  const deadline = Date.now() + timeout;
  let items: string[] = [];
  for (;;) {
    items = (await quickInputState(page)).items;
    const index = items.findIndex(t => re.test(t));
    if (index >= 0) {
      await quickInput(page).locator('.quick-input-list .monaco-list-row').nth(index).click();
      break;
    }
    if (Date.now() > deadline) throw new Error(`no quick pick item matches ${re}; items: ${JSON.stringify(items)}`);
    await sleep(150);
  }
  // A multi-select pick needs OK after the click; a single pick closes or moves on.
  await sleep(200);
  const checkbox = quickInput(page).locator('.quick-input-list .monaco-list-row input[type="checkbox"]');
  if ((await quickInput(page).isVisible()) && (await checkbox.count()) > 0) {
    const ok = quickInput(page).locator('.quick-input-action .monaco-button').first();
    if (await ok.isVisible().catch(() => false)) await ok.click();
  }
}

/** Types `text` into the input box that is open (replacing its value) and presses Enter. */
export async function answerInputBox(page: Page, text: string, timeout = 15000): Promise<void> {
  const input = quickInput(page).locator('input').first();
  await input.waitFor({ state: 'visible', timeout });
  await input.fill(text);
  await sleep(100);
  await page.keyboard.press('Enter');
}

/** Opens a workspace file with Quick Open (Ctrl+P) and waits for its editor tab. */
export async function openFile(page: Page, relativePath: string, timeout = 20000): Promise<void> {
  await closeQuickInput(page);
  await page.keyboard.press('Control+P');
  const input = quickInput(page).locator('input').first();
  await input.waitFor({ state: 'visible', timeout });
  await input.fill(relativePath);
  const base = path.basename(relativePath);
  await quickInput(page).locator('.quick-input-list .monaco-list-row', { hasText: base }).first().waitFor({ state: 'visible', timeout });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab', { hasText: base }).first().waitFor({ state: 'visible', timeout });
  await page.locator('.editor-instance .monaco-editor').first().waitFor({ state: 'visible', timeout });
}

/** A modal dialog (`.monaco-dialog-box`) if one is open. */
export function dialog(page: Page): Locator {
  return page.locator('.monaco-dialog-box');
}

/** Notification toasts' texts (they may not show in this headless setup; prefer checking effects). */
export async function notifications(page: Page): Promise<string[]> {
  return (await page.locator('.notification-toast .notification-list-item-message').allInnerTexts()).map(t => t.trim());
}

// ---------------------------------------------------------------------------------------------

/** The folder screenshots go to (`.test-output/screenshots` of the repository by default). */
export function screenshotDir(): string {
  return process.env.TWINING_SCREENSHOTS || path.resolve(__dirname, '..', '..', '.test-output', 'screenshots');
}

/** Saves a PNG of the page as `<screenshotDir>/<name>.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = screenshotDir();
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  await page.mouse.move(0, 0).catch(() => {}); // no hover tooltip in the picture
  await page.screenshot({ path: file });
  return file;
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export { sleep };
