/**
 * The agent hooks Twining installs in a project, for each host, merged into what is there and
 * removable again:
 *  - VS Code's agents read `.github/hooks/*.json`: `{"hooks": {"<Event>": [{"type": "command",
 *    "command", "timeout"}]}}` (microsoft/vscode-docs, docs/agent-customization/hooks.md, "Hook
 *    configuration format"; matchers are not read there, so the hook decides which tools matter).
 *    Twining writes `.github/hooks/twining.json`.
 *  - Claude Code reads `.claude/settings.json`: `{"hooks": {"<Event>": [{"matcher": "Edit|Write",
 *    "hooks": [{"type": "command", "command", "timeout"}]}]}}` (code.claude.com/docs/en/hooks,
 *    "Configuration"). Other keys and other hooks there are kept as they are.
 * Each command runs dist/hook.js with the runtime that runs this program and names its host
 * (`--host`): VS Code reads `.claude/settings.json` too, and the Claude Code copy stays silent there.
 * Twining's entries are recognised by that command shape, so setting up again replaces them
 * (idempotent) and `remove` takes out exactly them.
 */
import { promises as fs } from 'fs';
import * as path from 'path';

export type HookHost = 'vscode' | 'claude-code';
export const SETUP_EVENTS = ['SessionStart', 'PreToolUse', 'PostToolUse', 'Stop', 'SubagentStop', 'UserPromptSubmit'] as const;
/** Claude Code's alone: VS Code's agents have no Notification event (docs/agents/reference/hooks-reference.md). */
const CLAUDE_ONLY_EVENTS = ['Notification'] as const;

export interface HookCommandOptions {
  /** The runtime (node, or Electron run as node) and the hook bundle, absolute. */
  execPath: string;
  hookScript: string;
  electron: boolean;
  /** Options passed to every hook: e.g. ['--on-stop', 'remind']. */
  extra?: string[];
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`);

export function hookCommand(o: HookCommandOptions, host: HookHost, event: string): string {
  const env = o.electron ? 'ELECTRON_RUN_AS_NODE=1 ' : '';
  return `${env}${quote(o.execPath)} ${quote(o.hookScript)} ${event} ${[...(o.extra ?? []), '--host', host].map(quote).join(' ')}`;
}

/** Whether a command is one of Twining's hooks (any install location). */
export function isTwiningCommand(command: unknown): boolean {
  return (
    typeof command === 'string' &&
    /hook\.js"? (SessionStart|PreToolUse|PostToolUse|Stop|SubagentStop|UserPromptSubmit|Notification)\b.*--host (vscode|claude-code)\b/.test(command)
  );
}

const TIMEOUT: Record<string, number> = {
  SessionStart: 30,
  PreToolUse: 10,
  PostToolUse: 10,
  Stop: 10,
  SubagentStop: 10,
  UserPromptSubmit: 10,
  Notification: 10,
};
/**
 * Claude Code's matchers: PreToolUse on the edits only. PostToolUse has none: every tool call
 * keeps the session live on the session board and names its last tool (as in VS Code, which
 * runs every hook on every call); the hook itself tells edits and Twining's records apart.
 */
const CLAUDE_MATCHER: Record<string, string | undefined> = {
  PreToolUse: 'Edit|Write|MultiEdit|NotebookEdit',
  Notification: 'permission_prompt|idle_prompt|elicitation_dialog',
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** `.github/hooks/twining.json` (or another VS Code hook file) with Twining's hooks set (or removed). */
export function mergeVsCodeHooks(existing: Json | undefined, o: HookCommandOptions | undefined): Json {
  const out: Json = { ...(existing ?? {}) };
  const hooks: Json = isObject(out.hooks) ? { ...out.hooks } : {};
  for (const event of SETUP_EVENTS) {
    const kept = (Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []).filter(h => !(isObject(h) && isTwiningCommand(h.command)));
    const ours = o ? [{ type: 'command', command: hookCommand(o, 'vscode', event), timeout: TIMEOUT[event] }] : [];
    if (kept.length + ours.length) hooks[event] = [...kept, ...ours];
    else delete hooks[event];
  }
  out.hooks = hooks;
  return out;
}

/** `.claude/settings.json` with Twining's hooks set (or removed); every other key and hook kept. */
export function mergeClaudeHooks(existing: Json | undefined, o: HookCommandOptions | undefined): Json {
  const out: Json = { ...(existing ?? {}) };
  const hooks: Json = isObject(out.hooks) ? { ...out.hooks } : {};
  for (const event of [...SETUP_EVENTS, ...CLAUDE_ONLY_EVENTS]) {
    const groups = (Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [])
      .map(g => (isObject(g) && Array.isArray(g.hooks) ? { ...g, hooks: g.hooks.filter(h => !(isObject(h) && isTwiningCommand(h.command))) } : g))
      .filter(g => !(isObject(g) && Array.isArray(g.hooks) && g.hooks.length === 0));
    if (o) {
      const matcher = CLAUDE_MATCHER[event];
      groups.push({ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: hookCommand(o, 'claude-code', event), timeout: TIMEOUT[event] }] });
    }
    if (groups.length) hooks[event] = groups;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length) out.hooks = hooks;
  else delete out.hooks;
  return out;
}

export interface PlannedFile {
  file: string;
  /** undefined: the file does not exist (before) or is to be deleted (after). */
  before?: string;
  after?: string;
}

const text = (v: Json) => JSON.stringify(v, null, 2) + '\n';

async function readObject(file: string): Promise<{ text?: string; value?: Json }> {
  const raw = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); it was left as it is and nothing was written`);
  }
  if (!isObject(value)) throw new Error(`${file} does not hold a JSON object; it was left as it is and nothing was written`);
  return { text: raw, value };
}

