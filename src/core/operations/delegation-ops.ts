/** Delegations (docs/format.md §Delegations): a `need` entry with a delegation detail, and the open and expired ones with suggested agents. */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import { overlaps, normaliseTags } from '../scope';
import { rankAgents } from '../rules/scoring';
import { delegationOf, isExpired } from '../rules/delegation-detail';
import { appendEntry } from './blackboard-ops';
import { discover, livenessReader } from './agent-ops';
import type { AgentScore, Delegation, DelegationDetail } from '../records';

export async function delegate(
  ctx: FolderStore,
  input: InputOf<'delegate'>,
): Promise<{ entry_id: string; timestamp: string; expires_at: string; suggested_agents: AgentScore[] }> {
  const args = ctx.validate('delegate', input);
  const start = ctx.now();
  const config = await ctx.config();
  const urgency = args.urgency ?? 'normal';
  const timeout_ms = args.timeout_ms ?? config.delegations.timeouts[`${urgency}_ms`];
  const required = normaliseTags(args.required_capabilities);
  const detail: DelegationDetail = {
    type: 'delegation',
    required_capabilities: required,
    urgency,
    expires_at: new Date(start.getTime() + timeout_ms).toISOString(),
    timeout_ms,
  };
  // Everything that can fail is read before the need is posted: an unreadable registry fails the
  // delegation with nothing written, instead of posting the need and then failing (a retry would post it twice).
  await ctx.registry.get();
  const entry = await appendEntry(ctx, {
    entry_type: 'need',
    summary: args.summary,
    detail: JSON.stringify(detail),
    tags: [...(args.tags ?? []), 'delegation', urgency],
    scope: args.scope ?? 'project',
    agent_id: args.agent_id ?? 'main',
  });
  // The need is written: suggestions are derived from it, and a registry broken since is a warning, not a failure.
  const agents = await discover(ctx, { required_capabilities: required, include_gone: false }).then(
    r => r.agents,
    (error: Error) => {
      ctx.warn(`delegate: need ${entry.id} was posted, but no agents could be suggested: ${error.message}`);
      return [] as AgentScore[];
    },
  );
  return { entry_id: entry.id, timestamp: entry.timestamp, expires_at: detail.expires_at, suggested_agents: agents };
}

export async function delegations(
  ctx: FolderStore,
  input: InputOf<'delegations'> = {},
): Promise<{ delegations: Delegation[]; open_count: number; expired_count: number }> {
  const args = ctx.validate('delegations', input);
  const liveness = await livenessReader(ctx);
  const registry = await ctx.registry.get();
  const now = ctx.now();
  const all: Delegation[] = [];
  for (const entry of ctx.blackboard.needs) {
    const detail = delegationOf(entry);
    if (!detail) continue;
    if (args.scope && !(typeof entry.scope === 'string' && overlaps(entry.scope, args.scope))) continue;
    const expired = isExpired(detail, now);
    all.push({
      entry_id: entry.id,
      summary: entry.summary,
      scope: entry.scope,
      tags: Array.isArray(entry.tags) ? entry.tags : [],
      agent_id: entry.agent_id,
      timestamp: entry.timestamp,
      required_capabilities: detail.required_capabilities,
      urgency: detail.urgency,
      expires_at: detail.expires_at,
      timeout_ms: detail.timeout_ms,
      expired,
      remaining_ms: (Date.parse(detail.expires_at) || now.getTime()) - now.getTime(),
      suggested_agents: expired ? [] : rankAgents(registry, detail.required_capabilities, liveness, { include_gone: false }),
    });
  }
  const open = all.filter(d => !d.expired).sort((a, b) => a.remaining_ms - b.remaining_ms);
  const expired = all.filter(d => d.expired).sort((a, b) => (a.expires_at < b.expires_at ? 1 : -1));
  return {
    delegations: args.include_expired ? [...open, ...expired] : open,
    open_count: open.length,
    expired_count: expired.length,
  };
}
