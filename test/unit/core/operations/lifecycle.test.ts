/**
 * why, dismiss, reconsider, override and promote: the pure rules without files, then each
 * operation on a copy of twining-mcp's reference folder, checked against what twining-mcp writes
 * (docs/format.md §Decisions, docs/format.md §Dismiss and archive; twining-mcp src/engine/decisions.ts, src/storage/decision-store.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'child_process';
import { promisify } from 'util';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { decisionAffects, dismissalEntry, newestFirst, overrideEntry, promotionEntry, reconsiderationWarning } from '../../../../src/core/rules/why';
import { at, read, readJson, readLines, referenceProject } from '../../../support/fixture';
import { CLI_JS, changedFiles, snapshotTree, tw } from '../../../support/tmp';

const NOW = at('2026-11-22T02:33:00.000Z');
const JWT_BEARER = '01M80HHJN7TF8W1N7EW8PHV7MT'; // architecture, src/auth/, affects src/auth/middleware.ts and authenticate
const VERSIONED = '01M80HHK025WC0FGZ865H3Q5TH'; // api, src/api/
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ'; // security, src/auth/jwt.ts, depends on JWT_BEARER
const VITEST = '01M80HHK4PSMNX1YWBAYPYPVBA'; // testing, project

describe('rules of why and of the lifecycle entries (no files)', () => {
  const d = (scope: string, affected_files: string[] = [], affected_symbols: string[] = []) => ({ scope, affected_files, affected_symbols });
  test('a decision bears on a scope by prefix in either direction, by an affected file, or by an exact symbol', () => {
    assert.equal(decisionAffects(d('src/auth/'), 'src/auth/jwt.ts'), true, 'decision folder above the file');
    assert.equal(decisionAffects(d('src/auth/jwt.ts'), 'src/'), true, 'a folder query finds the file decisions below it');
    assert.equal(decisionAffects(d('src/api/'), 'src/auth/jwt.ts'), false);
    assert.equal(decisionAffects(d('lib/', ['src/auth/jwt.ts']), 'src/auth/jwt.ts'), true, 'affected file');
    assert.equal(decisionAffects(d('lib/', ['src/auth/jwt.ts']), 'src/auth/'), true, 'affected file below the folder');
    assert.equal(decisionAffects(d('lib/', [], ['signToken']), 'signToken'), true, 'exact symbol');
    assert.equal(decisionAffects(d('lib/', [], ['signToken']), 'sign'), false, 'symbols match exactly, not by prefix');
    assert.equal(decisionAffects(d('project'), 'src/auth/jwt.ts'), false, '"project" is an ordinary string (docs/format.md §Scope overlap)');
    assert.equal(
      decisionAffects({ scope: 7 as unknown as string, affected_files: 'x' as unknown as string[], affected_symbols: [] }, 'x'),
      false,
      'malformed fields match nothing',
    );
  });
  test('newest first, equal timestamps by the later id', () => {
    const list = [
      { id: 'A', timestamp: '2026-01-01T00:00:00.000Z' },
      { id: 'C', timestamp: '2026-01-02T00:00:00.000Z' },
      { id: 'B', timestamp: '2026-01-02T00:00:00.000Z' },
    ];
    assert.deepEqual(
      list.sort(newestFirst).map(x => x.id),
      ['C', 'B', 'A'],
    );
  });
  test("the entries' texts are twining-mcp's, cut at 200 characters", () => {
    assert.deepEqual(reconsiderationWarning('Use X', 'X is slow', []), { summary: 'Reconsideration flagged: Use X', detail: 'X is slow' });
    assert.equal(reconsiderationWarning('Use X', 'ctx', ['A', 'B']).detail, 'ctx\nNote: 2 downstream decisions may be affected: A, B');
    assert.equal(overrideEntry('s'.repeat(300), 'human', 'r').summary.length, 200);
    assert.deepEqual(overrideEntry('Use X', 'lead', 'because'), { summary: 'Override: Use X -- overridden by lead', detail: 'because' });
    assert.deepEqual(promotionEntry(['A', 'B']), { summary: 'Promoted 2 provisional decision(s) to active', detail: 'Decision IDs: A, B' });
  });
  test('a dismissal says what left and why, in the scope they shared', () => {
    const one = dismissalEntry([{ id: 'A', entry_type: 'warning', summary: 'Token leak', scope: 'src/auth/' }], 'fixed in abc123');
    assert.equal(one.summary, 'Dismissed warning "Token leak": fixed in abc123');
    assert.equal(one.scope, 'src/auth/');
    assert.match(one.detail, /^Dismissed:\n- A \(warning\): Token leak\nReason: fixed in abc123$/);
    const two = dismissalEntry(
      [
        { id: 'A', scope: 'src/' },
        { id: 'B', scope: 'lib/' },
      ],
      undefined,
    );
    assert.equal(two.summary, 'Dismissed 2 blackboard entries');
    assert.equal(two.scope, 'project');
    assert.match(two.detail, /No reason given\.$/);
  });
});

describe('why on the reference folder', () => {
  test('a file: the folder decision above it and its own, newest first, with twining-mcp fields', async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    const r = await ws.why({ scope: 'src/auth/jwt.ts' });
    assert.deepEqual(
      r.decisions.map(x => x.id),
      [RS256, JWT_BEARER],
    );
    assert.deepEqual([r.active_count, r.provisional_count], [2, 0]);
    const rs = r.decisions[0];
    assert.deepEqual(Object.keys(rs).slice(0, 8), ['id', 'summary', 'rationale', 'confidence', 'status', 'timestamp', 'alternatives_count', 'commit_hashes']);
    assert.equal(rs.alternatives_count, 1);
    assert.equal(rs.rationale, 'Asymmetric keys let verifiers hold only the public key.');
  });
  test('a folder, an affected file, a symbol, and the project scope', async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    assert.deepEqual(
      (await ws.why({ scope: 'src/' })).decisions.map(x => x.id),
      [RS256, VERSIONED, JWT_BEARER],
    );
    assert.deepEqual(
      (await ws.why({ scope: 'src/auth/middleware.ts' })).decisions.map(x => x.id),
      [JWT_BEARER],
    );
    assert.deepEqual(
      (await ws.why({ scope: 'verifyToken' })).decisions.map(x => x.id),
      [RS256],
    );
    assert.deepEqual(
      (await ws.why({ scope: 'project' })).decisions.map(x => x.id),
      [VITEST],
    );
    assert.deepEqual((await ws.why({ scope: 'docs/' })).decisions, []);
  });
  test('an index entry whose record is missing is skipped, as twining-mcp skips it', async () => {
    const root = referenceProject();
    fs.rmSync(tw(root, 'decisions', `${RS256}.json`));
    const ws = await openWorkspace(root, { now: NOW });
    assert.deepEqual(
      (await ws.why({ scope: 'src/auth/jwt.ts' })).decisions.map(x => x.id),
      [JWT_BEARER],
    );
  });
});

describe('reconsider, override, promote', () => {
  test('reconsider: active becomes provisional in record and index, and the warning names the dependents', async () => {
    const root = referenceProject();
    const beforeKeys = Object.keys(readJson(root, `decisions/${JWT_BEARER}.json`));
    const ws = await openWorkspace(root, { now: NOW });
    const r = await ws.reconsider({ decision_id: JWT_BEARER, new_context: 'Sessions need revocation', agent_id: 'reviewer' });
    assert.deepEqual(r, { flagged: true, decision_summary: readJson(root, `decisions/${JWT_BEARER}.json`).summary, dependents: [RS256] });
    const record = readJson(root, `decisions/${JWT_BEARER}.json`);
    assert.equal(record.status, 'provisional');
    assert.deepEqual(Object.keys(record), beforeKeys, 'the record keeps its keys and their order');
    assert.equal(readJson(root, 'decisions/index.json').find((d: any) => d.id === JWT_BEARER).status, 'provisional');
    const warning = readLines(root, 'blackboard.jsonl').at(-1);
    assert.deepEqual(Object.keys(warning), ['entry_type', 'summary', 'detail', 'tags', 'scope', 'agent_id', 'id', 'timestamp']);
    assert.deepEqual(
      [warning.entry_type, warning.summary, warning.tags, warning.scope, warning.agent_id],
      ['warning', `Reconsideration flagged: ${record.summary}`, ['architecture'], 'src/auth/', 'reviewer'],
    );
    assert.equal(warning.detail, `Sessions need revocation\nNote: 1 downstream decisions may be affected: ${RS256}`);
    const again = await ws.reconsider({ decision_id: JWT_BEARER, new_context: 'Still unsure' });
    assert.equal(again.flagged, false, 'a provisional decision is not flagged again, but the warning is posted');
    assert.equal(readLines(root, 'blackboard.jsonl').at(-1).agent_id, 'main');
  });

  test('override: overridden with who and why appended, a decision entry, and a replacement that supersedes it', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const before = readJson(root, `decisions/${VERSIONED}.json`);
    const r = await ws.override({ decision_id: VERSIONED, reason: 'Clients pin versions by header', new_decision: 'Version REST endpoints by Accept header' });
    assert.equal(r.overridden, true);
    assert.equal(r.old_summary, before.summary);
    const old = readJson(root, `decisions/${VERSIONED}.json`);
    // twining-mcp 2.x's back-link to the replacement comes last (src/utils/types.ts superseded_by).
    assert.deepEqual(Object.keys(old), [...Object.keys(before), 'overridden_by', 'override_reason', 'superseded_by']);
    assert.equal(old.superseded_by, r.new_decision_id);
    // As in twining-mcp, the replacement's supersedes makes the overridden decision superseded.
    assert.deepEqual([old.status, old.overridden_by, old.override_reason], ['superseded', 'human', 'Clients pin versions by header']);
    const replacement = readJson(root, `decisions/${r.new_decision_id}.json`);
    assert.deepEqual(
      [replacement.supersedes, replacement.domain, replacement.scope, replacement.context, replacement.rationale, replacement.agent_id, replacement.status],
      [VERSIONED, 'api', 'src/api/', 'Clients pin versions by header', 'Clients pin versions by header', 'human', 'active'],
    );
    const index = readJson(root, 'decisions/index.json');
    assert.deepEqual(
      index.filter((d: any) => [VERSIONED, r.new_decision_id].includes(d.id)).map((d: any) => d.status),
      ['superseded', 'active'],
    );
    const entries = readLines(root, 'blackboard.jsonl').slice(-2);
    assert.deepEqual(
      entries.map(e => [e.entry_type, e.summary, e.agent_id]),
      [
        ['decision', `Override: ${before.summary} -- overridden by human`, 'human'],
        ['decision', 'Version REST endpoints by Accept header', 'human'],
      ],
    );
    assert.equal(entries[0].detail, 'Clients pin versions by header');
  });

  test('override without a replacement leaves the decision overridden', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    await ws.override({ decision_id: VITEST, reason: 'We use node:test', overridden_by: 'lead' });
    assert.deepEqual([readJson(root, `decisions/${VITEST}.json`).status, readJson(root, `decisions/${VITEST}.json`).overridden_by], ['overridden', 'lead']);
    assert.equal((await ws.decisions({ status: 'overridden' })).decisions[0].id, VITEST);
  });

  test('promote: provisional to active, the others sorted into their lists, one status entry', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const conflicting = await ws.decide({ domain: 'security', scope: 'src/auth/jwt.ts', summary: 'Sign JWTs with EdDSA', context: 'c', rationale: 'r' });
    assert.ok(conflicting.conflicts, 'conflicts with the RS256 decision, so provisional');
    await ws.override({ decision_id: VITEST, reason: 'gone' });
    const missing = '01M80HHK4PSMNX1YWBAYPYPVBZ';
    const r = await ws.promote({ decision_ids: [conflicting.id, RS256, VITEST, missing], promoted_by: 'lead' });
    assert.deepEqual(r, { promoted: [conflicting.id], already_active: [RS256], not_found: [missing], wrong_status: [{ id: VITEST, status: 'overridden' }] });
    assert.equal(readJson(root, `decisions/${conflicting.id}.json`).status, 'active');
    assert.equal(readJson(root, 'decisions/index.json').find((d: any) => d.id === conflicting.id).status, 'active');
    const status = readLines(root, 'blackboard.jsonl').at(-1);
    assert.deepEqual(
      [status.entry_type, status.summary, status.detail, status.scope, status.tags, status.agent_id],
      ['status', 'Promoted 1 provisional decision(s) to active', `Decision IDs: ${conflicting.id}`, 'project', [], 'lead'],
    );
  });

  test('a decision that does not exist is NOT_FOUND and nothing is written; bad ids are refused before', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const before = snapshotTree(root);
    const missing = '01M80HHK4PSMNX1YWBAYPYPVBZ';
    await assert.rejects(ws.reconsider({ decision_id: missing, new_context: 'x' }), {
      code: 'NOT_FOUND',
      message: /Decision not found: 01M80HHK4PSMNX1YWBAYPYPVBZ; nothing was written/,
    });
    await assert.rejects(ws.override({ decision_id: missing, reason: 'x', new_decision: 'y' }), { code: 'NOT_FOUND' });
    await assert.rejects(ws.override({ decision_id: '../index', reason: 'x' }), { code: 'INVALID_INPUT', message: /decision_id: must be a ULID/ });
    await assert.rejects(ws.promote({ decision_ids: [] }), { code: 'INVALID_INPUT', message: /at least one/ });
    assert.deepEqual(
      changedFiles(before, snapshotTree(root)).filter(f => !f.endsWith('.lock/')),
      [],
    );
    assert.deepEqual(await ws.promote({ decision_ids: [missing] }), { promoted: [], already_active: [], not_found: [missing], wrong_status: [] });
    assert.equal(readLines(root, 'blackboard.jsonl').length, 14, 'nothing promoted, no status entry');
  });
});

describe('dismiss', () => {
  test('removes entries by id, keeps lines that do not parse, reports what was not found, and records why', async () => {
    const root = referenceProject();
    const file = tw(root, 'blackboard.jsonl');
    const original = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    // A torn line in the middle, as a crashed writer of another program could leave.
    const torn = '{"entry_type":"warning","summary":"torn';
    fs.writeFileSync(file, [...original.slice(0, 3), torn, ...original.slice(3)].join('\n') + '\n');
    const entries = original.map(l => JSON.parse(l));
    const warning = entries.find(e => e.entry_type === 'warning' && e.scope === 'src/auth/jwt.ts');
    const ws = await openWorkspace(root, { now: NOW, warn: () => undefined });
    const r = await ws.dismiss({ ids: [warning.id, 'NOPE'], reason: 'Keys now rotate automatically', agent_id: 'backend-dev' });
    assert.deepEqual([r.dismissed, r.not_found], [[warning.id], ['NOPE']]);
    const lines = read(root, 'blackboard.jsonl').split('\n').filter(Boolean);
    const expected = [...original.slice(0, 3), torn, ...original.slice(3)].filter(l => !l.includes(`"id":"${warning.id}"`));
    assert.deepEqual(lines.slice(0, -1), expected, 'every other line kept byte for byte, in order, the torn one included');
    const status = JSON.parse(lines.at(-1)!);
    assert.equal(status.id, r.status_entry_id);
    assert.deepEqual(
      [status.entry_type, status.summary, status.scope, status.tags, status.relates_to, status.agent_id],
      ['status', `Dismissed warning "${warning.summary}": Keys now rotate automatically`, 'src/auth/jwt.ts', ['dismissed'], [warning.id], 'backend-dev'],
    );
    assert.match(status.detail, /Reason: Keys now rotate automatically$/);
    assert.equal((await ws.read({ entry_types: ['warning'], scope: 'src/auth/jwt.ts' })).total_count, 0, 'the engine sees it gone');
  });
  test('ids none of which exist: nothing is written', async () => {
    const root = referenceProject();
    const before = snapshotTree(root);
    const ws = await openWorkspace(root, { now: NOW });
    assert.deepEqual(await ws.dismiss({ ids: ['A', 'B'] }), { dismissed: [], not_found: ['A', 'B'] });
    assert.deepEqual(
      changedFiles(before, snapshotTree(root)).filter(f => !f.endsWith('.lock/')),
      [],
    );
  });
});

describe('the CLI speaks the new operations', () => {
  const run = promisify(execFile);
  test('why with a positional scope, dismiss and promote with positional ids', async () => {
    const root = referenceProject();
    const why = await run(process.execPath, [CLI_JS, 'why', 'src/auth/jwt.ts', '--dir', root]);
    assert.match(why.stdout, new RegExp(`active {6}${RS256} \\[security\\] src/auth/jwt.ts: Sign JWTs with RS256`));
    assert.match(why.stdout, /why: Asymmetric keys let verifiers hold only the public key\./);
    assert.match(why.stdout, /2 active, 0 provisional$/m);
    const warning = readLines(root, 'blackboard.jsonl').find(e => e.entry_type === 'warning')!;
    const dismissed = await run(process.execPath, [CLI_JS, 'dismiss', warning.id, 'MISSING', '--reason', 'done', '--dir', root]);
    assert.equal(dismissed.stdout.trim(), 'Dismissed 1; not found: MISSING');
    const promoted = await run(process.execPath, [CLI_JS, 'promote', RS256, '--dir', root, '--json']);
    assert.deepEqual(JSON.parse(promoted.stdout).already_active, [RS256]);
  });
});
