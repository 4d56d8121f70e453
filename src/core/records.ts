/**
 * The records of the `.twining/` folder (docs/format.md §Files) and the results of the operations (docs/format.md §Rules, docs/format.md §Tools).
 * Field names and key order are twining-mcp's. Records read from disk may carry fields we do not
 * know; they are kept (the index signature) and written back untouched.
 */
import type { Confidence, DecisionStatus, EntryType, ResultStatus, Urgency } from './schemas/schemas';

type Extra = { [unknownField: string]: unknown };

export type Liveness = 'active' | 'idle' | 'gone';

export interface AgentRecord extends Extra {
  agent_id: string;
  capabilities: string[];
  role?: string;
  description?: string;
  registered_at: string;
  last_active: string;
}

export interface BlackboardEntry extends Extra {
  entry_type: EntryType;
  summary: string;
  detail: string;
  tags: string[];
  scope: string;
  relates_to?: string[];
  agent_id: string;
  id: string;
  timestamp: string;
  // twining-mcp 2.x (src/utils/types.ts, commit 017a87802232ba85184c4e6aef9ff78060e73873), kept as read:
  /** Absent means open; "resolved" closes a need, warning or question (rules/resolution.ts). */
  status?: 'open' | 'resolved';
  /** When it was first resolved (never overwritten), by whom, and how. */
  resolved_at?: string;
  resolved_by?: string;
  resolution_note?: string;
  /** How it came to be: a session narrating its work, or something it found; absent means unknown. */
  origin?: 'narration' | 'discovery';
  provenance?: Provenance;
}

/** twining-mcp 2.x's branch and commit at the time a record was written (staleness). */
export interface Provenance extends Extra {
  recorded_at?: string;
  branch?: string;
  commit_sha?: string;
}

export interface DecisionIndexEntry extends Extra {
  id: string;
  timestamp: string;
  domain: string;
  scope: string;
  summary: string;
  confidence: Confidence;
  status: DecisionStatus;
  affected_files: string[];
  affected_symbols: string[];
  commit_hashes: string[];
}

export interface Alternative {
  option: string;
  pros: string[];
  cons: string[];
  reason_rejected: string;
}

export interface DecisionRecord extends Extra {
  agent_id: string;
  domain: string;
  scope: string;
  summary: string;
  context: string;
  rationale: string;
  constraints: string[];
  alternatives: Alternative[];
  depends_on: string[];
  supersedes?: string;
  confidence: Confidence;
  reversible: boolean;
  affected_files: string[];
  affected_symbols: string[];
  commit_hashes: string[];
  assembled_before?: boolean;
  id: string;
  timestamp: string;
  status: DecisionStatus;
  overridden_by?: string;
  override_reason?: string;
  // twining-mcp 2.x, kept as read (src/utils/types.ts, commit 017a87802232ba85184c4e6aef9ff78060e73873):
  /** The status before twining_archive_stale archived it; unarchive restores it. */
  archived_from?: DecisionStatus;
  /** Back-link written when another decision supersedes this one. */
  superseded_by?: string;
  rationale_source?: 'authored' | 'derived';
  assumptions?: string[];
  provenance?: Provenance;
  /** twining-mcp 2.10's trail of twining_amend (ops/amend-ops.ts); absent until a decision is amended. */
  amendments?: DecisionAmendment[];
}

/** One amendment of a decision's affected files and symbols, as its record keeps it. */
export interface DecisionAmendment {
  amended_at: string;
  agent_id: string;
  added_files: string[];
  added_symbols: string[];
  reason?: string;
}

export interface HandoffResult {
  description: string;
  status: ResultStatus;
  artifacts?: string[];
  notes?: string;
}

export interface HandoffSnapshot {
  decision_ids: string[];
  warning_ids: string[];
  finding_ids: string[];
  summaries: string[];
}

export interface HandoffRecord extends Extra {
  /** Where it was written, in twining-mcp 2.x's shape for entries and decisions: the branch of the linked worktree a handoff was created in. */
  provenance?: Provenance;
  source_agent: string;
  target_agent?: string;
  scope?: string;
  summary: string;
  results: HandoffResult[];
  context_snapshot: HandoffSnapshot;
  id: string;
  created_at: string;
  /** Ours, ignored and kept by twining-mcp: the handoff this one continues. */
  continues?: string;
  /** Ours: "sha256:" + hex digest of the canonical JSON of `context_snapshot` (see rules/snapshot.ts). */
  snapshot_digest?: string;
  acknowledged_by?: string;
  acknowledged_at?: string;
}

