/**
 * The coordination engine: one object per project folder. Its operations (register, post,
 * handoff, decide, …: twining-mcp's tools without `twining_`) are the entries of one table,
 * operations/registry.ts; `run(name, input)` runs one, and each also has a method of its own name
 * (`engine.post(input)`), made from the table, which is the library's API. Inputs are validated
 * with the schemas before anything is touched; writes follow the locking protocol of
 * docs/format.md §Locking; reads are incremental. The engine also says what changed since a caller
 * last looked, by name.
 */
import { promises as fs, statSync } from 'fs';
import * as path from 'path';
import { FolderStore } from './folder-store';
import type { WorkspaceOptions } from './workspace-options';
import { FolderFormat, pinFilesBackend } from '../storage/folder-format';
import { TwiningError } from '../errors';
import type { Config } from './config';
import type { InputOf, OperationName } from '../schemas/schemas';
import * as blackboardOps from '../operations/blackboard-ops';
import * as handoffOps from '../operations/handoff-ops';
import * as decisionOps from '../operations/decision-ops';
import type { ScopeVerifyResult } from '../operations/scope-verify-ops';
import { ScopeContext, scopeContext } from '../operations/scope-context-ops';
import { DecisionStory, decisionStory } from '../operations/decision-story-ops';
import { type ClaimResult, releaseCovered } from '../operations/claim-ops';
import { confirmClaim } from '../sync/claim-confirm';
import { originsOf } from '../sync/origins';
import type { SyncOptions, SyncReport } from '../sync/sync-run';
import { syncFolder } from '../sync/sync-folder';
import { type SyncStatus, syncStatus } from '../sync/sync-state';
import { DATA_KINDS, DataKind, Versions, changedKinds, handoffIdOfPath, kindOfPath } from './data-kinds';
import type { BlackboardEntry, HandoffSnapshot, DecisionRecord, HandoffRecord, VerifyResult } from '../records';
import { settleGraph } from '../operations/graph-ops';
import { archiveAutomatically } from '../operations/auto-archive-ops';
import type { AnyOperation, Operation } from '../operations/operation';
import { OPERATION_TABLE, type OperationTable } from '../operations/registry';
import { SessionWatch } from '../storage/session-watch';
import { stampOfFile } from '../storage/version-stamp';
import { sessionsDir } from '../storage/session-files';
import { sessions as sessionBoard } from '../operations/session-ops';
import { RecordRoute, RouteOptions, resolveRecord } from '../git/record-location';
import { type FoldReport, foldCheckedOutCopy } from '../git/fold-checked-out-copy';

export type { WorkspaceOptions } from './workspace-options';

/** What a refresh found: the kinds of data changed since the last report, and why a file could not be read. */
export interface ChangeReport {
  kinds: DataKind[];
  error?: Error;
}

/** The counters of an engine that has read nothing: whatever a new engine has read counts as changed. */
const NOTHING_READ: Versions = { registry: 0, blackboard: 0, handoffs: 0, handoffRecords: 0, decisions: 0, config: 0, sessions: 0, claims: 0, drift: 0 };

/** The engine of the record used from `start` (git/record-location.ts: any worktree gives the primary's); `engine.route` says which and why. */
export async function openWorkspace(start: string, options: WorkspaceOptions & RouteOptions = {}): Promise<TwiningEngine> {
  const root = path.resolve(start);
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new TwiningError('NOT_FOUND', `Project folder not found: ${root}`);
  const route = resolveRecord(root, { project: options.project });
  return new TwiningEngine(route.projectRoot, options, route);
}

/** What operation `K` answers. */
export type ResultOf<K extends OperationName> = OperationTable[K] extends Operation<K, infer R, infer _O> ? R : never;
/** The options operation `K` takes besides its input (undefined: none). */
export type OptionsOf<K extends OperationName> = OperationTable[K] extends Operation<K, infer _R, infer O> ? O : never;
type NoFields = Record<never, never>;
/** The engine's method for operation `K`: its input (optional when every field is), and its options if it has any. */
type MethodOf<K extends OperationName> = [OptionsOf<K>] extends [undefined]
  ? NoFields extends InputOf<K>
    ? (input?: InputOf<K>) => Promise<ResultOf<K>>
    : (input: InputOf<K>) => Promise<ResultOf<K>>
  : NoFields extends InputOf<K>
    ? (input?: InputOf<K>, options?: OptionsOf<K>) => Promise<ResultOf<K>>
    : (input: InputOf<K>, options?: OptionsOf<K>) => Promise<ResultOf<K>>;
