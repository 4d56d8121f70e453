/**
 * `twining hook <event>` run as the hosts run it: a new process of the built CLI, the documented
 * JSON of each event on standard input (Claude Code's snake_case fields, VS Code's camelCase ones
 * and tool names), the documented answer checked on standard output, on a copy of twining-mcp's
 * reference folder.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn, spawnSync } from 'child_process';
import { claude, vscode } from '../../../support/hook-inputs';
import { CLI_JS, fixtureProject, tempProject } from '../../../support/tmp';
import { readJson } from '../../../support/fixture';

const JWT_HANDOFF = '01M80HHKAVJT8FG2B08Q4NGZ4W';
const EXP_WARNING = '01M80HHK5EACAY1D2CS04B635E';

function hook(root: string, event: string, input: unknown, ...flags: string[]) {
  const r = spawnSync(process.execPath, [CLI_JS, 'hook', event, ...flags], {
    cwd: root,
    input: typeof input === 'string' ? input : JSON.stringify(input),
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
}

describe('twining hook, Claude Code', () => {
  test('SessionStart registers the agent and briefs it: the waiting handoff and the warning of its scope', () => {
    const root = fixtureProject();
    const r = hook(root, 'SessionStart', claude(root, 'sess-claude-1', 'SessionStart', { source: 'startup' }), '--agent', 'tester', '--scope', 'src/auth/');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.hookSpecificOutput.hookEventName, 'SessionStart');
    const context: string = r.json.hookSpecificOutput.additionalContext;
    assert.match(context, new RegExp(JWT_HANDOFF));
    assert.match(context, /JWT auth middleware implemented/);
    assert.match(
      context,
      new RegExp(`verifyToken does not check the exp claim \\*\\* \\[${EXP_WARNING}\\]|verifyToken does not check the exp claim\\*\\* \\[${EXP_WARNING}\\]`),
    );
    const registry = readJson(root, 'agents/registry.json') as { agent_id: string }[];
    assert.ok(registry.some(a => a.agent_id === 'tester'));
    const session = JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/session-sess-claude-1.json'), 'utf8'));
    assert.equal(session.agent_id, 'tester');
    assert.equal(session.tool, 'claude-code');
    assert.equal(fs.readFileSync(path.join(root, '.twining/sessions/.gitignore'), 'utf8').trim().split('\n').pop(), '*');
  });

  test("PreToolUse on Edit adds the file's decisions and warnings; another tool gets no answer", () => {
    const root = fixtureProject();
    const edit = hook(
      root,
      'PreToolUse',
      claude(root, 's2', 'PreToolUse', {
        tool_name: 'Edit',
        tool_input: { file_path: path.join(root, 'src/auth/jwt.ts'), old_string: 'a', new_string: 'b', replace_all: false },
        tool_use_id: 'toolu_1',
      }),
    );
    assert.equal(edit.status, 0, edit.stderr);
    assert.equal(edit.json.hookSpecificOutput.hookEventName, 'PreToolUse');
    assert.equal(edit.json.hookSpecificOutput.permissionDecision, undefined, 'no decision: the usual permission flow');
    const text: string = edit.json.hookSpecificOutput.additionalContext;
    assert.match(text, /src\/auth\/jwt\.ts/);
    assert.match(text, new RegExp(EXP_WARNING));
    assert.match(text, /Sign JWTs with RS256.*Why: Asymmetric keys/);
    const read = hook(
      root,
      'PreToolUse',
      claude(root, 's2', 'PreToolUse', { tool_name: 'Read', tool_input: { file_path: path.join(root, 'src/auth/jwt.ts') }, tool_use_id: 'toolu_2' }),
    );
    assert.equal(read.status, 0);
    assert.equal(read.stdout, '');
  });

  test('Stop after edits without a record blocks once, then lets the session end; stop_hook_active always lets it', () => {
    const root = fixtureProject();
    const s = 'sess-stop';
    hook(root, 'SessionStart', claude(root, s, 'SessionStart', { source: 'startup' }), '--agent', 'editor');
    hook(
      root,
      'PostToolUse',
      claude(root, s, 'PostToolUse', {
        tool_name: 'Write',
        tool_input: { file_path: path.join(root, 'src/auth/new.ts'), content: 'x' },
        tool_response: { success: true },
        tool_use_id: 't',
      }),
      '--agent',
      'editor',
    );
    const active = hook(root, 'Stop', claude(root, s, 'Stop', { stop_hook_active: true, last_assistant_message: 'done' }), '--agent', 'editor');
    assert.equal(active.stdout, '');
    const first = hook(root, 'Stop', claude(root, s, 'Stop', { stop_hook_active: false, last_assistant_message: 'done' }), '--agent', 'editor');
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.json.decision, 'block');
    assert.match(first.json.reason, /src\/auth\/new\.ts/);
    assert.match(first.json.reason, /twining_record/);
    const second = hook(root, 'Stop', claude(root, s, 'Stop', { stop_hook_active: false }), '--agent', 'editor');
    assert.equal(second.status, 0);
    assert.equal(second.stdout, '', 'asked once: the session may end');
    const session = JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/session-sess-stop.json'), 'utf8'));
    assert.ok(session.ended_at);
  });

  test('Stop after edits and a record by the same agent lets the session end; remind and off modes', () => {
    const root = fixtureProject();
    const post = (s: string, file: string, agent: string, ...flags: string[]) =>
      hook(
        root,
        'PostToolUse',
        claude(root, s, 'PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, file) }, tool_response: {}, tool_use_id: 't' }),
        '--agent',
        agent,
        ...flags,
      );
    post('rec', 'src/api/users.ts', 'recorder');
    const rec = spawnSync(
      process.execPath,
      [CLI_JS, 'record', '--summary', 'Paginated GET /v1/users', '--agent-id', 'recorder', '--affected-files', 'src/api/users.ts'],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(rec.status, 0, rec.stderr);
    assert.equal(hook(root, 'Stop', claude(root, 'rec', 'Stop', { stop_hook_active: false }), '--agent', 'recorder').stdout, '');
    post('rem', 'src/api/x.ts', 'reminded');
    const remind = hook(root, 'Stop', claude(root, 'rem', 'Stop', { stop_hook_active: false }), '--agent', 'reminded', '--on-stop', 'remind');
    assert.match(remind.json.systemMessage, /twining_record/);
    assert.equal(remind.json.decision, undefined);
    post('off', 'src/api/y.ts', 'quiet');
    assert.equal(hook(root, 'Stop', claude(root, 'off', 'Stop', { stop_hook_active: false }), '--agent', 'quiet', '--on-stop', 'off').stdout, '');
  });
});

describe('the hook index', () => {
  /** The context a PreToolUse hook gives agent `ix` for an edit of src/auth/jwt.ts. */
  const editJwt = (root: string) =>
    hook(
      root,
      'PreToolUse',
      claude(root, 'ix', 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'src/auth/jwt.ts') }, tool_use_id: 't' }),
    ).json.hookSpecificOutput.additionalContext as string;

  test('kept current: a warning posted after the session started shows on the next edit, a resolved one no longer does', () => {
    const root = fixtureProject();
    hook(root, 'SessionStart', claude(root, 'ix', 'SessionStart', { source: 'startup' }), '--agent', 'ix');
    const edit = () => editJwt(root);
    assert.match(edit(), new RegExp(EXP_WARNING));
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI_JS, ...args], { cwd: root, encoding: 'utf8' });
    assert.equal(
      cli('post', '--entry-type', 'warning', '--summary', 'Leeway must stay under a minute', '--scope', 'src/auth/', '--agent-id', 'other').status,
      0,
    );
    assert.match(edit(), /Leeway must stay under a minute/);
    assert.equal(cli('record', '--summary', 'exp is checked now', '--resolves', EXP_WARNING, '--agent-id', 'other').status, 0);
    assert.doesNotMatch(edit(), new RegExp(EXP_WARNING));
    assert.equal(
      cli(
        'decide',
        '--domain',
        'security',
        '--scope',
        'src/auth/jwt.ts',
        '--summary',
        'Allow 30 s of clock skew',
        '--context',
        'c',
        '--rationale',
        'CI clocks drift',
      ).status,
      0,
    );
    assert.match(edit(), /Allow 30 s of clock skew\. Why: CI clocks drift/);
  });

  test('an index in an older format (an older build wrote it) is made again, never read', () => {
    const root = fixtureProject();
    hook(root, 'SessionStart', claude(root, 'ix', 'SessionStart', { source: 'startup' }), '--agent', 'ix');
    const edit = () => editJwt(root);
    assert.match(edit(), new RegExp(EXP_WARNING));
    // The same index, current with the folder, but saying an older format and holding a warning the folder has not.
    const dir = path.join(root, '.twining', 'sessions', 'hook-index');
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { version: number };
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, version: 2 }));
    const bucket = fs.readdirSync(dir).find(f => f.startsWith('w-src_auth_'));
    assert.ok(bucket, 'a warning bucket for src/auth/');
    fs.writeFileSync(path.join(dir, bucket), JSON.stringify({ items: [['01M80HHK0000000000000STALE', 'src/auth/', 'A stale warning', 'x']] }));
    const answer = edit();
    assert.doesNotMatch(answer, /A stale warning/);
    assert.match(answer, new RegExp(EXP_WARNING));
    assert.equal((JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { version: number }).version, meta.version);
  });
});

