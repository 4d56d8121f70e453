/**
 * The PreToolUse hook's claim check: the other live agent holding a claim on a file the agent is
 * about to edit, from core/store/claims-file.ts's checkPath (one read of `.twining/claims/`, the
 * registry and the blackboard's tail, with the pure overlap rules: no zod, no engine, so it stays
 * within the hook's start-up budget). The hook then answers "ask" or "deny" (`--on-claim`) naming
 * the holder, since when and why, instead of letting the edit go ahead silently.
 */
import * as path from 'path';
import { checkPath } from '../core/store/claims-file';

export interface ClaimHolder {
  agent_id: string;
  since?: string;
  until?: string;
  reason?: string;
}

export function claimHeldByOther(twiningDir: string, file: string, agentId: string, now = new Date()): ClaimHolder | undefined {
  const held = checkPath(path.dirname(twiningDir), file, agentId, now).find(c => c.state === 'live' && c.agent_id !== agentId);
  return held ? { agent_id: held.agent_id, since: held.claimed_at, until: held.expires_at, reason: held.reason } : undefined;
}
