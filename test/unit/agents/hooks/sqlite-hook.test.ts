/**
 * The hooks on a twining-mcp 2.x folder (`twining.db` + `records/`), run as a host runs them (a new
 * process of the built CLI, the event's JSON on standard input): what they tell an agent comes
 * from the same record `twining why` and SessionStart read, never from 1.x files the folder does
 * not have. Needs node:sqlite (run under Node 24 by scripts/test.js, as every sqlite-*.test.js).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { claude } from '../../../support/hook-inputs';
import { CLI_JS, tempProject, tw } from '../../../support/tmp';
import { hasSqlite, openMcpDb, twoXFrom1x } from '../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: () => undefined };

function hook(root: string, event: string, input: unknown, ...flags: string[]) {
  const r = spawnSync(process.execPath, [CLI_JS, 'hook', event, ...flags], { cwd: root, input: JSON.stringify(input), encoding: 'utf8' });
  return {
    status: r.status,
    stderr: r.stderr,
    context: r.stdout.trim() ? (JSON.parse(r.stdout).hookSpecificOutput?.additionalContext as string | undefined) : undefined,
  };
}

const editJwt = (root: string, session: string) =>
  claude(root, session, 'PreToolUse', {
    tool_name: 'Edit',
    tool_input: { file_path: path.join(root, 'src/auth/jwt.ts'), old_string: 'a', new_string: 'b', replace_all: false },
    tool_use_id: 'toolu_1',
  });

/** A new, empty 2.x folder (as twining-mcp makes for every new project). */
async function emptySqliteFolder(): Promise<string> {
  const one = tempProject();
  await (await openWorkspace(one, quiet)).init();
  const two = tempProject('two-x-project');
  twoXFrom1x(tw(one), tw(two));
  return two;
}

describe('hooks on a twining-mcp 2.x folder', { skip }, () => {
  test('PreToolUse on an edit tells of the warning on the file and the decision on its folder, as twining why does', async () => {
    const root = await emptySqliteFolder();
    const engine = await openWorkspace(root, quiet);
    const warning = await engine.post({ entry_type: 'warning', summary: 'jwt.ts trusts the alg header', scope: 'src/auth/jwt.ts', agent_id: 'reviewer' });
    const decided = await engine.decide({
      domain: 'security',
      scope: 'src/auth/',
      summary: 'Pin the JWT algorithm to RS256',
      context: 'c',
      rationale: 'A token must not choose how it is checked',
      agent_id: 'architect',
    });
    assert.ok(!fs.existsSync(tw(root, 'blackboard.jsonl')) && !fs.existsSync(tw(root, 'decisions')), 'a 2.x folder: no 1.x files');
    const why = await engine.why({ scope: 'src/auth/jwt.ts' });
    assert.ok(
      why.decisions.some(d => d.id === decided.id),
      'twining why sees the decision',
    );

    const r = hook(root, 'PreToolUse', editJwt(root, 's1'));
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.context, `no context at all: ${r.stderr}`);
    assert.match(r.context, /before you edit src\/auth\/jwt\.ts, 1 active decision\(s\) and 1 open warning\(s\) apply/);
    assert.match(r.context, new RegExp(`WARNING \\[${warning.id}\\] jwt\\.ts trusts the alg header \\(from reviewer\\)`));
    assert.match(r.context, new RegExp(`DECISION \\[${decided.id}\\] Pin the JWT algorithm to RS256\\. Why: A token must not choose how it is checked`));
  });

  test("PreToolUse sees what twining-mcp itself wrote since the hook's last answer", async () => {
    const root = await emptySqliteFolder();
    const engine = await openWorkspace(root, quiet);
    await engine.post({ entry_type: 'warning', summary: 'first warning', scope: 'src/auth/', agent_id: 'reviewer' });
    const first = hook(root, 'PreToolUse', editJwt(root, 's1'));
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.context ?? '', /first warning/);
    // Another writer (twining-mcp, straight into the database) posts a second one.
    const db = openMcpDb(tw(root));
    const id = '01M90000000000000000000000';
    const entry = {
      id,
      timestamp: new Date().toISOString(),
      agent_id: 'mcp',
      entry_type: 'warning',
      tags: [],
      scope: 'src/auth/jwt.ts',
      summary: 'second warning',
      detail: '',
      relates_to: [],
    };
    db.prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)').run(
      id,
      'warning',
      entry.scope,
      entry.timestamp,
      JSON.stringify(entry),
    );
    db.close();
    const second = hook(root, 'PreToolUse', editJwt(root, 's1'));
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.context ?? '', /first warning/);
    assert.match(second.context ?? '', /second warning/);
  });

  test("SessionStart after a post, a claim and a decision: the engine's briefing, with what changed, and no basis kept (the basis is for 1.x folders)", async () => {
    const root = await emptySqliteFolder();
    const engine = await openWorkspace(root, quiet);
    for (let i = 0; i < 12; i++)
      await engine.post({ entry_type: i % 3 ? 'finding' : 'warning', summary: `Earlier note ${i}`, scope: 'project', agent_id: 'earlier' });
    const start = (at: string, session: string) =>
      hook(at, 'SessionStart', claude(at, session, 'SessionStart', { source: 'startup' }), '--agent', 'two-x-agent', '--scope', 'project');
    assert.equal(start(root, 's0').status, 0);
    const noTimes = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T');
    const writes: [string, () => Promise<unknown>, RegExp][] = [
      [
        'a post',
        () => engine.post({ entry_type: 'warning', summary: 'The pool leaks connections', scope: 'project', agent_id: 'reviewer' }),
        /The pool leaks connections/,
      ],
      ['a claim', () => engine.claim({ agent_id: 'holder', paths: ['src/db/'], reason: 'busy', ttl_ms: 3_600_000 }), /src\/db\//],
      [
        'a decision',
        () =>
          engine.decide({
            domain: 'data',
            scope: 'project',
            summary: 'Pool connections per request',
            context: 'c',
            rationale: 'A shared pool leaked',
            agent_id: 'architect',
          }),
        /Pool connections per request/,
      ],
    ];
    for (const [n, [what, write, shows]] of writes.entries()) {
      await write();
      const copy = tempProject(`copy-${n}`);
      fs.rmSync(tw(copy), { recursive: true, force: true });
      // Without twining.db-shm: closing a descriptor of it here would drop this process's lock on the
      // open database (docs/twining-2.md §Locks held by a process); SQLite makes it again from the log.
      fs.cpSync(tw(root), tw(copy), { recursive: true, filter: src => !src.endsWith('twining.db-shm') });
      const ours = start(root, `s${n + 1}`);
      assert.equal(ours.status, 0, ours.stderr);
      assert.match(ours.context ?? '', shows, `after ${what}, the briefing shows it`);
      // The engine on a copy of the folder as it was, for the same agent after the same briefing.
      const engines = start(copy, `e${n + 1}`);
      assert.equal(engines.status, 0, engines.stderr);
      assert.equal(noTimes(ours.context!), noTimes(engines.context!), `after ${what}: the hook's briefing is the engine's`);
      assert.ok(!fs.readdirSync(tw(root, 'sessions')).some(f => f.endsWith('.basis')), 'no basis kept on a 2.x folder');
    }
  });
});
