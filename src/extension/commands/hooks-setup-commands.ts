/**
 * *Set Up Agent Hooks*: Twining's hooks for VS Code's agents (`.github/hooks/twining.json`) and
 * Claude Code (`.claude/settings.json`), merged into what is there (agents/setup/hooks-config.ts), each
 * change shown as a diff before anything is written; `{remove: true}` takes them out again. The
 * hooks run this installation's dist/hook.js: set them up again after updating the extension.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { planHooks } from '../../agents/setup/hooks-config';
import { currentRuntime } from '../../agents/setup/client-config';
import type { TwiningSession } from '../session';
import { followUp, log } from '../log';
import { Cancelled, Invocation, quietly } from './command-runner';
import { FileChange, folderOf, showDiffs, writeWhole } from './agent-setup-commands';

/** `{remove?, folder?}`: writes (or removes) the hooks; run by hand, shows the diffs and asks first. */
export async function setUpAgentHooks(inv: Invocation, ctx: TwiningSession) {
  const title = 'Set Up Agent Hooks';
  const folder = await folderOf(inv, ctx, title);
  let remove = false;
  if (inv.mode === 'args') {
    const extra = Object.keys(inv.args).filter(k => k !== 'remove' && k !== 'folder');
    if (extra.length) throw new Error(`${title}: unknown field(s) ${extra.join(', ')} (it takes remove and folder)`);
    if (inv.args.remove !== undefined && typeof inv.args.remove !== 'boolean') throw new Error(`${title}: remove must be true or false`);
    remove = inv.args.remove === true;
  }
  const runtime = currentRuntime();
  const plan = (
    await planHooks(folder.root, remove ? undefined : { execPath: runtime.execPath, hookScript: path.join(__dirname, 'hook.js'), electron: runtime.electron })
  ).filter(p => p.before !== p.after);
  const written = plan.map(p => path.relative(folder.root, p.file).split(path.sep).join('/'));
  if (plan.length === 0) {
    const message = remove
      ? `No Twining hooks in ${folder.name}; nothing was changed.`
      : `Twining's agent hooks in ${folder.name} are up to date; nothing was written.`;
    if (inv.mode === 'args') quietly(message);
    else void vscode.window.showInformationMessage(message);
    return { written, removed: remove, folder: folder.root };
  }
  const changes: (FileChange & { remove: boolean })[] = plan.map((p, i) => ({
    relative: written[i],
    file: p.file,
    current: p.before,
    next: p.after ?? '',
    remove: p.after === undefined,
  }));
  if (inv.mode !== 'args') {
    await showDiffs(folder, changes);
    const choice = await vscode.window.showInformationMessage(
      `${remove ? 'Remove Twining’s hooks from' : 'Write'} ${written.join(' and ')} in ${folder.name}?`,
      {
        modal: true,
        detail:
          'VS Code’s agents read .github/hooks/*.json and Claude Code reads .claude/settings.json; other settings and hooks there are kept. The hooks brief each session at its start, show a file’s decisions and warnings before an edit, and ask for twining_record before a session that changed files ends.',
      },
      remove ? 'Remove' : 'Write',
    );
    if (choice === undefined) throw new Cancelled();
  }
  // These files are outside .twining/: no engine writes them, so the rule is asked here.
  const refusal = ctx.folders.writeRefusal(title);
  if (refusal) throw refusal;
  for (const change of changes) {
    if (change.remove) await fs.rm(change.file, { force: true });
    else await writeWhole(change);
  }
  const message = `${remove ? 'Removed Twining’s hooks from' : 'Wrote'} ${written.join(' and ')} in ${folder.name}.`;
  log.info(message);
  if (inv.mode === 'args') quietly(message);
  else if (!remove) followUp(vscode.window.showInformationMessage(message, 'Open'), () => vscode.window.showTextDocument(vscode.Uri.file(changes[0].file)));
  else void vscode.window.showInformationMessage(message);
  return { written, removed: remove, folder: folder.root };
}
