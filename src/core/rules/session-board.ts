/**
 * The session board (issue 18, item 5): what the hooked agent sessions of a folder look like to
 * the person coordinating them, from each session state (`.twining/sessions/`, written by
 * `twining hook`) and the time of asking. Pure: the caller reads the files and the clock.
 *
 * - liveness: the session's last hook call, with the agents' liveness thresholds (docs/format.md §Liveness);
 * - waiting: the agent's turn ended (its host ran Stop and Twining let it stop), or the host said
 *   it waits for the user (Claude Code's Notification), and nothing happened since;
 * - unrecorded: the session edited files after the last time its agent recorded its work (a
 *   record, post, decision or handoff seen by a hook or on the blackboard) and its turn ended: the
 *   board marks it so the person can ask for a record or a handoff;
 * - shown: live sessions, and gone ones that still owe a record (for `KEEP_UNRECORDED_MS`).
 */
import type { Liveness, SessionState } from '../records';
import { LivenessThresholds, livenessOf, nextLivenessChange } from './scoring';

/** The fields of a session state the board reads (the hook's own bookkeeping left out). */
export type BoardSessionState = Omit<SessionState, 'registered_at' | 'blackboard_offset'>;

/**
 * A session as the board shows it: the session state's fields it reads (`waiting_since` and `waiting_reason`
 * also when its turn ended: "turn ended"), with its liveness and whether it owes a record.
 */
export interface SessionView extends Pick<
  SessionState,
  | 'session_id'
  | 'agent_id'
  | 'tool'
  | 'started_at'
  | 'last_seen'
  | 'last_tool'
  | 'files_touched'
  | 'waiting_since'
  | 'waiting_reason'
  | 'ended_at'
  | 'recorded_at'
  | 'worktree'
  | 'branch'
  | 'clone'
> {
  liveness: Liveness;
  /** Edited files after its last record and stopped: the person should ask for a record or a handoff. */
  unrecorded: boolean;
}

/** How long a gone session that owes a record stays on the board. */
export const KEEP_UNRECORDED_MS = 3 * 24 * 3600_000;

const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/**
 * The board of a folder's sessions, live ones first (then by last sign of life, newest first).
 * `lastWorkOf(agent)` gives the timestamp of the agent's latest blackboard entry (its records,
 * posts, decisions and handoffs), which counts as a record of the session's edits before it.
 */
export function sessionBoard(
  states: readonly BoardSessionState[],
  now: Date,
  thresholds: LivenessThresholds,
  lastWorkOf: (agentId: string) => string | undefined = () => undefined,
): SessionView[] {
  const order: Record<Liveness, number> = { active: 0, idle: 1, gone: 2 };
  const views: SessionView[] = [];
  for (const s of states) {
    if (typeof s.session_id !== 'string' || typeof s.agent_id !== 'string' || typeof s.last_seen !== 'string') continue;
    const liveness = livenessOf(s.last_seen, now, thresholds);
    const recorded = later(s.recorded_at, lastWorkOf(s.agent_id));
    const stopped = s.ended_at !== undefined && s.ended_at >= s.last_seen;
    const unrecorded = stopped && s.last_edit_at !== undefined && !(recorded !== undefined && recorded >= s.last_edit_at);
    const waitingSince = s.waiting_since !== undefined && s.waiting_since >= s.last_seen ? s.waiting_since : stopped ? s.ended_at : undefined;
    if (liveness === 'gone' && !(unrecorded && now.getTime() - Date.parse(s.last_seen) < KEEP_UNRECORDED_MS)) continue;
    views.push({
      session_id: s.session_id,
      agent_id: s.agent_id,
      tool: s.tool,
      started_at: s.started_at,
      last_seen: s.last_seen,
      ...(s.last_tool ? { last_tool: s.last_tool } : {}),
      files_touched: Array.isArray(s.files_touched) ? s.files_touched.filter(f => typeof f === 'string') : [],
      liveness,
      ...(waitingSince && liveness !== 'gone'
        ? { waiting_since: waitingSince, waiting_reason: s.waiting_since === waitingSince ? (s.waiting_reason ?? 'waiting') : 'turn ended' }
        : {}),
      ...(stopped ? { ended_at: s.ended_at } : {}),
      unrecorded,
      ...(recorded ? { recorded_at: recorded } : {}),
      ...(typeof s.worktree === 'string' ? { worktree: s.worktree } : {}),
      ...(typeof s.branch === 'string' ? { branch: s.branch } : {}),
      ...(typeof s.clone === 'string' ? { clone: s.clone } : {}),
    });
  }
  return views.sort((a, b) => order[a.liveness] - order[b.liveness] || (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0));
}

/** When the board next changes by time alone (a session's liveness, or a marked one leaving it). */
export function nextBoardChange(states: readonly BoardSessionState[], now: Date, thresholds: LivenessThresholds): number | undefined {
  let next: number | undefined;
  for (const s of states) {
    const t = nextLivenessChange(s.last_seen, now, thresholds);
    if (t !== undefined && (next === undefined || t < next)) next = t;
  }
  return next;
}

/** The sessions on the board that edited `file` (project-relative, `/`-separated). */
export function sessionsTouching(board: readonly SessionView[], file: string): SessionView[] {
  return board.filter(s => s.files_touched.includes(file));
}
