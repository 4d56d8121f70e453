/** Liveness (docs/format.md §Liveness), registration merge (docs/format.md §Registration) and scoring (docs/format.md §Scoring and discovery). */
import type { AgentRecord, AgentScore, Liveness } from '../records';
import { normaliseTags } from '../scope';

export interface LivenessThresholds {
  idle_after_ms: number;
  gone_after_ms: number;
}

/** Strict comparisons: exactly idle_after ⇒ idle, exactly gone_after ⇒ gone; unparseable ⇒ gone. */
export function livenessOf(lastActive: unknown, now: Date, t: LivenessThresholds): Liveness {
  const time = typeof lastActive === 'string' ? Date.parse(lastActive) : NaN;
  if (Number.isNaN(time)) return 'gone';
  const elapsed = now.getTime() - time;
  if (elapsed < t.idle_after_ms) return 'active';
  if (elapsed < t.gone_after_ms) return 'idle';
  return 'gone';
}

/** The next instant (ms since epoch) after `now` at which this agent's liveness changes by time alone. */
export function nextLivenessChange(lastActive: unknown, now: Date, t: LivenessThresholds): number | undefined {
  const time = typeof lastActive === 'string' ? Date.parse(lastActive) : NaN;
  if (Number.isNaN(time)) return undefined;
  return [time + t.idle_after_ms, time + t.gone_after_ms].find(at => at > now.getTime());
}

const LIVENESS_SCORE: Record<Liveness, number> = { active: 1.0, idle: 0.5, gone: 0.1 };

/**
 * Upsert of docs/format.md §Registration on the registry's items (objects or not), returning the new item list. Keeps
 * unknown fields and key order of old records, and every item it does not understand, in place.
 */
export function mergeRegistration(
  registry: unknown[],
  input: { agent_id: string; capabilities?: string[]; role?: string; description?: string },
  nowIso: string,
): { registry: unknown[]; record: AgentRecord } {
  const capabilities = normaliseTags(input.capabilities ?? []);
  const index = registry.findIndex(a => a !== null && typeof a === 'object' && (a as AgentRecord).agent_id === input.agent_id);
  if (index >= 0) {
    const old = registry[index] as AgentRecord;
    const record: AgentRecord = { ...old };
    record.capabilities = normaliseTags([...(Array.isArray(old.capabilities) ? old.capabilities.filter(c => typeof c === 'string') : []), ...capabilities]);
    if (input.role !== undefined) record.role = input.role;
    if (input.description !== undefined) record.description = input.description;
    record.last_active = nowIso;
    const next = registry.slice();
    next[index] = record;
    return { registry: next, record };
  }
  const fresh: Record<string, unknown> = { agent_id: input.agent_id, capabilities };
  if (input.role !== undefined) fresh.role = input.role;
  if (input.description !== undefined) fresh.description = input.description;
  fresh.registered_at = nowIso;
  fresh.last_active = nowIso;
  const record = fresh as AgentRecord;
  return { registry: [...registry, record], record };
}

/**
 * Scores one agent against required capabilities. Unlike twining-mcp, stored capabilities are
 * normalised before they are compared, so a hand-edited "TypeScript" still matches
 * (docs/format.md §Capabilities compared verbatim); the matched list reports them as stored.
 */
export function scoreAgent(agent: AgentRecord, required: string[], liveness: Liveness): AgentScore {
  const wanted = new Set(normaliseTags(required));
  const capabilities = Array.isArray(agent.capabilities) ? agent.capabilities.filter(c => typeof c === 'string') : [];
  const matched = capabilities.filter(c => wanted.has(c.toLowerCase().trim()));
  const matchedDistinct = new Set(matched.map(c => c.toLowerCase().trim())).size;
  const capability_overlap = wanted.size > 0 ? matchedDistinct / wanted.size : 0;
  const liveness_score = LIVENESS_SCORE[liveness];
  // Built key by key: the key order is twining-mcp's.
  const score: Record<string, unknown> = { agent_id: agent.agent_id, capabilities };
  if (typeof agent.role === 'string') score.role = agent.role;
  if (typeof agent.description === 'string') score.description = agent.description;
  score.liveness = liveness;
  score.capability_overlap = capability_overlap;
  score.liveness_score = liveness_score;
  score.total_score = 0.7 * capability_overlap + 0.3 * liveness_score;
  score.matched_capabilities = matched;
  return score as unknown as AgentScore;
}

/** Discovery: score all, optionally drop gone agents and low scores, stable sort best first. */
export function rankAgents(
  agents: AgentRecord[],
  required: string[],
  livenessFor: (a: AgentRecord) => Liveness,
  options: { include_gone?: boolean; min_score?: number },
): AgentScore[] {
  let scores = agents.map(a => scoreAgent(a, required, livenessFor(a)));
  if (options.include_gone === false) scores = scores.filter(s => s.liveness !== 'gone');
  if (options.min_score !== undefined) scores = scores.filter(s => s.total_score >= options.min_score!);
  return scores
    .map((s, i) => ({ s, i }))
    .sort((a, b) => b.s.total_score - a.s.total_score || a.i - b.i)
    .map(x => x.s);
}
