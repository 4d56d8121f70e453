/**
 * PostToolUse keeps the agent's liveness where every reader sees it (the registry's
 * `last_active`, which `twining agents` / twining_agents and discover read), at most once per
 * throttle period; and a hook run on a broken folder never blocks the agent and says why on
 * standard error. Each hook is the command `twining setup` wrote, run through a shell with the
 * host's JSON on standard input.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { CLI_JS, tempProject } from '../../../support/tmp';
import { claude, vscode } from '../../../support/hook-inputs';

const cli = (root: string, ...args: string[]) => spawnSync(process.execPath, [CLI_JS, ...args], { cwd: root, encoding: 'utf8' });
const sh = (cwd: string, command: string, input: unknown) => spawnSync('sh', ['-c', command], { cwd, input: JSON.stringify(input), encoding: 'utf8' });

function wired(): { root: string; vs: (event: string) => string; cc: (event: string) => string } {
  const root = tempProject('liveness');
  const r = cli(root, 'setup', '--yes');
  assert.equal(r.status, 0, r.stderr);
  const vsHooks = JSON.parse(fs.readFileSync(path.join(root, '.github', 'hooks', 'twining.json'), 'utf8')).hooks;
  const ccHooks = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8')).hooks;
  return {
    root,
    vs: event => vsHooks[event][0].command,
    cc: event => ccHooks[event].at(-1).hooks[0].command.replace('${CLAUDE_PROJECT_DIR:-.}', root),
  };
}

describe('hooks as the hosts run them: liveness and broken folders', () => {
  test("PostToolUse refreshes the registry's last_active, not on every call, and twining agents sees it", () => {
    const { root, cc } = wired();
    const registry = path.join(root, '.twining', 'agents', 'registry.json');
    // An agent registered long ago: idle (or gone) for every reader.
    const long = '2026-01-01T00:00:00.000Z';
    assert.equal(cli(root, 'register', '--agent-id', 'claude-code-feedface', '--now', long).status, 0);
    const agentsBefore = JSON.parse(cli(root, 'agents', '--json').stdout);
    assert.notEqual(agentsBefore.agents.find((a: { agent_id: string }) => a.agent_id === 'claude-code-feedface').liveness, 'active');

    const edit = {
      tool_name: 'Edit',
      tool_input: { file_path: path.join(root, 'README.md'), old_string: 'a', new_string: 'b' },
      tool_use_id: 'u1',
      tool_response: {},
    };
    const first = sh(root, cc('PostToolUse'), claude(root, 'feedface-0000', 'PostToolUse', edit));
    assert.equal(first.status, 0, first.stderr);
    const seen = JSON.parse(fs.readFileSync(registry, 'utf8')).find((a: { agent_id: string }) => a.agent_id === 'claude-code-feedface');
    assert.ok(Date.now() - Date.parse(seen.last_active) < 60_000, `last_active ${seen.last_active} is now`);
    const agents = JSON.parse(cli(root, 'agents', '--json').stdout);
    assert.equal(agents.agents.find((a: { agent_id: string }) => a.agent_id === 'claude-code-feedface').liveness, 'active');

    // The next calls within the throttle period do not write the registry.
    const bytes = fs.readFileSync(registry, 'utf8');
    const mtime = fs.statSync(registry).mtimeMs;
    for (let i = 0; i < 3; i++) assert.equal(sh(root, cc('PostToolUse'), claude(root, 'feedface-0000', 'PostToolUse', edit)).status, 0);
    assert.equal(fs.readFileSync(registry, 'utf8'), bytes);
    assert.equal(fs.statSync(registry).mtimeMs, mtime);
  });

  test('a broken folder: .twining is a file, or its configuration unreadable: the hook never blocks (exit 1 or a warning) and says why', () => {
    const { root, vs, cc } = wired();
    fs.rmSync(path.join(root, '.twining'), { recursive: true });
    fs.writeFileSync(path.join(root, '.twining'), 'not a folder\n');
    const pre = sh(
      root,
      vs('PreToolUse'),
      vscode(root, 'broken-1', 'PreToolUse', { tool_name: 'replace_string_in_file', tool_input: { filePath: path.join(root, 'a.ts') } }),
    );
    assert.equal(pre.status, 1, 'exit 1: a non-blocking error for both hosts (exit 2 would block)');
    assert.equal(pre.stdout, '');
    assert.match(
      pre.stderr,
      /twining hook PreToolUse: .*\.twining is a file, so Twining has no record here; move it aside and run `twining init`.*the agent goes ahead without it/,
    );
    const start = sh(root, cc('SessionStart'), claude(root, 'broken-2', 'SessionStart', { source: 'startup' }));
    assert.equal(start.status, 1);
    assert.match(start.stderr, /\.twining is a file/);
    assert.equal(fs.readFileSync(path.join(root, '.twining'), 'utf8'), 'not a folder\n', 'nothing was written');

    // Unreadable configuration: a folder where the file should be.
    fs.rmSync(path.join(root, '.twining'));
    assert.equal(cli(root, 'init').status, 0);
    fs.rmSync(path.join(root, '.twining', 'config.yml'));
    fs.mkdirSync(path.join(root, '.twining', 'config.yml'));
    // The engine goes on with the default configuration; the hook says so on standard error and does not block.
    const post = sh(
      root,
      cc('PostToolUse'),
      claude(root, 'broken-3', 'PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'a.ts') }, tool_use_id: 'u', tool_response: {} }),
    );
    assert.equal(post.status, 0, post.stderr);
    assert.match(post.stderr, /twining: warning: .*config\.yml is a directory, not a regular file; using the default configuration/);
  });
});
