// Twining's MCP server inside VS Code (the MCP server definition provider), the division of the
// tools between language model tools and the MCP server, Copy MCP Configuration and Add Agent
// Instructions, in the real extension host. The servers the provider and the snippets describe are
// started here with the MCP SDK's client over stdio, as VS Code and Claude Code start them.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describeIn, firstFolder, manifest, readJson, twiningDir, waitFor } from './helpers';
import { TwiningApi, twining } from './twining';

interface Launch {
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  cwd?: string;
}

/** Starts a server as an MCP client would, lists its tools and asks for twining_status. */
async function startAndAsk(launch: Launch): Promise<{ tools: string[]; status: { registered_agents: number; project: string } }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...launch.env })) if (v !== null && v !== undefined) env[k] = String(v);
  const client = new Client({ name: 'twining-host-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: launch.command, args: launch.args, env, cwd: launch.cwd, stderr: 'pipe' }));
  try {
    const { tools } = await client.listTools();
    const result = (await client.callTool({ name: 'twining_status', arguments: {} })) as { content: { text: string }[]; isError?: boolean };
    assert.notStrictEqual(result.isError, true, result.content[0]?.text);
    return { tools: tools.map(t => t.name).sort(), status: JSON.parse(result.content[0].text) };
  } finally {
    await client.close();
  }
}

const toolNames = () =>
  manifest()
    .contributes.languageModelTools.map((t: { name: string }) => t.name)
    .sort();

/** The server lists each tool once, and every operation the language model tools offer (plus twining-mcp's aliases). */
function assertEveryOperation(tools: string[]): void {
  assert.strictEqual(new Set(tools).size, tools.length, `a tool listed twice: ${tools.join(', ')}`);
  assert.deepStrictEqual(
    toolNames().filter((name: string) => !tools.includes(name)),
    [],
  );
}

async function setProvider(value: string | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('twining').update('tools.provider', value, vscode.ConfigurationTarget.Global);
}

describeIn(['single'], 'MCP server definition provider and the tool division', () => {
  let api: TwiningApi;
  let provider: NonNullable<TwiningApi['mcpProvider']>;
  const token = new vscode.CancellationTokenSource().token;

  before(async () => {
    api = await twining();
    assert.ok(api.mcpProvider, 'the host has the MCP API (VS Code 1.101+), so the provider is registered');
    provider = api.mcpProvider;
  });
  after(() => setProvider(undefined));

  it('offers no server while the language model tools have the tools (the default)', async () => {
    assert.strictEqual(vscode.workspace.getConfiguration('twining').get('tools.provider'), 'languageModelTools');
    assert.deepStrictEqual(await provider.provideMcpServerDefinitions(token), []);
  });

  it('with twining.tools.provider = mcpServer: announces the change and offers the bundled CLI for the folder', async () => {
    let announced = 0;
    const listener = provider.onDidChangeMcpServerDefinitions(() => announced++);
    try {
      await setProvider('mcpServer');
      await waitFor(() => announced > 0, { what: 'onDidChangeMcpServerDefinitions' });
    } finally {
      listener.dispose();
    }
    const servers = await provider.provideMcpServerDefinitions(token);
    assert.strictEqual(servers.length, 1);
    const [server] = servers;
    const folder = firstFolder();
    const cli = path.join(vscode.extensions.getExtension('twining.twining-vscode')!.extensionPath, 'dist', 'cli.js');
    assert.strictEqual(server.label, `Twining: ${path.basename(folder)}`);
    assert.strictEqual(server.command, process.execPath, 'the runtime VS Code gives extensions');
    assert.deepStrictEqual(server.args, [cli, 'mcp', '--dir', folder]);
    // This host runs on node (a server/remote host); desktop VS Code's Electron would get ELECTRON_RUN_AS_NODE=1.
    assert.deepStrictEqual(server.env, process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {});
    assert.strictEqual(server.version, manifest().version);
    assert.strictEqual(server.cwd?.fsPath, folder);
    assert.strictEqual(provider.resolveMcpServerDefinition(server, token), server);
  });

  it('the server it offers starts, lists every tool once and answers twining_status for the folder', async () => {
    const [server] = await provider.provideMcpServerDefinitions(token);
    const { tools, status } = await startAndAsk({ command: server.command, args: server.args, env: server.env, cwd: server.cwd?.fsPath });
    assertEveryOperation(tools);
    const engine = [...api.folders.values()][0];
    const expected = (await engine.status({})) as { registered_agents: number };
    assert.strictEqual(status.registered_agents, expected.registered_agents);
    assert.ok(status.registered_agents > 0, 'the fixture has agents');
  });

  it('a server whose folder has no .twining/ is not started', async () => {
    const [server] = await provider.provideMcpServerDefinitions(token);
    const elsewhere = new vscode.McpStdioServerDefinition('Twining: gone', server.command, [server.args[0], 'mcp', '--dir', path.join(firstFolder(), 'src')]);
    assert.strictEqual(provider.resolveMcpServerDefinition(elsewhere, token), undefined);
  });

  it('each operation is registered once as a language model tool, hidden by a when clause on the same setting', () => {
    // vscode.lm.tools lists every registered tool, hidden ones included (VS Code filters by `when`
    // only what it gives an agent), so this checks registration once per operation and the clause.
    const registered = vscode.lm.tools.filter(t => t.tags.includes('twining')).map(t => t.name);
    assert.deepStrictEqual(registered.sort(), toolNames());
    const contributed = manifest().contributes.languageModelTools as { name: string; when: string }[];
    for (const tool of contributed) assert.strictEqual(tool.when, "config.twining.tools.provider != 'mcpServer'", tool.name);
  });

  it('back to languageModelTools: the server is withdrawn', async () => {
    await setProvider(undefined);
    await waitFor(async () => (await provider.provideMcpServerDefinitions(token)).length === 0, { what: 'no server offered' });
  });
});

describeIn(['single'], 'Copy MCP Configuration and Add Agent Instructions', () => {
  const created: string[] = [];
  after(() => {
    for (const file of created) fs.rmSync(file, { recursive: true, force: true });
  });

  it('Copy MCP Configuration puts the Claude Code snippet on the clipboard and in an editor, and its command runs', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const result = await vscode.commands.executeCommand<{ text: string; file: string }>('twining.copyMcpConfiguration', { client: 'claude-code' });
    assert.strictEqual(result.file, '.mcp.json');
    assert.strictEqual(await vscode.env.clipboard.readText(), result.text);
    assert.strictEqual(vscode.window.activeTextEditor?.document.getText(), result.text);
    const server = JSON.parse(result.text).mcpServers.twining;
    assert.strictEqual(server.type, 'stdio');
    assert.deepStrictEqual(server.args.slice(1), ['mcp', '--dir', firstFolder()]);
    assert.ok(path.isAbsolute(server.command) && path.isAbsolute(server.args[0]), 'absolute paths: it runs from any working directory');
    const { tools, status } = await startAndAsk({ command: server.command, args: server.args, env: server.env ?? {}, cwd: '/' });
    assertEveryOperation(tools);
    assert.strictEqual(status.project, path.basename(firstFolder()));
  });

  it('Copy MCP Configuration for Codex gives the TOML table; an unknown client is refused', async () => {
    const result = await vscode.commands.executeCommand<{ text: string }>('twining.copyMcpConfiguration', { client: 'codex' });
    assert.match(result.text, /^\[mcp_servers\.twining\]\ncommand = ".+"\nargs = \[".+", "mcp", "--dir", ".+"\]\n/);
    assert.strictEqual(await vscode.env.clipboard.readText(), result.text);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('twining.copyMcpConfiguration', { client: 'emacs' })), /client must be one of/);
  });

  it('Add Agent Instructions writes the AGENTS.md section and the handoff prompt file, keeping what was there', async () => {
    const agents = path.join(firstFolder(), 'AGENTS.md');
    const prompt = path.join(firstFolder(), '.github', 'prompts', 'twining-handoff.prompt.md');
    created.push(agents, path.join(firstFolder(), '.github'));
    fs.writeFileSync(agents, '# Agents\n\nRun the tests with npm test.\n');
    const result = await vscode.commands.executeCommand<{ written: string[] }>('twining.addAgentInstructions', { target: 'agents' });
    assert.deepStrictEqual(result.written, ['AGENTS.md', '.github/prompts/twining-handoff.prompt.md']);
    const text = fs.readFileSync(agents, 'utf8');
    assert.ok(text.startsWith('# Agents\n\nRun the tests with npm test.\n\n<!-- BEGIN twining'), text.slice(0, 200));
    assert.match(text, /twining_register[\s\S]*twining_handoff[\s\S]*<!-- END twining -->\n$/);
    assert.match(fs.readFileSync(prompt, 'utf8'), /^---\nname: twining-handoff\n/);
    const before = [fs.readFileSync(agents), fs.readFileSync(prompt)];
    const again = await vscode.commands.executeCommand<{ written: string[] }>('twining.addAgentInstructions', { target: 'agents' });
    assert.deepStrictEqual(again.written, [], 'idempotent: nothing to write the second time');
    assert.deepStrictEqual([fs.readFileSync(agents), fs.readFileSync(prompt)], before);
    assert.strictEqual(fs.readdirSync(firstFolder()).filter(f => f.endsWith('.tmp')).length, 0);
  });

  it('Add Agent Instructions into a new .instructions.md file; broken markers are refused and the file is left alone', async () => {
    const file = path.join(firstFolder(), '.github', 'instructions', 'twining.instructions.md');
    const result = await vscode.commands.executeCommand<{ written: string[] }>('twining.addAgentInstructions', { target: 'instructions-file', prompt: false });
    assert.deepStrictEqual(result.written, ['.github/instructions/twining.instructions.md']);
    assert.match(fs.readFileSync(file, 'utf8'), /^---\ndescription: .+\napplyTo: '\*\*'\n---\n/);
    const copilot = path.join(firstFolder(), '.github', 'copilot-instructions.md');
    const broken = 'Mine.\n<!-- BEGIN twining -->\nhalf a section\n';
    fs.writeFileSync(copilot, broken);
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('twining.addAgentInstructions', { target: 'copilot' })),
      /copilot-instructions\.md: its Twining section markers are broken .* nothing was written/,
    );
    assert.strictEqual(fs.readFileSync(copilot, 'utf8'), broken);
    assert.ok(!fs.existsSync(path.join(twiningDir(), '..', '.github', 'copilot-instructions.md.tmp')));
    assert.ok(readJson(path.join(twiningDir(), 'agents', 'registry.json')), '.twining/ untouched and readable');
  });

  it("VS Code's chat has the contributed instructions and handoff prompt file of the extension", async () => {
    // An internal command of VS Code 1.139 (the prompt files service's list of extension files).
    const listed = await vscode.commands.executeCommand<{ uri: { path: string }; type: string; extensionId?: string }[]>('_listExtensionPromptFiles');
    const ours = listed
      .filter(f => f.uri.path.includes('/media/chat/'))
      .map(f => `${f.type} ${path.basename(f.uri.path)}`)
      .sort();
    assert.deepStrictEqual(ours, ['instructions twining.instructions.md', 'prompt twining-handoff.prompt.md']);
  });
});

