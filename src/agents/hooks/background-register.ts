/**
 * The agent's registration (its liveness in `agents/registry.json`) when SessionStart answered from
 * the briefing cache: the registry is read (a small file) and, when the agent is missing or its
 * `last_active` is older than `freshMs`, a detached process of this bundle registers it with the
 * engine (which takes the registry's lock), so the host does not wait for the engine to load. A
 * failure there is written to `.twining/sessions/register-error.log`; the next PostToolUse that is
 * due registers again.
 */
import { startDetachedHook } from './detached-hook';
import { readTextSync } from '../../core/storage/read-file';
import * as path from 'path';

export const REGISTER_FLAG = '--register-in-background';

function registeredRecently(twiningDir: string, agentId: string, now: Date, freshMs: number): boolean {
  try {
    const list = JSON.parse(readTextSync(path.join(twiningDir, 'agents', 'registry.json'), 'index') ?? '[]') as unknown;
    if (!Array.isArray(list)) return false;
    const me = list.find(a => a && typeof a === 'object' && (a as { agent_id?: unknown }).agent_id === agentId) as { last_active?: unknown } | undefined;
    const at = typeof me?.last_active === 'string' ? Date.parse(me.last_active) : NaN;
    return now.getTime() - at < freshMs;
  } catch {
    return false;
  }
}

export function registerInBackground(root: string, twiningDir: string, agentId: string, role: string, now: Date, freshMs: number): void {
  if (registeredRecently(twiningDir, agentId, now, freshMs)) return;
  startDetachedHook(twiningDir, 'register-error.log', [REGISTER_FLAG, root, agentId, role]);
}

/** The background process: registers the agent with the engine (dist/core.js beside this bundle). */
export async function registerNow(argv: string[]): Promise<number> {
  const [root, agentId, role] = argv;
  const core = require(path.join(__dirname, 'core.js')) as typeof import('../../library');
  // `root` is the record's folder, routed already by the hook that started this process.
  const engine = await core.openWorkspace(root, { warn: () => undefined, project: root });
  await engine.register({ agent_id: agentId, ...(role ? { role } : {}) });
  return 0;
}
