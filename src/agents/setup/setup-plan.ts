/**
 * `twining setup`'s plan: which agent hosts a project uses, and for each the three parts that wire
 * it to Twining (its MCP server, its hooks, its instructions), as whole-file changes merged into
 * what is there. The same plan serves the CLI, *Twining: Set Up Agents* and `--check` (a part is
 * wired when its files would not change). Every command it writes runs the project's launcher
 * (launcher.ts), so nothing here names a path of this machine.
 *
 * Where each host reads what (the pages relied on):
 *  - Claude Code: MCP servers in `.mcp.json` at the project root, `{"mcpServers": {name: {"type":
 *    "stdio", "command", "args"}}}` (code.claude.com/docs/en/mcp, "Project scope"); hooks in
 *    `.claude/settings.json` (mcp/hooks-config.ts); instructions in `CLAUDE.md`
 *    (code.claude.com/docs/en/memory, "Project memory ./CLAUDE.md").
 *  - VS Code's agents and Copilot: hooks in `.github/hooks/*.json` (hooks-config.ts); instructions
 *    in `AGENTS.md` (code.visualstudio.com/docs/copilot/customization/custom-instructions,
 *    "Use an AGENTS.md file") and the prompt file `.github/prompts/*.prompt.md`. Its MCP server is
 *    the extension's own (`twining.tools.provider`), so no `.vscode/mcp.json` is written.
 *  - Cursor: MCP servers in `.cursor/mcp.json`, `mcpServers` with `command`/`args`, whose values
 *    may say `${workspaceFolder}` (cursor.com/docs/context/mcp, "Config interpolation");
 *    instructions in `AGENTS.md` (cursor.com/docs/context/rules, "AGENTS.md"). Its hooks
 *    (cursor.com/docs/agent/hooks) send an input `twining hook` does not read yet: not wired.
 *  - Codex: MCP servers as `[mcp_servers.<name>]` tables with `command` and `args` in the
 *    project's `.codex/config.toml`, read for trusted projects (developers.openai.com/codex/mcp and
 *    /codex/config-basic, "Project config"); instructions in `AGENTS.md`
 *    (developers.openai.com/codex/guides/agents-md). Its hooks are behind a feature flag
 *    (developers.openai.com/codex/hooks): not wired.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { CLI_LAUNCHER } from './launcher';
import { PlannedFile, jsonText, mergeClaudeHooks, mergeVsCodeHooks, planLauncher, readObject, vsCodeHooksEmpty } from './hooks-config';
import { BEGIN_MARK, END_MARK, PROMPT_FILE, handoffPrompt, withSection } from './agent-instructions';
import { SERVER_NAME } from './client-config';

export const AGENT_HOSTS = ['claude-code', 'vscode', 'cursor', 'codex'] as const;
export type AgentHost = (typeof AGENT_HOSTS)[number];
export const PARTS = ['mcp', 'hooks', 'instructions'] as const;
export type Part = (typeof PARTS)[number];

export const HOST_LABELS: Record<AgentHost, string> = {
  'claude-code': 'Claude Code',
  vscode: "VS Code's agents and Copilot",
  cursor: 'Cursor',
  codex: 'Codex',
};

/** What in a project says it uses a host (any one of them). */
const MARKERS: Record<AgentHost, string[]> = {
  'claude-code': ['.claude', 'CLAUDE.md', '.mcp.json'],
  vscode: ['.vscode', '.github/hooks', '.github/copilot-instructions.md', '.github/prompts', '.github/instructions'],
  cursor: ['.cursor', '.cursorrules'],
  codex: ['.codex'],
};

/** The hosts set up when a project shows none: this is a VS Code extension, and Claude Code runs in its terminal. */
export const DEFAULT_HOSTS: AgentHost[] = ['vscode', 'claude-code'];

export async function detectHosts(root: string): Promise<AgentHost[]> {
  const found: AgentHost[] = [];
  for (const host of AGENT_HOSTS) {
    for (const m of MARKERS[host]) {
      if (await fs.lstat(path.join(root, ...m.split('/'))).catch(() => undefined)) {
        found.push(host);
        break;
      }
    }
  }
  return found;
}

/** One part of one host: the files that carry it, or why the host has no such part. */
export interface PartPlan {
  host: AgentHost;
  part: Part;
  /** Project-relative, forward slashes; empty when `note` says why there is nothing to write. */
  files: string[];
  note?: string;
}

