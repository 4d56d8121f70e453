/**
 * The coordination engine: one object per project folder, one async method per operation
 * (register, agents, discover, delegate, delegations, handoff, handoffs, acknowledge, post, read,
 * decide, decisions, status, verify). Inputs are validated with the schemas before anything is
 * touched; writes follow the locking protocol of FORMAT.md §3; reads are incremental.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { monotonicFactory } from 'ulid';
import { Layout, ensureFolder } from './store/layout';
import { withLocks } from './store/lock';
import { appendLineSafely, isRecord, readJson, sweepTemporaryFiles, readTextIfExists, toJsonText, toJsonlLine, writeAtomic } from './store/files';
import { Config, parseConfig } from './config';
import { ArchiveIndex, ArchivedEntry, Blackboard, HandoffIndex, JsonArrayFile, byTime, firstAfter } from './store/caches';
import { TwiningError } from './errors';
import { InputOf, ParsedInputOf, OperationName, checkUlid, isUlid, parseInput } from './schemas';
import { overlaps, normaliseTags } from './scope';
import { livenessOf, mergeRegistration, rankAgents } from './rules/scoring';
import { buildSnapshot, emptySnapshot, resultStatusOf, snapshotDigest, snapshotSources } from './rules/snapshot';
import { delegationOf, isExpired } from './rules/delegation-detail';
import { joinLines } from './store/jsonl';
import type {
  AgentRecord, AgentWithLiveness, BlackboardEntry, ContextSnapshot, DecisionIndexEntry, DecisionRecord, Delegation,
  DelegationDetail, DriftItem, HandoffIndexLine, HandoffRecord, HandoffResult, Liveness, VerifyResult,
} from './records';

export interface WorkspaceOptions {
  /** The clock; every timestamp, liveness and expiry is computed from it. */
  now?: () => Date;
  /** Where warnings go (skipped corrupt lines, broken locks). Default: stderr. */
  warn?: (message: string) => void;
  /** Never write, not even repairs (an untrusted workspace). Writing operations then fail. */
  readOnly?: boolean;
}

/** Handoff files older than this with no index line are taken as left by a crash and indexed. */
const ORPHAN_AGE_MS = 30_000;

export async function openWorkspace(projectRoot: string, options: WorkspaceOptions = {}): Promise<Workspace> {
  const root = path.resolve(projectRoot);
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new TwiningError('NOT_FOUND', `Project folder not found: ${root}`);
  return new Workspace(root, options);
}

export class Workspace {
  readonly layout: Layout;
  readonly blackboard: Blackboard;
  readonly handoffIndex: HandoffIndex;
  readonly registry: JsonArrayFile<AgentRecord>;
  readonly decisionIndex: JsonArrayFile<DecisionIndexEntry>;
  /** Archived blackboard entries (verify tells archived from dismissed). */
  private readonly archive: ArchiveIndex;
  private readonly clock: () => Date;
  private readonly warn: (message: string) => void;
  private readonly readOnly: boolean;
  private readonly nextId = monotonicFactory();
  private folderReady?: Promise<boolean>;
  private orphansChecked = false;
  private configCache?: { key: string; config: Config };
  private handoffCache = new Map<string, { key: string; record: HandoffRecord }>();

  constructor(readonly root: string, options: WorkspaceOptions = {}) {
    this.layout = new Layout(root);
    this.clock = options.now ?? (() => new Date());
    this.warn = options.warn ?? (message => process.stderr.write(`twining: ${message}\n`));
    this.readOnly = options.readOnly ?? false;
    this.blackboard = new Blackboard(this.layout.blackboard, this.warn);
    this.handoffIndex = new HandoffIndex(this.layout.handoffIndex, this.warn);
    this.registry = new JsonArrayFile<AgentRecord>(this.layout.registry, 'The agent registry');
    this.decisionIndex = new JsonArrayFile<DecisionIndexEntry>(this.layout.decisionIndex, 'The decision index');
    this.archive = new ArchiveIndex(this.layout.archiveDir, this.warn);
  }

  now(): Date {
    return this.clock();
  }

  // -------------------------------------------------------------------------------------------
  // Folder

  /** Whether `.twining/` exists. */
  async exists(): Promise<boolean> {
    return (await fs.stat(this.layout.dir).catch(() => undefined))?.isDirectory() ?? false;
  }

  /** Creates `.twining/` (or fills in its missing entries) without overwriting anything. */
  async init(): Promise<{ created: boolean; dir: string }> {
    this.assertWritable('init');
    this.folderReady = undefined;
    const created = await this.ready();
    return { created, dir: this.layout.dir };
  }

