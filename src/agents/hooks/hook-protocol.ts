/**
 * The agent hook protocol as two hosts document it, read into one shape and answered in each
 * host's own form. Pure: no file, no clock.
 *
 * Claude Code (code.claude.com/docs/en/hooks, "Hook input" and "Hook output"): JSON on standard
 * input with snake_case `session_id`, `transcript_path`, `cwd`, `hook_event_name`; PreToolUse and
 * PostToolUse add `tool_name`, `tool_input` (Edit: `file_path`, `old_string`, `new_string`),
 * `tool_use_id`; Stop adds `stop_hook_active`. Context for the model goes in
 * `hookSpecificOutput.additionalContext`; "`decision: "block"` prevents Claude from stopping" with a
 * `reason`; exit code 0 parses standard output, 2 blocks, any other is a non-blocking error.
 *
 * VS Code (microsoft/vscode-docs, docs/agent-customization/hooks.md, "Common input fields"):
 * "`timestamp`, `cwd`, `sessionId`, `hookEventName`, `transcript_path`"; tools and their inputs
 * are VS Code's ("tool_name": "editFiles", "tool_input": { "files": [...] } in
 * docs/agents/reference/hooks-reference.md). Its Stop answer is nested: "hookSpecificOutput":
 * { "hookEventName": "Stop", "decision": "block", "reason": ... }, while SubagentStop's is at the top
 * level. Exit codes: "0 Success: parse stdout as JSON", "2 Blocking error", "Other: Non-blocking
 * warning: show warning to user, continue processing".
 *
 * What VS Code 1.139 actually sends differs from its docs: the hooks are run by GitHub Copilot
 * Chat (0.67.0, built into code-server 4.139.1; its ChatHookService.executeHook), whose input is
 * snake_case, `{timestamp, hook_event_name, session_id, transcript_path, cwd, tool_name,
 * tool_input, tool_use_id, ...}`, without Claude Code's `permission_mode`; and it reads the block
 * of both Stop and SubagentStop from `hookSpecificOutput.decision` / `reason`. So a `timestamp`
 * without `permission_mode` means VS Code too, and VS Code's block answers carry both forms.
 */

export type Host = 'claude-code' | 'vscode';
export type HookEvent =
  'SessionStart' | 'UserPromptSubmit' | 'PreToolUse' | 'PostToolUse' | 'Stop' | 'SubagentStop' | 'PreCompact' | 'SubagentStart' | 'Notification';
export const HOOK_EVENTS: readonly HookEvent[] = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SubagentStart',
  'Notification',
];

export interface HookInput {
  host: Host;
  event: string;
  sessionId: string;
  cwd?: string;
  source?: string;
  toolName?: string;
  toolInput?: Record<string, unknown>;
  stopHookActive: boolean;
  /** Claude Code's Notification: `notification_type` (permission_prompt, idle_prompt, ...). */
  notificationType?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Reads a host's JSON; VS Code's by its camelCase fields (its docs) or a `timestamp` without `permission_mode` (Copilot Chat), else Claude Code's. */
export function readHookInput(raw: unknown, eventFromArgs: string): HookInput {
  const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const vscode = 'sessionId' in o || 'hookEventName' in o || ('timestamp' in o && !('permission_mode' in o));
  const input = o.tool_input ?? o.toolInput;
  return {
    host: vscode ? 'vscode' : 'claude-code',
    event: str(o.hook_event_name) ?? str(o.hookEventName) ?? eventFromArgs,
    sessionId: str(o.session_id) ?? str(o.sessionId) ?? 'unknown-session',
    cwd: str(o.cwd),
    source: str(o.source),
    toolName: str(o.tool_name) ?? str(o.toolName),
    toolInput: input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined,
    stopHookActive: o.stop_hook_active === true || o.stopHookActive === true,
    notificationType: str(o.notification_type) ?? str(o.notificationType),
  };
}

/**
 * The files a tool call edits, as the tool names them (absolute or relative), or [] when it edits
 * none. VS Code runs every hook on every tool call ("matchers are ignored"), so the tool is
 * recognised here: Claude Code's Edit, Write, MultiEdit and NotebookEdit; VS Code's file editing
 * tools (replace_string_in_file, multi_replace_string_in_file, create_file, insert_edit_into_file,
 * edit_notebook_file, editFiles, apply_patch), and any other tool whose name says it edits, creates
 * or writes and whose input names files.
 */
export function editedFiles(toolName: string | undefined, input: Record<string, unknown> | undefined): string[] {
  if (!toolName || !input) return [];
  const name = toolName.toLowerCase();
  const edits = /edit|write|replace|create_file|createfile|insert|patch|notebook/.test(name) && !/read|search|list|get_/.test(name);
  if (!edits) return [];
  const files = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.trim() !== '') files.add(v.trim());
  };
  add(input.file_path);
  add(input.filePath);
  add(input.notebook_path);
  add(input.path);
  if (Array.isArray(input.files))
    for (const f of input.files) add(typeof f === 'object' && f ? ((f as Record<string, unknown>).filePath ?? (f as Record<string, unknown>).path) : f);
  if (Array.isArray(input.replacements)) for (const r of input.replacements) if (r && typeof r === 'object') add((r as Record<string, unknown>).filePath);
  // apply_patch carries the files in the patch text: "*** Update File: path", "*** Add File: path".
  if (typeof input.input === 'string') for (const m of input.input.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)) add(m[1]);
  return [...files];
}

/** Whether a tool call is an agent writing its work to Twining (the MCP tools, any host's prefix). */
export function recordsWork(toolName: string | undefined): boolean {
  return !!toolName && /twining[_-](record|handoff|decide|post)$/.test(toolName);
}

export type HookOutput = Record<string, unknown>;

export function contextAnswer(event: string, text: string): HookOutput {
  return { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
}

/** A PreToolUse decision ("allow" | "deny" | "ask") with its reason, and context for the model. */
export function permissionAnswer(decision: 'deny' | 'ask', reason: string, context?: string): HookOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision,
      permissionDecisionReason: reason,
      ...(context ? { additionalContext: context } : {}),
    },
  };
}

/** Keeps the agent from stopping, in the form its host documents for this event. */
export function blockStopAnswer(host: Host, event: string, reason: string): HookOutput {
  if (host === 'vscode' && event === 'Stop') return { hookSpecificOutput: { hookEventName: 'Stop', decision: 'block', reason } };
  // SubagentStop: the reference documents the top level, Copilot Chat reads the nested form.
  if (host === 'vscode') return { decision: 'block', reason, hookSpecificOutput: { hookEventName: event, decision: 'block', reason } };
  return { decision: 'block', reason };
}

/** A message shown to the user (both hosts: the common `systemMessage`). */
export function reminderAnswer(text: string): HookOutput {
  return { systemMessage: text };
}
