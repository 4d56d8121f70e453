/**
 * The coordination engine: one object per project folder, one async method per operation
 * (register, agents, discover, delegate, delegations, handoff, handoffs, acknowledge, post, read,
 * decide, decisions, status, verify, why, dismiss, reconsider, override, promote, search), each a thin
 * call into ops/. Inputs are validated with the schemas before anything is touched; writes follow
 * the locking protocol of FORMAT.md §3; reads are incremental. The engine also says what changed since a caller last looked, by name.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { EngineContext, WorkspaceOptions } from './engine-context';
import { FolderFormat, pinFilesBackend } from './store/folder-format';
import { TwiningError } from './errors';
import type { Config } from './config';
import type { InputOf } from './schemas';
import * as agentOps from './ops/agent-ops';
import * as blackboardOps from './ops/blackboard-ops';
import * as delegationOps from './ops/delegation-ops';
import * as handoffOps from './ops/handoff-ops';
import * as decisionOps from './ops/decision-ops';
import * as lifecycleOps from './ops/decision-lifecycle-ops';
import { verify } from './ops/verify-ops';
import { ScopeContext, scopeContext } from './ops/scope-context-ops';
import { DecisionStory, decisionStory } from './ops/decision-story-ops';
import { status } from './ops/status-ops';
import { search } from './ops/search-ops';
import { DataKind, Versions, changedKinds, handoffIdOfPath, kindOfPath } from './data-kinds';
import type { BlackboardEntry, ContextSnapshot, DecisionRecord, HandoffRecord, VerifyResult } from './records';

export type { WorkspaceOptions } from './engine-context';

export async function openWorkspace(projectRoot: string, options: WorkspaceOptions = {}): Promise<TwiningEngine> {
  const root = path.resolve(projectRoot);
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new TwiningError('NOT_FOUND', `Project folder not found: ${root}`);
  return new TwiningEngine(root, options);
}

export class TwiningEngine {
  private readonly ctx: EngineContext;
  private refreshing: Promise<unknown> = Promise.resolve();
  /** Work done so far: full refreshes and verifications (benchmarks and tests count them per change). */
  readonly work = { refreshes: 0, verifications: 0 };

  constructor(
    readonly root: string,
    options: WorkspaceOptions = {},
  ) {
    this.ctx = new EngineContext(root, options);
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

  /** Creates `.twining/` (or fills in its missing entries) without overwriting anything, and says `storage.backend: files`. */
  async init(): Promise<{ created: boolean; dir: string }> {
    this.ctx.assertWritable('init');
    this.ctx.forgetReady();
    const created = await this.ctx.ready(true);
    // A folder made before init said its layout: say it now, so twining-mcp 2.x keeps it shared.
    if (!created) await pinFilesBackend(this.ctx.layout.config);
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
    const ctx = this.ctx;
    for (const p of paths) {
      const kind = kindOfPath(p);
      const current =
        kind === 'blackboard'
          ? ctx.blackboard.file.isCurrent()
          : kind === 'handoffs'
            ? ctx.handoffIndex.file.isCurrent()
            : kind === 'registry'
              ? ctx.registry.isCurrent()
              : kind === 'config'
                ? ctx.configIsCurrent()
                : kind === 'decisions'
                  ? p === '.twining/decisions/index.json'
                    ? ctx.decisionIndex.isCurrent()
                    : true // records are read on demand, never kept
                  : kind === 'handoffRecords'
                    ? ctx.handoffRecords.isCurrent(handoffIdOfPath(p) ?? '')
                    : p === '.twining'
                      ? this.exists() // the folder itself: current while it is there
                      : true;
      if (!(await current)) return false;
    }
    return true;
  }

  /**
   * Brings every cached file up to date and says which kinds of data changed in doing so.
   * `changedPaths` (from a file watcher) name handoff records to look at again; without them,
   * every record read so far is looked at. Refreshes run one at a time.
   */
  refresh(changedPaths?: readonly string[]): Promise<DataKind[]> {
    this.work.refreshes++;
    const run = this.refreshing.then(async () => {
      const before = this.versions();
      const ctx = this.ctx;
      const records = changedPaths ? changedPaths.map(handoffIdOfPath).filter((id): id is string => id !== undefined) : undefined;
      await Promise.all([
        ctx.blackboard.refresh(),
        ctx.handoffIndex.refresh(),
        ctx.registry.get(),
        ctx.decisionIndex.get(),
        ctx.config(),
        records ? ctx.handoffRecords.recheck(records) : ctx.handoffRecords.recheckAll(),
      ]);
      return changedKinds(before, this.versions());
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
      drift: ctx.decisionIndex.version + ctx.blackboard.driftVersion,
    };
  }

  /** How often handoff record `id` changed in this engine's view (written here, or found changed by a refresh). */
  recordVersion(id: string): number {
    return this.ctx.handoffRecords.versionOf(id);
  }

  // Operations -------------------------------------------------------------------------------

  register(input: InputOf<'register'>) {
    return agentOps.register(this.ctx, input);
  }
  agents(input: InputOf<'agents'> = {}) {
    return agentOps.agents(this.ctx, input);
  }
  discover(input: InputOf<'discover'>) {
    return agentOps.discover(this.ctx, input);
  }
  post(input: InputOf<'post'>) {
    return blackboardOps.post(this.ctx, input);
  }
  read(input: InputOf<'read'> = {}) {
    return blackboardOps.read(this.ctx, input);
  }
  /** One blackboard entry by id (current file only), for views that open an entry. */
  getEntry(id: string): Promise<BlackboardEntry | undefined> {
    return blackboardOps.getEntry(this.ctx, id);
  }
  delegate(input: InputOf<'delegate'>) {
    return delegationOps.delegate(this.ctx, input);
  }
  delegations(input: InputOf<'delegations'> = {}) {
    return delegationOps.delegations(this.ctx, input);
  }
  /** What an automatic snapshot for `scope` would hold right now (shown before a handoff is written). */
  previewSnapshot(scope?: string): Promise<ContextSnapshot> {
    return handoffOps.previewSnapshot(this.ctx, scope);
  }
  handoff(input: InputOf<'handoff'>): Promise<HandoffRecord> {
    return handoffOps.handoff(this.ctx, input);
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
  verify(input: InputOf<'verify'>): Promise<VerifyResult> {
    this.work.verifications++;
    return verify(this.ctx, input);
  }
  decide(input: InputOf<'decide'>) {
    return decisionOps.decide(this.ctx, input);
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
    return lifecycleOps.why(this.ctx, input);
  }
  dismiss(input: InputOf<'dismiss'>) {
    return blackboardOps.dismiss(this.ctx, input);
  }
  reconsider(input: InputOf<'reconsider'>) {
    return lifecycleOps.reconsider(this.ctx, input);
  }
  override(input: InputOf<'override'>) {
    return lifecycleOps.override(this.ctx, input);
  }
  promote(input: InputOf<'promote'>) {
    return lifecycleOps.promote(this.ctx, input);
  }
  search(input: InputOf<'search'>) {
    return search(this.ctx, input);
  }
}

/** The engine under the name the library has always exported it by. */
export { TwiningEngine as Workspace };
