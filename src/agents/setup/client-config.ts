/**
 * How to start `twining mcp`, and the configuration snippets that tell MCP clients to start it.
 * One launch description serves VS Code's MCP server definition provider and every snippet, so
 * what a client outside VS Code runs is exactly what VS Code runs. Pure: no vscode, no I/O.
 */

/** The runtime that starts the server: the program that runs the extension host (or the CLI). */
export interface Runtime {
  /** `process.execPath`: node, or on desktop VS Code the Electron binary. */
  execPath: string;
  /** True when execPath is Electron (`process.versions.electron` is set), which runs as Node only with ELECTRON_RUN_AS_NODE=1. */
  electron: boolean;
}

/** One way to run the server: a program, its arguments and the environment it needs. */
export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The runtime of the current process. */
export function currentRuntime(): Runtime {
  return { execPath: process.execPath, electron: typeof process.versions.electron === 'string' };
}

/**
 * `<runtime> <cli.js> mcp --dir <folder>`. Electron (desktop VS Code, Cursor, …) runs a script as
 * Node only with ELECTRON_RUN_AS_NODE=1; in a remote or server host the runtime is node itself,
 * which needs nothing.
 */
export function mcpLaunch(runtime: Runtime, cliPath: string, dir: string): Launch {
  return {
    command: runtime.execPath,
    args: [cliPath, 'mcp', '--dir', dir],
    env: runtime.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
  };
}

/** The clients a snippet can be made for. */
export const MCP_CLIENTS = ['claude-code', 'cursor', 'codex', 'vscode', 'generic'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export interface ClientInfo {
  /** Who it is for, for people. */
  label: string;
  /** Where the snippet goes. */
  file: string;
  /** The snippet's language (for an editor). */
  language: 'json' | 'toml';
  /** A sentence on where to put it. */
  hint: string;
}

export const CLIENTS: Record<McpClient, ClientInfo> = {
  'claude-code': {
    label: 'Claude Code',
    file: '.mcp.json',
    language: 'json',
    hint: 'Merge into .mcp.json at the project root (or run `claude mcp add-json twining` with the inner object).',
  },
  cursor: { label: 'Cursor', file: '.cursor/mcp.json', language: 'json', hint: 'Merge into .cursor/mcp.json in the project (or ~/.cursor/mcp.json).' },
  codex: { label: 'Codex', file: '~/.codex/config.toml', language: 'toml', hint: 'Add to ~/.codex/config.toml.' },
  vscode: {
    label: 'VS Code (mcp.json)',
    file: '.vscode/mcp.json',
    language: 'json',
    hint: 'For a VS Code or fork without this extension; where the extension runs, set twining.tools.provider to "mcpServer" instead.',
  },
  generic: {
    label: 'Other MCP clients (Cline, Roo, Windsurf, Claude Desktop, …)',
    file: 'mcp settings (mcpServers)',
    language: 'json',
    hint: 'The common "mcpServers" form; paste it where your client keeps its MCP servers.',
  },
};

/** The server's name in client configurations. */
export const SERVER_NAME = 'twining';

/** A `{command, args, env?}` object as mcpServers-style configurations take it (no empty env). */
function serverObject(launch: Launch, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, command: launch.command, args: launch.args, ...(Object.keys(launch.env).length ? { env: launch.env } : {}) };
}

/** A TOML basic string: JSON's escapes (\" \\ \n \uXXXX) are TOML's too. */
const tomlString = (s: string) => JSON.stringify(s);

/** The configuration text for one client, ready to paste (or merge) into its file. */
export function clientSnippet(client: McpClient, launch: Launch): string {
  switch (client) {
    case 'claude-code':
      return JSON.stringify({ mcpServers: { [SERVER_NAME]: serverObject(launch, { type: 'stdio' }) } }, null, 2) + '\n';
    case 'cursor':
    case 'generic':
      return JSON.stringify({ mcpServers: { [SERVER_NAME]: serverObject(launch) } }, null, 2) + '\n';
    case 'vscode':
      return JSON.stringify({ servers: { [SERVER_NAME]: serverObject(launch, { type: 'stdio' }) } }, null, 2) + '\n';
    case 'codex': {
      const lines = [`[mcp_servers.${SERVER_NAME}]`, `command = ${tomlString(launch.command)}`, `args = [${launch.args.map(tomlString).join(', ')}]`];
      const env = Object.entries(launch.env);
      if (env.length) lines.push(`env = { ${env.map(([k, v]) => `${k} = ${tomlString(v)}`).join(', ')} }`);
      return lines.join('\n') + '\n';
    }
  }
}

/** The launch a snippet describes, read back from the snippet's text (JSON clients), for checks. */
export function launchFromSnippet(client: Exclude<McpClient, 'codex'>, text: string): Launch {
  const parsed = JSON.parse(text) as Record<string, Record<string, { command: string; args: string[]; env?: Record<string, string> }>>;
  const server = (client === 'vscode' ? parsed.servers : parsed.mcpServers)[SERVER_NAME];
  return { command: server.command, args: server.args, env: server.env ?? {} };
}

export function isMcpClient(value: string): value is McpClient {
  return (MCP_CLIENTS as readonly string[]).includes(value);
}
