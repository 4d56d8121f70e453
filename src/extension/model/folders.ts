/**
 * One engine per workspace folder, created without I/O and used only when a view or command asks.
 * Tracks which folders have a `.twining/` folder (the `twining.hasFolder` context key), watches
 * them, follows workspace trust (engines are read-only until the workspace is trusted) and tells
 * the views which kinds of data changed in which folder.
 */
import * as path from 'path';
import { promises as fs } from 'fs';
import * as vscode from 'vscode';
import type { Workspace } from '../../core';
import { core } from './engine-loader';
import type { Clock } from '../settings';
import { log, messageOf } from '../log';
import type { ChangeKind } from './change-kinds';
import { DATA_KINDS, Versions, changedKinds } from '../../core/data-kinds';
import { TwiningWatcher } from './watcher';

export interface FolderChange {
  /** The folder whose data changed; undefined when the set of folders changed. */
  folder?: TwiningFolder;
  kinds: ReadonlySet<ChangeKind>;
}

/** A workspace folder and its engine. */
export class TwiningFolder {
  /** Whether `.twining/` exists (as last seen). */
  present = false;
  private engineValue: Workspace | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private seen?: { engine: Workspace; versions: Versions };

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly clock: Clock,
    private readOnly: boolean,
  ) {
  }

  get key(): string {
    return this.folder.uri.toString();
  }
  get name(): string {
    return this.folder.name;
  }
  get root(): string {
    return this.folder.uri.fsPath;
  }
  get dir(): string {
    return path.join(this.root, '.twining');
  }
  get isReadOnly(): boolean {
    return this.readOnly;
  }
  /** The engine (for tests and the exported API; extension code goes through `run`). */
  get engine(): Workspace {
    // Created on first use: loading the core is the main cost, and it can wait for a view.
    return (this.engineValue ??= this.createEngine());
  }

  private createEngine(): Workspace {
    return new (core().Workspace)(this.root, {
      now: () => this.clock.now(),
      readOnly: this.readOnly,
      warn: message => log.warn(`${this.name}: ${message}`),
    });
  }

  /** Re-creates the engine when the trust changes (engines fix read-only at creation). */
  setReadOnly(readOnly: boolean): boolean {
    if (readOnly === this.readOnly) return false;
    this.readOnly = readOnly;
    this.engineValue = undefined;
    return true;
  }

  /**
   * Runs engine calls one at a time per folder: the engine's incremental readers are not meant
   * to be refreshed by two callers at once.
   */
  run<T>(work: (engine: Workspace) => Promise<T>): Promise<T> {
    const next = this.chain.then(() => work(this.engine));
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * Which cached files changed since the last call, by the engine's version counters. Any engine
   * call may have picked up a change first, so the counters, not `refresh()`'s booleans, decide.
   * A new engine compares with its counters at creation (all 0): whatever it has read counts.
   */
  changedSinceLastLook(): Set<ChangeKind> {
    const engine = this.engine;
    const versions = engine.versions();
    const before = this.seen?.engine === engine ? this.seen.versions : ZERO_VERSIONS;
    this.seen = { engine, versions };
    return new Set(changedKinds(before, versions));
  }

  /** The workspace-relative, `/`-separated path of a file in this folder, or undefined. */
  relativePath(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== this.folder.uri.scheme) return undefined;
    const relative = path.relative(this.root, uri.fsPath);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  contains(uri: vscode.Uri): boolean {
    return uri.fsPath === this.root || this.relativePath(uri) !== undefined;
  }

  async checkPresence(): Promise<boolean> {
    const stat = await fs.stat(this.dir).catch(() => undefined);
    this.present = stat?.isDirectory() ?? false;
    return this.present;
  }
}

