/**
 * The session board of a folder (rules/session-board.ts): the session state of every hooked
 * session (`.twining/sessions/`, written by `twining hook`), with liveness by the configured thresholds
 * and whether its agent recorded its work, which also counts the agent's latest blackboard entry.
 */
import type { FolderStore } from '../engine/folder-store';
import { listSessionStates } from '../storage/session-files';
import { SessionView, nextBoardChange, sessionBoard } from '../rules/session-board';

export interface SessionBoard {
  sessions: SessionView[];
  /** When the board next changes by time alone (ms since epoch), if it does. */
  next_change?: number;
}

export async function sessions(ctx: FolderStore): Promise<SessionBoard> {
  const [states, config] = await Promise.all([listSessionStates(ctx.layout.dir), ctx.config(), ctx.blackboard.refresh()]);
  const now = ctx.now();
  const thresholds = config.agents.liveness;
  const board = sessionBoard(states, now, thresholds, agent => ctx.blackboard.lastEntryBy(agent)?.timestamp);
  const next = nextBoardChange(states, now, thresholds);
  return { sessions: board, ...(next !== undefined ? { next_change: next } : {}) };
}