describeIn(['multi'], 'MCP server definitions in a multi-root workspace', () => {
  after(() => setProvider(undefined));

  it('one server per folder with .twining/, each named for its folder and serving only that folder', async () => {
    const api = await twining();
    await api.whenIdle();
    const provider = api.mcpProvider!;
    const token = new vscode.CancellationTokenSource().token;
    await setProvider('mcpServer');
    const folders = [...api.folders.keys()];
    const servers = (await waitFor(
      async () => {
        const offered = await provider.provideMcpServerDefinitions(token);
        return offered.length === folders.length ? offered : false;
      },
      { what: `${folders.length} servers` },
    )) as vscode.McpStdioServerDefinition[];
    assert.deepStrictEqual(
      servers.map(s => [s.label, s.args[3]]),
      folders.map(f => [`Twining: ${path.basename(f)}`, f]),
    );
    const projects = [];
    for (const server of servers) projects.push((await startAndAsk({ command: server.command, args: server.args, env: server.env })).status.project);
    assert.deepStrictEqual(
      projects,
      folders.map(f => path.basename(f)),
    );
  });
});

describeIn(['untrusted'], 'MCP server and agent instructions in an untrusted workspace', () => {
  after(() => setProvider(undefined));

  it('offers no MCP server even with twining.tools.provider = mcpServer, and writes no instructions', async () => {
    const api = await twining();
    await api.whenIdle();
    await setProvider('mcpServer');
    await waitFor(() => vscode.workspace.getConfiguration('twining').get('tools.provider') === 'mcpServer', { what: 'the setting' });
    assert.deepStrictEqual(await api.mcpProvider!.provideMcpServerDefinitions(new vscode.CancellationTokenSource().token), []);
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('twining.addAgentInstructions', { target: 'agents' })),
      /read-only in an untrusted workspace/,
    );
    assert.ok(!fs.existsSync(path.join(firstFolder(), 'AGENTS.md')));
  });
});
