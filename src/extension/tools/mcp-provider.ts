/**
 * Twining's MCP server inside VS Code: an MCP server definition provider that offers the bundled
 * `twining mcp` (dist/cli.js) for each workspace folder with a `.twining/`, started with the
 * runtime VS Code gives extensions, so that agents and MCP clients in VS Code find it with no
 * configuration.
 *
 * Each tool once: the same operations are also language model tools (tools/lm-tools.ts). The
 * setting `twining.tools.provider` picks one of the two for VS Code's agents: with
 * `languageModelTools` (the default) this provider offers no server, and with `mcpServer` the
 * language model tools are hidden by their `when` clause (package.json, written by
 * scripts/sync-manifest.js) and this provider offers one server per folder. Clients outside VS
 * Code always reach the server through their own configuration (Copy MCP Configuration).
 */
import * as path from 'path';
import * as vscode from 'vscode';
import { currentRuntime, mcpLaunch, type Runtime } from '../../agents/setup/client-config';
import type { Folders, TwiningFolder } from '../model/folders';
import { SECTION } from '../settings';
import { log } from '../log';
import { MCP_PROVIDER_ID, TOOLS_SETTING, ToolsProvider, asToolsProvider } from './tool-division';

/** Which of the two offers Twining's tools to VS Code's agents (`twining.tools.provider`). */
export function toolsProvider(): ToolsProvider {
  return asToolsProvider(vscode.workspace.getConfiguration(SECTION).get<string>(TOOLS_SETTING));
}

/** The CLI bundled beside this extension bundle (dist/cli.js). */
export function bundledCli(): string {
  return path.join(__dirname, 'cli.js');
}

export class TwiningMcpProvider implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /** What the last answer offered, to announce a change only when there is one. */
  private offered = '';

  constructor(
    private readonly folders: Folders,
    private readonly version: string,
    private readonly runtime: Runtime = currentRuntime(),
  ) {
    this.disposables.push(
      folders.onDidChange(change => {
        if (change.kinds.has('presence') || change.kinds.has('trust')) this.announce();
      }),
      vscode.workspace.onDidChangeConfiguration(event => {
        if (event.affectsConfiguration(`${SECTION}.${TOOLS_SETTING}`)) this.announce();
      }),
    );
  }

  /** The servers to offer now: none unless the setting asks for them and the workspace is trusted. */
  definitions(): vscode.McpStdioServerDefinition[] {
    if (toolsProvider() !== 'mcpServer' || !this.folders.isTrusted) return [];
    return this.folders.withTwiningDir().map(folder => this.definition(folder));
  }

  /** `<runtime> dist/cli.js mcp --dir <folder>`, in the folder, versioned with the extension. */
  definition(folder: TwiningFolder): vscode.McpStdioServerDefinition {
    const launch = mcpLaunch(this.runtime, bundledCli(), folder.root);
    const server = new vscode.McpStdioServerDefinition(`Twining: ${folder.name}`, launch.command, launch.args, launch.env, this.version);
    server.cwd = vscode.Uri.file(folder.root);
    return server;
  }

  async provideMcpServerDefinitions(_token?: vscode.CancellationToken): Promise<vscode.McpStdioServerDefinition[]> {
    await this.folders.ready();
    const servers = this.definitions();
    this.offered = this.key(servers);
    return servers;
  }

  /** Starting a server: its folder must still have `.twining/` (it may have gone since it was offered). */
  resolveMcpServerDefinition(server: vscode.McpStdioServerDefinition, _token?: vscode.CancellationToken): vscode.McpStdioServerDefinition | undefined {
    const dir = server.args[server.args.indexOf('--dir') + 1];
    const folder = this.folders.withTwiningDir().find(f => f.root === dir);
    if (!folder) {
      log.warn(`MCP server "${server.label}" not started: ${dir ? `${dir} has no .twining/ folder any more` : 'it names no folder'}.`);
      return undefined;
    }
    return server;
  }

  private key(servers: vscode.McpStdioServerDefinition[]): string {
    return JSON.stringify(servers.map(s => [s.label, s.command, s.args]));
  }

  private announce(): void {
    if (this.key(this.definitions()) === this.offered) return;
    log.info(
      `MCP servers offered to VS Code: ${
        this.definitions()
          .map(s => s.label)
          .join(', ') || 'none'
      } (twining.tools.provider = ${toolsProvider()}).`,
    );
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Registers the provider where the host has the MCP API (VS Code 1.101 and later; some forks lack it). */
export function registerMcpProvider(folders: Folders, version: string): { provider: TwiningMcpProvider; disposables: vscode.Disposable[] } | undefined {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function') return undefined;
  const provider = new TwiningMcpProvider(folders, version);
  return { provider, disposables: [provider, lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider)] };
}
