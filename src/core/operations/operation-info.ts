/**
 * What is said about each operation to people and models: one table shared by the MCP server,
 * the language model tools, the chat participant and scripts/sync-manifest.js. It imports no
 * value, so the extension can load it without loading the engine.
 */
import type { AliasName, OperationName } from '../schemas/schemas';

export interface OperationInfo {
  /** Short title for people (tool display name, confirmation titles). */
  title: string;
  /** Guidance for the language model, added to the schema's own description. */
  model: string;
}

export const OPERATIONS: Record<OperationName, OperationInfo> = {
  register: {
    title: 'Register Agent',
    model: 'Register an agent (or refresh its liveness) with its capability tags. Call it at the start of a work session with your own agent_id.',
  },
  agents: {
    title: 'List Agents',
    model: 'List the registered agents with their liveness: active (recently registered), idle, or gone.',
  },
  discover: {
    title: 'Discover Agents',
    model:
      'Rank the registered agents for a piece of work by how many of the required capabilities they have (70%) and their liveness (30%). Scores run from 0 to 1.',
  },
  delegate: {
    title: 'Post Delegation',
    model:
      'Ask for help: post a delegation need with the capabilities it requires. It expires after a timeout set by its urgency. Returns the agents best suited to take it.',
  },
  delegations: {
    title: 'List Delegations',
    model: 'List the open delegation needs (optionally the expired ones too), each with its time left and suggested agents.',
  },
  handoff: {
    title: 'Create Handoff',
    model:
      'Hand work over to another agent (or any agent): a summary, the results with their status, and automatically a snapshot of the decisions, warnings and findings in the scope.',
  },
  handoffs: {
    title: 'List Handoffs',
    model: 'List handoffs, newest first, filtered by source, target, scope, time or acknowledgement.',
  },
  acknowledge: {
    title: 'Acknowledge Handoff',
    model: 'Acknowledge a handoff: record that this agent has taken the work over.',
  },
  post: {
    title: 'Post to Blackboard',
    model:
      'Post a warning, finding, question, answer, need, offer, constraint, status or artifact entry to the shared blackboard. Decisions are recorded with twining_decide instead.',
  },
  read: {
    title: 'Read Blackboard',
    model: 'Read blackboard entries, oldest first, filtered by type, tags, scope and time.',
  },
  decide: {
    title: 'Record Decision',
    model:
      'Record a decision with its context and rationale. An active decision in the same domain and an overlapping scope with a different summary makes the new one provisional.',
  },
  decisions: {
    title: 'List Decisions',
    model: 'List decisions, newest first, filtered by scope, status and domain.',
  },
  status: {
    title: 'Twining Status',
    model: 'Summarise the coordination state: agents by liveness, open delegations, unacknowledged handoffs, decisions and warnings.',
  },
  verify: {
    title: 'Verify Handoff',
    model:
      'Check a handoff: whether its context snapshot is intact, and what drifted since (decisions no longer active, entries removed, new decisions and warnings in its scope).',
  },
  why: {
    title: 'Why (Decisions Behind a File)',
    model:
      'Explain a file, folder or symbol: the decisions whose scope, affected files or affected symbols cover it, with their rationale and status, within a token budget (max_tokens, default 4000); the rest come as one-liners in `more`: pass their ids back via `ids` for full detail. Call it before changing code you did not write.',
  },
  dismiss: {
    title: 'Dismiss Blackboard Entries',
    model:
      'Remove blackboard entries by id, for example a warning that was dealt with or a finding that is no longer true. Give the reason: it is kept in a status entry.',
  },
  reconsider: {
    title: 'Reconsider Decision',
    model:
      'Flag a decision for reconsideration with the new context: an active decision becomes provisional, and a warning names the decisions that depend on it.',
  },
  override: {
    title: 'Override Decision',
    model:
      'Override a decision with a reason (it becomes overridden); optionally give the summary of a replacement decision, which is recorded superseding it.',
  },
  promote: {
    title: 'Promote Decisions',
    model: 'Promote provisional decisions (for example ones flagged as conflicting, once resolved) to active.',
  },
  search: {
    title: 'Search Decisions and Blackboard',
    model:
      'Find what was decided, warned about or found, by keywords: decisions and blackboard entries ranked by relevance (BM25; prefixes and small typos match), filtered by type, domain, status, confidence and scope. Each result has its id, to open it or pass it to other tools.',
  },
  claim: {
    title: 'Claim Files or Task',
    model:
      'Before you start editing files or take a delegation, claim them so no other agent works on them at the same time: paths, folders ending in "/", globs, or a delegation_id, with a reason. Either every path is granted or none: when another live agent holds one, the answer names who, since and until when, and why; pick other work or ask them (twining_post a need). Claims last ttl_ms (default 30 minutes); claim again to renew. A handoff releases the claims in its scope.',
  },
  release: {
    title: 'Release Claims',
    model: 'Release claims you hold as soon as you are done with the files or task (with no paths, delegation or ids: all of your claims).',
  },
  claims: {
    title: 'List Claims',
    model:
      'List who holds which files, folders, globs and delegations, with why and until when; claims past their time or of agents that are gone are marked lapsed.',
  },
  trace: {
    title: 'Trace Decision Dependencies',
    model:
      "Trace a decision's dependency chain: upstream (the decisions it depends on) and downstream (the decisions that depend on it), breadth first, each with its status. Call it before changing or overriding a decision.",
  },
  what_changed: {
    title: 'What Changed Since',
    model:
      'What changed since a time: new decisions, new blackboard entries, overridden and reconsidered decisions, optionally in a scope. Use it to catch up.',
  },
  summarize: {
    title: 'Summarize Scope',
    model:
      'A summary of the project or a scope: active and provisional decisions, open needs, warnings, unanswered questions, and the last 24 hours in a sentence.',
  },
  link_commit: {
    title: 'Link Commit to Decision',
    model: 'Link a git commit hash to the decision it implements, so twining_commits finds the decision from the commit.',
  },
  commits: {
    title: 'Decisions of a Commit',
    model: 'The decisions linked to a git commit hash, newest first: from a change in the history back to its rationale.',
  },
  recent: {
    title: 'Recent Blackboard Entries',
    model: 'The latest blackboard entries, newest first (default 20), optionally of some types only.',
  },
  archive: {
    title: 'Archive Blackboard',
    model:
      'Move blackboard entries older than a time (default now) to the archive, keeping decision entries and, with retain, the newest N. A finding summarises what was archived.',
  },
  export: {
    title: 'Export as Markdown',
    model: 'The whole coordination state (decisions with rationale, blackboard, knowledge graph), or one scope of it, as a Markdown document.',
  },
  add_entity: {
    title: 'Add Graph Entity',
    model: 'Add an entity (file, module, function, class, concept, ...) to the knowledge graph, or merge properties into the one with the same name and type.',
  },
  add_relation: {
    title: 'Add Graph Relation',
    model: 'Relate two knowledge graph entities (by id or unambiguous name), e.g. a file tested_by its test file, or a module depends_on another.',
  },
  neighbors: {
    title: 'Graph Neighbours',
    model: 'The knowledge graph entities connected to one (by id or name), up to three relations away, optionally through some relation types only.',
  },
  graph_query: {
    title: 'Query Graph',
    model: 'Find knowledge graph entities whose name or a property contains a substring (case-insensitive).',
  },
  prune_graph: {
    title: 'Prune Graph',
    model: 'Remove knowledge graph entities that have no relation (dry_run to only list them).',
  },
  assemble: {
    title: 'Assemble Briefing',
    model:
      'Get a briefing before you start a task: handoffs waiting for you (with their results and drift), active warnings, the decisions that constrain the scope (with rationale), open needs and questions, and what changed since your last briefing, ranked and cut to a token budget. Call it first, with your agent_id and the files or folder you will work on.',
  },
  record: {
    title: 'Record Work',
    model:
      'Record the end of a piece of work in one call: what you did, the decisions you made (each with rationale and affected files), findings and warnings for the next session, the ids it resolved, and optionally a handoff. Call it before you commit or end the session.',
  },
  resolve: {
    title: 'Resolve Need, Warning or Question',
    model:
      'Mark open needs, warnings or questions as handled (the everyday way to close them): each keeps its place on the blackboard with status "resolved", who resolved it, when, and your note on how; it leaves the open lists, briefings and counts but stays searchable. Use twining_dismiss only for noise that should never have been posted.',
  },
  triage: {
    title: 'Triage Open Items',
    model:
      'The review queue: open items awaiting an act (provisional decisions; needs, questions and warnings not resolved; live delegations), oldest first, and recent activity (decisions made active, artifacts) within a window, newest first. Page the open items with open_after (the previous open_cursor). Read-only: act with twining_resolve, twining_promote or twining_override.',
  },
  archive_stale: {
    title: 'Archive Stale Items',
    model:
      'Archive stale items by id: a decision becomes "archived" (left out of briefings and why; twining_unarchive restores it), a blackboard entry is removed from the blackboard with a full copy kept in archive/. Give the reason: it is recorded in a finding.',
  },
  unarchive: {
    title: 'Unarchive Decisions',
    model:
      'Restore archived decisions to the status they had before they were archived (a provisional stays provisional); other ids are reported back untouched.',
  },
  housekeeping: {
    title: 'Housekeeping',
    model:
      'Periodic maintenance, a preview unless execute is true: duplicate blackboard entries (kept in archive/), stale provisional decisions (promote_provisionals to promote them), open warnings, orphan graph entities, old metrics; archive: true also sweeps old entries, keeping decisions, open needs, warnings and questions and the newest 200. Preview first, then act.',
  },
  amend: {
    title: 'Amend Decision Files and Symbols',
    model:
      "Add affected_files or affected_symbols to an EXISTING decision recorded without them (such a decision is invisible to twining_why on those files and to the drift check). Strictly additive: nothing is removed and the decision's text is not changed; works on any status. The record keeps an amendments trail and a finding records the change.",
  },
  migrate_status: {
    title: 'Migration Status',
    model:
      'Report the .twining/ folder format (1.x files, 2.x twining.db and records/, or twining-mcp format 3) and where a migration stands: not_started, incomplete (interrupted), complete or rolled_back, with the command to run next. Read-only: migrating is an operator command (twining migrate), not a tool.',
  },
  exchange_status: {
    title: 'Exchange (Sync) Status',
    model:
      "Report what this clone's exchange with other clones (twining sync) is uncertain about: outbound changes pending and the oldest one's age, inbound changes waiting, rejections, and known gaps. Says plainly when sync is not set up for this clone. Read-only; never runs git.",
  },
};

/** The tools under twining-mcp's names that run an operation with some fields fixed (core/tool-aliases.ts). */
export const ALIAS_OPERATIONS: Record<AliasName, OperationInfo> = {
  search_decisions: {
    title: 'Search Decisions',
    model:
      "Search decisions across all scopes by keywords, best first, filtered by domain, status and confidence (twining-mcp's tool; twining_search also covers blackboard entries).",
  },
  query: {
    title: 'Query Blackboard',
    model: "Search blackboard entries by keywords, best first, optionally of some entry types only (twining-mcp's tool; keyword ranking, fallback_mode true).",
  },
};

/** `twining_<op>`: the language model tool name of an operation. */
export const toolName = (op: OperationName | AliasName): string => `twining_${op}`;
