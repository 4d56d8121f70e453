/**
 * Watches one workspace folder's `.twining/` for writes by any process and reports, debounced and
 * coalesced, which paths changed. What a path stands for (and that locks and temporary files
 * stand for nothing) is the engine's to say: `TwiningEngine.refresh` decides it, in one place.
 */
import * as path from 'path';
import * as vscode from 'vscode';

export interface WatchOptions {
  /** Quiet time after the last event before the changes are reported. */
  debounceMs?: number;
  /** Longest time a change waits while events keep arriving. */
  maxWaitMs?: number;
}

/**
 * One FileSystemWatcher on `{.twining,.twining/**}` of the folder holding the record: the workspace
 * folder, or for a linked worktree the primary worktree outside the workspace (a RelativePattern
 * on a folder's URI watches it wherever it is). `onChanges` receives the paths (relative to that
 * folder, `/`-separated) seen since the last report; while a report is pending or running, `idle` is a promise.
 */
export class TwiningWatcher implements vscode.Disposable {
  private readonly watcher: vscode.FileSystemWatcher;
  private paths = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private firstEventAt = 0;
  /** The round of events not yet reported. */
  private round: { promise: Promise<void>; resolve: () => void } | undefined;
  /** The report being handled. */
  private running: Promise<void> | undefined;
  /** When the last event arrived (Date.now()), for latency measurements. */
  lastEventAt = 0;

  /** Resolves when the changes seen so far have been reported and handled; undefined when idle. */
  get idle(): Promise<void> | undefined {
    const parts = [this.round?.promise, this.running].filter((p): p is Promise<void> => p !== undefined);
    return parts.length ? Promise.all(parts).then(() => undefined) : undefined;
  }

  constructor(
    private readonly base: string,
    private readonly onChanges: (paths: string[]) => Promise<void>,
    private readonly options: WatchOptions = {},
  ) {
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(base), '{.twining,.twining/**}'));
    this.watcher.onDidCreate(uri => this.event(uri));
    this.watcher.onDidChange(uri => this.event(uri));
    this.watcher.onDidDelete(uri => this.event(uri));
  }

  /** Test runs only: events are dropped while set, as a watcher under load can lose them (the folders' sweep is the backstop). */
  dropEvents = false;

  private event(uri: vscode.Uri): void {
    if (this.dropEvents) return;
    const rel = path.relative(this.base, uri.fsPath).split(path.sep).join('/');
    if (rel !== '.twining' && !rel.startsWith('.twining/')) return;
    this.paths.add(rel);
    this.lastEventAt = Date.now();
    this.schedule();
  }

  private schedule(): void {
    const debounce = this.options.debounceMs ?? 60;
    const maxWait = this.options.maxWaitMs ?? 250;
    const now = Date.now();
    if (!this.round) {
      this.firstEventAt = now;
      let resolve!: () => void;
      const promise = new Promise<void>(r => (resolve = r));
      this.round = { promise, resolve };
    }
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(debounce, this.firstEventAt + maxWait - now));
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    const round = this.round;
    const paths = [...this.paths];
    this.round = undefined;
    this.paths = new Set();
    const previous = this.running ?? Promise.resolve();
    // Reports are handled one after the other, in the order the events came.
    const running: Promise<void> = previous
      .then(() => this.onChanges(paths))
      .catch(() => undefined)
      .finally(() => {
        if (this.running === running) this.running = undefined;
        round?.resolve();
      });
    this.running = running;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher.dispose();
    this.round?.resolve();
  }
}
