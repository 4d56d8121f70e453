/**
 * The elements of every Twining tree view (Agents, Delegations, Handoffs, Context): commands receive
 * them from the views' menus and tell them from argument objects by the NODE mark.
 */
import type {
  AgentScore,
  AgentWithLiveness,
  BlackboardEntry,
  ClaimView,
  ContextDecision,
  ContextDelegation,
  Delegation,
  HandoffIndexLine,
  HandoffResult,
  SessionView,
  VerifyResult,
} from '../../core';
import type { TwiningFolder } from '../model/folders';
import type { ContextMode } from '../model/context-model';

/** Marks our tree elements, so commands can tell a tree element from an argument object. */
export const NODE = Symbol('twining.node');

export interface Base {
  readonly [NODE]: true;
  readonly folder: TwiningFolder;
}

export interface FolderNode extends Base {
  kind: 'folder';
}
export interface MessageNode extends Base {
  kind: 'message';
  id: string;
  text: string;
  detail?: string;
  severity: 'warning' | 'info';
}
export interface AgentNode extends Base {
  kind: 'agent';
  agent: AgentWithLiveness;
  isMe: boolean;
}
export interface DelegationNode extends Base {
  kind: 'delegation';
  delegation: Delegation;
}
export interface ExpiredGroupNode extends Base {
  kind: 'expiredGroup';
  delegations: Delegation[];
}
export interface SuggestionNode extends Base {
  kind: 'suggestion';
  delegation: Delegation;
  agent: AgentScore;
}
export interface HandoffNode extends Base {
  kind: 'handoff';
  line: HandoffIndexLine;
  /** Targeted at the user's own agent id. */
  forMe: boolean;
  /** The drift report, once computed (lazily, in the background). */
  verify?: VerifyResult;
}
export interface ResultNode extends Base {
  kind: 'result';
  handoffId: string;
  result: HandoffResult;
  index: number;
}
export interface SnapshotNode extends Base {
  kind: 'snapshot';
  handoffId: string;
  counts: { decisions: number; warnings: number; findings: number };
}
export interface SnapshotItemNode extends Base {
  kind: 'snapshotItem';
  handoffId: string;
  item: 'decision' | 'warning' | 'finding';
  id: string;
  summary?: string;
  /** For decisions: the status now; for entries: whether the entry is still on the blackboard. */
  status?: string;
}
export interface DriftNode extends Base {
  kind: 'drift';
  handoffId: string;
  verify: VerifyResult;
}
export interface DriftItemNode extends Base {
  kind: 'driftItem';
  handoffId: string;
  label: string;
  description: string;
  icon: string;
  target?: { type: 'decision' | 'entry'; id: string };
}

export type Node =
  | FolderNode
  | MessageNode
  | AgentNode
  | DelegationNode
  | ExpiredGroupNode
  | SuggestionNode
  | HandoffNode
  | ResultNode
  | SnapshotNode
  | SnapshotItemNode
  | DriftNode
  | DriftItemNode
  | SessionGroupNode
  | SessionNode
  | SessionFileNode
  | ContextNode
  | ClaimNode
  | ClaimHolderNode;

// The session board's elements in the Agents view (views/session-items.ts draws them).

/** "Agent sessions": the hooked sessions of a folder, under the agents. */
export interface SessionGroupNode extends Base {
  kind: 'sessionGroup';
  sessions: SessionView[];
}
export interface SessionNode extends Base {
  kind: 'session';
  session: SessionView;
}
/** A file a session edited (a click opens it). */
export interface SessionFileNode extends Base {
  kind: 'sessionFile';
  session: SessionView;
  file: string;
}

type Fields<T> = Omit<T, typeof NODE>;

export function makeNode<T extends Node>(fields: Fields<T>): T {
  return { [NODE]: true, ...fields } as T;
}

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && (value as { [NODE]?: unknown })[NODE] === true;
}

// The Context view's elements (views/context-view.ts).

/** The first row: which file (or the whole project) is shown, and whether it is pinned. */
export interface ContextScopeNode extends Base {
  kind: 'contextScope';
  scope?: string;
  mode: ContextMode;
}
export type ContextGroup = 'decisions' | 'past' | 'warnings' | 'findings' | 'resolved' | 'delegations' | 'handoffs' | 'sessions';
export interface ContextGroupNode extends Base {
  kind: 'contextGroup';
  group: ContextGroup;
  children: ContextNode[];
  /** How many there are in all, when more than the children. */
  total: number;
}
export interface ContextDecisionNode extends Base {
  kind: 'contextDecision';
  decision: ContextDecision;
}
export interface ContextEntryNode extends Base {
  kind: 'contextEntry';
  entry: BlackboardEntry;
  /** The clone it was written on, when another clone's sync brought it. */
  clone?: string;
}
export interface ContextDelegationNode extends Base {
  kind: 'contextDelegation';
  delegation: ContextDelegation;
}
export interface ContextHandoffNode extends Base {
  kind: 'contextHandoff';
  line: HandoffIndexLine;
}

/** A hooked agent session that edited the shown file. */
export interface ContextSessionNode extends Base {
  kind: 'contextSession';
  session: SessionView;
}

export type ContextNode =
  ContextScopeNode | ContextGroupNode | ContextDecisionNode | ContextEntryNode | ContextDelegationNode | ContextHandoffNode | ContextSessionNode;

// Claims in the Agents and Context views (views/claim-nodes.ts).

/** One claim: under its holder in the Agents view, or on the Context view's file. */
export interface ClaimNode extends Base {
  kind: 'claim';
  claim: ClaimView;
  /** Where it is shown (tree item ids differ per view). */
  place: 'agents' | 'context';
  isMine: boolean;
}

/** An agent holding claims without being in the registry (a hook or the CLI claimed for it). */
export interface ClaimHolderNode extends Base {
  kind: 'claimHolder';
  agentId: string;
  claims: ClaimView[];
  isMe: boolean;
}
