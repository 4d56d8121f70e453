/**
 * Agent operations: register, agents (with liveness) and discover. Liveness counts an agent's
 * latest blackboard entry as well as its registration (docs/format.md §Liveness tied to registration), with the thresholds of
 * the current configuration, passed in rather than kept.
 */
import type { FolderStore } from '../engine/folder-store';
import { TwiningError } from '../errors';
import type { InputOf } from '../schemas/schemas';
import { LivenessThresholds, livenessOf, mergeRegistration, rankAgents } from '../rules/scoring';
import type { AgentRecord, AgentScore, AgentWithLiveness, Liveness } from '../records';

export async function register(ctx: FolderStore, input: InputOf<'register'>): Promise<AgentRecord> {
  const args = ctx.validate('register', input);
  await ctx.ready();
  return ctx.lock([ctx.locks.registry], async () => {
    // Read inside the lock (docs/format.md §Registry read outside the lock); an unparseable registry is an error, never "empty".
    const { raw } = await ctx.registry.fresh();
    const { registry: next, record } = mergeRegistration(raw, args, ctx.timestamp());
    await ctx.storage.writeArray('agents', next);
    return record;
  });
}

export async function agents(
  ctx: FolderStore,
  input: InputOf<'agents'> = {},
): Promise<{ agents: AgentWithLiveness[]; total_registered: number; active_count: number }> {
  const args = ctx.validate('agents', input);
  await assertAgentsKnown(ctx);
  const [liveness, registry] = await Promise.all([livenessReader(ctx), ctx.registry.get()]);
  const all = registry.map(a => ({ ...a, last_seen: lastSeen(ctx, a), liveness: liveness(a) }));
  return {
    agents: args.include_gone === false ? all.filter(a => a.liveness !== 'gone') : all,
    total_registered: registry.length,
    active_count: all.filter(a => a.liveness === 'active').length,
  };
}

export async function discover(ctx: FolderStore, input: InputOf<'discover'>): Promise<{ agents: AgentScore[]; total_registered: number }> {
  const args = ctx.validate('discover', input);
  await assertAgentsKnown(ctx);
  // The registry is read while the blackboard and config.yml are: a new engine reads all three.
  const [liveness, registry] = await Promise.all([livenessReader(ctx), ctx.registry.get()]);
  return { agents: rankAgents(registry, args.required_capabilities, liveness, args), total_registered: registry.length };
}

/**
 * Brings the blackboard and configuration up to date and gives the liveness of an agent from its
 * last sign of life, with the configured thresholds (the boundaries of docs/format.md §Liveness).
 */
export async function livenessReader(ctx: FolderStore, thresholds?: LivenessThresholds): Promise<(agent: AgentRecord) => Liveness> {
  const [, config] = await Promise.all([ctx.blackboard.refresh(), thresholds ? undefined : ctx.config()]);
  const t = thresholds ?? config!.agents.liveness;
  const now = ctx.now();
  return agent => livenessOf(lastSeen(ctx, agent), now, t);
}

/** The later of `last_active` and the agent's latest blackboard entry (as stored). */
function lastSeen(ctx: FolderStore, agent: AgentRecord): string {
  const work = typeof agent.agent_id === 'string' ? ctx.blackboard.lastEntryBy(agent.agent_id) : undefined;
  const registered = typeof agent.last_active === 'string' ? Date.parse(agent.last_active) : NaN;
  return work && (Number.isNaN(registered) || work.ms > registered) ? work.timestamp : agent.last_active;
}

/** A 2.x folder read from records/ has no agents to show (they live only in twining.db): said, not shown as none. */
async function assertAgentsKnown(ctx: FolderStore): Promise<void> {
  await ctx.sqlite?.sync();
  const why = ctx.sqlite?.agentsUnavailable();
  if (why) throw new TwiningError('NOT_FOUND', why);
}
