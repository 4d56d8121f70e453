/**
 * Link Commit to Decision: twining_link_commit from the Source Control view's graph (the
 * `scm/historyItem/context` menu, where VS Code's git extension puts its own commit actions such as
 * Copy Commit ID), from the palette, or with an argument object.
 *
 * What VS Code passes from that menu: the source control and the history item, as the git
 * extension's own commands receive them (its `copyCommitId(repository, historyItem)` writes
 * `historyItem.id`, the commit hash, and `copyCommitMessage` writes `historyItem.message`). Only
 * those two fields and the source control's `rootUri` are read here, so a provider other than git
 * that passes the same shape works too.
 */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { oneLine } from '../present/format';
import { Invocation, folderFromArgs } from './command-runner';
import { askText, pickFolder, pickOne } from './prompts';

const HASH = /^[0-9a-f]{7,40}$/i;

/** A commit named by the menu's arguments: the first object with a hash-shaped `id`, and a `rootUri` if one came. */
export interface MenuCommit {
  commit: string;
  message?: string;
  rootUri?: vscode.Uri;
}

export function commitOfMenuArgs(args: readonly unknown[]): MenuCommit | undefined {
  let rootUri: vscode.Uri | undefined;
  let found: MenuCommit | undefined;
  for (const arg of args) {
    if (arg === null || typeof arg !== 'object') continue;
    const o = arg as { id?: unknown; message?: unknown; rootUri?: unknown; historyItem?: unknown };
    if (o.rootUri instanceof vscode.Uri) rootUri ??= o.rootUri;
    const item = (o.historyItem && typeof o.historyItem === 'object' ? o.historyItem : o) as { id?: unknown; message?: unknown };
    if (!found && typeof item.id === 'string' && HASH.test(item.id)) {
      found = { commit: item.id, ...(typeof item.message === 'string' ? { message: item.message } : {}) };
    }
  }
  return found && { ...found, ...(rootUri ? { rootUri } : {}) };
}

interface DecisionItem extends vscode.QuickPickItem {
  id: string;
}

/** Links a commit to a decision; the menu's commit, or one typed in, and a decision picked from the folder's. */
export async function linkCommitToDecision(inv: Invocation, ctx: TwiningSession, all: readonly unknown[] = []): Promise<unknown> {
  const menu = commitOfMenuArgs(all);
  const title = 'Twining: Link Commit to Decision';
  if (inv.mode === 'args' && !menu) {
    const folder = await folderFromArgs(ctx, inv.args);
    const args = { agent_id: ctx.agentId(), ...inv.args };
    return folder.write(title, engine => engine.link_commit(args as never));
  }
  let folder: TwiningFolder | undefined = menu?.rootUri ? ctx.folders.folderOf(menu.rootUri) : undefined;
  if (!folder?.hasTwiningDir) folder = await pickFolder(ctx, { title });
  const commit =
    menu?.commit ?? (await askText({ title }, { prompt: 'The commit hash (7 to 40 hexadecimal digits)', placeHolder: 'e.g. 3f2a9c1', max: 40 })).trim();
  if (!HASH.test(commit)) throw new Error(`"${commit}" is not a commit hash (7 to 40 hexadecimal digits); nothing was linked`);
  const { decisions } = await folder.run(engine => engine.decisions({ status: ['active', 'provisional'] }));
  if (decisions.length === 0) throw new Error(`${folder.name} has no active or provisional decision to link ${commit.slice(0, 7)} to; nothing was linked`);
  const items: DecisionItem[] = decisions.map(d => ({
    label: `$(law) ${oneLine(d.summary, 120)}`,
    description: `${d.scope} · ${d.status}`,
    detail: d.affected_files.length ? d.affected_files.slice(0, 4).join(', ') : undefined,
    id: d.id,
  }));
  const shown = menu?.message ? `${commit.slice(0, 7)} "${oneLine(menu.message, 60)}"` : commit.slice(0, 7);
  const picked = await pickOne({ title: `${title} ${shown}` }, items, 'Which decision does this commit implement?', { matchOnDescription: true });
  const result = await folder.write(title, engine => engine.link_commit({ decision_id: picked.id, commit_hash: commit, agent_id: ctx.agentId() }));
  void vscode.window.showInformationMessage(`Twining: commit ${commit.slice(0, 7)} is linked to "${oneLine(picked.label.replace(/^\$\(law\) /, ''), 80)}".`);
  return result;
}
