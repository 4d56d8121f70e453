/**
 * git merging of `.twining/` from VS Code: the command *Twining: Set Up Git Merging*, the offer
 * after Initialize in a git repository, one suggestion when `.twining/` is tracked by git and the
 * driver is not set up (asked once per workspace folder, the answer remembered), and keeping a
 * configured driver on this installation's CLI after the extension is updated. Each works on the
 * folder's record (`folder.recordRoot`): a window on a linked worktree sets up the shared record of
 * the primary worktree, never the worktree's own checked-out copy.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { core } from '../model/engine-loader';
import type { TwiningFolder } from '../model/folders';
import { followUp, log } from '../log';
import type { TwiningSession } from '../session';
import { Invocation, folderFromArgs, quietly } from './command-runner';
import { pickFolder } from './prompts';

/** The CLI next to this bundle (dist/cli.js), run by git with VS Code's own runtime. */
function ourDriverCommand(): string {
  return core().driverCommand(path.join(__dirname, 'cli.js'));
}

/** Runs the set-up for one folder and says what changed. */
async function setUp(folder: TwiningFolder, quiet: boolean) {
  const result = await core().gitSetup(folder.recordRoot, ourDriverCommand());
  const what = result.changed.length ? result.changed.join('; ') : 'it was already set up, nothing changed';
  log.info(`${folder.name}: git merging of .twining/: ${what}. Driver: ${result.driver}`);
  const message = result.changed.length
    ? `Twining: git now merges .twining/ record by record in ${folder.name}. Commit .twining/.gitattributes so your team shares it; each clone runs this set-up once (git never runs a merge driver from committed files).`
    : `Twining: git merging of .twining/ was already set up in ${folder.name}.`;
  if (quiet) quietly(message.replace(/^Twining: /, ''));
  else
    followUp(vscode.window.showInformationMessage(message, 'Open .gitattributes'), () =>
      vscode.window.showTextDocument(vscode.Uri.file(result.attributesFile)),
    );
  return result;
}

export async function setUpGitMerging(inv: Invocation, ctx: TwiningSession) {
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    const extra = Object.keys(inv.args);
    if (extra.length) throw new Error(`Set Up Git Merging: unknown field(s) ${extra.join(', ')} (it takes only folder)`);
    return setUp(folder, true);
  }
  const folder = (inv.mode === 'uri' ? ctx.folders.folderOf(inv.uri) : undefined) ?? (await pickFolder(ctx, { title: 'Set Up Git Merging' }));
  return setUp(folder, false);
}

/** After Initialize: in a git repository whose driver is not set up, offer the set-up. */
export async function offerAfterInitialize(folder: TwiningFolder): Promise<void> {
  const state = await core().gitMergeState(folder.recordRoot);
  if (!state.repository || (state.driver && state.attributes)) return;
  const choice = await vscode.window.showInformationMessage(
    `${folder.name} is a git repository. Set up git to merge .twining/ record by record, so that branches merge without conflicts or lost records?`,
    'Set Up Git Merging',
    'Not Now',
  );
  if (choice === 'Set Up Git Merging') await setUp(folder, false);
}

const SUGGESTED = 'twining.gitMerging.suggested';

/**
 * At start: for each folder whose `.twining/` is tracked by git without the driver, one suggestion,
 * never repeated in that folder whatever the answer (the command stays in the palette). Folders
 * whose driver runs another installed version's CLI (or one that is gone) are pointed at ours.
 */
export async function checkGitMerging(folders: readonly TwiningFolder[], memento: vscode.Memento, trusted: boolean): Promise<void> {
  for (const folder of folders) {
    const state = await core()
      .gitMergeState(folder.recordRoot)
      .catch(() => undefined);
    if (!state?.repository) continue;
    const current = ourDriverCommand();
    if (trusted && core().driverNeedsUpdate(state.driver, current, file => fs.existsSync(file))) {
      await core()
        .gitSetup(folder.recordRoot, current)
        .then(
          r => log.info(`${folder.name}: the git merge driver now runs this version's CLI (${r.changed.join('; ') || 'unchanged'}).`),
          error => log.warn(`${folder.name}: could not update the git merge driver: ${(error as Error).message}`),
        );
      continue;
    }
    const asked = memento.get<string[]>(SUGGESTED, []);
    if (!trusted || state.driver || !state.tracked || asked.includes(folder.key)) continue;
    await memento.update(SUGGESTED, [...asked, folder.key]);
    followUp(
      vscode.window.showInformationMessage(
        `.twining/ in ${folder.name} is tracked by git, but git merges it line by line: two branches that both add records conflict, and resolving by hand can lose them. Set up record-by-record merging?`,
        'Set Up Git Merging',
      ),
      () => setUp(folder, false),
    );
  }
}
