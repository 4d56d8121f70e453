/**
 * What `twining hook <event>` does for each event, for a project's `.twining/` folder:
 *  - SessionStart (hook-start.ts, a bundle of its own that only this event loads): registers the
 *    session's agent and answers with its briefing (`assemble`) as additional context; starts the
 *    session's state (.twining/sessions/, storage/session-files.ts) and writes the hook index from
 *    the engine it loaded anyway;
 *  - PreToolUse on an edit: the file's active decisions and open warnings as additional context,
 *    from the hook index (bounded reads); a claim by another live agent asks or refuses (claim-seam.ts);
 *  - PostToolUse: the session's liveness, last tool call and the files it touched; the agent's
 *    registry entry refreshed at most every two minutes;
 *  - Stop / SubagentStop: when the session edited files after its last record, asks once for
 *    `twining_record` or a handoff (block, remind or off), then lets it stop.
 * The engine (with zod and the schemas) is loaded only by SessionStart and the throttled refresh,
 * from dist/core.js beside this bundle: the events on every tool call stay a small program.
 */
import * as path from 'path';
import { SessionState, readSessionState, writeSessionState } from '../../core/storage/session-files';
import { decisionInScope } from '../../core/rules/assembly';
import { overlaps } from '../../core/scope';
import { HookInput, HookOutput, blockStopAnswer, contextAnswer, editedFiles, permissionAnswer, recordsWork, reminderAnswer } from './hook-protocol';
import { blackboardSince, lookUp } from '../../core/storage/derived/hook-index';
import { REGISTER_EVERY_MS, blackboardSize, newState, resumed } from './hook-liveness';
import { claimSeam } from './claim-seam';
import { isSqliteFolder } from '../../core/storage/sqlite/sqlite-detect';
import { postedSince, readDecision } from '../../core/storage/sqlite/sqlite-hook-read';
import { readText, readTextSync } from '../../core/storage/read-file';

export type StopMode = 'block' | 'remind' | 'off';

export interface HookOptions {
  /** The folder holding the record (`.twining/`): a linked worktree's hooks use the primary's (core/git/record-location.ts). */
  root: string;
  /** The work tree the agent edits in, which file paths are relative to (the root itself outside a linked worktree). */
  worktree: string;
  /** That work tree, when it is a linked worktree (the session board shows it), and its branch. */
  linkedWorktree?: string;
  branch?: string;
  agentId: string;
  stopMode: StopMode;
  onClaim: 'ask' | 'deny';
  scope: string;
  maxTokens?: number;
  now: () => Date;
  /** Loads the core library (dist/core.js), for the events that need the engine. */
  loadCore: () => typeof import('../../library');
}

const CONTEXT_DECISIONS = 5;
const CONTEXT_WARNINGS = 5;

