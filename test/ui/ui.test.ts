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
import type { Page } from 'playwright-core';
import {
  answerInputBox,
  closeQuickInput,
  expandPane,
  launchWorkbench,
  openFile,
  openViewContainer,
  pickQuickItem,
  runCommand,
  screenshot,
  sleep,
  stableQuickInputState,
  waitForRows,
  waitForWorkbench,
} from './workbench';
import { page, readJsonl, runSteps, step, uiRun, useWorkbench } from './steps';

const includesAll = (rows: string[], expected: string[]) => expected.every(e => rows.some(r => r.includes(e)));

const AGENTS = ['backend-dev', 'frontend-dev', 'reviewer', 'tester'];
const DELEGATIONS = ['Write integration tests for the JWT refresh flow', 'Review the API rate-limiting design'];
const HANDOFFS = ['JWT auth middleware implemented', 'Login form ready for review'];

/**
 * The Create Handoff flow, answered by what each prompt asks (title / placeholder / prompt), so
 * that the order of the steps may change. Spec (src/extension/commands/handoff-commands.ts): scope pick
 * (file / folders / whole project) → snapshot preview pick (attach / none / back) → summary input
 * → results: status pick + description input, repeated, then "Done" → target agent pick.
 */
async function createHandoffFlow(p: Page, answers: { summary: string; description: string; target: string; scope: string }): Promise<string[]> {
  const seen: string[] = [];
  let resultsGiven = 0;
  let last = '';
  const started = Date.now();
  const deadline = started + 60000;
  while (Date.now() < deadline) {
    // Wait for the next prompt (or for the quick input to close: the flow is over).
    let state = await stableQuickInputState(p);
    const waitUntil = Date.now() + 10000;
    while ((!state.visible || signature(state) === last) && Date.now() < waitUntil) {
      await sleep(150);
      state = await stableQuickInputState(p);
      if (!state.visible && seen.length > 0 && Date.now() > waitUntil - 8500) break;
    }
    if (!state.visible) {
      if (seen.length === 0) throw new Error('Create Handoff showed no prompt');
      return seen;
    }
    if (signature(state) === last) throw new Error(`the prompt did not move on: ${JSON.stringify(state)}`);
    last = signature(state);
    const ask = `${state.title} | ${state.placeholder} | ${state.message}`;
    seen.push(`+${((Date.now() - started) / 1000).toFixed(1)} s ${ask}`);
    const isPick = state.items.length > 0;
    if (isPick && /^Workspace folder/i.test(state.placeholder)) {
      await pickQuickItem(p, /./);
    } else if (isPick && /^Scope/i.test(state.placeholder)) {
      await pickQuickItem(p, answers.scope);
    } else if (isPick && state.items.some(i => /Attach this snapshot/i.test(i))) {
      await pickQuickItem(p, /Attach this snapshot/i);
    } else if (isPick && /result/i.test(state.title) && !/Done/i.test(state.placeholder) && resultsGiven === 0) {
      await pickQuickItem(p, /^completed\b/i);
    } else if (isPick && /Done/i.test(state.placeholder + state.items.join(' ')) && resultsGiven > 0) {
      await pickQuickItem(p, /^Done\b/i);
    } else if (isPick && /Hand over to|agent/i.test(state.placeholder)) {
      await pickQuickItem(p, new RegExp(`\\b${answers.target}\\b`));
    } else if (!isPick && /handing over|summary/i.test(ask)) {
      await answerInputBox(p, answers.summary);
    } else if (!isPick && /result|done or attempted/i.test(ask)) {
      await answerInputBox(p, answers.description);
      resultsGiven++;
    } else {
      throw new Error(`unexpected prompt: ${JSON.stringify(state)}`);
    }
  }
  throw new Error(`Create Handoff did not finish within 60 s; prompts: ${JSON.stringify(seen)}`);
}

function signature(s: { title: string; placeholder: string; message: string; items: string[] }): string {
  return JSON.stringify([s.title, s.placeholder, s.message, s.items.slice(0, 8)]);
}

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