/** What setting up (or, with `o` undefined, removing) the hooks would change in `root`, file by file. */
export async function planHooks(root: string, o: HookCommandOptions | undefined): Promise<PlannedFile[]> {
  const vscodeFile = path.join(root, '.github', 'hooks', 'twining.json');
  const claudeFile = path.join(root, '.claude', 'settings.json');
  const [vs, cc] = await Promise.all([readObject(vscodeFile), readObject(claudeFile)]);
  const vsAfter = mergeVsCodeHooks(vs.value, o);
  const vsEmpty = Object.keys(vsAfter).length === 1 && isObject(vsAfter.hooks) && Object.keys(vsAfter.hooks).length === 0;
  const ccAfter = mergeClaudeHooks(cc.value, o);
  return [
    { file: vscodeFile, before: vs.text, after: vsEmpty && !o ? undefined : text(vsAfter) },
    {
      file: claudeFile,
      before: cc.text,
      after: !o && Object.keys(ccAfter).length === 0 && cc.text !== undefined ? undefined : cc.text === undefined && !o ? undefined : text(ccAfter),
    },
  ];
}

/** Writes (or deletes) the planned files that change; returns those. */
export async function applyHooks(plan: PlannedFile[]): Promise<PlannedFile[]> {
  const changed = plan.filter(p => p.before !== p.after);
  for (const p of changed) {
    if (p.after === undefined) await fs.rm(p.file, { force: true });
    else {
      await fs.mkdir(path.dirname(p.file), { recursive: true });
      const tmp = `${p.file}.${process.pid}.tmp`;
      await fs.writeFile(tmp, p.after);
      await fs.rename(tmp, p.file);
    }
  }
  return changed;
}

/** A line diff of two small texts ("- " removed, "+ " added, "  " kept), from their longest common subsequence. */
export function lineDiff(before: string | undefined, after: string | undefined): string {
  const a = before === undefined ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === undefined ? [] : after.replace(/\n$/, '').split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] > lcs[i + 1][j])) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.join('\n');
}
