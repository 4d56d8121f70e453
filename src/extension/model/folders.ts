/**
 * The workspace folders and their engines (model/twining-folder.ts): which have a `.twining/`
 * folder (the `twining.hasFolder` context key), watching them, workspace trust (engines are
 * read-only until it is granted; the one trust check is here), and one announcement per change
 * of which kinds of data changed in which folder, whoever wrote it.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { Clock } from '../settings';
import { inBackground, log, messageOf, setContext } from '../log';
import type { ChangeKind } from './change-kinds';
import { TwiningWatcher } from './watcher';
import { FolderHost, TwiningFolder } from './twining-folder';
import { core } from './engine-loader';
import { noticeFolderFormat } from './format-notice';
import { foldWorktreeCopy } from './worktree-copy';

export { TwiningFolder };

export interface FolderChange {
  /** The folder whose data changed; undefined when it concerns every folder. */
  folder?: TwiningFolder;
  kinds: ReadonlySet<ChangeKind>;
}

/** How often each folder looks for changes no file event reported. */
const SWEEP_INTERVAL_MS = 5000;

export class Folders implements vscode.Disposable, FolderHost {
  private readonly folders = new Map<string, TwiningFolder>();
  private readonly watchers = new Map<string, TwiningWatcher>();
  private readonly folderSubscriptions = new Map<string, vscode.Disposable>();
  private readonly emitter = new vscode.EventEmitter<FolderChange>();
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private readonly inFlight = new Set<Promise<unknown>>();
  private scanned: Promise<void> | undefined;
  /** Fires with the folder and kinds of data that changed. */
  readonly onDidChange = this.emitter.event;

  constructor(
    readonly clock: Clock,
    private trusted: boolean,
  ) {}

