// *Twining: Set Up Agents* in the real extension host: one command wires VS Code's agents and
// Claude Code (hooks, MCP server, instructions) with commands that name no path of this machine,
// changes nothing the second time, and takes out exactly what it wrote.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder } from './helpers';

type Result = { written: string[]; hosts: string[]; removed: boolean };

describeIn(['single'], 'Set Up Agents', () => {
  it('wires the hosts in one step, names no machine path, is idempotent and removable', async () => {
    const root = firstFolder();
    const result = await vscode.commands.executeCommand<Result>('twining.setUpAgents', { hosts: ['vscode', 'claude-code'] });
    try {
      for (const f of ['.github/hooks/twining.json', '.claude/settings.json', '.mcp.json', 'AGENTS.md', 'CLAUDE.md', '.agents/twining/hook.js'])
        assert.ok(result.written.includes(f), `${f} written (${result.written.join(', ')})`);
      const hooks = fs.readFileSync(path.join(root, '.github', 'hooks', 'twining.json'), 'utf8');
      assert.match(hooks, /"command": "node \.agents\/twining\/hook\.js PreToolUse --host vscode"/);
      for (const f of result.written) {
        const text = fs.readFileSync(path.join(root, f), 'utf8');
        assert.ok(!text.includes(root) && !text.includes(path.dirname(__dirname)), `${f} names no path of this machine`);
      }
      const again = await vscode.commands.executeCommand<Result>('twining.setUpAgents', { hosts: ['vscode', 'claude-code'] });
      assert.deepStrictEqual(again.written, [], 'nothing to write the second time');
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('twining.setUpAgents', { hosts: ['emacs'] })), /hosts must be a list of/);
    } finally {
      const removed = await vscode.commands.executeCommand<Result>('twining.setUpAgents', { remove: true });
      assert.ok(removed.removed);
    }
    for (const f of ['.github/hooks/twining.json', '.claude', '.mcp.json', 'CLAUDE.md', '.agents'])
      assert.ok(!fs.existsSync(path.join(root, f)), `${f} taken out`);
  });
});
