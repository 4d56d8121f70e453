/**
 * Claims as pure rules: a claim is a record with an expiry (`claims/claims.jsonl`, its last line).
 * It is live until it is released, its time to live runs out, or its holder is gone (no sign of
 * life, from the registry or from renewing the claim, for the liveness `gone_after_ms`); a claim
 * that is neither released nor live has *lapsed*, and says why. The hook's check (a new process
 * per agent tool call) loads this file and claim-paths.ts only: no zod, no engine.
 */
import { targetsOverlap } from './claim-paths';

export interface ClaimRecord {
  id: string;
  agent_id: string;
  /** A path, folder prefix ("/"), glob, or "delegation:<id>" (claim-paths.ts). */
  target: string;
  reason: string;
  claimed_at: string;
  /** The last claim or renewal; the newest renewal wins a merge. */
  renewed_at: string;
  expires_at: string;
  released_at?: string;
  /** Why it was released: "released", "handoff <id>", "record <id>". */
  released_because?: string;
}

export type ClaimState = 'live' | 'lapsed' | 'released';

export interface ClaimView extends ClaimRecord {
  state: ClaimState;
  /** For a lapsed claim: "expired" or "holder gone". */
  lapsed_because?: 'expired' | 'holder gone';
  /** The clone its holder claimed it on, when another clone's sync brought it (sync/origins.ts; the views fill it). */
  clone?: string;
}

/** The liveness threshold claims use (config.yml `agents.liveness.gone_after_ms`, default 30 min). */
export const DEFAULT_GONE_AFTER_MS = 1_800_000;

export interface ClaimClock {
  now: Date;
  /** An agent's last sign of life as stored (registry `last_active`, latest post), if known. */
  lastSeen?: (agentId: string) => string | undefined;
  goneAfterMs?: number;
}

/** The state of one claim at `clock.now`. */
export function claimState(claim: ClaimRecord, clock: ClaimClock): Pick<ClaimView, 'state' | 'lapsed_because'> {
  if (typeof claim.released_at === 'string') return { state: 'released' };
  const now = clock.now.getTime();
  const expires = Date.parse(claim.expires_at);
  if (!(expires > now)) return { state: 'lapsed', lapsed_because: 'expired' };
  const seen = clock.lastSeen?.(claim.agent_id);
  const last = Math.max(Date.parse(claim.renewed_at) || 0, (seen && Date.parse(seen)) || 0);
  if (now - last >= (clock.goneAfterMs ?? DEFAULT_GONE_AFTER_MS)) return { state: 'lapsed', lapsed_because: 'holder gone' };
  return { state: 'live' };
}

export function viewOf(claim: ClaimRecord, clock: ClaimClock): ClaimView {
  return { ...claim, ...claimState(claim, clock) };
}

/** Whether `value` has the fields of a claim (hand edits and other writers' items are skipped). */
export function isClaim(value: unknown): value is ClaimRecord {
  const c = value as ClaimRecord;
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof c.id === 'string' &&
    typeof c.agent_id === 'string' &&
    typeof c.target === 'string' &&
    typeof c.renewed_at === 'string' &&
    typeof c.expires_at === 'string'
  );
}

/**
 * The live claims of agents other than `agentId` that collide with `target` (a file path, folder
 * prefix, glob or delegation), oldest first: what an edit of `target` by `agentId` would break.
 * The hook calls this for each path a tool is about to touch.
 */
export function claimConflicts(claims: readonly unknown[], target: string, agentId: string | undefined, clock: ClaimClock): ClaimView[] {
  const found: ClaimView[] = [];
  for (const item of claims) {
    if (!isClaim(item) || item.agent_id === agentId || typeof item.released_at === 'string') continue;
    if (!targetsOverlap(item.target, target)) continue;
    const view = viewOf(item, clock);
    if (view.state === 'live') found.push(view);
  }
  return found.sort((a, b) => (a.claimed_at < b.claimed_at ? -1 : a.claimed_at > b.claimed_at ? 1 : 0));
}

/** One line naming a holder: who, what, why, since and until when (what a loser and the hook are told). */
export function describeHolder(claim: ClaimRecord): string {
  const what = claim.target.startsWith('delegation:') ? `delegation ${claim.target.slice('delegation:'.length)}` : claim.target;
  return `${claim.agent_id} holds ${what} since ${claim.claimed_at} until ${claim.expires_at}${claim.reason ? ` (${claim.reason})` : ''}`;
}

/** Released and lapsed claims are kept this long after they ended (git merges see the release), then dropped. */
export const KEEP_ENDED_MS = 7 * 24 * 3600 * 1000;

/** The items worth keeping at `now`: every live claim, ended ones for a week, and items that are not claims as they are. */
export function prune(items: readonly unknown[], now: Date): unknown[] {
  const cutoff = now.getTime() - KEEP_ENDED_MS;
  return items.filter(item => {
    if (!isClaim(item)) return true;
    const ended = typeof item.released_at === 'string' ? Date.parse(item.released_at) : Date.parse(item.expires_at);
    return !(ended < cutoff);
  });
}
