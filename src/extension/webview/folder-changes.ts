/**
 * The one place the webviews learn of data changes: an adapter over the model's change event
 * (Folders.onDidChange, with the kinds that changed), so that a change of how the model announces
 * changes touches this file only.
 */
import type * as vscode from 'vscode';
import type { ChangeKind } from '../model/change-kinds';
import type { Folders, TwiningFolder } from '../model/folders';

/** Calls `listener` with the kinds of each change that concerns `folder` (a change of every folder included). */
export function onFolderChange(
  folders: Folders,
  folder: () => TwiningFolder | undefined,
  listener: (kinds: ReadonlySet<ChangeKind>) => void,
): vscode.Disposable {
  return folders.onDidChange(change => {
    const mine = folder();
    if (!change.folder || (mine && change.folder.key === mine.key)) listener(change.kinds);
  });
}