export class Folders implements vscode.Disposable {
  private readonly folders = new Map<string, TwiningFolder>();
  private readonly watchers = new Map<string, TwiningWatcher>();
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
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.track(this.sync())),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.setTrusted(true)),
    );
    this.scanned = this.sync();
    this.track(this.scanned);
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
  present(): TwiningFolder[] {
    return this.all().filter(f => f.present);
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

  /** Re-reads what changed in a folder (incrementally) and tells the views. */
  refresh(folder: TwiningFolder, hints: Iterable<ChangeKind> = [], checkPresence = false): Promise<void> {
    return this.track(this.doRefresh(folder, new Set(hints), checkPresence));
  }

  /** Refreshes every folder and re-checks which have `.twining/` (the Refresh command). */
  async refreshAll(): Promise<void> {
    await this.ready();
    await this.track(this.sync(true));
  }

  private async doRefresh(folder: TwiningFolder, kinds: Set<ChangeKind>, checkPresence: boolean): Promise<void> {
    log.debug(`${folder.name}: refresh (${[...kinds].join(', ') || 'no hints'})`);
    if (checkPresence || kinds.has('presence')) {
      const was = folder.present;
      if ((await folder.checkPresence()) !== was) {
        this.updateContext();
        this.emitter.fire({ kinds: new Set<ChangeKind>(['presence']) });
        if (!folder.present) return;
      }
    }
    if (!folder.present) return;
    try {
      await folder.run(engine => engine.refresh());
      for (const kind of DATA_KINDS) kinds.delete(kind);
      for (const kind of folder.changedSinceLastLook()) kinds.add(kind);
    } catch (error) {
      // A half-written or corrupt file: the hints stay, so the views reload, keep their last good
      // data and say why.
      log.warn(`${folder.name}: refresh failed: ${messageOf(error)}`);
    }
    kinds.delete('presence');
    if (kinds.size) this.emitter.fire({ folder, kinds });
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
      log.info(`${folder.name}: folder removed from the workspace`);
    }
    const ordered = new Map<string, TwiningFolder>();
    for (const wf of current) {
      const key = wf.uri.toString();
      let folder = this.folders.get(key);
      if (!folder) {
        folder = new TwiningFolder(wf, this.clock, !this.trusted);
        // Every report re-checks that .twining/ exists (one stat): a folder rename may only show as
        // events of its files.
        this.watchers.set(key, new TwiningWatcher(wf, kinds => this.doRefresh(folder!, kinds, true)));
      }
      ordered.set(key, folder);
    }
    this.folders.clear();
    for (const [key, folder] of ordered) this.folders.set(key, folder);
    await Promise.all(this.all().map(f => f.checkPresence()));
    if (all) {
      for (const folder of this.present()) {
        await folder.run(engine => engine.refresh()).catch(error => log.warn(`${folder.name}: refresh failed: ${messageOf(error)}`));
      }
    }
    this.updateContext();
    this.emitter.fire({ kinds: new Set<ChangeKind>(['presence']) });
  }

  private updateContext(): void {
    const present = this.present();
    void vscode.commands.executeCommand('setContext', 'twining.hasFolder', present.length > 0);
    void vscode.commands.executeCommand('setContext', 'twining.ready', true);
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
      const waiting = [...this.inFlight, ...[...this.watchers.values()].map(w => w.idle)].filter(
        (p): p is Promise<unknown> => p !== undefined,
      );
      if (waiting.length === 0) return;
      await Promise.allSettled(waiting);
    }
  }

  /** For latency measurements: when the last `.twining/` event arrived in any folder. */
  lastEventAt(): number {
    return Math.max(0, ...[...this.watchers.values()].map(w => w.lastEventAt));
  }

  dispose(): void {
    for (const w of this.watchers.values()) w.dispose();
    this.watchers.clear();
    for (const d of this.disposables) d.dispose();
  }
}

const ZERO_VERSIONS: Versions = { registry: 0, blackboard: 0, handoffs: 0, handoffRecords: 0, decisions: 0, config: 0, drift: 0 };

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
