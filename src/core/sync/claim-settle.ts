/**
 * Claims across clones. Within a clone, the claims log's lock gives a claim exactly one winner;
 * across clones the record's ref on the remote does: a push succeeds only on top of the record it
 * merged (its lease, a compare-and-swap: docs/sync.md §One sync). So when a sync merges a claim made here
 * with a colliding live claim the remote already had, the remote's wins: this clone's is released
 * with the reason, and goes out released. Every clone then names the same holder.
 */
import { ClaimClock, ClaimRecord, claimConflicts, isClaim } from '../rules/claims';
import { claimsInLogText } from '../storage/claim-log';

export interface LostClaim {
  id: string;
  target: string;
  agent_id: string;
  /** Who holds it, as the message says. */
  holder: string;
}

/** The merged claims log with this clone's colliding new claims released; the claims it lost. */
export function settleClaims(mergedText: string, remoteText: string, clock: ClaimClock, nowIso: string, remote: string): { text: string; lost: LostClaim[] } {
  const remoteItems = claimsInLogText(remoteText);
  const remoteIds = new Set(remoteItems.filter(isClaim).map(c => c.id));
  const lost: LostClaim[] = [];
  const lines = mergedText.split('\n').map(line => {
    if (line.trim() === '') return line;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return line;
    }
    if (!isClaim(value) || remoteIds.has(value.id) || value.released_at !== undefined) return line;
    const held = claimConflicts(remoteItems, value.target, value.agent_id, clock);
    if (held.length === 0) return line;
    const holder = held[0];
    const released: ClaimRecord = {
      ...value,
      released_at: nowIso,
      released_because: `lost to ${holder.agent_id}'s claim on ${holder.target}${cloneOf(holder)}, which ${remote} had first (sync)`,
    };
    lost.push({ id: value.id, target: value.target, agent_id: value.agent_id, holder: holder.agent_id });
    return JSON.stringify(released);
  });
  return { text: lines.join('\n'), lost };
}

function cloneOf(claim: object): string {
  const clone = (claim as { clone?: unknown }).clone;
  return typeof clone === 'string' ? ` (from ${clone})` : '';
}
