// UI tests: Playwright drives the VS Code workbench (the real VS Code in code-server, headless
// Chromium) the way a person would. Run by scripts/run-ui-tests.js, which prepares the workspace,
// starts the server and passes, in the environment:
//   TWINING_UI_URL         the workbench URL (payload: only extensionDevelopmentPath)
//   TWINING_UI_WORKSPACE   the workspace folder (with .twining copied from the fixture)
//   TWINING_TEST_SUMMARY   where to write {passed, failed, skipped, failures: [{title, error}]}
//   TWINING_SCREENSHOTS    the screenshot folder (default .test-output/screenshots)
// Steps: test/ui/steps.ts.
import * as fs from 'fs';
import * as path from 'path';
import {
  closeQuickInput,
  expandPane,
  launchWorkbench,
  openFile,
  openViewContainer,
  runCommand,
  screenshot,
  sleep,
  waitForRows,
  waitForWorkbench,
} from './workbench';
import { createHandoffFlow, page, readJsonl, runSteps, step, uiRun, useWorkbench } from './steps';

const includesAll = (rows: string[], expected: string[]) => expected.every(e => rows.some(r => r.includes(e)));

const AGENTS = ['backend-dev', 'frontend-dev', 'reviewer', 'tester'];
const DELEGATIONS = ['Write integration tests for the JWT refresh flow', 'Review the API rate-limiting design'];
const HANDOFFS = ['JWT auth middleware implemented', 'Login form ready for review'];

function readHandoffIndex(folder: string): { summary: string; target_agent?: string; scope?: string; id: string }[] {
  return readJsonl(path.join(folder, '.twining', 'handoffs', 'index.jsonl')) as ReturnType<typeof readHandoffIndex>;
}

async function main(): Promise<void> {
  const { url, folder } = uiRun();

  await step('the workbench loads', async () => {
    useWorkbench(await launchWorkbench(url, { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' }));
    await waitForWorkbench(page());
  });

  await step(
    'the Twining view container opens from the activity bar',
    async () => {
      await openViewContainer(page(), 'Twining');
    },
    { needs: ['the workbench loads'] },
  );

  const opened = ['the Twining view container opens from the activity bar'];

  await step(
    'the Agents view lists the fixture agents',
    async () => {
      await expandPane(page(), 'Agents');
      await waitForRows(page(), 'Agents', rows => includesAll(rows, AGENTS), { what: AGENTS.join(', ') });
    },
    { needs: opened },
  );

  await step(
    'the Delegations view lists the open delegations',
    async () => {
      await expandPane(page(), 'Delegations');
      await waitForRows(page(), 'Delegations', rows => includesAll(rows, DELEGATIONS), { what: DELEGATIONS.join(' / ') });
    },
    { needs: opened },
  );

  await step(
    'the Handoffs view lists the handoffs',
    async () => {
      await expandPane(page(), 'Handoffs');
      await waitForRows(page(), 'Handoffs', rows => includesAll(rows, HANDOFFS), { what: HANDOFFS.join(' / ') });
    },
    { needs: opened },
  );

  await step(
    'a screenshot of the views is saved',
    async () => {
      const file = await screenshot(page(), 'twining-views');
      const size = fs.statSync(file).size;
      if (size < 10000) throw new Error(`screenshot ${file} is only ${size} bytes`);
      console.log(`    screenshot: ${file}`);
    },
    { needs: opened },
  );

  const handoffSummary = `UI test handoff ${Date.now()}`;
  await step(
    'Create Handoff from the palette, scoped to the active editor, writes a handoff',
    async () => {
      const p = page();
      await openFile(p, 'src/auth/jwt.ts');
      const before = readHandoffIndex(folder).length;
      await runCommand(p, 'Twining: Create Handoff');
      const prompts = await createHandoffFlow(p, {
        scope: 'jwt.ts',
        summary: handoffSummary,
        description: 'Token refresh covered by the UI test',
        target: 'reviewer',
      });
      console.log(`    prompts answered:\n${prompts.map(x => `      ${x}`).join('\n')}`);
      let index = readHandoffIndex(folder);
      for (let i = 0; i < 50 && index.length === before; i++) {
        await sleep(200);
        index = readHandoffIndex(folder);
      }
      const created = index.find(h => h.summary === handoffSummary);
      if (!created) throw new Error(`no handoff with the summary in index.jsonl (had ${before}, now ${index.length}); prompts: ${JSON.stringify(prompts)}`);
      if (created.target_agent !== 'reviewer') throw new Error(`target_agent is ${created.target_agent}, expected reviewer`);
      if (created.scope !== 'src/auth/jwt.ts') throw new Error(`scope is ${created.scope}, expected src/auth/jwt.ts`);
      const record = JSON.parse(fs.readFileSync(path.join(folder, '.twining', 'handoffs', `${created.id}.json`), 'utf8'));
      if (!Array.isArray(record.results) || record.results[0]?.status !== 'completed') {
        throw new Error(`unexpected results in the record: ${JSON.stringify(record.results)}`);
      }
    },
    { needs: opened },
  );

  await step(
    'the new handoff shows in the Handoffs view',
    async () => {
      await closeQuickInput(page());
      await waitForRows(page(), 'Handoffs', rows => rows.some(r => r.includes(handoffSummary)), { what: handoffSummary });
      await screenshot(page(), 'twining-after-create-handoff');
    },
    { needs: ['Create Handoff from the palette, scoped to the active editor, writes a handoff'] },
  );
}

runSteps('ui', main);
