/**
 * Which record the Twining views show, said at the top of the Agents view (TreeView.message) when
 * it is not simply the workspace folder's own `.twining/`: a window on a linked worktree shows the
 * primary worktree's shared record (core/git/record-location.ts), an isolated worktree its own, and
 * a worktree whose main repository was moved shows nothing and says why.
 */
import * as path from 'path';
import type * as vscode from 'vscode';
import type { Folders } from '../model/folders';
import type { TwiningFolder } from '../model/twining-folder';

/** The line for one folder, or undefined when it shows its own record in the plain way. */
export function recordLine(folder: TwiningFolder): string | undefined {
  if (folder.routeError) return `${folder.name}: no record shown: ${folder.routeError}`;
  const route = folder.route;
  if (route.mode === 'isolated') return `${folder.name}: the worktree's own record (isolated)`;
  if (route.projectRoot === folder.root) return undefined;
  const where = route.worktreeName ? ` (worktree ${route.worktreeName}${route.branch ? ` on branch ${route.branch}` : ''})` : '';
  return `${folder.name}${where}: showing the shared record of ${path.basename(route.projectRoot)}, ${route.dir}`;
}

/** Keeps the view's message in line with the folders' routes. */
export function showRecordRoute(view: vscode.TreeView<unknown>, folders: Folders): vscode.Disposable {
  const update = () => {
    const lines = folders
      .all()
      .map(recordLine)
      .filter((l): l is string => l !== undefined);
    view.message = lines.length ? lines.join('\n') : undefined;
  };
  update();
  return folders.onDidChange(update);
}
