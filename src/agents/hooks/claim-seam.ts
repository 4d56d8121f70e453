/**
 * The PreToolUse hook's claim check, from core/storage/claims-file.ts's checkPaths (one read of
 * `.twining/claims/` and the registry, with the pure overlap rules: no zod, no engine, so it stays
 * within the hook's start-up budget):
 *  - the other live agent holding a claim on a file the agent is about to edit: the hook then
 *    answers "ask" or "deny" (`--on-claim`) naming the holder, since when and why, instead of
 *    letting the edit go ahead silently;
 *  - the agent's own claims that lapsed (ran out of time, or it was taken for gone) and that it
 *    has not claimed again or released: said with the edit, so a lapse is never silent.
 */
import * as path from 'path';
import { checkPaths } from '../../core/storage/claims-file';
import type { ClaimView } from '../../core/rules/claims';

export interface ClaimHolder {
  agent_id: string;
  since?: string;
  until?: string;
  reason?: string;
}

export interface ClaimSeam {
  /** The first edited file another live agent claims, and its holder. */
  held?: { file: string; holder: ClaimHolder };
  /** One line per lapsed claim of the agent's own, for the hook's answer. */
  lapsedLines: string[];
}

function lapsedLine(c: ClaimView): string {
  const what = c.target.startsWith('delegation:') ? `delegation ${c.target.slice('delegation:'.length)}` : c.target;
  const why = c.lapsed_because === 'holder gone' ? 'you gave no sign of life for the liveness threshold' : `its time ran out at ${c.expires_at}`;
  return `Twining: your claim on ${what} (${c.reason}) has lapsed: ${why}. Other agents may take it now; call twining_claim again if you are still working there, or twining_release to clear it.`;
}

export function claimSeam(twiningDir: string, files: readonly string[], agentId: string, now = new Date()): ClaimSeam {
  const check = checkPaths(path.dirname(twiningDir), files, agentId, now);
  const first = check.conflicts[0];
  const held = first?.held_by.find(c => c.state === 'live' && c.agent_id !== agentId);
  return {
    ...(first && held
      ? { held: { file: first.file, holder: { agent_id: held.agent_id, since: held.claimed_at, until: held.expires_at, reason: held.reason } } }
      : {}),
    lapsedLines: check.lapsed.map(lapsedLine),
  };
}
