/**
 * Each Twining tool once for VS Code's agents: the same operations exist as the extension's
 * language model tools (tools/lm-tools.ts) and as the tools of Twining's MCP server
 * (tools/mcp-provider.ts). The setting `twining.tools.provider` picks which of the two VS Code
 * offers; the other is hidden. No `vscode` import: package.json is checked against it in plain Node.
 */

/** The setting, under the `twining` section. */
export const TOOLS_SETTING = 'tools.provider';
export const TOOLS_PROVIDERS = ['languageModelTools', 'mcpServer'] as const;
export type ToolsProvider = (typeof TOOLS_PROVIDERS)[number];
export const DEFAULT_TOOLS_PROVIDER: ToolsProvider = 'languageModelTools';

/** The setting's value as a provider: anything but `mcpServer` means the language model tools. */
export function asToolsProvider(value: unknown): ToolsProvider {
  return value === 'mcpServer' ? 'mcpServer' : DEFAULT_TOOLS_PROVIDER;
}

/** The `when` clause of every language model tool in package.json: hidden while the MCP server has the tools. */
export const LM_TOOLS_WHEN = `config.twining.${TOOLS_SETTING} != 'mcpServer'`;

/** The id of the MCP server definition provider, as in `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'twining.mcpServers';
