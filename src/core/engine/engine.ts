/**
 * The coordination engine: one object per project folder, one async method per operation
 * (register, agents, discover, delegate, delegations, handoff, handoffs, acknowledge, post, read,
 * decide, decisions, status, verify, why, dismiss, reconsider, override, promote, search), each a thin
 * call into ops/. Inputs are validated with the schemas before anything is touched; writes follow
 * the locking protocol of docs/format.md §Locking; reads are incremental. The engine also says what changed since a caller last looked, by name.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { FolderStore, WorkspaceOptions } from './folder-store';
import { FolderFormat, pinFilesBackend } from '../store/folder-format';
import { TwiningError } from '../errors';
import type { Config } from './config';
import type { InputOf } from '../schemas/schemas';
import * as agentOps from '../operations/agent-ops';
import * as blackboardOps from '../operations/blackboard-ops';
import * as delegationOps from '../operations/delegation-ops';
import * as handoffOps from '../operations/handoff-ops';
import * as decisionOps from '../operations/decision-ops';
import * as lifecycleOps from '../operations/decision-lifecycle-ops';
import { why } from '../operations/why-ops';
import { verify } from '../operations/verify-ops';
import type { ScopeVerifyResult } from '../operations/scope-verify-ops';
import { ScopeContext, scopeContext } from '../operations/scope-context-ops';
import { DecisionStory, decisionStory } from '../operations/decision-story-ops';
import { status } from '../operations/status-ops';
import { search } from '../operations/search-ops';
import { AgentWorkTools } from './engine-agent-work';
import { claimLogOf } from '../operations/claim-ops';
import { DATA_KINDS, DataKind, Versions, changedKinds, handoffIdOfPath, kindOfPath } from './data-kinds';
import type { BlackboardEntry, HandoffSnapshot, DecisionRecord, HandoffRecord, VerifyResult } from '../records';
import * as graph from '../operations/graph-populate-ops';
import { archiveAutomatically } from '../operations/auto-archive-ops';
import { SessionWatch } from '../store/session-watch';
import { sessions as sessionBoard } from '../operations/session-ops';

export type { WorkspaceOptions } from './folder-store';

/** What a refresh found: the kinds of data changed since the last report, and why a file could not be read. */
export interface ChangeReport {
  kinds: DataKind[];
  error?: Error;
}

/** The counters of an engine that has read nothing: whatever a new engine has read counts as changed. */
const NOTHING_READ: Versions = { registry: 0, blackboard: 0, handoffs: 0, handoffRecords: 0, decisions: 0, config: 0, sessions: 0, claims: 0, drift: 0 };

export async function openWorkspace(projectRoot: string, options: WorkspaceOptions = {}): Promise<TwiningEngine> {
  const root = path.resolve(projectRoot);
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new TwiningError('NOT_FOUND', `Project folder not found: ${root}`);
  return new TwiningEngine(root, options);
}

export class TwiningEngine extends AgentWorkTools {
  protected readonly ctx: FolderStore;
  private refreshing: Promise<unknown> = Promise.resolve();
  /** The counters at the last refresh's report. */
  private reported: Versions = NOTHING_READ;
  /** Work done so far: refreshes that read the files, and verifications (benchmarks and tests count them per change). */
  readonly work = { refreshes: 0, verifications: 0 };
  private readonly sessionWatch: SessionWatch; // the session board's files (sessions()), looked at alone

  constructor(
    readonly root: string,
    options: WorkspaceOptions = {},
  ) {
    super();
    this.ctx = new FolderStore(root, options);
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
  /** Lets go of what the engine holds (a 2.x folder's database and kept copy), for another process to use; the engine is not used after it. */
  close(): void {
    this.ctx.twoX?.close();
  }

  now(): Date {
    return this.ctx.now();
  }

  // Folder, configuration, freshness -----------------------------------------------------------

  /** Whether `.twining/` exists. */
  async exists(): Promise<boolean> {
    return (await fs.stat(this.ctx.layout.dir).catch(() => undefined))?.isDirectory() ?? false;
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
    if (!created && !this.ctx.twoX) await pinFilesBackend(this.ctx.layout.config);
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
    if (this.ctx.twoX) return false; // twining.db and records/ are looked at by a refresh
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
        return claimLogOf(ctx).isCurrent();
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
        // A 2.x folder: the rows and record files named (or any) brought into its 1.x copy first.
        if (ctx.twoX) await ctx.twoX.sync(changedPaths?.map(p => path.join(this.root, p)));
        let current = changedPaths !== undefined && !ctx.twoX;
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
            claimLogOf(ctx).refresh(),
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
      claims: claimLogOf(ctx).version,
      drift: ctx.decisionIndex.version + ctx.blackboard.driftVersion,
    };
  }

  /** How often handoff record `id` changed in this engine's view (written here, or found changed by a refresh). */
  recordVersion(id: string): number {
    return this.ctx.handoffRecords.versionOf(id);
  }

  // Operations -------------------------------------------------------------------------------

