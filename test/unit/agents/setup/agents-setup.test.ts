/**
 * `twining setup`: in a fresh git repository, then again (nothing changes), `--check` before and
 * after a part is taken away, `--remove`; the files it writes hold no path of this machine and no
 * version, and the hook commands they hold answer PreToolUse from a copy of the repository at
 * another path (a real process through a shell, JSON on standard input, as the hosts run them).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { CLI_JS, tempProject } from '../../../support/tmp';
import { claude, vscode } from '../../../support/hook-inputs';
import { userConfigDir, launcherFiles } from '../../../../src/agents/setup/launcher';
import { withCodexServer, withoutSection } from '../../../../src/agents/setup/setup-plan';
import { version } from '../../../../package.json';

const cli = (root: string, ...args: string[]) => spawnSync(process.execPath, [CLI_JS, ...args], { cwd: root, encoding: 'utf8' });
const sh = (cwd: string, command: string, input: unknown, env: NodeJS.ProcessEnv = process.env) =>
  spawnSync('sh', ['-c', command], { cwd, input: JSON.stringify(input), encoding: 'utf8', env });

function gitRepo(): string {
  const root = tempProject('shop');
  assert.equal(spawnSync('git', ['init', '-q'], { cwd: root }).status, 0);
  fs.writeFileSync(path.join(root, 'README.md'), '# shop\n');
  return root;
}

/** Every file under root except .git/ and .twining/, project-relative, with its text. */
function written(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.name === '.git' || (dir === root && e.name === '.twining')) continue;
      if (e.isDirectory()) walk(full);
      else out.set(path.relative(root, full), fs.readFileSync(full, 'utf8'));
    }
  };
  walk(root);
  return out;
}

