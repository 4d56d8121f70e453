/**
 * One workspace folder and its engine, created without I/O and used only when a view or command
 * asks. Engine calls run one at a time per folder (`run`); writes go through `write`, which checks
 * trust first and afterwards refreshes the engine once and announces what changed, so nobody
 * calls a refresh by hand after writing.
 */
import * as path from 'path';
import { promises as fs } from 'fs';
import type * as vscode from 'vscode';
import type { TwiningEngine } from '../../core';
import { changedKinds, type DataKind, type Versions } from '../../core/data-kinds';
import { core } from './engine-loader';
import type { Clock } from '../settings';
import { log } from '../log';

/** What a folder needs from the model that holds it. */
export interface FolderHost {
  readonly clock: Clock;
  /** Refreshes the folder's engine once and announces what changed. */
  refresh(folder: TwiningFolder): Promise<void>;
}

const ZERO_VERSIONS: Versions = { registry: 0, blackboard: 0, handoffs: 0, handoffRecords: 0, decisions: 0, config: 0, drift: 0 };

export class TwiningFolder {
  /** Whether `.twining/` exists (as last seen). */
  hasTwiningDir = false;
  private engineValue: TwiningEngine | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private seen?: { engine: TwiningEngine; versions: Versions };

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
  get dir(): string {
    return path.join(this.root, '.twining');
  }
  get isReadOnly(): boolean {
    return this.readOnly;
  }
  /** The engine (created on first use: loading the core is the main cost, and it can wait for a view). */
  get engine(): TwiningEngine {
    return (this.engineValue ??= new (core().TwiningEngine)(this.root, {
      now: () => this.host.clock.now(),
      readOnly: this.readOnly,
      warn: message => log.warn(`${this.name}: ${message}`),
      // Nothing is written while git checks out, merges or rebases (a repair included).
      writeGate: () => core().gitBusyReason(this.gitDir()),
    }));
  }

  private gitDirValue: string | undefined;
  /** The folder's git directory (a linked work tree's own); looked for again until found (`git init`). */
  private gitDir(): string | undefined {
    return (this.gitDirValue ??= core().findGitDir(this.root));
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
    return true;
  }

  /**
   * Runs engine calls that read, one at a time per folder: the engine's incremental readers are
   * not meant to be refreshed by two callers at once.
   */
  run<T>(work: (engine: TwiningEngine) => Promise<T>): Promise<T> {
    const next = this.chain.then(() => work(this.engine));
    this.chain = next.catch(() => undefined);
    return next;
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
      await this.host.refresh(this);
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
   * Which kinds of data changed since the last call, by the engine's version counters. Any engine
   * call may have picked up a change first, so the counters decide. A new engine compares with
   * counters at zero: whatever it has read counts.
   */
  changedSinceLastLook(): DataKind[] {
    const engine = this.engine;
    const versions = engine.versions();
    const before = this.seen?.engine === engine ? this.seen.versions : ZERO_VERSIONS;
    this.seen = { engine, versions };
    return changedKinds(before, versions);
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
    const stat = await fs.stat(this.dir).catch(() => undefined);
    this.hasTwiningDir = stat?.isDirectory() ?? false;
    return this.hasTwiningDir;
  }
}
