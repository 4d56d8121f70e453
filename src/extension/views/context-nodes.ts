/** The elements of the Context view (views/context-view.ts); commands receive them from its menus. */
import type { BlackboardEntry, ContextDecision, ContextDelegation, HandoffIndexLine } from '../../core';
import type { Base } from './tree-base';
import type { ContextMode } from './context-model';

/** The first row: which file (or the whole project) is shown, and whether it is pinned. */
export interface ContextScopeNode extends Base {
  kind: 'contextScope';
  scope?: string;
  mode: ContextMode;
}
export type ContextGroup = 'decisions' | 'past' | 'warnings' | 'findings' | 'delegations' | 'handoffs';
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
}
export interface ContextDelegationNode extends Base {
  kind: 'contextDelegation';
  delegation: ContextDelegation;
}
export interface ContextHandoffNode extends Base {
  kind: 'contextHandoff';
  line: HandoffIndexLine;
}

export type ContextNode = ContextScopeNode | ContextGroupNode | ContextDecisionNode | ContextEntryNode | ContextDelegationNode | ContextHandoffNode;
