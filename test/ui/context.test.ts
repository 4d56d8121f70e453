// UI test of the Context view as a person uses it: open src/auth/jwt.ts, find its decisions and
// the warning against it in the Context view and the status bar, dismiss the warning with the
// row's inline action (typing a reason in the input box), and see it go from the view, with the
// dismissal and its reason on the blackboard. Run by scripts/run-ui-tests.js (`context`).
import * as path from 'path';
import {
  answerInputBox,
  launchWorkbench,
  openFile,
  openViewContainer,
  pane,
  screenshot,
  showOnlyPane,
  sleep,
  waitForRows,
  waitForWorkbench,
} from './workbench';
import { page, readJsonl, runSteps, step, uiRun, useWorkbench } from './steps';

const WARNING = 'verifyToken does not check the exp claim';
const DECISIONS = ['Sign JWTs with RS256 and rotate keys every 30 days', 'Use stateless JWT bearer tokens for API authentication'];
const REASON = 'exp is checked since the last commit';

function blackboard(folder: string): Record<string, unknown>[] {
  return readJsonl(path.join(folder, '.twining', 'blackboard.jsonl'));
}

async function main(): Promise<void> {
  const { url, folder } = uiRun();

  await step('the workbench loads with the Twining container open', async () => {
    useWorkbench(await launchWorkbench(url, { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' }));
    await waitForWorkbench(page());
    await openViewContainer(page(), 'Twining');
  });
  const loaded = ['the workbench loads with the Twining container open'];

  await step(
    'opening src/auth/jwt.ts shows its decisions and warning in the Context view and the status bar',
    async () => {
      const p = page();
      await showOnlyPane(p, 'Context', ['Agents', 'Delegations', 'Handoffs']);
      await openFile(p, 'src/auth/jwt.ts');
      const rows = await waitForRows(p, 'Context', r => [...DECISIONS, WARNING].every(e => r.some(x => x.includes(e))), {
        what: `${DECISIONS.join(' / ')} / ${WARNING}`,
      });
      console.log(`    Context view rows:\n${rows.map(r => `      ${r}`).join('\n')}`);
      const status = p.locator('.statusbar-item', { hasText: /2 decisions · 1 warning/ }).first();
      await status.waitFor({ state: 'visible', timeout: 15000 });
      console.log(`    status bar: ${(await status.innerText()).trim()}`);
      await screenshot(p, 'context-view');
    },
    { needs: loaded },
  );

  await step(
    "the warning's inline Dismiss action asks for a reason, and the warning goes from the view",
    async () => {
      const p = page();
      const row = pane(p, 'Context').first().locator('.pane-body .monaco-list-row').filter({ hasText: WARNING }).first();
      await row.hover();
      const action = row.locator('.actions .action-label[aria-label="Dismiss Warning or Finding"]');
      await action.waitFor({ state: 'visible', timeout: 10000 });
      await action.click();
      await answerInputBox(p, REASON);
      await waitForRows(p, 'Context', r => !r.some(x => x.includes(WARNING)) && r.some(x => x.includes(DECISIONS[0])), {
        what: 'the decisions without the dismissed warning',
      });
      for (let i = 0; i < 25 && blackboard(folder).some(e => e.summary === WARNING); i++) await sleep(200);
      const lines = blackboard(folder);
      if (lines.some(e => e.summary === WARNING)) throw new Error('the warning is still in blackboard.jsonl');
      const status = lines[lines.length - 1];
      if (status.entry_type !== 'status' || !String(status.detail).includes(`Reason: ${REASON}`)) {
        throw new Error(`the last entry does not record the dismissal and its reason: ${JSON.stringify(status)}`);
      }
      await screenshot(p, 'context-view-after-dismiss');
    },
    { needs: ['opening src/auth/jwt.ts shows its decisions and warning in the Context view and the status bar'] },
  );
}

runSteps('context', main);
