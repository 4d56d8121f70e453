/**
 * `twining hooks-setup`: the hooks written for VS Code's agents and Claude Code, merged into what
 * is there, idempotent, removable; and the command it writes, run through a shell as a host runs
 * it, answers a SessionStart with the briefing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { CLI_JS, fixtureProject } from '../../../support/tmp';
import { lineDiff, mergeClaudeHooks } from '../../../../src/agents/setup/hooks-config';

const cli = (root: string, ...args: string[]) => spawnSync(process.execPath, [CLI_JS, ...args], { cwd: root, encoding: 'utf8' });
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('twining hooks-setup', () => {
  test("writes both hosts' hooks, keeps what was there, changes nothing the second time, and removes only its own", () => {
    const root = fixtureProject();
    const claudeFile = path.join(root, '.claude', 'settings.json');
    const vscodeFile = path.join(root, '.github', 'hooks', 'twining.json');
    fs.mkdirSync(path.dirname(claudeFile), { recursive: true });
    const mine = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: { PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'npx prettier --write' }] }] },
    };
    fs.writeFileSync(claudeFile, JSON.stringify(mine, null, 2) + '\n');

    const dry = cli(root, 'hooks-setup', '--dry-run');
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /Would create \.github\/hooks\/twining\.json/);
    assert.match(dry.stdout, /Would change \.claude\/settings\.json/);
    assert.ok(!fs.existsSync(vscodeFile), 'a dry run writes nothing');

    const first = cli(root, 'hooks-setup');
    assert.equal(first.status, 0, first.stderr);
    const vs = readJson(vscodeFile);
    assert.deepEqual(Object.keys(vs.hooks), ['SessionStart', 'PreToolUse', 'PostToolUse', 'Stop', 'SubagentStop', 'UserPromptSubmit']);
    for (const [event, list] of Object.entries(vs.hooks as Record<string, { type: string; command: string }[]>)) {
      assert.equal(list.length, 1);
      assert.equal(list[0].type, 'command');
      assert.match(list[0].command, new RegExp(`hook\\.js ${event} --host vscode$`));
    }
    const cc = readJson(claudeFile);
    assert.deepEqual(cc.permissions, mine.permissions);
    assert.equal(cc.hooks.PostToolUse[0].hooks[0].command, 'npx prettier --write', "the user's hook stays first");
    assert.match(cc.hooks.PostToolUse[1].hooks[0].command, /hook\.js PostToolUse --host claude-code$/);
    assert.equal(cc.hooks.PreToolUse[0].matcher, 'Edit|Write|MultiEdit|NotebookEdit');
    assert.equal(cc.hooks.PostToolUse[1].matcher, undefined, 'every tool call keeps the session live on the board');
    assert.equal(cc.hooks.Notification[0].matcher, 'permission_prompt|idle_prompt|elicitation_dialog');
    assert.match(cc.hooks.UserPromptSubmit[0].hooks[0].command, /hook\.js UserPromptSubmit --host claude-code$/);

    const bytes = [fs.readFileSync(vscodeFile, 'utf8'), fs.readFileSync(claudeFile, 'utf8')];
    const again = cli(root, 'hooks-setup');
    assert.match(again.stdout, /already set up; nothing changed/);
    assert.deepEqual([fs.readFileSync(vscodeFile, 'utf8'), fs.readFileSync(claudeFile, 'utf8')], bytes);

    const removed = cli(root, 'hooks-setup', '--remove');
    assert.equal(removed.status, 0, removed.stderr);
    assert.ok(!fs.existsSync(vscodeFile));
    assert.deepEqual(readJson(claudeFile), mine);
  });

  test("the command it writes, run by a shell with VS Code's SessionStart input, answers with the briefing", () => {
    const root = fixtureProject();
    assert.equal(cli(root, 'hooks-setup').status, 0);
    const command: string = readJson(path.join(root, '.github', 'hooks', 'twining.json')).hooks.SessionStart[0].command;
    const input = {
      timestamp: new Date().toISOString(),
      cwd: root,
      sessionId: 'c0ffee00-1',
      hookEventName: 'SessionStart',
      transcript_path: '/tmp/t.json',
      source: 'new',
    };
    const r = spawnSync('sh', ['-c', command], { cwd: root, input: JSON.stringify(input), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const answer = JSON.parse(r.stdout);
    assert.equal(answer.hookSpecificOutput.hookEventName, 'SessionStart');
    assert.match(answer.hookSpecificOutput.additionalContext, /Twining briefing for copilot-c0ffee00/);
    // The Claude Code copy, given VS Code's input, stays silent: VS Code runs the hook once.
    const claudeCommand: string = readJson(path.join(root, '.claude', 'settings.json')).hooks.SessionStart[0].hooks[0].command;
    const twice = spawnSync('sh', ['-c', claudeCommand], { cwd: root, input: JSON.stringify(input), encoding: 'utf8' });
    assert.equal(twice.status, 0);
    assert.equal(twice.stdout, '');
  });

  test('a settings file that is not JSON is left as it is, with a clear error', () => {
    const root = fixtureProject();
    fs.mkdirSync(path.join(root, '.claude'));
    fs.writeFileSync(path.join(root, '.claude', 'settings.json'), '{ oops');
    const r = cli(root, 'hooks-setup');
    assert.equal(r.status, 3);
    assert.match(r.stderr, /settings\.json is not valid JSON.*nothing was written/);
    assert.equal(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8'), '{ oops');
    assert.ok(!fs.existsSync(path.join(root, '.github', 'hooks', 'twining.json')));
  });

  test('merging and diffing are pure', () => {
    assert.deepEqual(mergeClaudeHooks({ model: 'x' }, undefined), { model: 'x' });
    assert.equal(lineDiff('a\nb\n', 'a\nc\n'), '  a\n- b\n+ c');
  });
});