export interface SetupPlan {
  root: string;
  hosts: AgentHost[];
  parts: PartPlan[];
  /** Every file the plan reads, with its text now and as the plan would leave it. */
  files: (PlannedFile & { relative: string })[];
}

export interface SetupOptions {
  hosts: AgentHost[];
  remove: boolean;
  /** Options every hook command passes (`--on-stop remind`). */
  extra?: string[];
}

/** The MCP server every committed configuration names: node on the launcher, in the project's folder. */
const launchArgs = (prefix = '') => [`${prefix}${CLI_LAUNCHER}`, 'mcp'];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** `{"<key>": {twining: server}}` merged in (or the server taken out); other servers kept. */
function withServer(existing: Json | undefined, key: string, server: Json | undefined): Json | undefined {
  const out: Json = { ...(existing ?? {}) };
  const servers: Json = isObject(out[key]) ? { ...out[key] } : {};
  if (server) servers[SERVER_NAME] = server;
  else delete servers[SERVER_NAME];
  if (Object.keys(servers).length) out[key] = servers;
  else delete out[key];
  return Object.keys(out).length ? out : undefined;
}

const TOML_BEGIN = '# BEGIN twining (written by twining setup; replaced when it runs again)';
const TOML_END = '# END twining';

/** `.codex/config.toml` with Twining's marked `[mcp_servers.twining]` table set (or taken out). */
export function withCodexServer(file: string, existing: string | undefined, on: boolean): string | undefined {
  const text = existing ?? '';
  const begin = text.indexOf(TOML_BEGIN);
  const end = text.indexOf(TOML_END);
  if (begin < 0 !== end < 0 || end < begin) throw new Error(`${file}: Twining's "${TOML_BEGIN}" … "${TOML_END}" markers are broken; nothing was written`);
  const outside = begin < 0 ? text : text.slice(0, begin) + text.slice(end + TOML_END.length);
  if (/^\s*\[\s*mcp_servers\s*\.\s*"?twining"?\s*\]/m.test(outside))
    throw new Error(
      `${file} already has an [mcp_servers.twining] table of its own; remove it (twining setup writes one between markers) — nothing was written`,
    );
  const block = [
    TOML_BEGIN,
    `[mcp_servers.${SERVER_NAME}]`,
    'command = "node"',
    `args = [${launchArgs()
      .map(a => JSON.stringify(a))
      .join(', ')}]`,
    TOML_END,
  ].join('\n');
  let rest = begin < 0 ? text : text.slice(0, begin).replace(/\n+$/, '\n') + text.slice(end + TOML_END.length).replace(/^\n+/, '');
  if (rest.trim() === '') rest = '';
  if (!on) return rest === '' ? undefined : rest;
  return rest === '' ? block + '\n' : rest.replace(/\n*$/, '\n\n') + block + '\n';
}

/** A Markdown file with Twining's marked section taken out (undefined when nothing else is left). */
export function withoutSection(existing: string | undefined): string | undefined {
  if (existing === undefined) return undefined;
  const begin = existing.search(/<!--\s*BEGIN twining\b[^>]*-->/);
  const endMatch = /<!--\s*END twining\s*-->/.exec(existing);
  if (begin < 0 || !endMatch || endMatch.index < begin) return existing;
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const before = existing.slice(0, begin).replace(/(\r?\n)+$/, '');
  const after = existing.slice(endMatch.index + endMatch[0].length).replace(/^(\r?\n)+/, '');
  const joined = before && after ? before + eol + eol + after : before ? before + eol : after;
  return joined.trim() === '' ? undefined : joined;
}

/** Twining's section as withSection writes it (for the marker text in messages). */
export const SECTION_MARKS = { begin: BEGIN_MARK, end: END_MARK };

/**
 * The plan for `hosts` (or, with `remove`, for taking Twining out of every host): reads each file
 * once, applies each part's change in turn, and keeps the text before and after.
 */