describe('twining hook, VS Code', () => {
  test('SessionStart with camelCase input: the agent id from the session, the briefing as additional context', () => {
    const root = fixtureProject();
    const r = hook(root, 'SessionStart', vscode(root, 'f3a9c2d1-7777', 'SessionStart', { source: 'new' }), '--scope', 'src/auth/jwt.ts');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.hookSpecificOutput.hookEventName, 'SessionStart');
    assert.match(r.json.hookSpecificOutput.additionalContext, new RegExp(JWT_HANDOFF));
    assert.match(r.json.hookSpecificOutput.additionalContext, new RegExp(EXP_WARNING));
    const registry = readJson(root, 'agents/registry.json') as { agent_id: string }[];
    assert.ok(
      registry.some(a => a.agent_id === 'copilot-f3a9c2d1'),
      registry.map(a => a.agent_id).join(),
    );
  });

  test('PreToolUse runs on every tool (matchers are ignored): replace_string_in_file and editFiles answer, read_file does not', () => {
    const root = fixtureProject();
    const replace = hook(
      root,
      'PreToolUse',
      vscode(root, 'v1', 'PreToolUse', {
        tool_name: 'replace_string_in_file',
        tool_input: { filePath: path.join(root, 'src/auth/jwt.ts'), oldString: 'a', newString: 'b' },
        tool_use_id: 'tool-1',
      }),
    );
    assert.match(replace.json.hookSpecificOutput.additionalContext, new RegExp(EXP_WARNING));
    const editFiles = hook(
      root,
      'PreToolUse',
      vscode(root, 'v1', 'PreToolUse', { tool_name: 'editFiles', tool_input: { files: ['src/auth/jwt.ts'] }, tool_use_id: 'tool-2' }),
    );
    assert.match(editFiles.json.hookSpecificOutput.additionalContext, /src\/auth\/jwt\.ts/);
    const read = hook(
      root,
      'PreToolUse',
      vscode(root, 'v1', 'PreToolUse', { tool_name: 'read_file', tool_input: { filePath: path.join(root, 'src/auth/jwt.ts') }, tool_use_id: 'tool-3' }),
    );
    assert.equal(read.stdout, '');
  });

  test("Stop blocks once in VS Code's nested form; SubagentStop at the top level", () => {
    const root = fixtureProject();
    hook(
      root,
      'PostToolUse',
      vscode(root, 'v2', 'PostToolUse', {
        tool_name: 'create_file',
        tool_input: { filePath: path.join(root, 'src/new.ts'), content: 'x' },
        tool_use_id: 't',
        tool_response: 'ok',
      }),
    );
    const first = hook(root, 'Stop', vscode(root, 'v2', 'Stop', { stop_hook_active: false }));
    assert.deepEqual(Object.keys(first.json), ['hookSpecificOutput']);
    assert.equal(first.json.hookSpecificOutput.hookEventName, 'Stop');
    assert.equal(first.json.hookSpecificOutput.decision, 'block');
    assert.match(first.json.hookSpecificOutput.reason, /src\/new\.ts/);
    assert.equal(hook(root, 'Stop', vscode(root, 'v2', 'Stop', { stop_hook_active: false })).stdout, '');
    hook(
      root,
      'PostToolUse',
      vscode(root, 'v3', 'PostToolUse', { tool_name: 'create_file', tool_input: { filePath: 'src/sub.ts' }, tool_use_id: 't', tool_response: 'ok' }),
    );
    const sub = hook(root, 'SubagentStop', vscode(root, 'v3', 'SubagentStop', { agent_id: 'subagent-456', agent_type: 'Plan', stop_hook_active: false }));
    assert.equal(sub.json.decision, 'block');
    assert.equal(sub.json.hookSpecificOutput.decision, 'block', 'Copilot Chat reads the nested form for SubagentStop too');
  });

  test("the input Copilot Chat sends in VS Code 1.139 (snake_case, a timestamp, no permission_mode) is VS Code's: the --host vscode copy answers", () => {
    const root = fixtureProject();
    // ChatHookService.executeHook in Copilot Chat 0.67.0: {timestamp, hook_event_name, session_id, transcript_path} + cwd + the event's fields.
    const copilot = (event: string, extra: Record<string, unknown> = {}) => ({
      timestamp: new Date().toISOString(),
      hook_event_name: event,
      session_id: 'copilot-session-1',
      transcript_path: path.join(root, 'transcript.json'),
      cwd: root,
      ...extra,
    });
    const edit = {
      tool_name: 'replace_string_in_file',
      tool_input: { filePath: path.join(root, 'src/auth/jwt.ts'), oldString: 'a', newString: 'b' },
      tool_use_id: 'c1',
    };
    const pre = hook(root, 'PreToolUse', copilot('PreToolUse', edit), '--host', 'vscode');
    assert.equal(pre.status, 0, pre.stderr);
    assert.match(pre.json.hookSpecificOutput.additionalContext, /verifyToken does not check the exp claim/);
    assert.equal(hook(root, 'PreToolUse', copilot('PreToolUse', edit), '--host', 'claude-code').stdout, '', 'the Claude Code copy stays silent');
    hook(root, 'PostToolUse', copilot('PostToolUse', { ...edit, tool_response: 'ok' }), '--host', 'vscode');
    const session = JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/session-copilot-session-1.json'), 'utf8'));
    assert.equal(session.tool, 'vscode');
    assert.deepEqual(session.files_touched, ['src/auth/jwt.ts']);
    const stop = hook(root, 'Stop', copilot('Stop', { stop_hook_active: false }), '--host', 'vscode');
    assert.equal(stop.json.hookSpecificOutput.decision, 'block');
  });

  test("the Claude Code copy of a hook stays silent on VS Code's input (VS Code reads .claude/settings.json too)", () => {
    const root = fixtureProject();
    const r = hook(
      root,
      'PreToolUse',
      vscode(root, 'v4', 'PreToolUse', { tool_name: 'editFiles', tool_input: { files: ['src/auth/jwt.ts'] } }),
      '--host',
      'claude-code',
    );
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
  });
});

