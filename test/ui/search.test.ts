// UI test of Twining: Search as a person uses it: run it from the Command Palette, type a few
// words (a prefix and a typo among them), read the ranked rows with their type, scope, age and
// author, choose the warning, and see its document open. Run by scripts/run-ui-tests.js (`search`).
import {
  closeQuickInput,
  launchWorkbench,
  openViewContainer,
  quickInput,
  runCommand,
  screenshot,
  stableQuickInputState,
  sleep,
  waitForRows,
  waitForWorkbench,
} from './workbench';
import { page, runSteps, step, useWorkbench } from './steps';

const WARNING = 'verifyToken does not check the exp claim';

async function main(): Promise<void> {
  const url = process.env.TWINING_UI_URL;
  if (!url) throw new Error('TWINING_UI_URL must be set (run scripts/run-ui-tests.js)');

  await step('the workbench loads with the Twining container open', async () => {
    useWorkbench(await launchWorkbench(url, { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' }));
    await waitForWorkbench(page());
    // The palette offers Twining's commands once the extension has found the folder's .twining/
    // (context key twining.hasFolder): the Agents view's rows say it has.
    await openViewContainer(page(), 'Twining');
    await waitForRows(page(), 'Agents', rows => rows.some(r => r.includes('reviewer')), { what: 'the agents' });
  });

  await step(
    'Twining: Search lists what matches as the words are typed, and opens the chosen warning',
    async () => {
      const p = page();
      await runCommand(p, 'Twining: Search');
      const input = quickInput(p).locator('input').first();
      await input.waitFor({ state: 'visible', timeout: 15000 });
      // Typed key by key, with a typo: "verifyTokn" for verifyToken.
      await input.pressSequentially('verifyTokn exp', { delay: 60 });
      let state = await stableQuickInputState(p, { settleMs: 400, timeout: 10000 });
      for (let i = 0; i < 40 && !state.items.some(t => t.includes(WARNING)); i++) {
        await sleep(250);
        state = await stableQuickInputState(p, { settleMs: 300 });
      }
      console.log(`    rows:\n${state.items.map(r => `      ${r}`).join('\n')}`);
      await screenshot(p, 'twining-search-quick-pick');
      if (!state.items[0]?.includes(WARNING)) throw new Error(`the warning is not the first row: ${JSON.stringify(state.items)}`);
      if (!/warning · src\/auth\/jwt\.ts · .+ · reviewer/.test(state.items[0]))
        throw new Error(`the row does not say its type, scope, age and author: ${state.items[0]}`);
      await p.keyboard.press('Enter');
      const tab = p.locator('.tab', { hasText: /^entry-01M80HHK5EACAY1D2CS04B635E\.md/ }).first();
      await tab.waitFor({ state: 'visible', timeout: 15000 });
      const editor = p.locator('.editor-instance .view-lines').first();
      await editor.waitFor({ state: 'visible', timeout: 15000 });
      // The editor renders spaces as no-break spaces.
      const text = (await editor.innerText()).replace(/\s+/g, ' ');
      if (!text.includes(WARNING)) throw new Error(`the opened document does not show the warning: ${text.slice(0, 300)}`);
      await screenshot(p, 'twining-search-opened');
      await closeQuickInput(p);
    },
    { needs: ['the workbench loads with the Twining container open'] },
  );
}

runSteps('search', main);