type OperationMethods = { [K in OperationName]: MethodOf<K> };

/**
 * One method per operation of the table, installed on the prototype below. `verify` is declared
 * by hand: a handoff's verification ({handoff_id}) answers the narrower VerifyResult.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the methods are made from OPERATION_TABLE below, one per name
export interface TwiningEngine extends Omit<OperationMethods, 'verify'> {
  verify(input: { handoff_id: string }): Promise<VerifyResult>;
  verify(input: InputOf<'verify'>): Promise<VerifyResult | ScopeVerifyResult>;
}

/** What a sweep looks at on 1.x besides the session files: every file a view reads but the handoff records (a new one comes with an index line). */
const SWEPT_FILES = [
  '.twining/blackboard.jsonl',
  '.twining/agents/registry.json',
  '.twining/handoffs/index.jsonl',
  '.twining/decisions/index.json',
  '.twining/claims/claims.jsonl',
  '.twining/config.yml',
];
/** What a sweep looks at on 2.x besides the session files: the database and its log (a commit by another process moves one), and our files beside them. */
const SWEPT_BESIDE_DATABASE = ['.twining/twining.db', '.twining/twining.db-wal', '.twining/claims/claims.jsonl', '.twining/config.yml'];

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class TwiningEngine {
  private readonly ctx: FolderStore;
  private refreshing: Promise<unknown> = Promise.resolve();
  /** The counters at the last refresh's report. */
  private reported: Versions = NOTHING_READ;
  /** Work done so far: refreshes that read the files, and verifications (benchmarks and tests count them per change). */
  readonly work = { refreshes: 0, verifications: 0 };
  private readonly sessionWatch: SessionWatch; // the session board's files (sessions()), looked at alone

  constructor(
    readonly root: string,
    options: WorkspaceOptions = {},
    readonly route?: RecordRoute, // which record and why, when opened through routing
  ) {
    this.ctx = new FolderStore(root, route?.linked && route.branch ? { branch: route.branch, ...options } : options);
    this.ctx.route = route;
    archiveAutomatically(this.ctx);
    this.sessionWatch = new SessionWatch(this.ctx.layout.dir);
  }

  /** Where the files are (`layout.decision(id)` and so on). */
  get layout() {
    return this.ctx.layout;
  }
  /** The cached blackboard (benchmarks and tests look at it; operations are the API). */
  get blackboard() {
    return this.ctx.blackboard;
  }
  get readOnly(): boolean {
    return this.ctx.readOnly;
  }
  /** Resolves when the work an operation left to do after answering (the graph's upkeep with `batchGraph`, lock releases with `releaseAfterAnswer`) is done. */
  async settled(): Promise<void> {
    await settleGraph(this.ctx);
    // Locks released after their call's answer (the server's `releaseAfterAnswer`).
    while (this.ctx.releasing.size) await Promise.all(this.ctx.releasing);
  }

  /** Lets go of what the engine holds (a 2.x folder's database), for another process to use; the engine is not used after it. */
  close(): void {
    this.ctx.sqlite?.close();
  }

  now(): Date {
    return this.ctx.now();
  }

  // Folder, configuration, freshness -----------------------------------------------------------

  /**
   * Folds what something else (twining-mcp run inside the worktree, an older version) wrote into a
   * linked worktree's own checked-out `.twining/` into the shared record (git/fold-checked-out-copy.ts).
   * Idempotent: a copy already folded adds nothing and says nothing. Undefined when there is no
   * such copy, the record does not exist yet, or the engine is read-only. Runs git: not for a hook.
   */
  async foldCheckedOutCopy(): Promise<FoldReport | undefined> {
    if (!this.route?.checkedOutCopy || this.ctx.readOnly || !(await this.exists())) return undefined;
    return foldCheckedOutCopy(this.ctx, this.route);
  }

  /** Whether `.twining/` exists (a synchronous stat, as every look before a call: storage/version-stamp.ts currentStamp). */
  exists(): Promise<boolean> {
    try {
      return Promise.resolve(statSync(this.ctx.layout.dir, { throwIfNoEntry: false })?.isDirectory() ?? false);
    } catch {
      return Promise.resolve(false);
    }
  }

  /**
   * Which of twining-mcp's layouts the folder is in, by twining-mcp 2.x's rules: `files` (the
   * layout this version reads and writes) or `sqlite` (twining.db + records/, which it refuses to
   * write), and why; `refusal` says why a newer format is not written at all.
   */
  folderFormat(): Promise<FolderFormat> {
    return this.ctx.folderFormat();
  }

  /**
   * What this version cannot do with the folder's layout, in a sentence naming the folder: a newer
   * format (not read), a twining-mcp 2.x folder without node:sqlite (read from records/, not
   * written) or without its twining.db (no agents); undefined when everything is read and written.
   */
  formatNotice(): Promise<string | undefined> {
    return this.ctx.formatNotice();
  }

  /** Creates `.twining/` (or fills in its missing entries) without overwriting anything, and says `storage.backend: files`. */
  async init(): Promise<{ created: boolean; dir: string }> {
    this.ctx.assertWritable('init');
    this.ctx.forgetReady();
    const created = await this.ctx.ready(true);
    // A folder made before init said its layout: say it now, so twining-mcp 2.x keeps it shared.
    // Never on a 2.x folder found by its twining.db or records/: the key would turn it back to files.
    if (!created && !this.ctx.sqlite) await pinFilesBackend(this.ctx.layout.config);
    return { created, dir: this.ctx.layout.dir };
  }

  /** The configuration, re-read whenever config.yml changes. */
  config(): Promise<Config> {
    return this.ctx.config();
  }

  /**
   * Whether every one of these files (project-relative, `/`-separated, as a file watcher reports
   * them) is exactly as this engine last read or wrote it: then a refresh would find nothing, and
   * the report was of this engine's own write. One stat per file.
   */
  async isCurrent(paths: readonly string[]): Promise<boolean> {
    if (this.ctx.sqlite) return false; // twining.db and records/ are looked at by a refresh
    for (const p of paths) if (!(await this.fileIsCurrent(p, kindOfPath(p)))) return false;
    return true;
  }

  private fileIsCurrent(p: string, kind: ReturnType<typeof kindOfPath>): Promise<boolean> | boolean {
    const ctx = this.ctx;
    switch (kind) {
      case 'blackboard':
        return ctx.blackboard.file.isCurrent();
      case 'handoffs':
        return ctx.handoffIndex.file.isCurrent();
      case 'registry':
        return ctx.registry.isCurrent();
      case 'config':
        return ctx.configIsCurrent();
      case 'decisions':
        return p === '.twining/decisions/index.json' ? ctx.decisionIndex.isCurrent() : true; // records are read on demand, never kept
      case 'handoffRecords':
        return ctx.handoffRecords.isCurrent(handoffIdOfPath(p) ?? '');
      case 'claims':
        return ctx.claimLog.isCurrent();
      case 'presence':
        return this.exists(); // the folder itself: current while it is there
      case 'sessions':
        return this.sessionWatch.isCurrent(p);
      default:
        return true; // locks, temporary files, files no operation reads
    }
  }

  /**
   * Brings the cached files up to date and reports which kinds of data changed since the last
   * report: read after another process wrote them, written by this engine, or picked up by any
   * call in between; each change is reported once. This is where a watched path's kind is decided.
   *
   * `changedPaths` (a file watcher's, project-relative, `/`-separated) name the handoff records to
   * look at again (without them, every record read so far), and when every one is as this engine
   * last read or wrote it (the report of its own write) nothing is read. A file that cannot be read
   * does not throw: the kinds of the reported paths count as changed and the error comes with them,
   * so a view reloads, keeps its last good data and says why. Refreshes run one at a time.
   */
  refresh(changedPaths?: readonly string[]): Promise<ChangeReport> {
    const run = this.refreshing.then(async (): Promise<ChangeReport> => {
      const ctx = this.ctx;
      const all = (changedPaths ?? []).map(p => ({ p, kind: kindOfPath(p) }));
      const sessionPaths = all.filter(x => x.kind === 'sessions').map(x => x.p);
      const paths = all.filter(x => x.kind !== 'sessions');
      let error: Error | undefined;
      try {
        await this.sessionWatch.recheck(changedPaths ? sessionPaths : undefined);
        // A 2.x folder: the rows and record files named (or any) brought into the records held first.
        if (ctx.sqlite) await ctx.sqlite.sync(changedPaths?.map(p => path.join(this.root, p)));
        let current = changedPaths !== undefined && !ctx.sqlite;
        for (const { p, kind } of paths) if (current) current = await this.fileIsCurrent(p, kind);
        if (!current) {
          this.work.refreshes++;
          const records = changedPaths
            ? paths
                .filter(x => x.kind === 'handoffRecords')
                .map(x => handoffIdOfPath(x.p))
                .filter((id): id is string => id !== undefined)
            : undefined;
          await Promise.all([
            ctx.blackboard.refresh(),
            ctx.handoffIndex.refresh(),
            ctx.registry.get(),
            ctx.decisionIndex.get(),
            ctx.config(),
            records ? ctx.handoffRecords.recheck(records) : ctx.handoffRecords.recheckAll(),
            ctx.claimLog.refresh(),
          ]);
        }
      } catch (caught) {
        error = caught instanceof Error ? caught : new Error(String(caught));
      }
      const versions = this.versions();
      const kinds = new Set(changedKinds(this.reported, versions));
      this.reported = versions;
      if (error) for (const { kind } of paths) if (kind && kind !== 'presence') kinds.add(kind);
      return { kinds: DATA_KINDS.filter(k => kinds.has(k)), ...(error ? { error } : {}) };
    });
    this.refreshing = run.catch(() => undefined);
    return run;
  }

  /** The stamps of the files the last sweep looked at (project-relative path → stamp); undefined before the first. */
  private swept: Map<string, string> | undefined;

  /**
   * The backstop for a file watcher that lost an event (they can, under load or on a network
   * drive): stats every file the views read (on 2.x the database and its write-ahead log) and the
   * session files, and answers those whose stamp moved since the last sweep, to be passed to
   * `refresh` as a watcher's report would have named them (a file this engine wrote itself is then
   * read no more than after a watcher's report). The first sweep only takes the stamps: make it
   * when the engine is made, before anything is read. Reads no file.
   */
  async sweep(): Promise<string[]> {
    const files = this.ctx.sqlite ? SWEPT_BESIDE_DATABASE : SWEPT_FILES;
    const sessions = (await fs.readdir(sessionsDir(this.ctx.layout.dir)).catch(() => [] as string[]))
      .filter(name => kindOfPath(`.twining/sessions/${name}`) === 'sessions')
      .map(name => `.twining/sessions/${name}`);
    const stamps = new Map<string, string>();
    for (const p of [...files, ...sessions]) stamps.set(p, await stampOfFile(path.join(this.root, p)));
    const before = this.swept;
    this.swept = stamps;
    if (!before) return [];
    const moved = [...stamps].filter(([p, stamp]) => before.get(p) !== stamp).map(([p]) => p);
    for (const p of before.keys()) if (!stamps.has(p)) moved.push(p); // a session file gone
    return moved;
  }

  /**
   * A counter per kind of data, increased whenever that data changes in this engine's view of the
   * folder (read after another process wrote it, or written by this engine). Compare two with
   * `changedKinds`. `drift` covers what every handoff's `verify` depends on (the decision index,
   * new warnings, and entries gone); each handoff's own record has `recordVersion`.
   */
  versions(): Versions {
    const ctx = this.ctx;
    return {
      registry: ctx.registry.version,
      blackboard: ctx.blackboard.version,
      handoffs: ctx.handoffIndex.version,
      handoffRecords: ctx.handoffRecords.version,
      decisions: ctx.decisionIndex.version,
      config: ctx.configVersion,
      sessions: this.sessionWatch.version,
      claims: ctx.claimLog.version,
      drift: ctx.decisionIndex.version + ctx.blackboard.driftVersion,
    };
  }

  /** How often handoff record `id` changed in this engine's view (written here, or found changed by a refresh). */
  recordVersion(id: string): number {
    return this.ctx.handoffRecords.versionOf(id);
  }

  // Operations -------------------------------------------------------------------------------

  /** Runs operation `op` of the table on this folder (the CLI, the MCP server and the language model tools call it by name). */
  run<K extends OperationName>(op: K, input?: InputOf<K>, options?: OptionsOf<K>): Promise<ResultOf<K>> {
    if (op === 'verify') this.work.verifications++;
    const entry: AnyOperation = OPERATION_TABLE[op];
    const result = entry.run(this.ctx, input ?? {}, options) as Promise<ResultOf<K>>;
    // With sync on, a claim is granted only once the remote has accepted it (sync/claim-confirm.ts).
    if (op === 'claim') return result.then(r => confirmClaim(this.ctx, r as ClaimResult, (input as { agent_id: string }).agent_id)) as Promise<ResultOf<K>>;
    return result;
  }

  /**
   * Exchanges the record with the repository's remote on its own branch (`twining/record`) and
   * turns background sync on for this clone (sync/sync-run.ts); says what came in and went out.
   */
  sync(options: SyncOptions = {}): Promise<SyncReport> {
    return syncFolder(this.ctx, options);
  }
  /** Which clone the entries and claims another clone's sync brought were written on (id → "host:folder"), and this clone's label (sync/origins.ts). */
  origins(): Promise<{ self?: string; records: Record<string, string> }> {
    return originsOf(this.ctx.layout.dir);
  }
  /** Whether this clone syncs, with which remote, when it last did, what is pending, the last error (sync/sync-state.ts). */
  syncStatus(): Promise<SyncStatus> {
    return syncStatus(this.ctx.layout.dir);
  }

  sessions() {
    return sessionBoard(this.ctx);
  }
  /** One blackboard entry by id (current file only), for views that open an entry. */
  getEntry(id: string): Promise<BlackboardEntry | undefined> {
    return blackboardOps.getEntry(this.ctx, id);
  }
  /** What an automatic snapshot for `scope` would hold right now (shown before a handoff is written). */
  previewSnapshot(scope?: string): Promise<HandoffSnapshot> {
    return handoffOps.previewSnapshot(this.ctx, scope);
  }

  /** How many decisions, warnings and findings the snapshot of each scope would attach, from one read. */
  snapshotCounts(scopes: readonly (string | undefined)[]): Promise<{ decisions: number; warnings: number; findings: number }[]> {
    return handoffOps.snapshotCounts(this.ctx, scopes);
  }
  /**
   * A handoff record by id, or undefined when there is none. A record file that is not a JSON
   * object is a CORRUPT error that names the file (twining-mcp says "not found" for both).
   */
  getHandoff(id: string): Promise<HandoffRecord | undefined> {
    return this.ctx.handoffRecords.get(id);
  }
  /** A decision record by id, or undefined. */
  getDecision(id: string): Promise<DecisionRecord | undefined> {
    return decisionOps.getDecision(this.ctx, id);
  }
  /**
   * What bears on a file, folder or symbol (undefined: the whole project): its decisions, warnings,
   * findings, open delegations and unacknowledged handoffs, from the loaded state (the Context view).
   */
  scopeContext(scope: string | undefined, options: { limit?: number } = {}): Promise<ScopeContext> {
    return scopeContext(this.ctx, scope, options);
  }
  /** A decision with what it superseded, what superseded it and the handoffs that carried it. */
  decisionStory(id: string): Promise<DecisionStory | undefined> {
    return decisionStory(this.ctx, id);
  }
  /** Releases `agentId`'s claims that `scopes` cover (a record's scope and files); `because` names what released them. */
  releaseCovered(agentId: string, scopes: readonly (string | undefined)[], because: string) {
    return releaseCovered(this.ctx, agentId, scopes, because);
  }
}

for (const name of Object.keys(OPERATION_TABLE) as OperationName[]) {
  Object.defineProperty(TwiningEngine.prototype, name, {
    value: function (this: TwiningEngine, input?: never, options?: never) {
      return this.run(name, input, options);
    },
    writable: true,
    configurable: true,
  });
}

/** The engine under the name the library has always exported it by. */
export { TwiningEngine as Workspace };