describe('twining hook never stands in the way', () => {
  test('input that is not JSON: exit 1 (a non-blocking error in both hosts), the reason on standard error, nothing on standard output', () => {
    const root = fixtureProject();
    const r = hook(root, 'PreToolUse', '{not json');
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /standard input is not JSON.*the agent goes ahead/);
  });

  test('standard input as hosts may give it: in pieces, left open after the JSON, or none at all', async () => {
    const root = fixtureProject();
    const input = JSON.stringify(claude(root, 'pieces', 'PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'src/auth/jwt.ts') } }));
    const run = (feed: (stdin: NodeJS.WritableStream) => void) =>
      new Promise<{ status: number | null; stderr: string; ms: number }>((resolve, reject) => {
        const began = Date.now();
        const child = spawn(process.execPath, [CLI_JS, 'hook', 'PostToolUse', '--timeout-ms', '20000'], { cwd: root });
        let stderr = '';
        child.stderr.on('data', d => (stderr += d));
        child.on('error', reject);
        child.on('close', status => resolve({ status, stderr, ms: Date.now() - began }));
        feed(child.stdin);
      });
    // In two pieces, 200 ms apart, then closed: the whole object is read.
    const pieces = await run(stdin => {
      stdin.write(input.slice(0, 40));
      setTimeout(() => stdin.end(input.slice(40)), 200);
    });
    assert.equal(pieces.status, 0, pieces.stderr);
    // Written whole and left open (the host closes it only later): answered without waiting for the end.
    let close: (() => void) | undefined;
    const open = await run(stdin => {
      stdin.write(input);
      const t = setTimeout(() => stdin.end(), 15000);
      close = () => (clearTimeout(t), stdin.end());
    });
    close?.();
    assert.equal(open.status, 0, open.stderr);
    assert.ok(open.ms < 10000, `answered in ${open.ms} ms, without the input's end`);
    const session = JSON.parse(fs.readFileSync(path.join(root, '.twining/sessions/session-pieces.json'), 'utf8'));
    assert.deepEqual(session.files_touched, ['src/auth/jwt.ts']);
    // No input at all (the pipe closed at once): an empty event, which the hook leaves alone.
    const none = await run(stdin => stdin.end());
    assert.equal(none.status, 0, none.stderr);
  });

  test('a project without .twining/ is left alone', () => {
    const root = tempProject('no-twining');
    const r = hook(root, 'SessionStart', claude(root, 's', 'SessionStart', { source: 'startup' }));
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    assert.ok(!fs.existsSync(path.join(root, '.twining')));
  });

  test(
    'a folder the hook cannot write to: exit 1 with the reason, the agent goes ahead',
    { skip: process.getuid?.() === 0 ? 'root ignores permissions' : false },
    () => {
      const root = fixtureProject();
      fs.chmodSync(path.join(root, '.twining'), 0o555);
      try {
        const r = hook(root, 'PostToolUse', claude(root, 's', 'PostToolUse', { tool_name: 'Edit', tool_input: { file_path: 'a.ts' } }));
        assert.equal(r.status, 1);
        assert.match(r.stderr, /the agent goes ahead/);
      } finally {
        fs.chmodSync(path.join(root, '.twining'), 0o755);
      }
    },
  );
});

describe('twining hook and claims', () => {
  test("PreToolUse asks before an edit of a file another live agent claims, naming holder, until when and why; the holder's own edit goes ahead", () => {
    const root = fixtureProject();
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI_JS, ...args, '--dir', root], { encoding: 'utf8' });
    assert.equal(cli('register', '--agent-id', 'alice', '--capabilities', 'ts').status, 0);
    const claimed = cli('claim', '--agent-id', 'alice', '--paths', 'src/auth/', '--reason', 'rewriting token checks', '--json');
    assert.equal(claimed.status, 0, claimed.stderr);
    const until = (JSON.parse(claimed.stdout) as { claims: { expires_at: string }[] }).claims[0].expires_at;
    const editBy = (agent: string, ...flags: string[]) =>
      hook(
        root,
        'PreToolUse',
        claude(root, `s-${agent}`, 'PreToolUse', {
          tool_name: 'Edit',
          tool_input: { file_path: path.join(root, 'src/auth/jwt.ts'), old_string: 'a', new_string: 'b', replace_all: false },
          tool_use_id: 'toolu_claim',
        }),
        '--agent',
        agent,
        ...flags,
      );
    const bob = editBy('bob');
    assert.equal(bob.status, 0, bob.stderr);
    assert.equal(bob.json.hookSpecificOutput.permissionDecision, 'ask');
    const reason: string = bob.json.hookSpecificOutput.permissionDecisionReason;
    assert.match(reason, /src\/auth\/jwt\.ts is claimed by alice/);
    assert.ok(reason.includes(`until ${until}`), reason);
    assert.match(reason, /rewriting token checks/);
    assert.equal(editBy('bob', '--on-claim', 'deny').json.hookSpecificOutput.permissionDecision, 'deny');
    const alice = editBy('alice');
    assert.equal(alice.status, 0, alice.stderr);
    assert.equal(alice.json?.hookSpecificOutput?.permissionDecision, undefined, 'the holder is not asked');
    // Released: the edit goes ahead without a question.
    assert.equal(cli('release', '--agent-id', 'alice').status, 0);
    assert.equal(editBy('bob').json?.hookSpecificOutput?.permissionDecision, undefined);
  });

  test('the holder hears of its lapsed claim when it next edits, until it claims again', async () => {
    const root = fixtureProject();
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI_JS, ...args, '--dir', root], { encoding: 'utf8' });
    const claimed = cli('claim', '--agent-id', 'alice', '--paths', 'src/db/', '--reason', 'schema rework', '--ttl-ms', '5000', '--json');
    assert.equal(claimed.status, 0, claimed.stderr);
    const until = Date.parse((JSON.parse(claimed.stdout) as { claims: { expires_at: string }[] }).claims[0].expires_at);
    const edit = () =>
      hook(
        root,
        'PreToolUse',
        claude(root, 's-alice', 'PreToolUse', {
          tool_name: 'Write',
          tool_input: { file_path: path.join(root, 'src/db/schema.sql'), content: 'x' },
          tool_use_id: 'toolu_lapse',
        }),
        '--agent',
        'alice',
      );
    assert.equal(edit().json?.hookSpecificOutput?.additionalContext ?? '', '', 'live: nothing to say');
    await new Promise(resolve => setTimeout(resolve, Math.max(0, until - Date.now()) + 100));
    const told = edit();
    assert.equal(told.status, 0, told.stderr);
    assert.match(
      told.json.hookSpecificOutput.additionalContext,
      /your claim on src\/db\/ \(schema rework\) has lapsed: its time ran out at .*call twining_claim again/,
    );
    assert.equal(told.json.hookSpecificOutput.permissionDecision, undefined, 'the edit goes ahead');
    // Claiming again closes the lapsed claim (the claim says so) and renews the hold.
    const again = cli('claim', '--agent-id', 'alice', '--paths', 'src/db/', '--reason', 'schema rework', '--json');
    assert.equal(again.status, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as { lapsed: unknown[] }).lapsed.length, 1);
    assert.equal(edit().json?.hookSpecificOutput?.additionalContext ?? '', '');
  });
});
