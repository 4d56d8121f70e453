/**
 * What a briefing (`assemble`, assemble-ops.ts) answers, as types alone: shared by the engine, the
 * text of a briefing (text/briefing-text.ts) and the SessionStart hook's briefing brought up to
 * date (storage/derived/briefing-update.ts), which load none of the engine.
 */
import type { HandoffResult, VerifyResult } from '../records';

type Why = { reason: string };
export interface AssembledDecision extends Why {
  id: string;
  summary: string;
  rationale: string;
  confidence: string;
  status: string;
  scope: string;
  affected_files: string[];
  constraints?: string[];
  rejected_alternatives?: string[];
  /** How the knowledge graph reaches it from the scope (twining-mcp's relevance_path), when it does. */
  relevance_path?: string;
}
export interface AssembledEntry extends Why {
  id: string;
  summary: string;
  detail?: string;
  scope: string;
  timestamp: string;
  agent_id?: string;
}
export interface AssembledHandoff extends Why {
  id: string;
  source_agent: string;
  target_agent: string;
  scope: string;
  summary: string;
  result_status?: string;
  acknowledged: boolean;
  created_at: string;
  results: HandoffResult[];
  drifted?: boolean;
  drift?: VerifyResult['drift'];
}
/** A live claim of another agent on the scope: editing it would collide with its holder. */
export interface AssembledClaim extends Why {
  id: string;
  agent_id: string;
  target: string;
  claim_reason: string;
  claimed_at: string;
  expires_at: string;
}
export interface ChangedItem {
  id: string;
  kind: string;
  summary: string;
  scope: string;
  agent_id?: string;
  timestamp: string;
}
export interface AssembledContext {
  assembled_at: string;
  task: string;
  scope: string;
  agent_id: string;
  token_estimate: number;
  max_tokens: number;
  warnings_omitted?: number;
  active_decisions: AssembledDecision[];
  open_needs: AssembledEntry[];
  recent_findings: AssembledEntry[];
  active_warnings: AssembledEntry[];
  recent_questions: AssembledEntry[];
  related_entities: { name: string; type: string; relations: string[] }[];
  /** Handoffs waiting for this agent (twining-mcp: recent handoffs in the scope). */
  recent_handoffs: AssembledHandoff[];
  /** Live claims of other agents that overlap the scope (every one for "project"), oldest first. */
  active_claims: AssembledClaim[];
  /** What others wrote in the scope since this agent's previous briefing (absent on its first). */
  changed_since?: { since: string; total: number; items: ChangedItem[] };
}
