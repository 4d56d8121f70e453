/**
 * Words for a hooked agent session on the session board (Agents view, Context view, the prompt
 * that asks an agent for its record). No `vscode` import.
 */
import * as path from 'path';
import type { SessionView } from '../../core';
import { plural, relative } from './format';

/** The host that ran the session's hooks, as people name it. */
export function toolName(tool: string): string {
  return tool === 'vscode' ? 'VS Code agent' : tool === 'claude-code' ? 'Claude Code' : tool;
}

/** What the session is doing: "ended without a record", "waiting for your reply", "working", "idle". */
export function sessionState(s: SessionView): string {
  if (s.unrecorded) return 'ended without a record';
  if (s.waiting_since) return s.waiting_reason === 'turn ended' ? 'waiting for input' : `waiting for ${s.waiting_reason ?? 'input'}`;
  if (s.liveness === 'gone') return 'gone';
  return s.liveness === 'active' ? 'working' : 'idle';
}

/** The description of a session's row: tool · state · files · since when. */
export function sessionDescription(s: SessionView, now: Date): string {
  const parts = [toolName(s.tool), sessionState(s)];
  // Where it runs, for agents in worktrees: the worktree's folder name and its branch.
  if (s.worktree) parts.push(`worktree ${path.basename(s.worktree)}${s.branch ? ` on ${s.branch}` : ''}`);
  else if (s.branch) parts.push(`on ${s.branch}`);
  if (s.files_touched.length) parts.push(plural(s.files_touched.length, 'file'));
  if (s.last_tool) parts.push(`last: ${s.last_tool}`);
  parts.push(`since ${relative(s.started_at, now)}`);
  return parts.join(' · ');
}

/** The text an agent gets (as a need on the blackboard, or pasted into its chat) to record its session's work. */
export function recordRequest(s: SessionView, you: string): { summary: string; prompt: string } {
  const files = s.files_touched.slice(0, 12).join(', ') + (s.files_touched.length > 12 ? `, and ${s.files_touched.length - 12} more` : '');
  const summary = `${s.agent_id}: please record or hand over your session's work (${plural(s.files_touched.length, 'file')} changed)`;
  const prompt =
    `Your session ${s.session_id} (agent id ${s.agent_id}) changed ${files || 'files'} and recorded nothing in Twining. ` +
    `Please call twining_record with agent_id "${s.agent_id}": a summary, each decision you made with its rationale and affected files, ` +
    `findings and warnings the next session should know, and resolves for the needs you met; or twining_handoff to ${you} if someone else should continue.`;
  return { summary: summary.slice(0, 200), prompt };
}
