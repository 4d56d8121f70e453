/**
 * What the per-family models share (handoffs-model.ts, agents-model.ts; context-model.ts is the
 * Context view's): one subscription to the folders' announcements, the one filter of the kinds of
 * change a data family shows, and one event that the views and status items of that family
 * redraw on. Views draw; they neither filter announcements nor query the engine themselves.
 *
 * The path of a change, e.g. another process writing a handoff, from the file watcher to the
 * Handoffs view's redraw: watcher event, schedule, flush -> TwiningFolder.refresh (git settled,
 * `.twining/` present, run) -> TwiningEngine.refresh (the path's kind decided, once; the kinds
 * changed since its last report, once) -> the folder's event -> Folders' event -> this model
 * (forget, fire) -> the view's redraw: 16 calls over 7 files, into the core and back once, and
 * the view, the status bar and the inbox then share one query of the handoff index. (Before: 19
 * calls over 7 files, the kind decided twice, the changed kinds computed, dropped and computed
 * again, the folder calling up into Folders, 3 crossings into the core before the redraw and 3
 * queries of the index after it.)
 */
import * as vscode from 'vscode';
import type { FolderChange, Folders, TwiningFolder } from './folders';
import type { ChangeKind } from './change-kinds';

/** A change of a family's data: in one folder, or (no folder) in every folder. */
export interface FamilyChange {
  folder?: TwiningFolder;
  kinds: ReadonlySet<ChangeKind>;
}

export abstract class FamilyModel implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<FamilyChange>();
  /** Fires when the family's data (or what it looks like: trust, the user's agent id) changed. */
  readonly onDidChange = this.emitter.event;
  protected readonly disposables: vscode.Disposable[] = [this.emitter];

  /** The kinds of change this family's data depends on (`presence` and `trust` always count). */
  protected abstract readonly shows: ReadonlySet<ChangeKind>;

  constructor(readonly folders: Folders) {
    this.disposables.push(folders.onDidChange(change => this.onFolderChange(change)));
  }

  private onFolderChange(change: FolderChange): void {
    const everything = change.kinds.has('presence') || change.kinds.has('trust');
    const shown = everything || [...change.kinds].some(k => this.shows.has(k));
    if (shown) {
      this.forget(everything ? undefined : change.folder);
      this.emitter.fire(everything ? { kinds: change.kinds } : change);
    }
    if (change.folder && !everything) this.changed(change.folder, change.kinds, shown);
  }

  /** Drops what the model holds of a folder's data (every folder's when undefined). */
  protected forget(_folder: TwiningFolder | undefined): void {}

  /** Every change in one folder, shown or not (the handoffs' drift depends on more than their list). */
  protected changed(_folder: TwiningFolder, _kinds: ReadonlySet<ChangeKind>, _shown: boolean): void {}

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
