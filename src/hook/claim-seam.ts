/**
 * Where a claim check plugs into the PreToolUse hook. Claims (issue 19) will say which live agent
 * holds a file; until that core function lands, nothing is claimed and this answers undefined.
 * Replace the body with a call to it: given the project's `.twining/` folder, a project-relative
 * path and the agent about to edit it, return the other live agent holding a claim on it (and
 * since when), or undefined. The hook then answers "ask" or "deny" (its `--on-claim` option) with
 * the holder named, instead of letting the edit go ahead silently. It runs on every edit, so it
 * must answer from a bounded read, like hook-index.ts.
 */
export interface ClaimHolder {
  agent_id: string;
  since?: string;
  reason?: string;
}

export async function claimHeldByOther(_twiningDir: string, _file: string, _agentId: string): Promise<ClaimHolder | undefined> {
  return undefined;
}
