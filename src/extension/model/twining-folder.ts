/**
 * One workspace folder and its engine, created without I/O and used only when a view or command
 * asks. Engine calls run one at a time per folder (`run`); writes go through `write`, which checks
 * trust first and afterwards brings the engine up to date once (`refresh`, as for a watcher's
 * report) and announces what the engine says changed (`onDidChange`), so nobody calls a refresh
 * by hand after writing. The folder calls nothing above it: `Folders` listens.
 */
import * as path from 'path';
import { promises as fs } from 'fs';
import * as vscode from 'vscode';
import type { TwiningEngine } from '../../core';
import type { ChangeKind } from './change-kinds';
import { core } from './engine-loader';
import type { RecordRoute } from '../../core';
import { lstatSync, statSync } from 'fs';
import type { Clock } from '../settings';
import { log, messageOf } from '../log';

/** What a folder needs from the model that holds it. */
export interface FolderHost {
  readonly clock: Clock;
}

/**
 * The route of a folder that is plainly its own project, found without loading the engine (the
 * folders are looked at right after activation): a repository's main worktree (`.git` is a
 * folder there), or a folder with `.twining/` and no `.git` entry. resolveRecord gives the same
 * record for these; every other folder (a linked worktree, a subfolder of a repository) asks it.
 */