/** A path as the folder's records name files: project-relative with `/`, when inside the project. */
export function projectPath(root: string, file: string): string {
  const abs = path.resolve(root, file);
  const rel = path.relative(root, abs);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

export async function preToolUse(input: HookInput, o: HookOptions): Promise<HookOutput | undefined> {
  const files = editedFiles(input.toolName, input.toolInput).map(f => projectPath(o.worktree, f));
  if (files.length === 0) return undefined;
  const twiningDir = path.join(o.root, '.twining');
  const claims = claimSeam(twiningDir, files, o.agentId, o.now());
  if (claims.held) {
    const { file, holder } = claims.held;
    const reason = `${file} is claimed by ${holder.agent_id}${holder.since ? ` since ${holder.since}` : ''}${holder.until ? ` until ${holder.until}` : ''}${holder.reason ? ` (${holder.reason})` : ''}; ask it to release the claim (a need on the blackboard addressed to it, or twining_claims to see all claims) before editing.`;
    return permissionAnswer(o.onClaim, [reason, ...claims.lapsedLines].join('\n'));
  }
  // The agent's own lapsed claims come first: it may be editing on the strength of one.
  const lines: string[] = [...claims.lapsedLines];
  for (const file of files) {
    const found = await lookUp(twiningDir, file);
    // Oldest first by id (ULIDs sort by time): the newest are taken from the end.
    const byId = (a: [string, ...unknown[]], b: [string, ...unknown[]]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const decisions = found.decisions.filter(d => decisionInScope({ scope: d[1], affected_files: d[2] }, file)).sort(byId);
    const warnings = found.warnings.filter(w => overlaps(w[1], file)).sort(byId);
    if (decisions.length === 0 && warnings.length === 0) continue;
    lines.push(`Twining: before you edit ${file}, ${decisions.length} active decision(s) and ${warnings.length} open warning(s) apply:`);
    for (const w of warnings.slice(-CONTEXT_WARNINGS).reverse()) lines.push(`- WARNING [${w[0]}] ${w[2]}${w[3] ? ` (from ${w[3]})` : ''}`);
    // Newest decisions first, each with its rationale from its record (a handful of small reads).
    // The folder's layout is looked at once (several system calls), not once per record.
    const sqlite = decisions.length > 0 && isSqliteFolder(twiningDir);
    for (const d of decisions.slice(-CONTEXT_DECISIONS).reverse()) {
      const record = decisionRecord(twiningDir, sqlite, d[0]);
      const why = typeof record?.rationale === 'string' ? ` Why: ${record.rationale.replace(/\s+/g, ' ').slice(0, 300)}` : '';
      lines.push(`- DECISION [${d[0]}]${d[4] === 'provisional' ? ' (provisional)' : ''} ${d[3]}.${why}`);
    }
    if (decisions.length > CONTEXT_DECISIONS) lines.push(`- and ${decisions.length - CONTEXT_DECISIONS} older decision(s): twining_why ${file}`);
  }
  return lines.length ? contextAnswer('PreToolUse', lines.join('\n')) : undefined;
}

/** A decision's record in either layout (bounded reads); undefined when it cannot be read. */
function decisionRecord(twiningDir: string, sqlite: boolean, id: string): { rationale?: unknown } | undefined {
  if (sqlite) return readDecision(twiningDir, id);
  try {
    const text = readTextSync(path.join(twiningDir, 'decisions', `${id}.json`), 'record');
    return text === undefined ? undefined : (JSON.parse(text) as { rationale?: unknown });
  } catch {
    return undefined;
  }
}

export async function postToolUse(input: HookInput, o: HookOptions): Promise<HookOutput | undefined> {
  const twiningDir = path.join(o.root, '.twining');
  const now = o.now().toISOString();
  const state = (await readSessionState(twiningDir, input.sessionId)) ?? newState(input, o, await blackboardSize(twiningDir));
  resumed(state, now);
  state.last_tool = input.toolName;
  const files = editedFiles(input.toolName, input.toolInput).map(f => projectPath(o.worktree, f));
  for (const f of files) if (!state.files_touched.includes(f)) state.files_touched.push(f);
  if (files.length) state.last_edit_at = now;
  if (recordsWork(input.toolName)) state.recorded_at = now;
  const due = !state.registered_at || o.now().getTime() - Date.parse(state.registered_at) >= REGISTER_EVERY_MS;
  if (due) {
    // Liveness in the shared registry, at most every two minutes (it takes the registry's lock).
    const engine = await o.loadCore().openWorkspace(o.root, { now: o.now, warn: m => process.stderr.write(`twining: warning: ${m}\n`), project: o.root });
    await engine.register({ agent_id: o.agentId });
    state.registered_at = now;
  }
  await writeSessionState(twiningDir, state);
  return undefined;
}

/** Whether the session's agent wrote to the blackboard (a record, post, decision or handoff) since `since`. */
async function recordedSince(twiningDir: string, state: SessionState, since: string): Promise<boolean> {
  if (state.recorded_at && state.recorded_at >= since) return true;
  const marker = (await readText(path.join(twiningDir, '.last-record'), 'config').catch(() => undefined)) ?? '';
  if (/^\d+$/.test(marker.trim()) && Number(marker.trim()) * 1000 >= Date.parse(since)) return true;
  if (isSqliteFolder(twiningDir)) return postedSince(twiningDir, state.agent_id, since);
  const lines = await blackboardSince(twiningDir, state.blackboard_offset);
  return !!lines?.some(e => e.agent_id === state.agent_id && typeof e.timestamp === 'string' && e.timestamp >= since);
}

export async function stop(input: HookInput, o: HookOptions): Promise<HookOutput | undefined> {
  const twiningDir = path.join(o.root, '.twining');
  const state = await readSessionState(twiningDir, input.sessionId);
  if (!state) return undefined;
  const now = o.now().toISOString();
  state.last_seen = now;
  const lastEdit = state.last_edit_at;
  let answer: HookOutput | undefined;
  // The host's own loop guard: when a Stop hook already kept the agent going, let it stop.
  if (lastEdit && !input.stopHookActive && o.stopMode !== 'off') {
    const recorded = await recordedSince(twiningDir, state, lastEdit);
    const askedAlready = !!state.stop_blocked_at && state.stop_blocked_at >= lastEdit;
    if (!recorded && !askedAlready) {
      const files = state.files_touched.slice(0, 8).join(', ') + (state.files_touched.length > 8 ? `, and ${state.files_touched.length - 8} more` : '');
      const reason = `This session changed ${files} and recorded nothing in Twining. Before you stop, call twining_record (a summary, the decisions you made with their rationale and affected files, findings and warnings for the next session), or twining_handoff if someone else should continue. Agent id: ${state.agent_id}.`;
      state.stop_blocked_at = now;
      answer = o.stopMode === 'block' ? blockStopAnswer(input.host, input.event, reason) : reminderAnswer(reason);
    }
    if (recorded) state.recorded_at = state.recorded_at && state.recorded_at > lastEdit ? state.recorded_at : now;
  }
  if (!answer && input.event === 'Stop') state.ended_at = now;
  await writeSessionState(twiningDir, state);
  return answer;
}
