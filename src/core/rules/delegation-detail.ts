/** Delegations are `need` entries whose detail is a delegation object (docs/format.md §Delegations). */
import type { BlackboardEntry, DelegationDetail } from '../records';
import { URGENCIES } from '../schemas/schemas';

/** The delegation detail of an entry, or undefined when the entry is not a (well-formed) delegation. */
export function delegationOf(entry: BlackboardEntry): DelegationDetail | undefined {
  if (entry.entry_type !== 'need' || typeof entry.detail !== 'string' || !entry.detail.startsWith('{')) return undefined;
  let detail: Record<string, unknown>;
  try {
    detail = JSON.parse(entry.detail) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (detail === null || typeof detail !== 'object' || detail.type !== 'delegation') return undefined;
  const required = Array.isArray(detail.required_capabilities) ? detail.required_capabilities.filter((c): c is string => typeof c === 'string') : [];
  const urgency = (URGENCIES as readonly unknown[]).includes(detail.urgency) ? (detail.urgency as DelegationDetail['urgency']) : 'normal';
  return {
    type: 'delegation',
    required_capabilities: required,
    urgency,
    expires_at: typeof detail.expires_at === 'string' ? detail.expires_at : '',
    timeout_ms: typeof detail.timeout_ms === 'number' ? detail.timeout_ms : 0,
  };
}

/** Expired when now >= expires_at; an unparseable expiry counts as expired (it can never be met). */
export function isExpired(detail: DelegationDetail, now: Date): boolean {
  const at = Date.parse(detail.expires_at);
  return Number.isNaN(at) || now.getTime() >= at;
}
