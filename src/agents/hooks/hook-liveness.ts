/**
 * The events that only tell the session board where a session is (no answer to the agent):
 *  - UserPromptSubmit (Claude Code and VS Code): the person answered, so the session works again;
 *  - Notification (Claude Code only, code.claude.com/docs/en/hooks, "Notification": input adds
 *    `message` and `notification_type`, one of `permission_prompt`, `idle_prompt`,
 *    `elicitation_dialog`, `auth_success`): the session waits for the person.
 * Each reads and writes the session state (a small file); neither loads the engine. A session the
 * hooks have not seen start yet (hooks set up mid-session) gets its state here as PostToolUse does.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { SessionState, readSessionState, writeSessionState } from '../../core/storage/session-files';
import type { HookInput } from './hook-protocol';

/** What these events need of the hook's options (hook-events.ts's HookOptions). */
export interface SessionStartOptions {
  root: string;
  agentId: string;
  now: () => Date;
  linkedWorktree?: string;
  branch?: string;
}

/** How often a session's agent is registered again (its liveness in the registry): at most every two minutes. */
export const REGISTER_EVERY_MS = 120_000;

const WAITING: Record<string, string> = {
  permission_prompt: 'a permission prompt',
  idle_prompt: 'your reply',
  elicitation_dialog: 'an answer to a question',
};

async function stateOf(input: HookInput, o: SessionStartOptions, twiningDir: string): Promise<SessionState> {
  return (await readSessionState(twiningDir, input.sessionId)) ?? newState(input, o, await blackboardSize(twiningDir));
}

/** The blackboard's size now: where a new session starts reading what was posted since. */
export async function blackboardSize(twiningDir: string): Promise<number> {
  return (await fs.stat(path.join(twiningDir, 'blackboard.jsonl')).catch(() => undefined))?.size ?? 0;
}

/** The state of a session the hooks see for the first time, reading the blackboard from `offset`. */
export function newState(input: HookInput, o: SessionStartOptions, offset: number): SessionState {
  const at = o.now().toISOString();
  return {
    session_id: input.sessionId,
    agent_id: o.agentId,
    tool: input.host,
    started_at: at,
    last_seen: at,
    files_touched: [],
    blackboard_offset: offset,
    ...(o.linkedWorktree && { worktree: o.linkedWorktree }),
    ...(o.branch && { branch: o.branch }),
  };
}

/** The session works again: its waiting and its ended turn are over. */
export function resumed(state: SessionState, at: string): void {
  state.last_seen = at;
  delete state.ended_at;
  delete state.waiting_since;
  delete state.waiting_reason;
}

export async function userPromptSubmit(input: HookInput, o: SessionStartOptions): Promise<undefined> {
  const twiningDir = path.join(o.root, '.twining');
  const state = await stateOf(input, o, twiningDir);
  resumed(state, o.now().toISOString());
  await writeSessionState(twiningDir, state);
  return undefined;
}

export async function notification(input: HookInput, o: SessionStartOptions): Promise<undefined> {
  const waiting = input.notificationType ? WAITING[input.notificationType] : undefined;
  if (!waiting) return undefined; // auth_success and unknown kinds say nothing about waiting
  const twiningDir = path.join(o.root, '.twining');
  const state = await stateOf(input, o, twiningDir);
  const at = o.now().toISOString();
  state.last_seen = at;
  state.waiting_since = at;
  state.waiting_reason = waiting;
  await writeSessionState(twiningDir, state);
  return undefined;
}
