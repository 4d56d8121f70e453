/**
 * The agents and delegations families: which changes they show, and the one engine query each
 * view draws from. Nothing is kept between asks: liveness and expiry depend on the time of asking.
 */
import type { TwiningEngine } from '../../core';
import type { Config } from '../../core/engine/config';
import type { ChangeKind } from './change-kinds';
import type { TwiningFolder } from './folders';
import { FamilyModel } from './family-model';

type Liveness = Config['agents']['liveness'];
type AgentView = Awaited<ReturnType<TwiningEngine['agents']>>['agents'][number];
type DelegationView = Awaited<ReturnType<TwiningEngine['delegations']>>['delegations'][number];

/**
 * The registered agents. Liveness counts an agent's latest blackboard entry; "you" follows the
 * settings. The hooked sessions (the board the Agents view draws below the agents) are part of
 * this family's data: one change of the registry and a session file (a hook registering its agent)
 * fires once, so the view redraws once.
 */
export class AgentsModel extends FamilyModel {
  protected readonly shows = new Set<ChangeKind>(['registry', 'blackboard', 'config', 'settings', 'sessions']);

  /**
   * A folder's agents (in registry order) and the liveness thresholds; `unavailable` says why a
   * folder cannot show its agents (a twining-mcp 2.x folder read from records/: they live only in
   * twining.db), which is not the same as having none.
   */
  agents(folder: TwiningFolder): Promise<{ agents: AgentView[]; thresholds: Liveness; unavailable?: string }> {
    return folder.run(async engine => {
      const thresholds = (await engine.config()).agents.liveness;
      try {
        return { agents: (await engine.agents({})).agents, thresholds };
      } catch (error) {
        // `agents` without an agent_id is NOT_FOUND only when the folder cannot list its agents.
        if ((error as { code?: unknown }).code === 'NOT_FOUND') return { agents: [], thresholds, unavailable: (error as Error).message };
        throw error;
      }
    });
  }
}

/** The delegation needs (blackboard entries) and the agents suggested for them (registry). */
export class DelegationsModel extends FamilyModel {
  protected readonly shows = new Set<ChangeKind>(['blackboard', 'registry', 'config']);

  /** A folder's delegations (expired ones included), its agents and the liveness thresholds. */
  delegations(folder: TwiningFolder): Promise<{ delegations: DelegationView[]; agents: AgentView[]; thresholds: Liveness }> {
    return folder.run(async engine => ({
      delegations: (await engine.delegations({ include_expired: true })).delegations,
      agents: await agentsIfKnown(engine),
      thresholds: (await engine.config()).agents.liveness,
    }));
  }
}

/**
 * The agents, or none when the folder cannot show them (a twining-mcp 2.x folder read from
 * records/: the engine refuses `agents` with NOT_FOUND, naming the folder and why; the Agents view
 * shows that, while delegations go on without suggestions).
 */
export async function agentsIfKnown(engine: TwiningEngine): Promise<AgentView[]> {
  try {
    return (await engine.agents({})).agents;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'NOT_FOUND') return [];
    throw error;
  }
}
