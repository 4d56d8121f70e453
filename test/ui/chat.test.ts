// The chat view end to end, as a person uses it: `@twining /status`, `/handoff <summary>`, a
// free-form request that makes the model call a twining_* tool (with VS Code's confirmation card),
// Continue in Chat filling the chat input with a handoff's context, and the inbox notification
// when another process writes a handoff for the user. The model is the test-only one in
// test/ui/fake-lm (scripts/run-ui-tests.js installs it and leaves AI features on for this file).
import * as path from 'path';
import { execFileSync } from 'child_process';
import type { Page } from 'playwright-core';
import { closeQuickInput, focusWorkbench, launchWorkbench, pickQuickItem, runCommand, screenshot, sleep, waitForWorkbench } from './workbench';
import { page, readJsonl, runSteps, step, useWorkbench } from './steps';

const REPO = path.resolve(__dirname, '..', '..');
const MODEL_NAME = 'Twining Test Model';
const INPUT = '.interactive-session .interactive-input-part .monaco-editor';

/** Polls `read` until `accept` holds; throws with the last value after `timeout`. */
async function until<T>(what: string, read: () => Promise<T> | T, accept: (v: T) => boolean, timeout = 20000): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: T = await read();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeout} ms; last: ${JSON.stringify(last)}`.slice(0, 2000));
    await sleep(250);
    last = await read();
  }
  return last;
}

/** The text of the chat input editor (the lines it renders). */
async function inputText(p: Page): Promise<string> {
  const lines = await p.locator(`${INPUT} .view-lines .view-line`).allInnerTexts();
  return lines.join('\n').replace(/\u00a0/g, ' ');
}

async function clearInput(p: Page): Promise<void> {
  await p.locator(INPUT).first().click();
  await p.keyboard.press('Control+A');
  await p.keyboard.press('Backspace');
}

/**
 * The newest response of the chat list, read in the page in one go (the list is virtualised and
 * re-renders rows while it streams): its text, and whether it is still loading.
 */
async function lastResponse(p: Page): Promise<{ index: number; text: string; loading: boolean } | undefined> {
  return p.locator('.interactive-list .monaco-list-row').evaluateAll(rows => {
    // (Runs in the page: DOM types are not in this project's lib, hence `any`.)
    let best: any;
    let bestIndex = -1;
    for (const row of rows as any[]) {
      const response = row.querySelector('.interactive-item-container.interactive-response');
      const index = Number(row.getAttribute('data-index'));
      if (response && index > bestIndex) {
        bestIndex = index;
        best = response;
      }
    }
    return best ? { index: bestIndex, text: String(best.innerText), loading: best.classList.contains('chat-response-loading') } : undefined;
  });
}

/** Types a request into the chat input and sends it; resolves with the list index of the newest response before it. */
async function send(p: Page, text: string): Promise<number> {
  const before = (await lastResponse(p))?.index ?? -1;
  await clearInput(p);
  await p.keyboard.type(text, { delay: 15 });
  await sleep(300);
  if (await p.locator('.suggest-widget.visible').count()) await p.keyboard.press('Escape');
  await p.keyboard.press('Enter');
  return before;
}

/** Waits until a new response is complete and returns its text. */
async function response(p: Page, before: number, accept: (text: string) => boolean, timeout = 30000): Promise<string> {
  return until(
    'the chat response',
    async () => {
      const last = await lastResponse(p);
      return last && last.index > before && !last.loading ? last.text.replace(/\s+/g, ' ') : '';
    },
    text => text !== '' && accept(text),
    timeout,
  );
}

async function main(): Promise<void> {
  const url = process.env.TWINING_UI_URL;
  const folder = process.env.TWINING_UI_WORKSPACE;
  const me = process.env.TWINING_UI_AGENT_ID;
  if (!url || !folder || !me) throw new Error('TWINING_UI_URL, TWINING_UI_WORKSPACE and TWINING_UI_AGENT_ID must be set (run scripts/run-ui-tests.js)');
  const twining = path.join(folder, '.twining');
  const cli = (op: string, input: object) =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(REPO, 'dist', 'cli.js'), op, '--dir', folder, '--json', '--input', JSON.stringify(input)], {
        encoding: 'utf8',
      }),
    );

  const opened = 'the chat view opens with the test model selected';
  await step(
    opened,
    async () => {
      useWorkbench(await launchWorkbench(url, { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' }));
      await waitForWorkbench(page());
      await runCommand(page(), 'Chat: Open Chat');
      await page().locator(INPUT).first().waitFor({ state: 'visible', timeout: 30000 });
      await until(
        'the model picker',
        () =>
          page()
            .locator('.interactive-input-part .model-picker-name')
            .first()
            .innerText()
            .catch(() => ''),
        t => t.includes(MODEL_NAME),
        30000,
      );
    },
    { timeoutMs: 120000 },
  );

  await step(
    '@twining /status answers from the engine',
    async () => {
      const before = await send(page(), '@twining /status');
      const text = await response(page(), before, t => /Twining status/.test(t));
      if (!/Twining status: demo-project/.test(text) || !/Agents: 4 registered/.test(text)) throw new Error(`unexpected answer: ${text}`);
      await screenshot(page(), 'chat-status');
    },
    { needs: [opened] },
  );

  await step(
    "the follow-up under /status's answer asks @twining the next question",
    async () => {
      // Follow-ups show above the input.
      const followup = page().locator('.interactive-session').getByText('Which needs are open?').first();
      await followup.waitFor({ state: 'visible', timeout: 15000 });
      const before = (await lastResponse(page()))?.index ?? -1;
      await followup.click();
      const text = await response(page(), before, t => /Review the API rate-limiting design/.test(t));
      if (!/needs review, security; best suited: reviewer/.test(text)) throw new Error(`unexpected answer: ${text}`);
    },
    { needs: ['@twining /status answers from the engine'] },
  );

  const summary = 'Chat UI handoff: refresh flow needs tests';
  const handedOver = '@twining /handoff writes a handoff';
  await step(
    handedOver,
    async () => {
      const before = await send(page(), `@twining /handoff ${summary}`);
      const text = await response(page(), before, t => /Handoff created/.test(t));
      if (!new RegExp(`Handoff created from ${me} to any agent`).test(text)) throw new Error(`unexpected answer: ${text}`);
      const line = readJsonl(path.join(twining, 'handoffs', 'index.jsonl')).find(l => l.summary === summary);
      if (!line || line.source_agent !== me) throw new Error(`no handoff "${summary}" from ${me} in index.jsonl`);
      if (!(await page().locator('.interactive-list .monaco-button', { hasText: 'Open Handoff' }).count())) throw new Error('no Open Handoff button');
    },
    { needs: [opened] },
  );

  await step(
    'a free-form request makes the model call twining_post; after Allow the finding is on disk',
    async () => {
      const finding = 'Refresh tokens are never rotated';
      const before = await send(page(), `@twining post a finding: ${finding}`);
      const card = page().locator('.chat-confirmation-widget2').filter({ visible: true }).first();
      await card.waitFor({ state: 'visible', timeout: 30000 });
      const cardText = (await card.innerText()).replace(/\s+/g, ' ');
      if (!/Post Finding|Post/.test(cardText) || !cardText.includes(finding)) throw new Error(`unexpected confirmation: ${cardText}`);
      await screenshot(page(), 'chat-confirm-tool');
      await page().locator('.chat-confirmation-widget-buttons .monaco-button:not(.secondary)').filter({ visible: true }).first().click();
      const text = await response(page(), before, t => /Tool result: \w+/.test(t));
      const entry = readJsonl(path.join(twining, 'blackboard.jsonl')).pop()!;
      if (entry.summary !== finding || entry.entry_type !== 'finding' || entry.agent_id !== 'test-model')
        throw new Error(`last entry is ${JSON.stringify(entry)}`);
      if (!text.includes(entry.id)) throw new Error(`the answer does not name the entry ${entry.id}: ${text}`);
      await screenshot(page(), 'chat-tool-result');
    },
    { needs: [opened] },
  );

  await step(
    'Continue in Chat puts the handoff and its context into the chat input',
    async () => {
      await clearInput(page());
      await focusWorkbench(page());
      await runCommand(page(), 'Twining: Continue in Chat');
      await pickQuickItem(page(), /JWT auth middleware implemented/);
      const id = '01M80HHKAVJT8FG2B08Q4NGZ4W';
      // The input wraps long lines: compare without white space.
      const flat = async () => (await inputText(page())).replace(/\s+/g, '');
      const first = await until('the prompt in the chat input', flat, t => t.includes(`Twininghandoff${id}`), 20000);
      if (!first.includes(`acknowledgeitas${me}`)) throw new Error(`the input lacks the acknowledgement step: ${first}`);
      await screenshot(page(), 'chat-continue-in-chat');
      // The prompt is longer than the input shows: its end (the drift section) comes into view at the end.
      await page().locator(INPUT).first().click();
      await page().keyboard.press('Control+End');
      await until('the end of the prompt', flat, t => /Changedsincethehandoffwaswritten|Nothingdrifted|Decisionnow|New(warning|decision)/.test(t), 10000);
      await clearInput(page());
    },
    { needs: [opened] },
  );

  await step(
    'a handoff for the user written by another process shows a notification',
    async () => {
      await closeQuickInput(page());
      cli('handoff', { source_agent: 'backend-dev', target_agent: me, summary: 'Inbox from another process', results: [] });
      // With --enable-smoke-test-driver (which the test URL's payload needs) the workbench adds no
      // toasts at all (NotificationsToasts.addToast returns early in that mode); the notification
      // centre lists every notification, with its buttons, as a person sees it after the toast.
      await runCommand(page(), 'Notifications: Show Notifications');
      await page()
        .locator('.notifications-center .notification-list-item', { hasText: 'Inbox from another process' })
        .first()
        .waitFor({ state: 'visible', timeout: 20000 });
      const item = page().locator('.notification-list-item', { hasText: 'Inbox from another process' }).first();
      const text = (await item.innerText()).replace(/\s+/g, ' ');
      if (!/Handoff for you from backend-dev/.test(text)) throw new Error(`unexpected notification: ${text}`);
      for (const action of ['Open', 'Acknowledge', 'Continue in Chat']) {
        if (!(await item.locator('.monaco-button', { hasText: action }).count())) throw new Error(`no ${action} button in: ${text}`);
      }
      await screenshot(page(), 'chat-inbox-notification');
      await item.locator('.monaco-button', { hasText: 'Acknowledge' }).first().click();
      await until(
        'the acknowledgement on disk',
        () => readJsonl(path.join(twining, 'handoffs', 'index.jsonl')).find(l => l.summary === 'Inbox from another process')?.acknowledged === true,
        v => v,
      );
    },
    { needs: [opened] },
  );
}

runSteps('chat', main);