  register(input: InputOf<'register'>) {
    return graph.withGraph(
      this.ctx,
      () => agentOps.register(this.ctx, input),
      () => graph.onRegister(this.ctx, input.agent_id, input.capabilities, input.role),
    );
  }
  agents(input: InputOf<'agents'> = {}) {
    return agentOps.agents(this.ctx, input);
  }
  sessions() {
    return sessionBoard(this.ctx);
  }
  discover(input: InputOf<'discover'>) {
    return agentOps.discover(this.ctx, input);
  }
  post(input: InputOf<'post'>) {
    return graph.withGraph(this.ctx, () => blackboardOps.post(this.ctx, input));
  }
  read(input: InputOf<'read'> = {}) {
    return blackboardOps.read(this.ctx, input);
  }
  /** One blackboard entry by id (current file only), for views that open an entry. */
  getEntry(id: string): Promise<BlackboardEntry | undefined> {
    return blackboardOps.getEntry(this.ctx, id);
  }
  delegate(input: InputOf<'delegate'>) {
    return graph.withGraph(this.ctx, () => delegationOps.delegate(this.ctx, input));
  }
  delegations(input: InputOf<'delegations'> = {}) {
    return delegationOps.delegations(this.ctx, input);
  }
  /** What an automatic snapshot for `scope` would hold right now (shown before a handoff is written). */
  previewSnapshot(scope?: string): Promise<HandoffSnapshot> {
    return handoffOps.previewSnapshot(this.ctx, scope);
  }

  /** How many decisions, warnings and findings the snapshot of each scope would attach, from one read. */
  snapshotCounts(scopes: readonly (string | undefined)[]): Promise<{ decisions: number; warnings: number; findings: number }[]> {
    return handoffOps.snapshotCounts(this.ctx, scopes);
  }

  /** `confirmed`: the snapshot the user was shown; if what is in scope changed since, nothing is written (CHANGED, with what changed). */
  handoff(input: InputOf<'handoff'>, options?: { confirmed?: HandoffSnapshot }): Promise<HandoffRecord> {
    return graph.withGraph(
      this.ctx,
      () => handoffOps.handoff(this.ctx, input, options),
      h => graph.onHandoff(this.ctx, h),
    );
  }
  handoffs(input: InputOf<'handoffs'> = {}) {
    return handoffOps.handoffs(this.ctx, input);
  }
  /**
   * A handoff record by id, or undefined when there is none. A record file that is not a JSON
   * object is a CORRUPT error that names the file (twining-mcp says "not found" for both).
   */
  getHandoff(id: string): Promise<HandoffRecord | undefined> {
    return this.ctx.handoffRecords.get(id);
  }
  acknowledge(input: InputOf<'acknowledge'>) {
    return handoffOps.acknowledge(this.ctx, input);
  }
  /** A handoff's snapshot and drift ({handoff_id}), or twining-mcp's checks of a scope ({scope, checks, agent_id, fail_on}). */
  verify(input: { handoff_id: string }): Promise<VerifyResult>;
  verify(input: InputOf<'verify'>): Promise<VerifyResult | ScopeVerifyResult>;
  verify(input: InputOf<'verify'>): Promise<VerifyResult | ScopeVerifyResult> {
    this.work.verifications++;
    return graph.withGraph(this.ctx, () => verify(this.ctx, input));
  }
  decide(input: InputOf<'decide'>) {
    return graph.withGraph(
      this.ctx,
      () => decisionOps.decide(this.ctx, input),
      r => this.graphOfDecision(r.id, input),
    );
  }
  decisions(input: InputOf<'decisions'> = {}) {
    return decisionOps.decisions(this.ctx, input);
  }
  /** A decision record by id, or undefined. */
  getDecision(id: string): Promise<DecisionRecord | undefined> {
    return decisionOps.getDecision(this.ctx, id);
  }
  /**
   * What bears on a file, folder or symbol (undefined: the whole project): its decisions, warnings,
   * findings, open delegations and unacknowledged handoffs, from the kept state (the Context view).
   */
  scopeContext(scope: string | undefined, options: { limit?: number } = {}): Promise<ScopeContext> {
    return scopeContext(this.ctx, scope, options);
  }
  /** A decision with what it superseded, what superseded it and the handoffs that carried it. */
  decisionStory(id: string): Promise<DecisionStory | undefined> {
    return decisionStory(this.ctx, id);
  }
  status(input: InputOf<'status'> = {}) {
    return status(this.ctx, input);
  }
  why(input: InputOf<'why'>) {
    return why(this.ctx, input);
  }
  dismiss(input: InputOf<'dismiss'>) {
    return graph.withGraph(this.ctx, () => blackboardOps.dismiss(this.ctx, input));
  }
  reconsider(input: InputOf<'reconsider'>) {
    return graph.withGraph(
      this.ctx,
      () => lifecycleOps.reconsider(this.ctx, input),
      () => graph.onChallenge(this.ctx, input.agent_id ?? 'main', input.decision_id, 'reconsider'),
    );
  }
  override(input: InputOf<'override'>) {
    return graph.withGraph(
      this.ctx,
      () => lifecycleOps.override(this.ctx, input),
      async r => {
        await graph.onChallenge(this.ctx, input.overridden_by ?? 'human', input.decision_id, 'override');
        if (r.new_decision_id) await this.graphOfDecision(r.new_decision_id, { supersedes: input.decision_id });
      },
    );
  }
  promote(input: InputOf<'promote'>) {
    return graph.withGraph(this.ctx, () => lifecycleOps.promote(this.ctx, input));
  }
  search(input: InputOf<'search'>) {
    return search(this.ctx, input);
  }
  /** The graph steps of a decision just recorded (twining-mcp's onDecide), from its record. */
  private async graphOfDecision(id: string, input: { depends_on?: string[]; supersedes?: string; commit_hash?: string }): Promise<void> {
    const d = await decisionOps.getDecision(this.ctx, id);
    if (!d) return;
    await graph.onDecide(this.ctx, { ...d, depends_on: input.depends_on, supersedes: input.supersedes, commit_hash: input.commit_hash });
  }
}

/** The engine under the name the library has always exported it by. */
export { TwiningEngine as Workspace };
