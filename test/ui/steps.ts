// The step harness of the UI test files (test/ui/*.test.ts): plain async steps, not node:test, so
// that `node --test out/unit` never picks these files up. Each step passes or fails (with a
// screenshot of the workbench when one is open); a step whose prerequisite failed is skipped. The
// summary goes to TWINING_TEST_SUMMARY for scripts/run-ui-tests.js.
import * as fs from 'fs';
import type { Page } from 'playwright-core';
import { Workbench, answerInputBox, pickQuickItem, screenshot, sleep, stableQuickInputState } from './workbench';

interface Failure {
  title: string;
  error: string;
}

const summary = { passed: 0, failed: 0, skipped: 0, failures: [] as Failure[] };
const failedSteps = new Set<string>();
let current: Workbench | undefined;

/** The workbench the steps run in (for screenshots of failures and the console at the end). */
export function useWorkbench(wb: Workbench | undefined): void {
  current = wb;
}

export function page(): Page {
  if (!current) throw new Error('the workbench is not open');
  return current.page;
}

/**
 * The server address and workspace folder that scripts/run-ui-tests.js gives each UI test file, and
 * the server's run folder (its user data and storage folders are in it).
 */
export function uiRun(): { url: string; folder: string; serverDir: string | undefined } {
  const url = process.env.TWINING_UI_URL;
  const folder = process.env.TWINING_UI_WORKSPACE;
  if (!url || !folder) throw new Error('TWINING_UI_URL and TWINING_UI_WORKSPACE must be set (run scripts/run-ui-tests.js)');
  return { url, folder, serverDir: process.env.TWINING_UI_SERVER_DIR };
}

/** The records of a JSONL file of `.twining/` (what the tests check on disk). */
export function readJsonl(file: string): Record<string, any>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l));
}

/** Runs one step; `needs` names earlier steps that must have passed. */
export async function step(title: string, fn: () => void | Promise<void>, { needs = [] as string[], timeoutMs = 90000 } = {}): Promise<boolean> {
  const missing = needs.filter(n => failedSteps.has(n));
  if (missing.length) {
    summary.skipped++;
    failedSteps.add(title);
    console.log(`- skip ${title} (needs: ${missing.join(', ')})`);
    return false;
  }
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`step timed out after ${timeoutMs / 1000} s`)), timeoutMs))),
    ]);
    summary.passed++;
    console.log(`✔ ${title} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return true;
  } catch (error) {
    summary.failed++;
    failedSteps.add(title);
    const text = error instanceof Error ? error.stack || error.message : String(error);
    summary.failures.push({ title, error: text });
    console.log(`✘ ${title} (${((Date.now() - started) / 1000).toFixed(1)} s)\n${text.replace(/^/gm, '    ')}`);
    if (current) {
      const shot = await screenshot(current.page, `failed-${title}`).catch(() => undefined);
      if (shot) console.log(`    screenshot: ${shot}`);
    }
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `main`, then closes the workbench, prints its console when something failed, writes the summary. */
export function runSteps(name: string, main: () => Promise<void>, cleanup: () => void | Promise<void> = () => {}): void {
  const finish = async () => {
    await Promise.resolve()
      .then(cleanup)
      .catch(error => console.log(`cleanup: ${error instanceof Error ? error.stack : error}`));
    const logs = current?.logs || [];
    if (current) await current.close();
    if ((summary.failed > 0 && logs.length) || process.env.TWINING_TEST_VERBOSE === '1') {
      console.log('---- extension host console ----');
      for (const l of logs.slice(-200)) console.log(`[${name}:exthost] ${l}`);
      console.log('---- end ----');
    }
    const file = process.env.TWINING_TEST_SUMMARY;
    if (file) fs.writeFileSync(file, JSON.stringify(summary, null, 2));
    console.log(`${name}: ${summary.passed} passed, ${summary.failed} failed${summary.skipped ? `, ${summary.skipped} skipped` : ''}`);
    process.exitCode = summary.failed > 0 ? 1 : 0;
  };
  main()
    .catch(error => {
      summary.failed++;
      summary.failures.push({ title: `${name} test harness`, error: error instanceof Error ? error.stack || error.message : String(error) });
      console.log(`✘ ${name} test harness: ${error instanceof Error ? error.stack : error}`);
    })
    .then(finish)
    .catch(error => {
      console.error(error);
      process.exitCode = 1;
    });
}

/**
 * The Create Handoff flow, answered by what each prompt asks (title / placeholder / prompt), so
 * that the order of the steps may change. Spec (src/extension/commands/handoff-commands.ts): scope pick
 * (file / folders / whole project) → snapshot preview pick (attach / none / back) → summary input
 * → results: status pick + description input, repeated, then "Done" → target agent pick.
 */
export async function createHandoffFlow(p: Page, answers: { summary: string; description: string; target: string; scope: string }): Promise<string[]> {
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