  /** Starts watching and scanning; returns at once (nothing is read before someone asks). */
  start(): void {
    const sweeps = setInterval(() => {
      this.sweep().catch(scanFailed);
    }, SWEEP_INTERVAL_MS);
    sweeps.unref();
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.track(this.sync()).catch(scanFailed)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.setTrusted(true)),
      { dispose: () => clearInterval(sweeps) },
    );
    this.scanned = this.track(this.sync()).catch(scanFailed);
  }

  /** Resolves once the folders have been looked at for `.twining/`. */
  ready(): Promise<void> {
    return this.scanned ?? Promise.resolve();
  }

  get isTrusted(): boolean {
    return this.trusted;
  }

  /** Every file-system workspace folder, in workspace order. */
  all(): TwiningFolder[] {
    return [...this.folders.values()];
  }

  /** The folders that have a `.twining/` folder, in workspace order. */
  withTwiningDir(): TwiningFolder[] {
    return this.all().filter(f => f.hasTwiningDir);
  }

  /**
   * Asks the one write-trust rule (core/write-trust.ts, which the engines apply to every write)
   * ahead of time: the refusal `what` would meet, before any prompt; undefined when trusted.
   */
  writeRefusal(what: string): Error | undefined {
    return core().writeRefusal(!this.trusted, what);
  }

  /** Whether an error is that refusal. */
  isReadOnlyError(error: unknown): error is Error {
    return core().isWriteRefusal(error);
  }

  /** The user's settings changed (agent id): views and counts that depend on them update. */
  settingsChanged(): void {
    this.emitter.fire({ kinds: new Set<ChangeKind>(['settings']) });
  }

  /** The folder containing a URI or path. */
  folderOf(target: vscode.Uri | string): TwiningFolder | undefined {
    const uri = typeof target === 'string' ? toUri(target) : target;
    if (!uri) return undefined;
    // The innermost folder wins when folders nest.
    return this.all()
      .filter(f => f.contains(uri))
      .sort((a, b) => b.root.length - a.root.length)[0];
  }

  /** The folder of the active editor, when it has one. */
  activeFolder(): TwiningFolder | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    return uri ? this.folderOf(uri) : undefined;
  }

  /** Checks whether `.twining/` exists in a folder (it was just created) and brings it up to date. */
  recheck(folder: TwiningFolder): Promise<void> {
    return this.track(folder.refresh(undefined, true));
  }

  /** Brings every folder up to date and re-checks which have `.twining/` (the Refresh command). */
  async refreshAll(): Promise<void> {
    await this.ready();
    await this.track(this.sync(true));
  }

  /** What a folder announced, announced to the extension with the folder. */
  private announce(folder: TwiningFolder, kinds: ReadonlySet<ChangeKind>): void {
    if (kinds.has('presence')) {
      this.updateContext();
      this.emitter.fire({ kinds: new Set<ChangeKind>(['presence']) });
      return;
    }
    this.emitter.fire({ folder, kinds });
  }

  /** Brings the folder list in line with the workspace, checks `.twining/` in each. */
  private async sync(all = false): Promise<void> {
    const current = (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file');
    const keys = new Set(current.map(f => f.uri.toString()));
    for (const [key, folder] of this.folders) {
      if (keys.has(key)) continue;
      this.folders.delete(key);
      this.watchers.get(key)?.dispose();
      this.watchers.delete(key);
      this.folderSubscriptions.get(key)?.dispose();
      this.folderSubscriptions.delete(key);
      folder.dispose();
      log.info(`${folder.name}: folder removed from the workspace`);
    }
    const ordered = new Map<string, TwiningFolder>();
    for (const wf of current) {
      const key = wf.uri.toString();
      let folder = this.folders.get(key);
      if (!folder) {
        const created = (folder = new TwiningFolder(wf, this, !this.trusted));
        this.folderSubscriptions.set(
          key,
          created.onDidChange(kinds => this.announce(created, kinds)),
        );
        this.watchers.set(key, new TwiningWatcher(created.recordRoot, paths => created.refresh(paths).then(() => noticeFolderFormat(created))));
      }
      ordered.set(key, folder);
    }
    this.folders.clear();
    for (const [key, folder] of ordered) this.folders.set(key, folder);
    await Promise.all(this.all().map(f => f.checkPresence()));
    for (const folder of this.withTwiningDir()) inBackground('checking the folder layout', noticeFolderFormat(folder));
    for (const folder of this.withTwiningDir()) inBackground('folding the worktree copy', foldWorktreeCopy(folder));
    if (all) for (const folder of this.withTwiningDir()) await folder.refresh();
    this.updateContext();
    this.emitter.fire({ kinds: new Set<ChangeKind>(['presence']) });
  }

  private updateContext(): void {
    setContext('twining.hasFolder', this.withTwiningDir().length > 0);
    setContext('twining.ready', true);
  }

  /** Trust granted: engines become writable; every view reloads. */
  setTrusted(trusted: boolean): void {
    if (this.trusted === trusted) return;
    this.trusted = trusted;
    let changed = false;
    for (const folder of this.all()) changed = folder.setReadOnly(!trusted) || changed;
    log.info(trusted ? 'Workspace trusted: Twining can write to .twining/.' : 'Workspace not trusted: Twining is read-only.');
    if (changed) this.emitter.fire({ kinds: new Set<ChangeKind>(['trust']) });
  }

  /** Keeps track of work in progress for `whenIdle`. */
  track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const done = () => this.inFlight.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** Resolves when no watcher report is pending and no refresh is running. */
  async whenIdle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      const waiting = [...this.inFlight, ...[...this.watchers.values()].map(w => w.idle)].filter((p): p is Promise<unknown> => p !== undefined);
      if (waiting.length === 0) return;
      await Promise.allSettled(waiting);
    }
  }

  private sweeping: Promise<void> | undefined;

  /**
   * Every few seconds, each folder looks for a change its watcher did not report (a watcher can
   * lose events under load, or on a network drive): a stat per file, nothing read when nothing
   * changed (TwiningFolder.sweep). One sweep at a time; none before the first scan, and none in a
   * folder whose watcher reported lately.
   */
  sweep(): Promise<void> {
    if (this.sweeping || !this.scanned) return this.sweeping ?? Promise.resolve();
    const run = (async () => {
      await this.scanned;
      for (const [key, folder] of this.folders) {
        // A watcher with events in hand, or lately, is alive: its report is the one to wait for (a
        // sweep between two files of one write would split one announcement in two).
        const watcher = this.watchers.get(key);
        if (watcher && (watcher.idle || Date.now() - watcher.lastEventAt < SWEEP_INTERVAL_MS / 2)) continue;
        await folder.sweep().catch(error => log.warn(`${folder.name}: looking for changes failed: ${messageOf(error)}`));
      }
    })();
    this.sweeping = this.track(run).finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Test runs only: the watchers drop every event while set (to show the sweep is the backstop). */
  dropWatcherEvents(drop: boolean): void {
    for (const w of this.watchers.values()) w.dropEvents = drop;
  }

  /** For latency measurements: when the last `.twining/` event arrived in any folder. */
  lastEventAt(): number {
    return Math.max(0, ...[...this.watchers.values()].map(w => w.lastEventAt));
  }

  dispose(): void {
    for (const w of this.watchers.values()) w.dispose();
    this.watchers.clear();
    for (const d of this.folderSubscriptions.values()) d.dispose();
    for (const f of this.folders.values()) f.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** A path or URI string (file://…) as a URI. */
export function toUri(value: string): vscode.Uri | undefined {
  if (!value) return undefined;
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(value)) {
    try {
      return vscode.Uri.parse(value, true);
    } catch {
      return undefined;
    }
  }
  return path.isAbsolute(value) ? vscode.Uri.file(value) : undefined;
}

/** A look at the workspace folders that failed is logged; the next change of folders looks again. */
function scanFailed(error: unknown): void {
  log.error(`Looking for .twining/ in the workspace folders failed: ${messageOf(error)}`);
}
