/**
 * The walkthrough in the manifest: the five steps from installing to a first handoff, each with
 * its markdown, a command a person can press, and a completion event the extension really fires
 * (a context key it sets, a view that exists).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const source = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

test('the walkthrough: install, initialize, set up agents, the board, a first handoff; each step completes by itself', () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  assert.equal(walkthrough.id, 'gettingStarted');
  assert.deepEqual(
    walkthrough.steps.map((s: { id: string }) => s.id),
    ['install', 'initialize', 'setUpAgents', 'board', 'handoff'],
  );
  const commands = new Set(manifest.contributes.commands.map((c: { command: string }) => c.command));
  const views = new Set(Object.values(manifest.contributes.views).flatMap(v => (v as { id: string }[]).map(x => x.id)));
  const setters =
    source('src/extension/editor/walkthrough-progress.ts') +
    source('src/extension/commands/set-up-agents-command.ts') +
    source('src/extension/model/folders.ts');
  for (const step of walkthrough.steps) {
    assert.ok(fs.existsSync(path.join(ROOT, step.media.markdown)), `${step.id}: ${step.media.markdown} exists`);
    const links = [...step.description.matchAll(/\(command:([\w.]+)\)/g)].map(m => m[1]);
    assert.equal(links.length, 1, `${step.id} has one button`);
    const link = links[0];
    assert.ok(commands.has(link) || link === 'workbench.view.extension.twining' || views.has(link.replace(/\.focus$/, '')), `${step.id}: ${link} exists`);
    assert.ok(step.completionEvents.length > 0, `${step.id} completes by itself`);
    for (const event of step.completionEvents as string[]) {
      const [kind, what] = event.split(/:(.*)/s);
      if (kind === 'onContext')
        assert.match(setters, new RegExp(`'${what.replace(/\./g, '\\.')}'|= '${what.replace(/\./g, '\\.')}'`), `${what} is set by the extension`);
      else if (kind === 'onView') assert.ok(views.has(what), `view ${what}`);
      else if (kind === 'extensionInstalled') assert.equal(what, `${manifest.publisher}.${manifest.name}`);
      else assert.fail(`${step.id}: unexpected completion event ${event}`);
    }
  }
  assert.ok(commands.has('twining.setUpAgents'));
});
