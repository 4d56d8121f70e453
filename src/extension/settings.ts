/**
 * Settings and the two things everything else depends on: who the user is (their agent id) and
 * what time it is (the engine clock, which TWINING_NOW can pin for tests and demos).
 */
import * as os from 'os';
import * as vscode from 'vscode';
import { core } from './model/engine-loader';
import { log } from './log';
import { sanitiseAgentId } from './naming';

export const SECTION = 'twining';

/** `user-<os user name>`, sanitised. */
export function derivedAgentId(): string {
  let name = '';
  try {
    name = os.userInfo().username;
  } catch {
    name = process.env.USER ?? process.env.USERNAME ?? '';
  }
  return `user-${sanitiseAgentId(name)}`;
}

let warnedFor: string | undefined;

/** The user's agent id: the `twining.agentId` setting when it is a valid id, else the derived one. */
export function userAgentId(): string {
  const configured = (vscode.workspace.getConfiguration(SECTION).get<string>('agentId') ?? '').trim();
  if (configured) {
    const check = core().inputs.register.shape.agent_id.safeParse(configured);
    if (check.success) return configured;
    if (warnedFor !== configured) {
      warnedFor = configured;
      log.warn(`The setting twining.agentId ("${configured}") is not a valid agent id (${check.error.issues[0]?.message}); using ${derivedAgentId()} instead.`);
    }
  }
  return derivedAgentId();
}

export interface Clock {
  now(): Date;
  /** The TWINING_NOW value the clock started from, when pinned. */
  pinnedFrom?: string;
}

/**
 * Real time, or, when TWINING_NOW is set at activation, TWINING_NOW plus the time elapsed since
 * activation (so liveness and expiry still move, but from a fixed starting point).
 */
export function createClock(env: NodeJS.ProcessEnv = process.env): Clock {
  const pinned = env.TWINING_NOW?.trim();
  if (pinned) {
    const base = Date.parse(pinned);
    if (!Number.isNaN(base)) {
      const start = Date.now();
      return { now: () => new Date(base + (Date.now() - start)), pinnedFrom: new Date(base).toISOString() };
    }
    log.warn(`TWINING_NOW="${pinned}" is not a date; using the real time.`);
  }
  return { now: () => new Date() };
}