  /** Makes sure the folder exists before the first write, and clears what killed writers left. */
  private ready(): Promise<boolean> {
    if (!this.folderReady) {
      const pending = ensureFolder(this.layout).then(async created => {
        const dirs = [this.layout.dir, path.dirname(this.layout.registry), path.dirname(this.layout.decisionIndex), this.layout.handoffsDir];
        const removed = (await Promise.all(dirs.map(sweepTemporaryFiles))).reduce((a, b) => a + b, 0);
        if (removed) this.warn(`removed ${removed} temporary file(s) left by a writer that was killed`);
        return created;
      });
      // A failure is reported to the caller and tried again by the next write.
      pending.catch(() => {
        if (this.folderReady === pending) this.folderReady = undefined;
      });
      this.folderReady = pending;
    }
    return this.folderReady;
  }

  private assertWritable(op: string): void {
    if (this.readOnly) throw new TwiningError('INVALID_INPUT', `${op}: this workspace is opened read-only (untrusted); nothing was written`);
  }

  /** Holds the locks of these files (in this order: decision index, handoff index, blackboard, registry) while `work` runs. */
  private lock<T>(files: readonly (readonly [string, string])[], work: () => Promise<T>): Promise<T> {
    return withLocks(files, work, (locked, error) => this.warn(`the lock on ${locked} was broken by another process while held: ${error.message}`));
  }

  private get decisionIndexLock() { return [this.layout.decisionIndex, '[]'] as const; }
  private get handoffIndexLock() { return [this.layout.handoffIndex, ''] as const; }
  private get blackboardLock() { return [this.layout.blackboard, ''] as const; }
  private get registryLock() { return [this.layout.registry, '[]'] as const; }

  private timestamp(): string {
    return this.clock().toISOString();
  }

  private id(): string {
    return this.nextId(this.clock().getTime());
  }

  /** The configuration, re-read whenever config.yml changes. */
  async config(): Promise<Config> {
    const st = await fs.stat(this.layout.config).catch(() => undefined);
    const key = st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'missing';
    if (this.configCache?.key !== key) {
      const text = st ? await readTextIfExists(this.layout.config) : undefined;
      this.configCache = { key, config: parseConfig(text, path.basename(this.root), this.warn) };
    }
    return this.configCache.config;
  }

  /** Brings every cached file up to date; says which changed (the extension refreshes only those views). */
  async refresh(): Promise<{ blackboard: boolean; handoffs: boolean; registry: boolean; decisions: boolean }> {
    const versions = [this.registry.version, this.decisionIndex.version];
    const [blackboard, handoffs] = await Promise.all([this.blackboard.refresh(), this.handoffIndex.refresh()]);
    await Promise.all([this.registry.get(), this.decisionIndex.get()]);
    return { blackboard, handoffs, registry: this.registry.version !== versions[0], decisions: this.decisionIndex.version !== versions[1] };
  }

  // -------------------------------------------------------------------------------------------
  // Agents

  async register(input: InputOf<'register'>): Promise<AgentRecord> {
    const args = this.validate('register', input, true);
    await this.ready();
    return this.lock([this.registryLock], async () => {
      // Read inside the lock (FORMAT.md §7.2); an unparseable registry is an error, never "empty".
      const { raw } = await this.registry.fresh();
      const { registry: next, record } = mergeRegistration(raw, args, this.timestamp());
      await writeAtomic(this.layout.registry, toJsonText(next));
      return record;
    });
  }

  async agents(input: InputOf<'agents'> = {}): Promise<{ agents: AgentWithLiveness[]; total_registered: number; active_count: number }> {
    const args = this.validate('agents', input);
    await Promise.all([this.blackboard.refresh(), this.loadThresholds()]);
    const registry = await this.registry.get();
    const all = registry.map(a => ({ ...a, last_seen: this.lastSeen(a), liveness: this.liveness(a) }));
    return {
      agents: args.include_gone === false ? all.filter(a => a.liveness !== 'gone') : all,
      total_registered: registry.length,
      active_count: all.filter(a => a.liveness === 'active').length,
    };
  }

  private livenessThresholds = { idle_after_ms: 300000, gone_after_ms: 1800000 };

  /**
   * Liveness from the agent's last sign of life: its registration or its latest blackboard entry,
   * whichever is later. twining-mcp counts registration only, so a working agent turns idle 5 min
   * after registering (FORMAT.md §7.11); the thresholds and boundaries are §5.2's.
   */
  private liveness(agent: AgentRecord): Liveness {
    return livenessOf(this.lastSeen(agent), this.clock(), this.livenessThresholds);
  }

  /** The later of `last_active` and the agent's latest blackboard entry (as stored). */
  private lastSeen(agent: AgentRecord): string {
    const work = typeof agent.agent_id === 'string' ? this.blackboard.lastEntryBy(agent.agent_id) : undefined;
    const registered = typeof agent.last_active === 'string' ? Date.parse(agent.last_active) : NaN;
    return work && (Number.isNaN(registered) || work.ms > registered) ? work.timestamp : agent.last_active;
  }

