/**
 * The session board (issue 18, item 5): hooked sessions as the Agents view shows them. The
 * sessions are made by running `twining hook` as the hosts do (new processes of the built CLI,
 * the documented JSON on standard input); the engine reports their files as the `sessions` kind
 * and `sessions()` reads the board; the pure rule is checked at its time boundaries.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { kindOfPath } from '../../../../src/core/engine/data-kinds';
import { KEEP_UNRECORDED_MS, BoardSessionState, SessionView, sessionBoard, sessionsTouching } from '../../../../src/core/rules/session-board';
import { recordRequest, sessionDescription, sessionState } from '../../../../src/extension/present/session-text';
import { claude, vscode } from '../../../support/hook-inputs';
import { CLI_JS, fixtureProject } from '../../../support/tmp';

function hook(root: string, event: string, input: Record<string, unknown>, ...flags: string[]) {
  const r = spawnSync(process.execPath, [CLI_JS, 'hook', event, ...flags], { cwd: root, input: JSON.stringify(input), encoding: 'utf8' });
  assert.equal(r.status, 0, `${event}: ${r.stderr}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : undefined;
}
describe('the session board from real hook processes', () => {
  test('a session appears, names what it touched and its last tool; after an unrecorded Stop it is marked; a record clears the mark', async () => {
    const root = fixtureProject();
    const engine = await openWorkspace(root);
    await engine.refresh();
    const s = 'board-1';
    hook(root, 'SessionStart', claude(root, s, 'SessionStart', { source: 'startup' }), '--agent', 'board-agent');
    const started = await engine.refresh(['.twining/sessions/session-board-1.json']);
    assert.ok(started.kinds.includes('sessions'), `the session file is reported as the sessions kind: ${started.kinds.join(',')}`);
    let board = (await engine.sessions()).sessions;
    assert.deepEqual(
      board.map(b => [b.session_id, b.agent_id, b.tool, b.liveness]),
      [[s, 'board-agent', 'claude-code', 'active']],
    );

    const edit = { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'src/auth/jwt.ts'), old_string: 'a', new_string: 'b' }, tool_use_id: 'u1' };
    hook(root, 'PostToolUse', claude(root, s, 'PostToolUse', { ...edit, tool_response: {} }), '--agent', 'board-agent');
    hook(
      root,
      'PostToolUse',
      claude(root, s, 'PostToolUse', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'u2' }),
      '--agent',
      'board-agent',
    );
    const touched = await engine.refresh(['.twining/sessions/session-board-1.json']);
    assert.deepEqual(touched.kinds, ['sessions'], 'a session write re-reads nothing else');
    board = (await engine.sessions()).sessions;
    assert.deepEqual(board[0].files_touched, ['src/auth/jwt.ts']);
    assert.equal(board[0].last_tool, 'Bash');
    assert.equal(board[0].unrecorded, false, 'still working: nothing to ask for yet');
    assert.deepEqual(
      sessionsTouching(board, 'src/auth/jwt.ts').map(b => b.session_id),
      [s],
    );
    assert.deepEqual(sessionsTouching(board, 'src/auth/other.ts'), []);

    assert.equal(hook(root, 'Stop', claude(root, s, 'Stop', { stop_hook_active: false }), '--agent', 'board-agent').decision, 'block');
    assert.equal(hook(root, 'Stop', claude(root, s, 'Stop', { stop_hook_active: false }), '--agent', 'board-agent'), undefined);
    await engine.refresh(['.twining/sessions/session-board-1.json']);
    board = (await engine.sessions()).sessions;
    assert.equal(board[0].unrecorded, true, 'stopped after edits without a record: marked');
    assert.equal(board[0].waiting_reason, 'turn ended');
    assert.ok(board[0].ended_at);

    hook(root, 'UserPromptSubmit', claude(root, s, 'UserPromptSubmit', { prompt: 'go on' }), '--agent', 'board-agent');
    await engine.refresh(['.twining/sessions/session-board-1.json']);
    board = (await engine.sessions()).sessions;
    assert.equal(board[0].waiting_since, undefined, 'the person answered: working again');
    assert.equal(board[0].unrecorded, false);

    hook(
      root,
      'Notification',
      claude(root, s, 'Notification', { message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt' }),
    );
    await engine.refresh(['.twining/sessions/session-board-1.json']);
    assert.equal((await engine.sessions()).sessions[0].waiting_reason, 'a permission prompt');

    // The agent records its work (by the CLI, as a person or a script would): the board counts its blackboard entry.
    hook(root, 'Stop', claude(root, s, 'Stop', { stop_hook_active: true }), '--agent', 'board-agent');
    await engine.post({ entry_type: 'finding', summary: 'jwt.ts now checks exp', scope: 'src/auth/jwt.ts', agent_id: 'board-agent' });
    await engine.refresh(['.twining/sessions/session-board-1.json']);
    board = (await engine.sessions()).sessions;
    assert.equal(board[0].unrecorded, false, 'a record after the last edit clears the mark');
  });

  test("VS Code's sessions: the agent id from the session, editFiles' files, and a full refresh finds a session written meanwhile", async () => {
    const root = fixtureProject();
    const engine = await openWorkspace(root);
    await engine.refresh();
    hook(root, 'SessionStart', vscode(root, 'vs-abcdef123', 'SessionStart', { source: 'new' }));
    hook(root, 'PostToolUse', vscode(root, 'vs-abcdef123', 'PostToolUse', { tool_name: 'editFiles', tool_input: { files: ['src/a.ts', 'src/b.ts'] } }));
    const report = await engine.refresh();
    assert.ok(report.kinds.includes('sessions'));
    assert.deepEqual((await engine.refresh()).kinds, [], 'nothing changed since: nothing reported');
    const [only] = (await engine.sessions()).sessions;
    assert.equal(only.agent_id, 'copilot-vs-abcde');
    assert.equal(only.tool, 'vscode');
    assert.deepEqual(only.files_touched, ['src/a.ts', 'src/b.ts']);
  });
});

describe('the session board rule', () => {
  const t = { idle_after_ms: 300_000, gone_after_ms: 1_800_000 };
  const at = (ms: number) => new Date(Date.parse('2026-11-20T10:00:00.000Z') + ms).toISOString();
  const base: BoardSessionState = { session_id: 's', agent_id: 'a', tool: 'claude-code', started_at: at(0), last_seen: at(0), files_touched: [] };

  test('liveness by the last hook call; gone sessions leave the board unless they owe a record, for a while', () => {
    const now = new Date(at(0));
    const live = { ...base, session_id: 'live', last_seen: at(-1000) };
    const idle = { ...base, session_id: 'idle', last_seen: at(-t.idle_after_ms) };
    const gone = { ...base, session_id: 'gone', last_seen: at(-t.gone_after_ms) };
    const owes = { ...gone, session_id: 'owes', last_edit_at: at(-t.gone_after_ms - 5), ended_at: at(-t.gone_after_ms), files_touched: ['x.ts'] };
    const old = { ...owes, session_id: 'old', last_seen: at(-KEEP_UNRECORDED_MS), ended_at: at(-KEEP_UNRECORDED_MS) };
    const board = sessionBoard([gone, owes, idle, live, old], now, t);
    assert.deepEqual(
      board.map(b => [b.session_id, b.liveness, b.unrecorded]),
      [
        ['live', 'active', false],
        ['idle', 'idle', false],
        ['owes', 'gone', true],
      ],
    );
    assert.equal(board[2].waiting_since, undefined, 'a gone session waits for no one');
  });

  test('a record at or after the last edit, by a hook or on the blackboard, counts; one before it does not', () => {
    const now = new Date(at(1000));
    const stopped = { ...base, last_edit_at: at(100), ended_at: at(500), last_seen: at(500), files_touched: ['x.ts'] };
    assert.equal(sessionBoard([{ ...stopped, recorded_at: at(50) }], now, t)[0].unrecorded, true);
    assert.equal(sessionBoard([{ ...stopped, recorded_at: at(100) }], now, t)[0].unrecorded, false);
    assert.equal(sessionBoard([stopped], now, t, () => at(200))[0].unrecorded, false);
    assert.equal(sessionBoard([stopped], now, t, () => at(99))[0].unrecorded, true);
    assert.equal(sessionBoard([{ ...stopped, ended_at: undefined }], now, t)[0].unrecorded, false, 'still working: not yet');
  });

  test('only session files are the sessions kind', () => {
    assert.equal(kindOfPath('.twining/sessions/session-abc.json'), 'sessions');
    assert.equal(kindOfPath('.twining/sessions/assembly-abc.json'), undefined);
    assert.equal(kindOfPath('.twining/sessions/hook-index/meta.json'), undefined);
    assert.equal(kindOfPath('.twining/sessions/session-abc.json.123.tmp'), undefined);
  });
});

describe('the session board in words', () => {
  const view = (extra: Partial<SessionView> = {}): SessionView => ({
    session_id: 's1',
    agent_id: 'claude-code-s1',
    tool: 'claude-code',
    started_at: '2026-11-20T09:00:00.000Z',
    last_seen: '2026-11-20T09:58:00.000Z',
    files_touched: [],
    liveness: 'active',
    unrecorded: false,
    ...extra,
  });
  const now = new Date('2026-11-20T10:00:00.000Z');

  test('state, files, last tool and age on one row; a missing record comes first', () => {
    assert.equal(
      sessionDescription(view({ files_touched: ['a.ts', 'b.ts'], last_tool: 'Edit' }), now),
      'Claude Code · working · 2 files · last: Edit · since 1 h ago',
    );
    assert.equal(sessionState(view({ waiting_since: now.toISOString(), waiting_reason: 'turn ended' })), 'waiting for input');
    assert.equal(sessionState(view({ waiting_since: now.toISOString(), waiting_reason: 'a permission prompt' })), 'waiting for a permission prompt');
    assert.equal(sessionState(view({ unrecorded: true, waiting_since: now.toISOString() })), 'ended without a record');
    assert.equal(sessionDescription(view({ tool: 'vscode', liveness: 'idle' }), now), 'VS Code agent · idle · since 1 h ago');
  });

  test('the request names the files, the agent id to record under and whom to hand over to', () => {
    const { summary, prompt } = recordRequest(view({ files_touched: ['src/a.ts'] }), 'me');
    assert.equal(summary, "claude-code-s1: please record or hand over your session's work (1 file changed)");
    assert.match(prompt, /changed src\/a\.ts and recorded nothing/);
    assert.match(prompt, /twining_record with agent_id "claude-code-s1"/);
    assert.match(prompt, /twining_handoff to me/);
  });
});
