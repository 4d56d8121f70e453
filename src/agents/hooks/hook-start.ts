/**
 * SessionStart (see hook-events.ts for the other events): the agent's briefing, from the cache or
 * its basis when the folder allows, else from a running engine, else from the engine loaded here.
 * dist/hook-start.js, a bundle of its own that dist/hook.js loads for this event only: the briefing's
 * update (scoring, the budget, the text) is code the events on every tool call never run, and a
 * process compiles what it loads.
 */
import * as path from 'path';
import { readSessionState, writeSessionState } from '../../core/storage/session-files';
import { HookInput, HookOutput, contextAnswer } from './hook-protocol';
import { askRunningEngine } from '../session-start/local-socket';
import { REGISTER_EVERY_MS, blackboardSize, newState, resumed } from './hook-liveness';
import { cachedBriefing, updateBriefing } from '../../core/storage/derived/briefing-cache';
import { registerInBackground } from './background-register';
import { syncInBackground } from './background-sync';
import type { HookOptions } from './hook-events';

/**
 * SessionStart without the engine: on a folder nobody wrote to since the agent's last briefing, the
 * cached briefing (briefing-cache.ts); on one others only appended blackboard lines to since, that
 * briefing brought up to date from its basis (briefing-basis.ts). The agent's registration, when
 * not fresh, is refreshed by a background process (background-register.ts) the host does not wait for.
 */
async function quickStart(input: HookInput, o: HookOptions, twiningDir: string): Promise<HookOutput | undefined> {
  const text = await cachedBriefing(twiningDir, o.agentId, o.scope, o.maxTokens, o.now());
  const updated = text === undefined ? await updateBriefing(twiningDir, o.agentId, o.scope, o.maxTokens, o.now()) : undefined;
  if (text === undefined && !updated) return undefined;
  registerInBackground(o.root, twiningDir, o.agentId, roleOf(input), o.now(), REGISTER_EVERY_MS);
  await startState(input, o, twiningDir, () => updated?.offset ?? blackboardSize(twiningDir));
  return contextAnswer('SessionStart', updated?.text ?? text!);
}

/** The session's state at its start (a resumed session keeps what it had), registered now. */
async function startState(input: HookInput, o: HookOptions, twiningDir: string, offset: () => number | Promise<number>): Promise<void> {
  const state = (await readSessionState(twiningDir, input.sessionId)) ?? newState(input, o, await offset());
  resumed(state, o.now().toISOString());
  state.registered_at = o.now().toISOString();
  await writeSessionState(twiningDir, state);
}

const roleOf = (input: HookInput) => (input.host === 'vscode' ? 'VS Code agent session' : 'Claude Code session');

/** How long SessionStart waits for a running engine's answer before loading the engine itself. */
const ASK_RUNNING_MS = 3000;

export async function sessionStart(input: HookInput, o: HookOptions): Promise<HookOutput> {
  const twiningDir = path.join(o.root, '.twining');
  // A sync that is due runs beside the hook, never before its answer (background-sync.ts says why).
  try {
    syncInBackground(o.root, twiningDir, o.now());
  } catch (error) {
    process.stderr.write(`twining hook SessionStart: the background sync did not start: ${(error as Error).message}\n`);
  }
  const quick = await quickStart(input, o, twiningDir).catch(() => undefined);
  if (quick) return quick;
  const request = { agent_id: o.agentId, role: roleOf(input), scope: o.scope, ...(o.maxTokens ? { max_tokens: o.maxTokens } : {}) };
  // An engine already running on the project (the extension's, `twining mcp`'s) answers warm
  // (agents/session-start/session-start-server.ts); without one, or when it fails, this process loads its own.
  const asked = process.env.TWINING_NOW ? undefined : await askRunningEngine(o.root, { v: 1, op: 'session-start', ...request }, ASK_RUNNING_MS);
  let answer =
    asked?.ok === true && typeof asked.text === 'string' && typeof asked.offset === 'number' ? { text: asked.text, offset: asked.offset } : undefined;
  if (!answer) {
    const core = o.loadCore();
    const engine = await core.openWorkspace(o.root, { now: o.now, warn: m => process.stderr.write(`twining: warning: ${m}\n`), project: o.root });
    const started = await core.startSession(engine, twiningDir, request, m => process.stderr.write(`twining hook SessionStart: ${m}\n`));
    await started.keep();
    answer = started;
  }
  const offset = answer.offset;
  await startState(input, o, twiningDir, () => offset);
  return contextAnswer('SessionStart', answer.text);
}
