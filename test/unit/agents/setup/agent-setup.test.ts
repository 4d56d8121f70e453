/**
 * Setting other agents up: the launch of `twining mcp` that VS Code's MCP provider and every client
 * snippet share (and that the snippets really start a working server), the Twining section of agent
 * instructions (idempotent, nothing else in the file touched, broken markers refused), the handoff
 * prompt file, and the division of the tools between language model tools and the MCP server in
 * package.json.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { execFile } from 'child_process';
import { promisify } from 'util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OPERATION_NAMES, RESULT_STATUSES } from '../../../../src/core/schemas/schemas';
import { CLIENTS, MCP_CLIENTS, clientSnippet, launchFromSnippet, mcpLaunch } from '../../../../src/agents/setup/client-config';
import {
  BEGIN_MARK,
  END_MARK,
  HANDOFF_RESULT_STATUSES,
  MarkerError,
  handoffPrompt,
  instructionsSection,
  withSection,
} from '../../../../src/agents/setup/agent-instructions';
import { INSTRUCTIONS } from '../../../../src/mcp/instructions';
import { chatFiles } from '../../../../src/extension/manifest';
import { LM_TOOLS_WHEN, MCP_PROVIDER_ID, TOOLS_PROVIDERS, TOOLS_SETTING } from '../../../../src/extension/tools/tool-division';
import { toolList } from '../../../../src/mcp/server';
import { CLI_JS, fixtureProject } from '../../../support/tmp';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const node = { execPath: '/opt/node/bin/node', electron: false };
const electron = { execPath: 'C:\\Program Files\\Microsoft VS Code\\Code.exe', electron: true };

describe('launching twining mcp', () => {
  test('node runs the CLI as it is; Electron (desktop VS Code) only with ELECTRON_RUN_AS_NODE=1', () => {
    assert.deepEqual(mcpLaunch(node, '/ext/dist/cli.js', '/work/p'), {
      command: '/opt/node/bin/node',
      args: ['/ext/dist/cli.js', 'mcp', '--dir', '/work/p'],
      env: {},
    });
    assert.deepEqual(mcpLaunch(electron, 'C:\\ext\\dist\\cli.js', 'C:\\p').env, { ELECTRON_RUN_AS_NODE: '1' });
  });

  test('each client gets its own format around the same command, arguments and environment', () => {
    const launch = mcpLaunch(electron, 'C:\\ext\\dist\\cli.js', 'C:\\work\\my "p"');
    for (const client of MCP_CLIENTS) {
      const text = clientSnippet(client, launch);
      assert.ok(text.endsWith('\n'), client);
      if (client === 'codex') continue;
      assert.deepEqual(launchFromSnippet(client, text), launch, client);
    }
    assert.ok(JSON.parse(clientSnippet('claude-code', launch)).mcpServers.twining.type === 'stdio');
    assert.ok(JSON.parse(clientSnippet('vscode', launch)).servers.twining.type === 'stdio');
    assert.equal(
      clientSnippet('codex', launch),
      [
        '[mcp_servers.twining]',
        'command = "C:\\\\Program Files\\\\Microsoft VS Code\\\\Code.exe"',
        'args = ["C:\\\\ext\\\\dist\\\\cli.js", "mcp", "--dir", "C:\\\\work\\\\my \\"p\\""]',
        'env = { ELECTRON_RUN_AS_NODE = "1" }',
        '',
      ].join('\n'),
    );
    // Without an environment to set, no env key at all.
    assert.equal(JSON.parse(clientSnippet('cursor', mcpLaunch(node, '/c.js', '/p'))).mcpServers.twining.env, undefined);
    assert.ok(!clientSnippet('codex', mcpLaunch(node, '/c.js', '/p')).includes('env'));
    assert.deepEqual(Object.keys(CLIENTS), [...MCP_CLIENTS]);
  });

  test("the Claude Code snippet's command starts a server that lists the tools and answers twining_status", async () => {
    const root = fixtureProject();
    const launch = launchFromSnippet('claude-code', clientSnippet('claude-code', mcpLaunch({ execPath: process.execPath, electron: false }, CLI_JS, root)));
    const transport = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: { ...(process.env as Record<string, string>), ...launch.env },
    });
    const client = new Client({ name: 'snippet-check', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map(t => t.name).sort(),
        toolList()
          .map(t => t.name)
          .sort(),
      );
      const result = (await client.callTool({ name: 'twining_status', arguments: {} })) as { content: { text: string }[]; isError?: boolean };
      assert.notEqual(result.isError, true);
      const status = JSON.parse(result.content[0].text);
      assert.ok(status.registered_agents > 0, `the fixture's agents are counted: ${result.content[0].text}`);
    } finally {
      await client.close();
    }
  });
});

describe('twining mcp-config', () => {
  test('prints the snippet of the client for this CLI, with absolute paths; a bad client exits 1 naming the choices', async () => {
    const root = fixtureProject();
    const { stdout } = await run(process.execPath, [CLI_JS, 'mcp-config', 'codex', '--dir', root]);
    assert.equal(stdout, clientSnippet('codex', mcpLaunch({ execPath: process.execPath, electron: false }, CLI_JS, root)));
    const json = await run(process.execPath, [CLI_JS, 'mcp-config', 'cursor'], { cwd: root });
    assert.deepEqual(launchFromSnippet('cursor', json.stdout).args, [CLI_JS, 'mcp', '--dir', root]);
    await assert.rejects(run(process.execPath, [CLI_JS, 'mcp-config', 'emacs']), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 1);
      assert.match(e.stderr, /unknown client "emacs"; usage: twining mcp-config <claude-code\|cursor\|codex\|vscode\|generic>/);
      return true;
    });
  });
});

describe('agent instructions', () => {
  const section = instructionsSection();

  test('the section is the MCP server instructions between markers; every tool it names exists', () => {
    assert.ok(section.startsWith(BEGIN_MARK) && section.endsWith(END_MARK));
    assert.ok(section.includes(INSTRUCTIONS));
    const tools = new Set(OPERATION_NAMES.map(op => `twining_${op}`));
    for (const text of [section, handoffPrompt()]) {
      const named = [...text.matchAll(/twining_[a-z_]+/g)].map(m => m[0]);
      assert.ok(named.length >= 4, `${named.length} tool names`);
      assert.deepEqual(
        named.filter(n => !tools.has(n)),
        [],
      );
    }
  });

  test('a new file is the section; an .instructions.md file starts with applyTo front matter', () => {
    assert.equal(withSection('agents', undefined), section + '\n');
    assert.equal(withSection('copilot', ''), section + '\n');
    const file = withSection('instructions-file', undefined);
    assert.match(file, /^---\ndescription: '[^'\n]+'\napplyTo: '\*\*'\n---\n\n<!-- BEGIN twining/);
  });

  test('appended once after what the file holds, then replaced in place: running again changes nothing', () => {
    const before = '# Agents\n\nUse pnpm.\n';
    const once = withSection('agents', before);
    assert.equal(once, `${before}\n${section}\n`);
    assert.equal(withSection('agents', once), once);
    const edited = once.replace('## Twining: coordinating', '## Twining (edited by hand): coordinating') + '\n## Later\n\nKept.\n';
    const again = withSection('agents', edited);
    assert.equal(again, `${before}\n${section}\n\n## Later\n\nKept.\n`);
    assert.equal(withSection('agents', 'no newline at end'), `no newline at end\n\n${section}\n`);
  });

  test('CRLF files keep CRLF; broken markers are refused, naming the file, and nothing is produced', () => {
    const crlf = withSection('copilot', 'Line one\r\n');
    assert.ok(!/[^\r]\n/.test(crlf), 'every line ends in CRLF');
    assert.equal(withSection('copilot', crlf), crlf);
    for (const broken of [`${BEGIN_MARK}\nhalf`, `x\n${END_MARK}\n${BEGIN_MARK}\n`, `${section}\n${section}\n`]) {
      assert.throws(
        () => withSection('agents', broken, 'AGENTS.md'),
        (e: Error) => e instanceof MarkerError && /^AGENTS\.md: .*markers are broken.*nothing was written/.test(e.message),
      );
    }
  });

  test('the handoff prompt file is an agent-mode prompt naming the result statuses of the schema', () => {
    assert.deepEqual([...HANDOFF_RESULT_STATUSES], [...RESULT_STATUSES]);
    const prompt = handoffPrompt();
    assert.match(prompt, /^---\nname: twining-handoff\ndescription: '[^'\n]+'\nargument-hint: '[^'\n]+'\nagent: agent\n---\n/);
    for (const status of RESULT_STATUSES) assert.ok(prompt.includes(`"${status}"`), status);
  });
});

describe('each tool once (package.json)', () => {
  const contributes = pkg.contributes;

  test('every language model tool is hidden while the MCP server has the tools', () => {
    assert.ok(contributes.languageModelTools.length >= 14);
    for (const tool of contributes.languageModelTools) assert.equal(tool.when, LM_TOOLS_WHEN, tool.name);
    assert.equal(LM_TOOLS_WHEN, "config.twining.tools.provider != 'mcpServer'");
  });

  test('the setting offers exactly the two providers, language model tools by default; the MCP provider is contributed', () => {
    const setting = contributes.configuration.properties[`twining.${TOOLS_SETTING}`];
    assert.deepEqual(setting.enum, [...TOOLS_PROVIDERS]);
    assert.equal(setting.default, 'languageModelTools');
    assert.equal(setting.enumDescriptions.length, TOOLS_PROVIDERS.length);
    assert.deepEqual(contributes.mcpServerDefinitionProviders, [{ id: MCP_PROVIDER_ID, label: 'Twining' }]);
  });

  test('the chat instructions and the handoff prompt file VS Code gets from the extension are the generated ones, for Twining folders only', () => {
    for (const [file, text] of Object.entries(chatFiles())) {
      assert.equal(fs.readFileSync(path.join(ROOT, file), 'utf8'), text, `${file} is out of date: run node scripts/sync-manifest.js`);
    }
    assert.deepEqual(contributes.chatInstructions, [{ path: './media/chat/twining.instructions.md', when: 'twining.hasFolder' }]);
    assert.deepEqual(contributes.chatPromptFiles, [{ path: './media/chat/twining-handoff.prompt.md', when: 'twining.hasFolder' }]);
    const packaged = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8');
    for (const file of Object.keys(chatFiles())) assert.ok(packaged.includes(`!${file}`), `${file} is in the .vsix`);
  });
});
