/**
 * Where claims live and the cheap way to check a path against them.
 *
 * Storage: `.twining/claims/claims.jsonl`, a log of claim records (storage/claim-log.ts: one line per
 * claim, renewal or release; the last line of an id is the claim), under both store layouts
 * (files and sqlite): twining-mcp never reads `claims/` (docs/format.md §Layout and docs/twining-2.md §Record files list
 * every file it reads), so it ignores them safely, and git merges the log claim by claim
 * (merge/claim-merge.ts).
 *
 * Why one log under the lock protocol rather than one file per claim created with O_EXCL: claims
 * collide by prefix and glob (`src/` against `src/auth/jwt.ts`, `src/**\/*.sql` against
 * `src/db/a.sql`), so no per-claim key can make two colliding claims race for the same name; the
 * decision needs every live claim at once, and a hook checking from a new process would read a
 * thousand files. The lock (storage/lock.ts: proper-lockfile, a dead holder of this machine taken
 * over at once) serialises claim, renew and release, each a read of what was appended since the
 * writer's last look, the check, and one append, so of N agents claiming colliding paths at once
 * exactly one wins, and a writer killed mid-claim leaves at most one torn line, which every
 * reader skips.
 *
 * `checkPath` is the hook's read path, from a new process per tool call: node's fs and the pure
 * rules only (no zod, no yaml, no engine), two small reads.
 */
import { readTextSync } from './read-file';
import * as path from 'path';
import { ClaimView, DEFAULT_GONE_AFTER_MS, claimConflicts, isClaim, viewOf } from '../rules/claims';
import { normaliseTarget } from '../rules/claim-paths';
import { readClaimLogSync } from './claim-log';

/** `.twining/claims/claims.jsonl` of the `.twining` folder `dir`. */
export function claimsFileOf(dir: string): string {
  return path.join(dir, 'claims', 'claims.jsonl');
}

function readArray(file: string): unknown[] {
  try {
    const value: unknown = JSON.parse(readTextSync(file, 'index') ?? '[]');
    return Array.isArray(value) ? value : [];
  } catch {
    // Missing, unreadable or mid-edit by hand: no claims to check against (the engine reports it).
    return [];
  }
}

interface Snapshot {
  claims: unknown[];
  lastSeen: (agentId: string) => string | undefined;
}

/** The claims and each registered agent's `last_active`: two small reads, nothing when there are no claims. */
function snapshot(projectRoot: string): Snapshot {
  const dir = path.join(projectRoot, '.twining');
  const claims = readClaimLogSync(claimsFileOf(dir));
  const seen = new Map<string, string>();
  if (claims.length > 0)
    for (const a of readArray(path.join(dir, 'agents', 'registry.json'))) {
      const agent = a as { agent_id?: unknown; last_active?: unknown };
      if (agent && typeof agent.agent_id === 'string' && typeof agent.last_active === 'string') seen.set(agent.agent_id, agent.last_active);
    }
  return { claims, lastSeen: id => seen.get(id) };
}

/** What a hook learns about the files an agent is about to edit, from one read of the claims. */
export interface ClaimCheck {
  /** Per file (as given) the live claims of other agents colliding with it, oldest first; files without any are left out. */
  conflicts: { file: string; held_by: ClaimView[] }[];
  /** `agentId`'s own claims that lapsed and are not closed yet (lapsedClaimsOf). */
  lapsed: ClaimView[];
}

/**
 * The claims in the way of `agentId` editing `files` (absolute, or relative to the project root),
 * and its own lapsed claims, from one snapshot: what the PreToolUse hook asks before an edit.
 * Liveness uses the registry's `last_active` and each claim's last renewal (not blackboard posts:
 * one read less).
 */
export function checkPaths(
  projectRoot: string,
  files: readonly string[],
  agentId: string | undefined,
  now = new Date(),
  goneAfterMs = DEFAULT_GONE_AFTER_MS,
): ClaimCheck {
  const { claims, lastSeen } = snapshot(projectRoot);
  if (claims.length === 0) return { conflicts: [], lapsed: [] };
  const clock = { now, lastSeen, goneAfterMs };
  const conflicts: ClaimCheck['conflicts'] = [];
  for (const file of files) {
    const normal = normaliseTarget(path.isAbsolute(file) ? path.relative(projectRoot, file) : file);
    if ('error' in normal) continue;
    const held_by = claimConflicts(claims, normal.target, agentId, clock);
    if (held_by.length) conflicts.push({ file, held_by });
  }
  const lapsed =
    agentId === undefined
      ? []
      : claims
          .filter(isClaim)
          .filter(c => c.agent_id === agentId)
          .map(c => viewOf(c, clock))
          .filter(v => v.state === 'lapsed');
  return { conflicts, lapsed };
}

/** The live claims of agents other than `agentId` colliding with `file`: checkPaths for one file. */
export function checkPath(projectRoot: string, file: string, agentId: string | undefined, now = new Date(), goneAfterMs = DEFAULT_GONE_AFTER_MS): ClaimView[] {
  return checkPaths(projectRoot, [file], agentId, now, goneAfterMs).conflicts[0]?.held_by ?? [];
}

/**
 * `agentId`'s claims that have lapsed (expired, or it was taken for gone) and are not yet closed:
 * what the hook tells the holder when it next edits, so a lapse is never silent. The holder's next
 * claim or release closes them.
 */
export function lapsedClaimsOf(projectRoot: string, agentId: string, now = new Date(), goneAfterMs = DEFAULT_GONE_AFTER_MS): ClaimView[] {
  return checkPaths(projectRoot, [], agentId, now, goneAfterMs).lapsed;
}