export async function planSetup(root: string, o: SetupOptions): Promise<SetupPlan> {
  const files = new Map<string, PlannedFile & { relative: string }>();
  const load = async (relative: string) => {
    let f = files.get(relative);
    if (!f) {
      const file = path.join(root, ...relative.split('/'));
      const st = await fs.lstat(file).catch(() => undefined);
      if (st && !st.isFile())
        throw new Error(`${file} is not a regular file (${st.isSymbolicLink() ? 'a symbolic link' : 'a folder or device'}); nothing was written`);
      const before = st ? await fs.readFile(file, 'utf8') : undefined;
      f = { relative, file, before, after: before };
      files.set(relative, f);
    }
    return f;
  };
  const json = async (relative: string, change: (v: Json | undefined) => Json | undefined, keepEmpty = false) => {
    const f = await load(relative);
    const current = f.after === f.before ? (await readObject(f.file)).value : f.after === undefined ? undefined : (JSON.parse(f.after) as Json);
    const next = change(current);
    f.after = next === undefined && !keepEmpty ? undefined : jsonText(next ?? {});
  };
  const hosts = o.remove ? [...AGENT_HOSTS] : o.hosts;
  const on = !o.remove;
  const parts: PartPlan[] = [];
  const hookOptions = on ? { extra: o.extra } : undefined;
  let needHook = false;
  let needCli = false;
  for (const host of hosts) {
    const add = (part: Part, fileList: string[], note?: string) => parts.push({ host, part, files: fileList, ...(note ? { note } : {}) });
    if (host === 'claude-code') {
      await json('.mcp.json', v => withServer(v, 'mcpServers', on ? { type: 'stdio', command: 'node', args: launchArgs() } : undefined));
      add('mcp', ['.mcp.json', CLI_LAUNCHER]);
      await json('.claude/settings.json', v => {
        const merged = mergeClaudeHooks(v, hookOptions);
        return Object.keys(merged).length ? merged : undefined;
      });
      add('hooks', ['.claude/settings.json', '.agents/twining/hook.js']);
      const md = await load('CLAUDE.md');
      md.after = on ? withSection('agents', md.after, 'CLAUDE.md') : withoutSection(md.after);
      add('instructions', ['CLAUDE.md']);
      needHook = needCli = on;
    } else if (host === 'vscode') {
      add('mcp', [], "the Twining extension serves VS Code's agents itself (setting twining.tools.provider)");
      await json('.github/hooks/twining.json', v => {
        const merged = mergeVsCodeHooks(v, hookOptions);
        return !on && vsCodeHooksEmpty(merged) ? undefined : merged;
      });
      add('hooks', ['.github/hooks/twining.json', '.agents/twining/hook.js']);
      const md = await load('AGENTS.md');
      md.after = on ? withSection('agents', md.after, 'AGENTS.md') : withoutSection(md.after);
      const prompt = await load(PROMPT_FILE);
      prompt.after = on ? handoffPrompt() : undefined;
      add('instructions', ['AGENTS.md', PROMPT_FILE]);
      needHook = needHook || on;
    } else if (host === 'cursor') {
      await json('.cursor/mcp.json', v => withServer(v, 'mcpServers', on ? { command: 'node', args: launchArgs('${workspaceFolder}/') } : undefined));
      add('mcp', ['.cursor/mcp.json', CLI_LAUNCHER]);
      add('hooks', [], "Cursor's hook input is not one twining hook reads yet; its agent gets the briefing through the MCP server's instructions");
      const md = await load('AGENTS.md');
      md.after = on ? withSection('agents', md.after, 'AGENTS.md') : withoutSection(md.after);
      add('instructions', ['AGENTS.md']);
      needCli = needCli || on;
    } else {
      const toml = await load('.codex/config.toml');
      toml.after = withCodexServer(toml.file, toml.after, on);
      add('mcp', ['.codex/config.toml', CLI_LAUNCHER], "Codex reads a project's .codex/config.toml only once you trust the project");
      add('hooks', [], "Codex's hooks are behind a feature flag and send an input twining hook does not read yet");
      const md = await load('AGENTS.md');
      md.after = on ? withSection('agents', md.after, 'AGENTS.md') : withoutSection(md.after);
      add('instructions', ['AGENTS.md']);
      needCli = needCli || on;
    }
  }
  for (const f of await planLauncher(root, { hook: needHook, cli: needCli })) {
    const relative = path.relative(root, f.file).split(path.sep).join('/');
    if (!o.remove && f.after === undefined) continue; // a launcher another host's setup wrote stays
    files.set(relative, { ...f, relative });
  }
  return { root, hosts, parts, files: [...files.values()] };
}

/** The files a plan changes. */
export const changes = (plan: SetupPlan) => plan.files.filter(f => f.before !== f.after);

/** Whether a part is wired: each of its files is as the plan would leave it. */
export function partWired(plan: SetupPlan, part: PartPlan): boolean {
  return part.files.every(rel => {
    const f = plan.files.find(x => x.relative === rel);
    return !!f && f.before === f.after && f.after !== undefined;
  });
}
