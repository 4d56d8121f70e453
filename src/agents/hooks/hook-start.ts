/**
 * SessionStart (see hook-events.ts for the other events): the agent's briefing, from the cache, a
 * running engine or the briefing's basis when they can give it, else from the engine loaded here.
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

/** The session's state at its start (a resumed session keeps what it had), registered now. */
async function startState(input: HookInput, o: HookOptions, twiningDir: string, offset: () => number | Promise<number>): Promise<void> {
  const state = (await readSessionState(twiningDir, input.sessionId)) ?? newState(input, o, await offset());
  resumed(state, o.now().toISOString());
  state.registered_at = o.now().toISOString();
  await writeSessionState(twiningDir, state);
}

/**
 * A briefing given without the engine (the cache's, or one brought up to date from its basis): the
 * agent's registration, when not fresh, is refreshed by a background process
 * (background-register.ts) the host does not wait for.
 */
async function answerWithoutEngine(
  input: HookInput,
  o: HookOptions,
  twiningDir: string,
  text: string,
  offset: () => number | Promise<number>,
): Promise<HookOutput> {
  registerInBackground(o.root, twiningDir, o.agentId, roleOf(input), o.now(), REGISTER_EVERY_MS);
  await startState(input, o, twiningDir, offset);
  return contextAnswer('SessionStart', text);
}

const roleOf = (input: HookInput) => (input.host === 'vscode' ? 'VS Code agent session' : 'Claude Code session');

/** How long SessionStart waits for a running engine's answer before loading the engine itself. */
const ASK_RUNNING_MS = 3000;
/**
 * How long it waits for a running engine before turning to the briefing's basis. A warm engine
 * answers well within it (bench/README.md, the served SessionStart); one that takes longer is busy
 * or still reading the record, and the basis, when it can answer, answers sooner.
 */
const PREFER_RUNNING_MS = 300;

type Asked = Record<string, unknown> | undefined;
const briefingOf = (asked: Asked) =>
  asked?.ok === true && typeof asked.text === 'string' && typeof asked.offset === 'number' ? { text: asked.text, offset: asked.offset } : undefined;

/** The answer if it comes within `ms`; 'later' when it has not. */
function within(asking: Promise<Asked>, ms: number): Promise<Asked | 'later'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([asking, new Promise<'later'>(resolve => (timer = setTimeout(() => resolve('later'), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * The briefing, from the first of these that can give it: the cache (a folder nobody wrote to since
 * the agent's last briefing, briefing-cache.ts); an engine already running on the project (the
 * extension's, `twining mcp`'s: agents/session-start/session-start-server.ts), which reads the
 * record live and registers the agent itself; the basis (a folder others only appended blackboard
 * lines to since, briefing-basis.ts) when that engine is slow to answer or there is none; else
 * the engine loaded here.
 */
export async function sessionStart(input: HookInput, o: HookOptions): Promise<HookOutput> {
  const twiningDir = path.join(o.root, '.twining');
  // A sync that is due runs beside the hook, never before its answer (background-sync.ts says why).
  try {
    syncInBackground(o.root, twiningDir, o.now());
  } catch (error) {
    process.stderr.write(`twining hook SessionStart: the background sync did not start: ${(error as Error).message}\n`);
  }
  // Any failure on the ways without the engine (a basis or a sessions/ file that cannot be read or
  // written) leaves the answer to the next way.
  const cached = await cachedBriefing(twiningDir, o.agentId, o.scope, o.maxTokens, o.now()).catch(() => undefined);
  const fromCache =
    cached !== undefined ? await answerWithoutEngine(input, o, twiningDir, cached, () => blackboardSize(twiningDir)).catch(() => undefined) : undefined;
  if (fromCache) return fromCache;

  const request = { agent_id: o.agentId, role: roleOf(input), scope: o.scope, ...(o.maxTokens ? { max_tokens: o.maxTokens } : {}) };
  const giveUp = new AbortController();
  const asking = process.env.TWINING_NOW
    ? Promise.resolve(undefined)
    : askRunningEngine(o.root, { v: 1, op: 'session-start', ...request }, ASK_RUNNING_MS, giveUp.signal);
  const early = await within(asking, PREFER_RUNNING_MS);
  let answer = early === 'later' ? undefined : briefingOf(early);
  if (!answer) {
    const updated = await updateBriefing(twiningDir, o.agentId, o.scope, o.maxTokens, o.now()).catch(() => undefined);
    const fromBasis = updated && (await answerWithoutEngine(input, o, twiningDir, updated.text, () => updated.offset).catch(() => undefined));
    if (fromBasis) {
      // The running engine, still at work on it, is not waited for; it keeps what it made all the same.
      giveUp.abort();
      return fromBasis;
    }
    if (early === 'later') answer = briefingOf(await asking);
  }
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
