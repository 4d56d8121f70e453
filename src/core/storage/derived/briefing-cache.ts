/**
 * The SessionStart hook's derived briefing cache, so a session that starts on a folder nobody
 * wrote to since the agent's last briefing is answered without loading the engine or reading the
 * history (issue 18: within 1.5x of a bare Node start at 100k entries):
 * `.twining/sessions/briefing-<agent>-<scope>.json` holds the briefing's text (without its
 * "changed since" part), when it was assembled, and the fingerprint of every file a briefing reads
 * (blackboard, decision index, handoff index, the claims log, configuration; in a twining-mcp 2.x
 * folder its database and the database's write-ahead log): each file's version stamp
 * (version-stamp.ts).
 *
 * A cached briefing answers only when (1) the fingerprint is the same now, so nothing was written
 * since it was assembled, (2) the agent's latest briefing (its assembly mark) is that one, so the
 * "changed since your last briefing" part is rightly empty, and (3) it is younger than `MAX_AGE_MS`
 * (ranking by recency, claim expiry and liveness move with time). Then the hook records the new
 * briefing (the assembly mark, as `assemble` does, so `assembled_before` stays honest) and moves
 * the cache's time with it. Anything else falls back to the engine, which writes the cache again.
 * Derived and local, never the truth; a cache that cannot be read is a miss.
 */
import * as path from 'path';
import { stampOfFile } from '../version-stamp';
import { ensureSessionsDir, fileSafe, readAssembly, readJsonFile, sessionsDir, writeAssembly, writeJsonFile } from '../session-files';
import { updatedBriefing } from './briefing-update';
import { briefingText } from '../../text/briefing-text';

export const MAX_AGE_MS = 15 * 60_000;

/**
 * The files a briefing is assembled from (relative to `.twining/`), in both layouts: the 1.x
 * files, the claims log (claims/claims.jsonl, storage/claim-log.ts), config.yml, the knowledge graph
 * (its reach weighs in which decisions a briefing picks: operations/assemble-graph-ops.ts), and a 2.x folder's
 * twining.db with its write-ahead log (twining-mcp opens it in WAL mode: a commit appends to
 * `twining.db-wal` and leaves `twining.db` alone until a checkpoint).
 */
export const BRIEFING_INPUTS = [
  'blackboard.jsonl',
  'decisions/index.json',
  'handoffs/index.jsonl',
  'claims/claims.jsonl',
  'config.yml',
  'graph/entities.json',
  'graph/relations.json',
  'twining.db',
  'twining.db-wal',
];

interface CachedBriefing {
  version: 2;
  agent_id: string;
  scope: string;
  max_tokens: number | null;
  fingerprint: string;
  assembled_at: string;
  task: string;
  text: string;
}

export const cacheFile = (twiningDir: string, agentId: string, scope: string) =>
  path.join(sessionsDir(twiningDir), `briefing-${fileSafe(agentId)}-${fileSafe(scope).slice(0, 60)}.json`);

/** The version stamp of every input (one stat each). */
export async function fingerprint(twiningDir: string): Promise<string> {
  return (await Promise.all(BRIEFING_INPUTS.map(f => stampOfFile(path.join(twiningDir, f))))).join('|');
}

/**
 * The cached briefing's text when it still holds (see above), after recording this briefing for
 * the agent; undefined otherwise.
 */
export async function cachedBriefing(
  twiningDir: string,
  agentId: string,
  scope: string,
  maxTokens: number | undefined,
  now: Date,
): Promise<string | undefined> {
  const file = cacheFile(twiningDir, agentId, scope);
  const [cached, mark, current] = await Promise.all([readJsonFile<CachedBriefing>(file), readAssembly(twiningDir, agentId), fingerprint(twiningDir)]);
  if (!cached || cached.version !== 2 || cached.agent_id !== agentId || cached.scope !== scope || cached.max_tokens !== (maxTokens ?? null)) return undefined;
  if (cached.fingerprint !== current || !mark || mark.assembled_at !== cached.assembled_at) return undefined;
  const age = now.getTime() - Date.parse(cached.assembled_at);
  if (!(age >= 0 && age < MAX_AGE_MS) || typeof cached.text !== 'string') return undefined;
  const at = now.toISOString();
  await Promise.all([
    writeAssembly(twiningDir, { agent_id: agentId, assembled_at: at, task: cached.task, scope }),
    writeJsonFile(file, { ...cached, assembled_at: at }, false),
  ]);
  return cached.text;
}

/**
 * The agent's briefing brought up to date from its basis (briefing-basis.ts) when the folder
 * changed since its last one only by lines appended to the blackboard, recorded as `assemble`
 * records it (the assembly mark) and cached again; undefined when the basis cannot tell (the
 * engine assembles then). `offset`: the blackboard's size the briefing was made to.
 */
export async function updateBriefing(
  twiningDir: string,
  agentId: string,
  scope: string,
  maxTokens: number | undefined,
  now: Date,
): Promise<{ text: string; offset: number } | undefined> {
  const file = cacheFile(twiningDir, agentId, scope);
  const [cached, mark, current] = await Promise.all([readJsonFile<CachedBriefing>(file), readAssembly(twiningDir, agentId), fingerprint(twiningDir)]);
  if (!cached || cached.version !== 2 || cached.agent_id !== agentId || cached.scope !== scope || cached.max_tokens !== (maxTokens ?? null)) return undefined;
  // The agent's latest briefing is the cached one: "changed since" starts there.
  if (!mark || mark.assembled_at !== cached.assembled_at || typeof cached.task !== 'string') return undefined;
  const updated = await updatedBriefing(twiningDir, file, { agent_id: agentId, scope, task: cached.task, max_tokens: maxTokens }, mark.assembled_at, now);
  if (!updated) return undefined;
  const at = updated.context.assembled_at;
  // The fingerprint taken before the basis read the files: a write since then makes the next start look again.
  await Promise.all([
    writeAssembly(twiningDir, { agent_id: agentId, assembled_at: at, task: cached.task, scope }),
    writeJsonFile(file, { ...cached, fingerprint: current, assembled_at: at, text: briefingText({ ...updated.context, changed_since: undefined }) }, false),
  ]);
  return { text: briefingText(updated.context), offset: updated.offset };
}

/** Keeps a briefing the engine just assembled (its fingerprint taken before it read the files); whether it was kept. */
export async function keepBriefing(
  twiningDir: string,
  b: { agent_id: string; scope: string; assembled_at: string; task: string },
  maxTokens: number | undefined,
  fingerprintBefore: string,
  text: string,
): Promise<boolean> {
  // Something written while the engine read would make the fingerprint lie: keep nothing then.
  if ((await fingerprint(twiningDir)) !== fingerprintBefore) return false;
  await ensureSessionsDir(twiningDir);
  const cached: CachedBriefing = {
    version: 2,
    agent_id: b.agent_id,
    scope: b.scope,
    max_tokens: maxTokens ?? null,
    fingerprint: fingerprintBefore,
    assembled_at: b.assembled_at,
    task: b.task,
    text,
  };
  await writeJsonFile(cacheFile(twiningDir, b.agent_id, b.scope), cached, false);
  return true;
}