export type ResultStatusAggregate = ResultStatus | 'mixed';

export interface HandoffIndexLine extends Extra {
  id: string;
  created_at: string;
  source_agent: string;
  target_agent?: string;
  scope?: string;
  summary: string;
  result_status: ResultStatusAggregate;
  acknowledged: boolean;
}

// ---------------------------------------------------------------------------------------------
// Operation results

/**
 * A registered agent as listed: `last_seen` is the later of `last_active` (registration) and its
 * latest blackboard entry, and `liveness` is computed from it.
 */
export type AgentWithLiveness = AgentRecord & { last_seen: string; liveness: Liveness };

export interface AgentScore {
  agent_id: string;
  capabilities: string[];
  role?: string;
  description?: string;
  liveness: Liveness;
  capability_overlap: number;
  liveness_score: number;
  total_score: number;
  matched_capabilities: string[];
}

export interface DelegationDetail {
  type: 'delegation';
  required_capabilities: string[];
  urgency: Urgency;
  expires_at: string;
  timeout_ms: number;
}

export interface Delegation {
  entry_id: string;
  summary: string;
  scope: string;
  tags: string[];
  agent_id: string;
  timestamp: string;
  required_capabilities: string[];
  urgency: Urgency;
  expires_at: string;
  timeout_ms: number;
  expired: boolean;
  /** Milliseconds until expiry (negative once expired), against the engine's clock. */
  remaining_ms: number;
  suggested_agents: AgentScore[];
}

export interface DriftItem {
  id: string;
  summary?: string;
  /** For decisions: the status now, or "missing". For entries: "dismissed", "archived" or "resolved" (twining-mcp 2.x). */
  now: string;
}

export interface VerifyResult {
  handoff_id: string;
  /** The stored snapshot still hashes to the stored digest (or no digest was stored). */
  intact: boolean;
  has_digest: boolean;
  stored_digest?: string;
  computed_digest: string;
  drift: {
    decisions_no_longer_active: DriftItem[];
    entries_removed: DriftItem[];
    new_decisions: { id: string; summary: string; scope: string; timestamp: string }[];
    new_warnings: { id: string; summary: string; scope: string; timestamp: string }[];
  };
  drifted: boolean;
  /** Ids from this handoff back through `continues` links, newest first. */
  chain: string[];
}

/** A knowledge graph entity (`graph/entities.json`, docs/format.md §Knowledge graph). */
export interface GraphEntity extends Extra {
  id: string;
  name: string;
  type: string;
  properties: Record<string, string>;
  created_at: string;
  updated_at: string;
}

/** A knowledge graph relation (`graph/relations.json`); `source` and `target` are entity ids. */
export interface GraphRelation extends Extra {
  id: string;
  source: string;
  target: string;
  type: string;
  properties: Record<string, string>;
  created_at: string;
}

/** A session state: what the hooks keep of one agent session, in `.twining/sessions/session-<id>.json` (storage/session-files.ts). */
export interface SessionState {
  session_id: string;
  agent_id: string;
  /** Which host ran the hooks: claude-code or vscode. */
  tool: string;
  started_at: string;
  last_seen: string;
  last_tool?: string;
  /** The last edit's time: a Stop asks for a record when nothing was recorded after it. */
  last_edit_at?: string;
  /** When a hook last refreshed the agent's liveness in agents/registry.json. */
  registered_at?: string;
  /** Project-relative paths this session edited, first edit first. */
  files_touched: string[];
  /** The size of blackboard.jsonl at the session's start: what the session wrote is after it. */
  blackboard_offset: number;
  /** When the session's agent last recorded its work (record, post, decide, handoff) as seen by a hook. */
  recorded_at?: string;
  /** Set once a Stop was blocked for want of a record: the next one lets the session end. */
  stop_blocked_at?: string;
  ended_at?: string;
  /** When the host said the session waits for the person (a permission prompt, an idle prompt), and why. */
  waiting_since?: string;
  waiting_reason?: string;
  /** The work tree the session runs in, when it is a linked worktree of the repository (core/git/record-location.ts). */
  worktree?: string;
  /** The branch checked out where the session runs. */
  branch?: string;
  /** The clone it runs on ("host:folder"), for a session another clone's sync brought (sync/clone-sessions.ts); absent for this clone's own. */
  clone?: string;
}
