// UI test: setting other agents up, as a person does it from the Command Palette. Copy MCP
// Configuration asks for the client and shows the snippet; Add Agent Instructions asks where the
// instructions go, shows the diff, asks before writing, writes once, and finds nothing to do the
// second time. Run by scripts/run-ui-tests.js (environment as in ui.test.ts).
import * as fs from 'fs';
import * as path from 'path';
import {
  dialog,
  expandPane,
  launchWorkbench,
  openViewContainer,
  waitForRows,
  pickQuickItem,
  runCommand,
  screenshot,
  sleep,
  waitForWorkbench,
} from './workbench';
import { page, runSteps, step, uiRun, useWorkbench } from './steps';

/** The text of the active editor's visible lines. */
async function editorText(): Promise<string> {
  return (await page().locator('.editor-instance .view-lines').last().innerText()).replace(/\u00a0/g, ' ');
}

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeout = 15000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function main(): Promise<void> {
  const { url, folder } = uiRun();
  const agentsMd = path.join(folder, 'AGENTS.md');
  const promptFile = path.join(folder, '.github', 'prompts', 'twining-handoff.prompt.md');

  await step('the workbench loads and Twining is active', async () => {
    useWorkbench(await launchWorkbench(url, { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' }));
    await waitForWorkbench(page());
    // The commands are in the palette once Twining has found the .twining/ folder.
    await openViewContainer(page(), 'Twining');
    await expandPane(page(), 'Agents');
    await waitForRows(page(), 'Agents', rows => rows.length > 0, { what: 'the agents of the fixture' });
  });
  const loaded = ['the workbench loads and Twining is active'];

  await step(
    'Copy MCP Configuration: pick Claude Code, and the snippet with this folder opens in an editor',
    async () => {
      await runCommand(page(), 'Twining: Copy MCP Configuration');
      await pickQuickItem(page(), 'Claude Code');
      await waitUntil(async () => (await editorText().catch(() => '')).includes('mcpServers'), 'the snippet in an editor');
      const text = await editorText();
      for (const part of ['"twining"', '"stdio"', 'dist/cli.js', '"mcp"', '"--dir"', folder]) {
        if (!text.includes(part)) throw new Error(`the snippet lacks ${part}:\n${text}`);
      }
      console.log(`    screenshot: ${await screenshot(page(), 'copy-mcp-configuration')}`);
    },
    { needs: loaded },
  );

  await step(
    'Add Agent Instructions: pick AGENTS.md, see the diff and the question, write',
    async () => {
      fs.writeFileSync(agentsMd, '# Agents\n\nRun npm test before you push.\n');
      await runCommand(page(), 'Twining: Add Agent Instructions');
      await pickQuickItem(page(), 'AGENTS.md');
      const box = dialog(page());
      await box.waitFor({ state: 'visible', timeout: 20000 }).catch(async e => {
        const classes = await page().evaluate(() =>
          Array.from(document.querySelectorAll('[class*="dialog"], [class*="notification-toast"]')).map(
            el => `${el.className}: ${(el as HTMLElement).innerText?.slice(0, 200)}`,
          ),
        );
        console.log('PROBE', JSON.stringify(classes, null, 1));
        throw e;
      });
      const question = await box.innerText();
      if (!/Write AGENTS\.md and \.github\/prompts\/twining-handoff\.prompt\.md/.test(question)) throw new Error(`unexpected question: ${question}`);
      const tabs = await page().locator('.tabs-container .tab').allInnerTexts();
      if (!tabs.some(t => t.includes('AGENTS.md: current'))) throw new Error(`no diff of AGENTS.md among the tabs: ${tabs.join(' | ')}`);
      if (fs.readFileSync(agentsMd, 'utf8') !== '# Agents\n\nRun npm test before you push.\n') throw new Error('AGENTS.md was written before the answer');
      console.log(`    screenshot: ${await screenshot(page(), 'add-agent-instructions-diff')}`);
      await box.getByRole('button', { name: 'Write' }).click();
      await waitUntil(() => fs.readFileSync(agentsMd, 'utf8').includes('<!-- END twining -->') && fs.existsSync(promptFile), 'AGENTS.md and the prompt file');
      const text = fs.readFileSync(agentsMd, 'utf8');
      if (!text.startsWith('# Agents\n\nRun npm test before you push.\n\n<!-- BEGIN twining')) throw new Error(`AGENTS.md:\n${text.slice(0, 300)}`);
    },
    { needs: loaded },
  );

  await step(
    'Add Agent Instructions again: nothing to write, no question, the files unchanged',
    async () => {
      const before = [fs.readFileSync(agentsMd, 'utf8'), fs.readFileSync(promptFile, 'utf8')];
      await runCommand(page(), 'Twining: Add Agent Instructions');
      await pickQuickItem(page(), 'AGENTS.md');
      await sleep(2500);
      if (await dialog(page()).isVisible()) throw new Error('it asked again although nothing changes');
      const after = [fs.readFileSync(agentsMd, 'utf8'), fs.readFileSync(promptFile, 'utf8')];
      if (after[0] !== before[0] || after[1] !== before[1]) throw new Error('a file changed on the second run');
    },
    { needs: ['Add Agent Instructions: pick AGENTS.md, see the diff and the question, write'] },
  );
}

runSteps('agent-setup', main);
