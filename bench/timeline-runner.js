// The module that bench/timeline.js passes to the VS Code extension host as `extensionTestsPath`.
// It opens Twining: Open Timeline on the workspace's big blackboard and waits for the page's
// report of its first paint (test hook `timelinePaints`), then appends one entry at a time from
// another process (the CLI, as an agent would) and waits for the page's report of the update.
// Writes to TWINING_BENCH_ACTIVATION_OUT:
//   openToPaintMs    Open Timeline run -> the page says its first frame with data is on the screen
//                    (engine read, layout, the message to the page, indexing and drawing)
//   pagePaintMs      the page's own part of that: message received -> frame drawn
//   appendToPaintMs  per append: the CLI's post returned -> the page drew the update
//   pageAppendMs     per append: the page's part (delta received -> frame drawn)
//   firstDrawMs, appendDrawMs  of the page's part, the canvas drawing itself
//   readMs, loadMs   the extension's part: the engine reading the folder, and that with the items laid out
//                    (since the lazy layout: the newest piece; the rest follows after the first answer)
//   items            entries the page holds at first paint
//   frameMs          where the page reports marks: the command -> the page's frame after the drawing (its clock)
//   marks            [name, ms since the command was run] of the way to the first paint, the extension's and
//                    the page's (TimelineMark in src/webview/shared/timeline-messages.ts), in time order
'use strict';

const { execFileSync } = require('child_process');
const { runnerOf } = require('./activation-runner');

const EXTENSION_ID = 'twining.twining-vscode';
const APPENDS = 7;

async function until(check, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(r => setTimeout(r, 5));
  }
}

async function measure() {
  const vscode = require('vscode');
  const api = (await vscode.extensions.getExtension(EXTENSION_ID).activate()).testing;
  const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const result = { appendToPaintMs: [], pageAppendMs: [], appendDrawMs: [] };
  // The command as a person runs it: after the extension has started and read the folder (its views
  // shown), not in the middle of activation's own reading, which is not the timeline's to measure.
  const w0 = performance.now();
  await api.whenIdle();
  result.idleMs = performance.now() - w0;
  const t0 = performance.now();
  const wall0 = performance.timeOrigin + t0;
  await vscode.commands.executeCommand('twining.openTimeline');
  const first = await until(() => (api.timelinePaints() || []).find(p => p.reason === 'first paint'), 'the first paint');
  result.openToPaintMs = performance.now() - t0;
  result.pagePaintMs = first.ms;
  result.firstDrawMs = first.drawMs;
  result.items = first.items;
  result.readMs = first.readMs;
  result.loadMs = first.loadMs;
  result.marks = (first.marks || []).map(([name, at]) => [name, Math.round((at - wall0) * 10) / 10]);
  // Where the page has marks: the frame after the drawing, when it is on the screen (before its report travels back).
  result.frameMs = result.marks.find(([name]) => name === 'page: next frame')?.[1];
  // Wait until the relations (handoff records) have been sent too, so that appends are measured alone.
  await new Promise(r => setTimeout(r, 3000));
  const now = Date.parse(process.env.TWINING_NOW);
  try {
    await appends(api, folder, now, first, result);
  } catch (error) {
    // The first paint stands on its own: an append that is not shown is reported, not a lost run.
    result.appendError = String(error && error.message ? error.message : error);
  }
  return result;
}

async function appends(api, folder, now, first, result) {
  for (let i = 0; i < APPENDS; i++) {
    const before = api.timelinePaints().length;
    const at = new Date(now + (i + 1) * 1000).toISOString();
    execFileSync(process.execPath, [
      process.env.TWINING_BENCH_CLI,
      'post',
      '--dir',
      folder,
      '--now',
      at,
      '--entry-type',
      'status',
      '--agent-id',
      'agent-3',
      '--summary',
      `append ${i}`,
    ]);
    const a0 = performance.now();
    const update = await until(
      () =>
        api
          .timelinePaints()
          .slice(before)
          .find(p => p.reason === 'update after an append'),
      `the update after append ${i}`,
      30_000,
    );
    result.appendToPaintMs.push(performance.now() - a0);
    result.pageAppendMs.push(update.ms);
    result.appendDrawMs.push(update.drawMs);
    if (update.items !== first.items + i + 1) throw new Error(`after append ${i} the page holds ${update.items} entries, not ${first.items + i + 1}`);
  }
}

module.exports = { run: runnerOf(measure) };