function ownRecord(root: string): RecordRoute | undefined {
  const dotGit = lstatSync(path.join(root, '.git'), { throwIfNoEntry: false });
  const dir = path.join(root, '.twining');
  if (dotGit?.isDirectory())
    return { projectRoot: root, dir, mode: 'shared', reason: `the shared record of ${root}, used from its main worktree`, worktree: root, linked: false };
  if (!dotGit && statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    return { projectRoot: root, dir, mode: 'folder', reason: `the record of ${root}`, linked: false };
  return undefined;
}

export class TwiningFolder {
  /** Whether `.twining/` exists (as last seen). */
  hasTwiningDir = false;
  private engineValue: TwiningEngine | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly emitter = new vscode.EventEmitter<ReadonlySet<ChangeKind>>();
  /** Fires with the kinds of data the engine reported changed (`presence`: `.twining/` appeared or went). */
  readonly onDidChange = this.emitter.event;

  constructor(
    readonly workspaceFolder: vscode.WorkspaceFolder,
    private readonly host: FolderHost,
    private readOnly: boolean,
  ) {}

  get key(): string {
    return this.workspaceFolder.uri.toString();
  }
  get name(): string {
    return this.workspaceFolder.name;
  }
  get root(): string {
    return this.workspaceFolder.uri.fsPath;
  }
  private routeValue: RecordRoute | undefined;
  /** Why the record cannot be reached (a linked worktree whose main repository moved); then nothing is shown or written. */
  routeError: string | undefined;
  /**
   * Which record the folder shows and why (core/git/record-location.ts): a window on a linked
   * worktree shows the primary worktree's `.twining/`, shared with every other worktree.
   */
  get route(): RecordRoute {
    if (this.routeValue) return this.routeValue;
    try {
      this.routeValue = ownRecord(this.root) ?? core().resolveRecord(this.root);
      this.routeError = undefined;
      if (this.routeValue.projectRoot !== this.root) log.info(`${this.name}: ${this.routeValue.reason}`);
    } catch (error) {
      this.routeError = error instanceof Error ? error.message : String(error);
      log.error(`${this.name}: ${this.routeError}`);
      // Looked for again by the next presence check (a `git worktree repair` may fix it).
      return { projectRoot: this.root, dir: path.join(this.root, '.twining'), mode: 'folder', reason: this.routeError, linked: false };
    }
    return this.routeValue;
  }
  /** The folder holding the record (the engine's root): the workspace folder itself, or the primary worktree. */
  get recordRoot(): string {
    return this.route.projectRoot;
  }
  get dir(): string {
    return this.route.dir;
  }
  get isReadOnly(): boolean {
    return this.readOnly;
  }
  /** The engine (created on first use: loading the core is the main cost, and it can wait for a view). */
  get engine(): TwiningEngine {
    if (this.engineValue) return this.engineValue;
    this.engineValue = new (core().TwiningEngine)(
      this.recordRoot,
      {
        now: () => this.host.clock.now(),
        readOnly: this.readOnly,
        // A long-lived engine: briefings of any scope read no decision record after the first.
        keepRecordsWarm: true,
        warn: message => log.warn(`${this.name}: ${message}`),
        // Nothing is written while git checks out, merges or rebases (a repair included).
        writeGate: () => core().gitBusyReason(this.gitDir()),
      },
      this.route,
    );
    // The stamps the sweeps compare with (TwiningFolder.sweep), taken before any view reads.
    this.engineValue.sweep().catch(error => log.warn(`${this.name}: looking for changes failed: ${messageOf(error)}`));
    this.serveSessionStarts();
    return this.engineValue;
  }

  private sessionStarts: InstanceType<ReturnType<typeof core>['SessionStartServer']> | undefined;

  /**
   * Agents' SessionStart hooks ask this warm engine for their briefing over a local socket instead
   * of loading one themselves (agents/session-start/session-start-server.ts), while the folder is trusted (the
   * answer registers the agent and records the briefing) and has `.twining/`.
   */
  private serveSessionStarts(): void {
    if (this.sessionStarts || this.readOnly || !this.hasTwiningDir || this.workspaceFolder.uri.scheme !== 'file') return;
    this.sessionStarts = new (core().SessionStartServer)(
      this.recordRoot,
      work => this.run(work),
      message => log.warn(`${this.name}: ${message}`),
    );
  }

  private stopServingSessionStarts(): void {
    this.sessionStarts?.close();
    this.sessionStarts = undefined;
  }

  private gitDirValue: string | undefined;
  /** The git directory of the work tree holding the record (the primary's, for a linked worktree); looked for again until found (`git init`). */
  private gitDir(): string | undefined {
    return (this.gitDirValue ??= core().findGitDir(this.recordRoot));
  }

  /**
   * Resolves once git is not rewriting the work tree (no index.lock), at most `maxMs` later: a
   * checkout, pull, merge or rebase replaces .twining/ files one by one, and one reload after it is
   * both cheaper and never half of one branch and half of the other.
   */
  async gitSettled(maxMs = 3000): Promise<void> {
    const dir = this.gitDir();
    if (!dir) return;
    const lock = path.join(dir, 'index.lock');
    const exists = () =>
      fs.stat(lock).then(
        () => true,
        () => false,
      );
    for (const deadline = Date.now() + maxMs; Date.now() < deadline && (await exists());) await new Promise(r => setTimeout(r, 50));
  }

  /** Re-creates the engine when the trust changes (engines fix read-only at creation). */
  setReadOnly(readOnly: boolean): boolean {
    if (readOnly === this.readOnly) return false;
    this.readOnly = readOnly;
    this.engineValue = undefined;
    this.stopServingSessionStarts();
    return true;
  }

  /**
   * Runs engine calls that read, one at a time per folder: the engine's incremental readers are
   * not meant to be refreshed by two callers at once.
   */
  run<T>(work: (engine: TwiningEngine) => T | Promise<T>): Promise<T> {
    const next = this.chain.then(() => work(this.engine));
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * Runs an engine call that reads nothing the engine keeps, only git's view of the clone (which
   * clone records came from, the sync status): not queued behind the record's readers. Its first
   * call runs git, and in the queue it held up every view's first load and a refresh behind it.
   */
  beside<T>(work: (engine: TwiningEngine) => T | Promise<T>): Promise<T> {
    return Promise.resolve().then(() => work(this.engine));
  }

  /**
   * Runs an engine call that writes, then refreshes the engine once and announces the change: the
   * views reload once, and the watcher's later report of the same write finds every file as the
   * engine left it and changes nothing. The engine refuses writes in an untrusted workspace (the
   * one trust check, core/write-trust.ts); its refusal is told with `what`, the user's name for it.
   */
  async write<T>(what: string, work: (engine: TwiningEngine) => Promise<T>): Promise<T> {
    try {
      const result = await this.run(work);
      this.noteWritten(result);
      return result;
    } catch (error) {
      throw core().isWriteRefusal(error) ? (core().writeRefusal(true, what) ?? error) : error;
    } finally {
      await this.refresh();
    }
  }

  /** Ids of records this extension wrote (newest last, at most 500): the inbox tells them from arrivals. */
  readonly written = new Set<string>();

  /** Remembers the id of the record a write returned, before the refresh announces it. */
  private noteWritten(result: unknown): void {
    const id = result && typeof result === 'object' ? (result as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') return;
    this.written.add(id);
    if (this.written.size > 500) this.written.delete(this.written.values().next().value!);
  }

  /**
   * Brings the engine up to date and announces the kinds of data it reports changed: the engine
   * decides which kinds a path stands for and keeps what it reported last, so each change is
   * announced once, whichever call picked it up first. `paths` are a watcher's report; with them
   * (or `lookForDir`) `.twining/` is looked for again first (a rename may only show as events of
   * its files), after git has finished rewriting the work tree.
   */
  async refresh(paths?: readonly string[], lookForDir = paths !== undefined): Promise<void> {
    if (lookForDir) {
      if (paths) log.debug(`${this.name}: changed on disk: ${paths.join(', ')}`);
      await this.gitSettled();
      await this.announcePresence();
    }
    if (!this.hasTwiningDir) return;
    const report = await this.run(engine => engine.refresh(paths));
    // A half-written or corrupt file: the views reload, keep their last good data and say why.
    if (report.error) log.warn(`${this.name}: refresh failed: ${report.error.message}`);
    if (report.kinds.length) this.emitter.fire(new Set(report.kinds));
  }

  /**
   * The backstop for a lost file event (TwiningEngine.sweep): the files whose stamp moved since
   * the last sweep go through `refresh` as a watcher's report would. Without an engine only
   * `.twining/` appearing or going is looked for: a folder nobody has looked at yet has nothing on
   * screen to bring up to date, and no engine (nor the core) is loaded for it.
   */
  async sweep(): Promise<void> {
    if (!this.engineValue) return this.announcePresence();
    const moved = await this.run(engine => engine.sweep());
    if (moved.length) await this.refresh(moved);
  }

  /** Looks for `.twining/` again and announces it when it came or went. */
  private async announcePresence(): Promise<void> {
    const was = this.hasTwiningDir;
    if ((await this.checkPresence()) !== was) this.emitter.fire(new Set<ChangeKind>(['presence']));
  }

  /** The workspace-relative, `/`-separated path of a file in this folder, or undefined. */
  relativePath(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== this.workspaceFolder.uri.scheme) return undefined;
    const relative = path.relative(this.root, uri.fsPath);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  contains(uri: vscode.Uri): boolean {
    return uri.fsPath === this.root || this.relativePath(uri) !== undefined;
  }

  async checkPresence(): Promise<boolean> {
    if (this.routeError) this.routeValue = undefined;
    const route = this.route;
    const stat = this.routeError ? undefined : await fs.stat(route.dir).catch(() => undefined);
    this.hasTwiningDir = stat?.isDirectory() ?? false;
    if (!this.hasTwiningDir) this.stopServingSessionStarts();
    else if (this.engineValue) this.serveSessionStarts();
    return this.hasTwiningDir;
  }

  dispose(): void {
    this.stopServingSessionStarts();
    this.emitter.dispose();
    // A 2.x folder's database, let go once the calls already queued have run.
    const engine = this.engineValue;
    if (engine) this.chain = this.chain.then(() => engine.close()).catch(() => undefined);
  }
}