describe('twining setup', () => {
  test('wires a fresh git repository, changes nothing the second time, and --check follows what is there', () => {
    const root = gitRepo();
    const before = cli(root, 'setup', '--check');
    assert.equal(before.status, 1, before.stdout);
    assert.match(before.stdout, /hooks\s+missing\s+\.github\/hooks\/twining\.json/);
    assert.match(before.stdout, /\.twining\/\s+missing/);

    const preview = cli(root, 'setup');
    assert.equal(preview.status, 0, preview.stderr);
    assert.match(preview.stdout, /No agent host's files found; setting up for VS Code's agents and Copilot, Claude Code/);
    assert.match(preview.stdout, /create \.claude\/settings\.json:\n\+ \{/);
    assert.match(preview.stdout, /Nothing was written: run again with --yes/);
    assert.deepEqual([...written(root).keys()], ['README.md'], 'without --yes and without a terminal nothing is written');

    const first = cli(root, 'setup', '--yes');
    assert.equal(first.status, 0, first.stderr);
    const files = written(root);
    for (const f of [
      '.github/hooks/twining.json',
      '.claude/settings.json',
      '.mcp.json',
      'AGENTS.md',
      'CLAUDE.md',
      '.agents/twining/hook.js',
      '.agents/twining/cli.js',
    ])
      assert.ok(files.has(f), `${f} written`);
    assert.ok(fs.statSync(path.join(root, '.twining')).isDirectory(), 'setup initialises .twining/');

    const again = cli(root, 'setup', '--yes');
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /already set up for .*; nothing changed/);
    assert.deepEqual(written(root), files, 'the second run wrote nothing');

    const check = cli(root, 'setup', '--check');
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /Claude Code:\n {2}mcp\s+wired\s+\.mcp\.json/);
    assert.match(check.stdout, /engine\s+wired\s+.*\(per user, not in the project\)/);
    assert.match(check.stdout, /Hook run \(VS Code, PreToolUse on README\.md, as the host runs it\): answered in \d+ ms \(exit 0/);
    assert.match(check.stdout, /Everything is wired\./);

    // A part taken away: --check names it and fails; setup puts back exactly it.
    fs.rmSync(path.join(root, '.claude', 'settings.json'));
    const broken = cli(root, 'setup', '--check');
    assert.equal(broken.status, 1);
    assert.match(broken.stdout, /Claude Code:[\s\S]*hooks\s+missing\s+\.claude\/settings\.json lacks/);
    assert.match(broken.stdout, /VS Code's agents and Copilot:\n {2}mcp\s+n\/a[\s\S]*hooks\s+wired/);
    const repaired = cli(root, 'setup', '--yes');
    assert.match(repaired.stdout, /wrote \.claude\/settings\.json\./);
    assert.deepEqual(written(root), files);

    // The per-user file gone: the launcher cannot find Twining, and --check says where it looked.
    const engine = path.join(userConfigDir(), 'engine');
    const saved = fs.readFileSync(engine, 'utf8');
    fs.rmSync(engine);
    try {
      const noEngine = cli(root, 'setup', '--check');
      assert.equal(noEngine.status, 1);
      assert.match(noEngine.stdout, /engine\s+missing\s+.*engine does not exist/);
      assert.match(noEngine.stdout, /FAILED \(exit 1\).*no Twining installation found for this user/);
    } finally {
      fs.writeFileSync(engine, saved);
    }

    const removed = cli(root, 'setup', '--remove', '--yes');
    assert.equal(removed.status, 0, removed.stderr);
    assert.deepEqual([...written(root).keys()], ['README.md'], 'remove takes out every file setup created');
    assert.ok(!fs.existsSync(path.join(root, '.agents')));
    assert.match(cli(root, 'setup', '--remove', '--yes').stdout, /not set up here; nothing to remove/);
  });

  test('merges into what is there: other servers, hooks, settings and text stay; remove leaves them as they were', () => {
    const root = gitRepo();
    fs.mkdirSync(path.join(root, '.cursor'));
    fs.mkdirSync(path.join(root, '.codex'));
    const cursorMcp = { mcpServers: { db: { command: 'pg-mcp', args: ['--ro'] } } };
    fs.writeFileSync(path.join(root, '.cursor', 'mcp.json'), JSON.stringify(cursorMcp, null, 2) + '\n');
    const toml = 'model = "o4"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n';
    fs.writeFileSync(path.join(root, '.codex', 'config.toml'), toml);
    const agentsMd = '# Shop\r\n\r\nUse pnpm.\r\n';
    fs.writeFileSync(path.join(root, 'AGENTS.md'), agentsMd);
    const r = cli(root, 'setup', '--yes');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Agent hosts found: Cursor, Codex\./);
    const cursor = JSON.parse(fs.readFileSync(path.join(root, '.cursor', 'mcp.json'), 'utf8'));
    assert.deepEqual(cursor.mcpServers.db, cursorMcp.mcpServers.db);
    assert.deepEqual(cursor.mcpServers.twining, { command: 'node', args: ['${workspaceFolder}/.agents/twining/cli.js', 'mcp'] });
    const codex = fs.readFileSync(path.join(root, '.codex', 'config.toml'), 'utf8');
    assert.ok(codex.startsWith(toml), 'the TOML before stays byte for byte');
    assert.match(codex, /\[mcp_servers\.twining\]\ncommand = "node"\nargs = \[".agents\/twining\/cli\.js", "mcp"\]/);
    const md = fs.readFileSync(path.join(root, 'AGENTS.md'), 'utf8');
    assert.ok(md.startsWith(agentsMd) && md.includes('\r\n<!-- BEGIN twining'), 'CRLF kept, section appended');
    const check = cli(root, 'setup', '--check');
    assert.match(check.stdout, /Cursor:\n {2}mcp\s+wired[\s\S]*hooks\s+n\/a\s+Cursor's hook input/);
    assert.match(check.stdout, /Codex:\n {2}mcp\s+wired/);

    // The MCP server the committed configuration names starts and answers (a real MCP handshake).
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const server = spawnSync('node', [...cursor.mcpServers.twining.args.map((a: string) => a.replace('${workspaceFolder}', root))], {
      cwd: root,
      input: JSON.stringify(init) + '\n',
      encoding: 'utf8',
      timeout: 20000,
    });
    assert.match(server.stdout, /"serverInfo":\{"name":"twining"/, server.stderr);

    assert.equal(cli(root, 'setup', '--remove', '--yes').status, 0);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(root, '.cursor', 'mcp.json'), 'utf8')), cursorMcp);
    assert.equal(fs.readFileSync(path.join(root, '.codex', 'config.toml'), 'utf8'), toml);
    assert.equal(fs.readFileSync(path.join(root, 'AGENTS.md'), 'utf8'), agentsMd);
  });

  test('the written files hold no machine path and no version; their hook commands answer PreToolUse from a clone at another path', () => {
    const root = gitRepo();
    assert.equal(cli(root, 'setup', '--yes', '--host', 'all').status, 0);
    const home = os.homedir();
    for (const [file, text] of written(root)) {
      for (const bad of [root, home, path.dirname(CLI_JS), os.tmpdir(), process.execPath])
        assert.ok(!text.includes(bad), `${file} names a path of this machine (${bad})`);
      // Claude Code's project folder variable is the documented relative form; anything else starting with / is absolute.
      const relativeForms = text.replace(/<!--[\s\S]*?-->/g, '').replace(/\\?"\$\{CLAUDE_PROJECT_DIR:-\.\}\\?"\//g, '');
      assert.ok(!/(^|["'\s=])(\/(?!\/)[\w.-]+\/|[A-Za-z]:\\)/m.test(relativeForms), `${file} holds an absolute path`);
      assert.ok(!text.includes(version) && !/twining-\d+\.\d+/.test(text), `${file} names a version`);
    }
    // A teammate's clone: the files committed, cloned to another path.
    const git = (cwd: string, ...args: string[]) =>
      spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
    assert.equal(git(root, 'add', '-A').status, 0);
    assert.equal(git(root, 'commit', '-q', '-m', 'wire agents').status, 0);
    const clone = path.join(tempProject('elsewhere'), 'shop-clone');
    assert.equal(git(root, 'clone', '-q', root, clone).status, 0);
    assert.deepEqual(written(clone), written(root), 'the clone holds the same files');
    const claimed = cli(clone, 'claim', '--agent-id', 'alice', '--paths', 'README.md', '--reason', 'rewriting the intro');
    assert.equal(claimed.status, 0, claimed.stderr);
    const vsCommand: string = JSON.parse(fs.readFileSync(path.join(clone, '.github', 'hooks', 'twining.json'), 'utf8')).hooks.PreToolUse[0].command;
    const edit = { tool_name: 'replace_string_in_file', tool_input: { filePath: path.join(clone, 'README.md'), oldString: '#', newString: '##' } };
    const vs = sh(clone, vsCommand, vscode(clone, 'vs-clone-1', 'PreToolUse', edit));
    assert.equal(vs.status, 0, vs.stderr);
    const vsAnswer = JSON.parse(vs.stdout);
    assert.equal(vsAnswer.hookSpecificOutput.permissionDecision, 'ask', 'the claim of another agent is seen from the clone');
    assert.match(vsAnswer.hookSpecificOutput.permissionDecisionReason, /alice/);
    // Claude Code's command, run from a subfolder of the clone with CLAUDE_PROJECT_DIR set, as Claude Code runs it.
    const ccGroups = JSON.parse(fs.readFileSync(path.join(clone, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse;
    fs.mkdirSync(path.join(clone, 'src'));
    const cc = sh(
      path.join(clone, 'src'),
      ccGroups[0].hooks[0].command,
      claude(clone, 'cc-clone-1', 'PreToolUse', {
        tool_name: 'Edit',
        tool_input: { file_path: path.join(clone, 'README.md'), old_string: '#', new_string: '##' },
        tool_use_id: 'u1',
      }),
      { ...process.env, CLAUDE_PROJECT_DIR: clone },
    );
    assert.equal(cc.status, 0, cc.stderr);
    assert.equal(JSON.parse(cc.stdout).hookSpecificOutput.permissionDecision, 'ask');
  });

  test('pure parts: the launcher finds the same per-user folder as the code, the TOML block and the Markdown section come and go', () => {
    assert.equal(userConfigDir({ XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u'), path.join('/x', 'twining'));
    assert.equal(userConfigDir({}, 'linux', '/home/u'), path.join('/home/u', '.config', 'twining'));
    const hook = launcherFiles().find(f => f.relative.endsWith('hook.js'))!.text;
    assert.match(hook, /env\.XDG_CONFIG_HOME \|\| join\(home\(\), '\.config'\)/);
    assert.throws(() => withCodexServer('c.toml', '[mcp_servers.twining]\ncommand = "x"\n', true), /already has an \[mcp_servers\.twining\] table/);
    const once = withCodexServer('c.toml', 'a = 1\n', true)!;
    assert.equal(withCodexServer('c.toml', once, true), once);
    assert.equal(withCodexServer('c.toml', once, false), 'a = 1\n');
    assert.equal(withoutSection('# A\n\n<!-- BEGIN twining x -->\nbody\n<!-- END twining -->\n'), '# A\n');
    assert.equal(withoutSection('<!-- BEGIN twining -->\n<!-- END twining -->\n'), undefined);
  });
});