  /** Loads the current config, and with it the liveness thresholds, before liveness is computed. */
  private async loadThresholds(): Promise<Config> {
    const config = await this.config();
    this.livenessThresholds = config.agents.liveness;
    return config;
  }

  async discover(input: InputOf<'discover'>): Promise<{ agents: ReturnType<typeof rankAgents>; total_registered: number }> {
    const args = this.validate('discover', input);
    await Promise.all([this.blackboard.refresh(), this.loadThresholds()]);
    const registry = await this.registry.get();
    return {
      agents: rankAgents(registry, args.required_capabilities, a => this.liveness(a), args),
      total_registered: registry.length,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Blackboard

  async post(input: InputOf<'post'>): Promise<{ id: string; timestamp: string }> {
    const args = this.validate('post', input, true);
    const entry = await this.appendEntry({
      entry_type: args.entry_type as BlackboardEntry['entry_type'],
      summary: args.summary,
      detail: args.detail ?? '',
      tags: args.tags ?? [],
      scope: args.scope ?? 'project',
      relates_to: args.relates_to,
      agent_id: args.agent_id ?? 'main',
    });
    return { id: entry.id, timestamp: entry.timestamp };
  }

  /** Appends one blackboard line under the blackboard lock. */
  private async appendEntry(fields: Omit<BlackboardEntry, 'id' | 'timestamp'>): Promise<BlackboardEntry> {
    await this.ready();
    return this.lock([this.blackboardLock], () => this.appendEntryLocked(fields));
  }

  /** Appends one blackboard line, keys in twining-mcp's order; the caller holds the blackboard lock. */
  private async appendEntryLocked(fields: Omit<BlackboardEntry, 'id' | 'timestamp'>): Promise<BlackboardEntry> {
    const entry: Record<string, unknown> = {
      entry_type: fields.entry_type,
      summary: fields.summary,
      detail: fields.detail,
      tags: fields.tags,
      scope: fields.scope,
    };
    if (fields.relates_to !== undefined) entry.relates_to = fields.relates_to;
    entry.agent_id = fields.agent_id;
    entry.id = this.id();
    entry.timestamp = this.timestamp();
    await appendLineSafely(this.layout.blackboard, toJsonlLine(entry));
    return entry as BlackboardEntry;
  }

  async read(input: InputOf<'read'> = {}): Promise<{ entries: BlackboardEntry[]; total_count: number }> {
    const args = this.validate('read', input);
    await this.blackboard.refresh();
    const types = args.entry_types?.length ? new Set<string>(args.entry_types) : undefined;
    const tags = args.tags?.length ? new Set(args.tags) : undefined;
    const since = args.since ? new Date(args.since).toISOString() : undefined;
    // Without a filter, the last N entries are a slice: O(limit), not O(blackboard).
    if (!types && !tags && !args.scope && !since) {
      const all = this.blackboard.entries;
      const n = args.limit ?? 50;
      return { entries: n > 0 ? all.slice(-n) : all.slice(), total_count: all.length };
    }
    const matching = this.blackboard.entries.filter(
      e =>
        (!types || types.has(e.entry_type)) &&
        (!tags || (Array.isArray(e.tags) && e.tags.some(t => tags.has(t)))) &&
        (!args.scope || (typeof e.scope === 'string' && overlaps(e.scope, args.scope))) &&
        (!since || (typeof e.timestamp === 'string' && e.timestamp >= since)),
    );
    const limit = args.limit ?? 50;
    return { entries: limit > 0 ? matching.slice(-limit) : matching, total_count: matching.length };
  }

  /** One blackboard entry by id (current file only), for views that open an entry. */
  async getEntry(id: string): Promise<BlackboardEntry | undefined> {
    await this.blackboard.refresh();
    return this.blackboard.get(id);
  }

  // -------------------------------------------------------------------------------------------
  // Delegations

  async delegate(input: InputOf<'delegate'>): Promise<{ entry_id: string; timestamp: string; expires_at: string; suggested_agents: ReturnType<typeof rankAgents> }> {
    const args = this.validate('delegate', input, true);
    const start = this.clock();
    const config = await this.config();
    const urgency = args.urgency ?? 'normal';
    const timeout_ms = args.timeout_ms ?? config.delegations.timeouts[`${urgency}_ms`];
    const required = normaliseTags(args.required_capabilities);
    const detail: DelegationDetail = {
      type: 'delegation',
      required_capabilities: required,
      urgency,
      expires_at: new Date(start.getTime() + timeout_ms).toISOString(),
      timeout_ms,
    };
    const entry = await this.appendEntry({
      entry_type: 'need',
      summary: args.summary,
      detail: JSON.stringify(detail),
      tags: [...(args.tags ?? []), 'delegation', urgency],
      scope: args.scope ?? 'project',
      agent_id: args.agent_id ?? 'main',
    });
    const { agents } = await this.discover({ required_capabilities: required, include_gone: false });
    return { entry_id: entry.id, timestamp: entry.timestamp, expires_at: detail.expires_at, suggested_agents: agents };
  }

  async delegations(input: InputOf<'delegations'> = {}): Promise<{ delegations: Delegation[]; open_count: number; expired_count: number }> {
    const args = this.validate('delegations', input);
    await Promise.all([this.blackboard.refresh(), this.loadThresholds()]);
    const registry = await this.registry.get();
    const now = this.clock();
    const all: Delegation[] = [];
    for (const entry of this.blackboard.needs) {
      const detail = delegationOf(entry);
      if (!detail) continue;
      if (args.scope && !(typeof entry.scope === 'string' && overlaps(entry.scope, args.scope))) continue;
      const expired = isExpired(detail, now);
      all.push({
        entry_id: entry.id,
        summary: entry.summary,
        scope: entry.scope,
        tags: Array.isArray(entry.tags) ? entry.tags : [],
        agent_id: entry.agent_id,
        timestamp: entry.timestamp,
        required_capabilities: detail.required_capabilities,
        urgency: detail.urgency,
        expires_at: detail.expires_at,
        timeout_ms: detail.timeout_ms,
        expired,
        remaining_ms: (Date.parse(detail.expires_at) || now.getTime()) - now.getTime(),
        suggested_agents: expired ? [] : rankAgents(registry, detail.required_capabilities, a => this.liveness(a), { include_gone: false }),
      });
    }
    const open = all.filter(d => !d.expired).sort((a, b) => a.remaining_ms - b.remaining_ms);
    const expired = all.filter(d => d.expired).sort((a, b) => (a.expires_at < b.expires_at ? 1 : -1));
    return {
      delegations: args.include_expired ? [...open, ...expired] : open,
      open_count: open.length,
      expired_count: expired.length,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Handoffs

  /** What an automatic snapshot for `scope` would hold right now (shown before a handoff is written). */
  async previewSnapshot(scope?: string): Promise<ContextSnapshot> {
    await this.blackboard.refresh();
    await this.decisionIndex.get();
    // Active decisions in scope, computed once per version of the index and scope.
    const decisions = this.decisionIndex.derived(`active in ${scope ?? ''}`, items => snapshotSources(items, [], [], scope || undefined).decisions);
    const { warnings, findings } = this.blackboard.inScope(scope || undefined);
    return buildSnapshot({ decisions, warnings, findings });
  }

  async handoff(input: InputOf<'handoff'>): Promise<HandoffRecord> {
    const args = this.validate('handoff', input, true);
    if (args.continues !== undefined && !(await this.getHandoff(args.continues))) {
      throw new TwiningError('NOT_FOUND', `handoff: continues names handoff ${args.continues}, which does not exist`);
    }
    await this.ready();
    const snapshot: ContextSnapshot = args.context_snapshot
      ? args.context_snapshot
      : args.auto_snapshot === false
        ? emptySnapshot()
        : await this.previewSnapshot(args.scope);
    const results: HandoffResult[] = args.results.map(r => {
      const result: Record<string, unknown> = { description: r.description, status: r.status };
      if (r.artifacts !== undefined) result.artifacts = r.artifacts;
      if (r.notes !== undefined) result.notes = r.notes;
      return result as unknown as HandoffResult;
    });
    const record: Record<string, unknown> = { source_agent: args.source_agent };
    if (args.target_agent !== undefined) record.target_agent = args.target_agent;
    if (args.scope !== undefined) record.scope = args.scope;
    record.summary = args.summary;
    record.results = results;
    record.context_snapshot = {
      decision_ids: snapshot.decision_ids,
      warning_ids: snapshot.warning_ids,
      finding_ids: snapshot.finding_ids,
      summaries: snapshot.summaries,
    };
    record.id = this.id();
    record.created_at = this.timestamp();
    if (args.continues !== undefined) record.continues = args.continues;
    record.snapshot_digest = snapshotDigest(snapshot);
    const handoff = record as HandoffRecord;

    // Both locks first, so a LOCKED handoff writes nothing. The record appears whole (temp file +
    // rename), then its index line and the status entry. A crash between the steps leaves a record
    // without a line at worst; listings find and index it.
    await this.lock([this.handoffIndexLock, this.blackboardLock], async () => {
      await writeAtomic(this.layout.handoff(handoff.id), toJsonText(handoff));
      await appendLineSafely(this.layout.handoffIndex, toJsonlLine(indexLineOf(handoff, false)));
      await this.appendEntryLocked({
        entry_type: 'status',
        summary: `Handoff created: ${handoff.summary}`.slice(0, 200),
        detail: `From ${handoff.source_agent} to ${handoff.target_agent ?? 'any agent'}. ${results.length} result(s).`,
        tags: ['handoff'],
        scope: handoff.scope ?? 'project',
        agent_id: handoff.source_agent,
      });
    });
    return handoff;
  }

  async handoffs(input: InputOf<'handoffs'> = {}): Promise<{ handoffs: HandoffIndexLine[]; total_count: number }> {
    const args = this.validate('handoffs', input);
    await this.handoffIndex.refresh();
    if (!this.orphansChecked) await this.indexOrphans();
    const since = args.since ? new Date(args.since).toISOString() : undefined;
    const limit = args.limit ?? 50;
    const all = this.handoffIndex.sorted();
    const filtered = args.source_agent !== undefined || args.target_agent !== undefined || !!args.scope || !!since || args.acknowledged !== undefined;
    if (!filtered) return { handoffs: all.slice(Math.max(0, all.length - limit)).reverse(), total_count: all.length };
    const handoffs: HandoffIndexLine[] = [];
    let total_count = 0;
    for (let i = all.length - 1; i >= 0; i--) {
      const h = all[i];
      if (args.source_agent !== undefined && h.source_agent !== args.source_agent) continue;
      if (args.target_agent !== undefined && h.target_agent !== args.target_agent) continue;
      if (args.scope && typeof h.scope === 'string' && !overlaps(h.scope, args.scope)) continue;
      if (since && !(typeof h.created_at === 'string' && h.created_at >= since)) continue;
      if (args.acknowledged !== undefined && (h.acknowledged === true) !== args.acknowledged) continue;
      if (handoffs.length < limit) handoffs.push(h);
      total_count++;
    }
    return { handoffs, total_count };
  }

  /**
   * Finds handoff records that have no index line (a writer crashed between the two steps of a
   * handoff) and, unless read-only, appends their lines. Done once per workspace object.
   */
  private async indexOrphans(): Promise<void> {
    this.orphansChecked = true;
    const names = await fs.readdir(this.layout.handoffsDir).catch(() => [] as string[]);
    const indexed = new Set(this.handoffIndex.lines.map(l => l.id));
    const candidates = names.filter(n => n.length === 31 && n.endsWith('.json') && isUlid(n.slice(0, 26)) && !indexed.has(n.slice(0, 26)));
    if (candidates.length === 0 || this.readOnly) return;
    const cutoff = Date.now() - ORPHAN_AGE_MS;
    const orphans: HandoffRecord[] = [];
    for (const name of candidates) {
      const file = path.join(this.layout.handoffsDir, name);
      const st = await fs.stat(file).catch(() => undefined);
      if (!st || st.mtimeMs > cutoff) continue;
      const record = await readJson(file, 'A handoff record').catch(() => undefined);
      if (record && typeof record === 'object' && (record as HandoffRecord).id === name.slice(0, 26)) orphans.push(record as HandoffRecord);
    }
    if (orphans.length === 0) return;
    orphans.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
    await this.lock([this.handoffIndexLock], async () => {
      const text = (await readTextIfExists(this.layout.handoffIndex)) ?? '';
      const lines = orphans.filter(o => !text.includes(`"id":"${o.id}"`)).map(o => toJsonlLine(indexLineOf(o, o.acknowledged_by !== undefined)));
      if (lines.length) await appendLineSafely(this.layout.handoffIndex, lines.join(''));
      if (lines.length) this.warn(`indexed ${lines.length} handoff record(s) that had no index line (left by an interrupted writer)`);
    });
    await this.handoffIndex.refresh();
  }

  /**
   * A handoff record by id, or undefined when there is none. A record file that is not a JSON
   * object is a CORRUPT error that names the file (twining-mcp says "not found" for both).
   */
  async getHandoff(id: string): Promise<HandoffRecord | undefined> {
    checkUlid('handoff_id', id);
    const file = this.layout.handoff(id);
    const st = await fs.stat(file).catch(() => undefined);
    if (!st) return undefined;
    const key = `${st.ino}:${st.size}:${st.mtimeMs}`;
    const cached = this.handoffCache.get(id);
    if (cached?.key === key) return cached.record;
    const record = await readHandoffRecord(file, id);
    if (record) this.handoffCache.set(id, { key, record });
    return record;
  }

  async acknowledge(input: InputOf<'acknowledge'>): Promise<{ id: string; acknowledged_by: string; acknowledged_at: string; summary: string; source_agent: string }> {
    const args = this.validate('acknowledge', input, true);
    await this.ready();
    return this.lock([this.handoffIndexLock], async () => {
      // Parse the index before anything changes; lines that do not parse are kept as they are.
      const text = (await readTextIfExists(this.layout.handoffIndex)) ?? '';
      const lines = text.split('\n').filter(l => l.trim() !== '').map(raw => ({ raw, value: parseLine(raw) }));
      const file = this.layout.handoff(args.handoff_id);
      const record = await readHandoffRecord(file, args.handoff_id);
      if (!record) throw new TwiningError('NOT_FOUND', `Handoff not found: ${args.handoff_id}`);
      record.acknowledged_by = args.agent_id;
      record.acknowledged_at = this.timestamp();
      let found = false;
      for (const line of lines) {
        if (line.value?.id !== args.handoff_id) continue;
        line.value.acknowledged = true;
        line.raw = JSON.stringify(line.value);
        found = true;
      }
      // An id missing from the index (an interrupted writer) gets its line now instead of staying invisible.
      if (!found) lines.push({ raw: JSON.stringify(indexLineOf(record, true)), value: undefined });
      await writeAtomic(file, toJsonText(record));
      await writeAtomic(this.layout.handoffIndex, joinLines(lines));
      return {
        id: record.id ?? args.handoff_id,
        acknowledged_by: record.acknowledged_by,
        acknowledged_at: record.acknowledged_at,
        summary: record.summary,
        source_agent: record.source_agent,
      };
    });
  }

  async verify(input: InputOf<'verify'>): Promise<VerifyResult> {
    const args = this.validate('verify', input);
    const handoff = await this.getHandoff(args.handoff_id);
    if (!handoff) throw new TwiningError('NOT_FOUND', `Handoff not found: ${args.handoff_id}`);
    const snapshot = normaliseSnapshot(handoff.context_snapshot);
    const computed = snapshotDigest(snapshot);
    const stored = typeof handoff.snapshot_digest === 'string' ? handoff.snapshot_digest : undefined;
    await this.blackboard.refresh();
    await this.decisionIndex.get();
    const byId = this.decisionIndex.derived('byId', items => new Map(items.map(d => [d.id, d])));

    const decisions_no_longer_active: DriftItem[] = [];
    for (const id of snapshot.decision_ids) {
      const d = byId.get(id);
      if (!d) decisions_no_longer_active.push({ id, now: 'missing' });
      else if (d.status !== 'active') decisions_no_longer_active.push({ id, summary: d.summary, now: d.status });
    }
    const missing = [...snapshot.warning_ids, ...snapshot.finding_ids].filter(id => !this.blackboard.get(id));
    const archived = missing.length ? await this.archive.find(missing) : new Map<string, ArchivedEntry>();
    const entries_removed: DriftItem[] = missing.map(id => {
      const a = archived.get(id);
      return a ? { id, summary: a.summary, now: 'archived' } : { id, now: 'dismissed' };
    });

    const scope = handoff.scope || undefined;
    const inScope = (s: unknown) => !scope || (typeof s === 'string' && overlaps(s, scope));
    const known = new Set([...snapshot.decision_ids, ...snapshot.warning_ids]);
    // Only what came after the handoff is looked at (binary search over lists sorted by time), so
    // the cost does not grow with the history before it.
    const createdAt = String(handoff.created_at);
    const activeByTime = this.decisionIndex.derived('activeByTime', items => byTime(items.filter(d => d.status === 'active')));
    const new_decisions = activeByTime
      .slice(firstAfter(activeByTime, createdAt))
      .filter(d => !known.has(d.id) && inScope(d.scope))
      .map(d => ({ id: d.id, summary: d.summary, scope: d.scope, timestamp: d.timestamp }));
    const new_warnings = this.blackboard
      .warningsAfter(createdAt)
      .filter(w => !known.has(w.id) && inScope(w.scope))
      .map(w => ({ id: w.id, summary: w.summary, scope: w.scope, timestamp: w.timestamp }));

    const chain = [handoff.id ?? args.handoff_id];
    for (let next = handoff.continues; typeof next === 'string' && chain.length < 1000 && !chain.includes(next); ) {
      chain.push(next);
      // A corrupt link ends the chain; the handoff being verified is what must be readable.
      next = isUlid(next) ? (await this.getHandoff(next).catch(() => undefined))?.continues : undefined;
    }
    const drift = { decisions_no_longer_active, entries_removed, new_decisions, new_warnings };
    return {
      handoff_id: args.handoff_id,
      intact: stored === undefined || stored === computed,
      has_digest: stored !== undefined,
      ...(stored !== undefined ? { stored_digest: stored } : {}),
      computed_digest: computed,
      drift,
      drifted: Object.values(drift).some(list => list.length > 0),
      chain,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Decisions

  async decide(input: InputOf<'decide'>): Promise<{ id: string; timestamp: string; conflicts?: { id: string; summary: string }[] }> {
    const args = this.validate('decide', input, true);
    await this.ready();
    const agent_id = args.agent_id ?? 'main';
    // Index and blackboard locks first: a LOCKED decision writes nothing.
    return this.lock([this.decisionIndexLock, this.blackboardLock], async () => {
      const raw = (await this.decisionIndex.fresh()).raw.slice();
      if (args.supersedes !== undefined) {
        const old = await readJson(this.layout.decision(args.supersedes), `Decision ${args.supersedes}`).catch(() => undefined);
        if (!old || typeof old !== 'object') throw new TwiningError('NOT_FOUND', `decide: supersedes names decision ${args.supersedes}, which does not exist; nothing was written`);
        (old as DecisionRecord).status = 'superseded';
        await writeAtomic(this.layout.decision(args.supersedes), toJsonText(old));
        for (let i = 0; i < raw.length; i++) if (isRecord(raw[i]) && (raw[i] as DecisionIndexEntry).id === args.supersedes) raw[i] = { ...(raw[i] as object), status: 'superseded' };
      }
      // Conflicts are computed inside the lock, so two concurrent conflicting decisions cannot both stay active.
      const conflicts = (raw.filter(isRecord) as DecisionIndexEntry[])
        .filter(d => d.domain === args.domain && typeof d.scope === 'string' && overlaps(d.scope, args.scope) && d.status === 'active' && d.summary !== args.summary)
        .map(d => ({ id: d.id, summary: d.summary }));
      const id = this.id();
      const timestamp = this.timestamp();
      const status = conflicts.length ? 'provisional' : 'active';
      const commit_hashes = args.commit_hash ? [args.commit_hash] : [];
      const record: Record<string, unknown> = {
        agent_id,
        domain: args.domain,
        scope: args.scope,
        summary: args.summary,
        context: args.context,
        rationale: args.rationale,
        constraints: args.constraints ?? [],
        alternatives: (args.alternatives ?? []).map(a => ({ option: a.option, pros: a.pros ?? [], cons: a.cons ?? [], reason_rejected: a.reason_rejected })),
        depends_on: args.depends_on ?? [],
      };
      if (args.supersedes !== undefined) record.supersedes = args.supersedes;
      Object.assign(record, {
        confidence: args.confidence ?? 'medium',
        reversible: args.reversible ?? true,
        affected_files: args.affected_files ?? [],
        affected_symbols: args.affected_symbols ?? [],
        commit_hashes,
        assembled_before: false,
        id,
        timestamp,
        status,
      });
      raw.push({
        id,
        timestamp,
        domain: args.domain,
        scope: args.scope,
        summary: args.summary,
        confidence: args.confidence ?? 'medium',
        status,
        affected_files: args.affected_files ?? [],
        affected_symbols: args.affected_symbols ?? [],
        commit_hashes,
      });
      await writeAtomic(this.layout.decision(id), toJsonText(record));
      await writeAtomic(this.layout.decisionIndex, toJsonText(raw));
      if (conflicts.length) {
        await this.appendEntryLocked({
        entry_type: 'warning',
          summary: `Potential conflict: new decision may conflict with ${conflicts.length} existing decision(s)`,
          detail: [`New decision "${args.summary}" conflicts with:`, ...conflicts.map(c => `- ${c.id}: "${c.summary}"`)].join('\n'),
          tags: [args.domain],
          scope: args.scope,
          agent_id,
        });
      }
      await this.appendEntryLocked({ entry_type: 'decision', summary: args.summary, detail: args.rationale, tags: [args.domain], scope: args.scope, agent_id });
      return conflicts.length ? { id, timestamp, conflicts } : { id, timestamp };
    });
  }

  async decisions(input: InputOf<'decisions'> = {}): Promise<{ decisions: DecisionIndexEntry[]; total_count: number }> {
    const args = this.validate('decisions', input);
    const statuses = args.status === undefined ? undefined : new Set<string>(Array.isArray(args.status) ? args.status : [args.status]);
    const matching = (await this.decisionIndex.get()).filter(
      d =>
        (!statuses || statuses.has(d.status)) &&
        (args.domain === undefined || d.domain === args.domain) &&
        (!args.scope || (typeof d.scope === 'string' && overlaps(d.scope, args.scope))),
    );
    const sorted = matching.slice().reverse().sort((a, b) => (a.timestamp === b.timestamp ? (a.id < b.id ? 1 : -1) : a.timestamp < b.timestamp ? 1 : -1));
    return { decisions: args.limit ? sorted.slice(0, args.limit) : sorted, total_count: matching.length };
  }

  /** A decision record by id, or undefined. */
  async getDecision(id: string): Promise<DecisionRecord | undefined> {
    checkUlid('decision id', id);
    const record = await readJson(this.layout.decision(id), `Decision ${id}`).catch(() => undefined);
    return record && typeof record === 'object' && !Array.isArray(record) ? (record as DecisionRecord) : undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Status

  async status(input: InputOf<'status'> = {}) {
    this.validate('status', input);
    const config = await this.loadThresholds();
    await Promise.all([this.blackboard.refresh(), this.handoffIndex.refresh()]);
    const [registry, index] = await Promise.all([this.registry.get(), this.decisionIndex.get()]);
    const liveness = { active: 0, idle: 0, gone: 0 };
    for (const agent of registry) liveness[this.liveness(agent)]++;
    const { open_count, expired_count } = await this.delegations({});
    const handoffs = this.handoffIndex.sorted();
    const unacknowledged = handoffs.filter(line => line.acknowledged !== true).length;
    const active_decisions = index.filter(d => d.status === 'active').length;
    const provisional_decisions = index.filter(d => d.status === 'provisional').length;
    const entries = this.blackboard.entries;
    const lastEntry = entries.length ? entries[entries.length - 1].timestamp : undefined;
    const lastDecision = index.reduce<string | undefined>((max, d) => (max === undefined || d.timestamp > max ? d.timestamp : max), undefined);
    const last_activity = [lastEntry, lastDecision].filter((t): t is string => typeof t === 'string').sort().pop() ?? 'none';
    const threshold = config.archive.max_blackboard_entries_before_archive;
    const warnings: string[] = [];
    const weekAgo = new Date(this.clock().getTime() - 7 * 24 * 3600 * 1000).toISOString();
    const staleProvisional = index.filter(d => d.status === 'provisional' && d.timestamp < weekAgo).length;
    if (staleProvisional) warnings.push(`${staleProvisional} provisional decision(s) older than 7 days`);
    if (entries.length >= threshold) warnings.push(`Blackboard has ${entries.length} entries (archive threshold ${threshold})`);
    const graph = await this.graphCounts();
    const summary =
      `${warnings.length ? 'Needs attention' : 'Healthy'}. ${entries.length} blackboard entries, ${active_decisions} active decisions, ` +
      `${graph.entities} graph entities. ${registry.length} registered agents (${liveness.active} active).` +
      (warnings.length ? ` ${warnings.join('. ')}.` : '');
    return {
      project: path.basename(this.root),
      blackboard_entries: entries.length,
      active_decisions,
      provisional_decisions,
      graph_entities: graph.entities,
      graph_relations: graph.relations,
      registered_agents: registry.length,
      active_agents: liveness.active,
      last_activity,
      needs_archiving: entries.length >= threshold,
      warnings,
      summary,
      // Beyond twining-mcp: what a coordinator looks at first.
      agents_by_liveness: liveness,
      open_delegations: open_count,
      expired_delegations: expired_count,
      handoffs: handoffs.length,
      unacknowledged_handoffs: unacknowledged,
      warning_entries: this.blackboard.warnings.length,
    };
  }

  private async graphCounts(): Promise<{ entities: number; relations: number }> {
    const count = async (name: string) => {
      const value = await readJson(path.join(this.layout.dir, 'graph', name), `graph/${name}`).catch(() => undefined);
      return Array.isArray(value) ? value.length : 0;
    };
    const [entities, relations] = await Promise.all([count('entities.json'), count('relations.json')]);
    return { entities, relations };
  }

  // -------------------------------------------------------------------------------------------

  private validate<K extends OperationName>(op: K, input: unknown, writes = false): ParsedInputOf<K> {
    if (writes) this.assertWritable(op);
    return parseInput(op, input);
  }
}

function indexLineOf(handoff: HandoffRecord, acknowledged: boolean): HandoffIndexLine {
  const line: Record<string, unknown> = { id: handoff.id, created_at: handoff.created_at, source_agent: handoff.source_agent };
  if (handoff.target_agent !== undefined) line.target_agent = handoff.target_agent;
  if (handoff.scope !== undefined) line.scope = handoff.scope;
  line.summary = handoff.summary;
  line.result_status = resultStatusOf(Array.isArray(handoff.results) ? handoff.results : []);
  line.acknowledged = acknowledged;
  return line as HandoffIndexLine;
}

function parseLine(raw: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function normaliseSnapshot(value: unknown): ContextSnapshot {
  const s = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { decision_ids: strings(s.decision_ids), warning_ids: strings(s.warning_ids), finding_ids: strings(s.finding_ids), summaries: strings(s.summaries) };
}

/** Reads `handoffs/{id}.json`: undefined when missing; CORRUPT (naming the file) when not a JSON object. */
async function readHandoffRecord(file: string, id: string): Promise<HandoffRecord | undefined> {
  const record = await readJson(file, `Handoff ${id}`);
  if (record === undefined) return undefined;
  if (!isRecord(record)) throw new TwiningError('CORRUPT', `Handoff ${id} (${file}) is valid JSON but not an object; it was left untouched`);
  return record as HandoffRecord;
}
