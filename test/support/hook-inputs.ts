/** The JSON an agent's host sends a hook on standard input, as the unit tests send it. */
import * as path from 'path';

/** Claude Code's input (code.claude.com/docs/en/hooks): common snake_case fields, then the event's own. */
export const claude = (root: string, session: string, event: string, extra: Record<string, unknown> = {}) => ({
  session_id: session,
  transcript_path: path.join(root, 'transcript.jsonl'),
  cwd: root,
  permission_mode: 'default',
  hook_event_name: event,
  ...extra,
});

/** VS Code's input (docs/agent-customization/hooks.md, "Common input fields"). */
export const vscode = (root: string, session: string, event: string, extra: Record<string, unknown> = {}) => ({
  timestamp: new Date().toISOString(),
  cwd: root,
  sessionId: session,
  hookEventName: event,
  transcript_path: path.join(root, 'transcript.json'),
  ...extra,
});
