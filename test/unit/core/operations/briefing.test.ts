/**
 * assemble (the briefing) and record (the end of a piece of work), on a copy of twining-mcp's
 * reference folder: what a briefing holds and why, its budget, that it is recorded so a later
 * decision is honestly `assembled_before`, what changed since, and that a record is all or nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace } from '../../../../src/core';
import { at, readJson, readLines, referenceProject } from '../../../support/fixture';
import { changedFiles, snapshotTree } from '../../../support/tmp';
import { briefingText } from '../../../../src/core/text/briefing-text';
import { fillBudget, scopeProximity } from '../../../../src/core/rules/assembly';

const NOW = at('2026-11-22T02:33:00.000Z');
const MID = at('2026-11-22T02:40:00.000Z');
const LATER = at('2026-11-22T03:00:00.000Z');
const JWT_BEARER = '01M80HHJN7TF8W1N7EW8PHV7MT';
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';
const EXP_WARNING = '01M80HHK5EACAY1D2CS04B635E';
const JWT_HANDOFF = '01M80HHKAVJT8FG2B08Q4NGZ4W';

describe('assemble', () => {
  test('a briefing for src/auth/jwt.ts: the waiting handoff with its results and drift, the warning, the decisions with rationale, each with its reason', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const b = await ws.assemble({ task: 'add token expiry checks', scope: 'src/auth/jwt.ts', agent_id: 'tester' });
    assert.deepEqual(
      b.recent_handoffs.map(h => h.id),
      [JWT_HANDOFF],
    );
    const handoff = b.recent_handoffs[0];
    const stored = readJson(root, `handoffs/${JWT_HANDOFF}.json`);
    assert.deepEqual(handoff.results, stored.results);
    assert.equal(typeof handoff.drifted, 'boolean');
    assert.match(handoff.reason, /any agent in src\/auth\/, not yet acknowledged/);
    assert.deepEqual(
      b.active_warnings.map(w => w.id),
      [EXP_WARNING],
    );
    assert.match(b.active_warnings[0].reason, /active warning in src\/auth\/jwt\.ts/);
    const index = readJson(root, 'decisions/index.json') as { id: string; status: string }[];
    const active = new Set(index.filter(d => d.status === 'active' || d.status === 'provisional').map(d => d.id));
    for (const d of b.active_decisions) assert.ok(active.has(d.id), `${d.id} is active or provisional`);
    assert.ok(b.active_decisions.some(d => d.id === RS256 || d.id === JWT_BEARER));
    for (const d of b.active_decisions) {
      assert.equal(d.rationale, readJson(root, `decisions/${d.id}.json`).rationale);
      assert.ok(d.reason.length > 0);
    }
    // twining-mcp's result fields are all there.
    for (const field of [
      'assembled_at',
      'task',
      'scope',
      'token_estimate',
      'active_decisions',
      'open_needs',
      'recent_findings',
      'active_warnings',
      'recent_questions',
      'related_entities',
    ])
      assert.ok(field in b, field);
    assert.ok(b.token_estimate <= 4000);
    const text = briefingText(b);
    assert.match(text, /verifyToken does not check the exp claim/);
    assert.match(text, new RegExp(JWT_HANDOFF));
  });

  test('deterministic: the same folder, clock and input give the same briefing', async () => {
    const root = referenceProject();
    const one = await (await openWorkspace(root, { now: NOW })).assemble({ task: 't', scope: 'src/', agent_id: 'a1' });
    const two = await (await openWorkspace(root, { now: NOW })).assemble({ task: 't', scope: 'src/', agent_id: 'a2' });
    const strip = (b: typeof one) => ({ ...b, agent_id: '', recent_handoffs: b.recent_handoffs.map(h => h.id) });
    assert.deepEqual(strip(one), strip(two));
  });

  test('more candidates than a pool first holds: each item is itself, once, in a file and project-wide', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const posted = { warning: new Set<string>(), finding: new Set<string>() };
    for (let i = 0; i < 150; i++)
      for (const entry_type of ['warning', 'finding'] as const) {
        const { id } = await ws.post({ entry_type, summary: `${entry_type} ${i} on the cache`, scope: 'src/cache/lru.ts', agent_id: 'writer' });
        posted[entry_type].add(id);
      }
    for (const scope of ['src/cache/lru.ts', 'project']) {
      const b = await ws.assemble({ task: 't', scope, max_tokens: 200000, agent_id: 'reader' });
      const warnings = b.active_warnings.map(w => w.id).filter(id => posted.warning.has(id));
      const findings = b.recent_findings.map(f => f.id).filter(id => posted.finding.has(id));
      assert.deepEqual(new Set(warnings), posted.warning, `${scope}: every warning posted`);
      assert.equal(warnings.length, 150, `${scope}: each warning once`);
      assert.deepEqual(new Set(findings), posted.finding, `${scope}: every finding posted`);
      assert.equal(findings.length, 150, `${scope}: each finding once`);
      const byId = new Map(b.active_warnings.map(w => [w.id, w.summary]));
      for (const id of posted.warning) assert.match(byId.get(id) ?? '', /^warning \d+ on the cache$/, `${scope}: ${id} carries its own summary`);
    }
  });

  test('the budget: warnings first (cut to their summary before being left out), the rest within 90%', async () => {
    const r = fillBudget(
      [
        { id: 'w1', kind: 'warning', cost: 50, summaryCost: 5 },
        { id: 'w2', kind: 'warning', cost: 80, summaryCost: 10 },
      ],
      [
        { id: 'd1', kind: 'decision', cost: 30, summaryCost: 0 },
        { id: 'n1', kind: 'need', cost: 5, summaryCost: 0 },
      ],
      100,
    );
    assert.deepEqual([...r.selected], ['w1', 'w2', 'd1', 'n1']);
    assert.deepEqual([...r.summaryOnly], ['w2']);
    assert.equal(r.tokens, 95, 'the need fits within 90% too');
    assert.equal(scopeProximity('src/auth/jwt.ts', 'src/auth/'), 0.7);
    assert.equal(scopeProximity('src/auth/', 'src/auth/jwt.ts'), 1);
    const root = referenceProject();
    const small = await (await openWorkspace(root, { now: NOW })).assemble({ task: 't', scope: 'project', max_tokens: 100, agent_id: 'x' });
    const big = await (await openWorkspace(root, { now: NOW })).assemble({ task: 't', scope: 'project', agent_id: 'y' });
    assert.ok(small.active_decisions.length < big.active_decisions.length, 'a small budget holds fewer decisions');
    assert.ok(small.active_warnings.length + (small.warnings_omitted ?? 0) === big.active_warnings.length, 'warnings are kept or counted');
  });

  test('recorded: a decision after a briefing is assembled_before, one without is not; the next briefing says what changed since', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    await ws.assemble({ task: 'expiry', scope: 'src/auth/', agent_id: 'briefed' });
    const decide = { domain: 'security', scope: 'src/auth/', summary: 's', context: 'c', rationale: 'r' };
    const a = await ws.decide({ ...decide, summary: 'Check exp in verifyToken', agent_id: 'briefed' });
    // Another process (a new engine) sees the mark on disk.
    const other = await openWorkspace(root, { now: MID });
    const b = await other.decide({ ...decide, summary: 'Use a 5 minute leeway', agent_id: 'briefed' });
    const c = await other.decide({ ...decide, summary: 'Tokens live 15 minutes', agent_id: 'unbriefed' });
    assert.equal(readJson(root, `decisions/${a.id}.json`).assembled_before, true);
    assert.equal(readJson(root, `decisions/${b.id}.json`).assembled_before, true);
    assert.equal(readJson(root, `decisions/${c.id}.json`).assembled_before, false);
    await other.post({ entry_type: 'warning', summary: 'Clock skew on CI', scope: 'src/auth/jwt.ts', agent_id: 'someone-else' });
    const next = await (await openWorkspace(root, { now: LATER })).assemble({ task: 'expiry', scope: 'src/auth/', agent_id: 'briefed' });
    assert.ok(next.changed_since);
    assert.equal(next.changed_since.since, '2026-11-22T02:33:00.000Z');
    // Two decisions and a warning came after the briefing (the first decision was made at its time);
    // those shown in the briefing's own lists are not repeated in the list of changes.
    assert.ok(next.changed_since.total >= 3, 'and the conflict warnings the decisions raised');
    const shown = new Set([...next.active_decisions, ...next.active_warnings].map(x => x.id));
    assert.ok(shown.has(b.id) && shown.has(c.id));
    for (const item of next.changed_since.items) assert.ok(!shown.has(item.id));
    assert.ok(next.active_warnings.some(w => w.summary === 'Clock skew on CI'));
  });
});

describe('record', () => {
  test('one call writes the status, decisions with rationale and files, findings, warnings and a handoff whose snapshot holds them', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const r = await ws.record({
      summary: 'Added exp checking to verifyToken',
      decisions: [
        { summary: 'Reject tokens without exp', rationale: 'A token without expiry lives forever', affected_files: ['src/auth/jwt.ts'] },
        'Chose a 30 s leeway over none — CI clocks drift',
      ],
      findings: ['verifyToken is also used by the websocket layer', 'need: tests for the leeway'],
      warnings: ['Old mobile clients send tokens without exp'],
      resolves: [EXP_WARNING],
      affected_files: ['src/auth/jwt.ts', 'src/auth/middleware.ts'],
      agent_id: 'backend-dev',
      handoff: { target_agent: 'tester', results: [{ description: 'exp check', status: 'completed' }] },
    });
    assert.equal(r.scope, 'src/auth/');
    assert.equal(r.decisions_created.length, 2);
    const second = readJson(root, `decisions/${r.decisions_created[1].id}.json`);
    assert.equal(second.summary, 'Chose a 30 s leeway over none');
    assert.equal(second.rationale, 'CI clocks drift');
    assert.deepEqual(readJson(root, `decisions/${r.decisions_created[0].id}.json`).affected_files, ['src/auth/jwt.ts']);
    assert.deepEqual(
      r.findings_created.map(f => f.entry_type),
      ['finding', 'need', 'warning'],
    );
    const lines = readLines(root, 'blackboard.jsonl');
    const status = lines.find(l => l.id === r.status_entry_id);
    assert.deepEqual(status.tags, ['session-record']);
    assert.deepEqual(status.relates_to, [EXP_WARNING]);
    const h = readJson(root, `handoffs/${r.handoff_id}.json`);
    assert.equal(h.target_agent, 'tester');
    for (const d of r.decisions_created) assert.ok(h.context_snapshot.decision_ids.includes(d.id));
    assert.ok(h.context_snapshot.warning_ids.includes(r.findings_created[2].id));
    assert.match(readJson(root, '../.twining/decisions/index.json').at(-1).id, /^[0-9A-Z]{26}$/);
    // The tester's briefing now carries the handoff and no longer the resolved warning.
    const b = await (await openWorkspace(root, { now: LATER })).assemble({ task: 'test exp', scope: 'src/auth/jwt.ts', agent_id: 'tester' });
    assert.ok(b.recent_handoffs.some(x => x.id === r.handoff_id && x.reason.includes('handed over to tester')));
    assert.ok(!b.active_warnings.some(w => w.id === EXP_WARNING), 'the resolved warning is gone from the briefing');
  });

  test('all or nothing: one bad decision, or a resolves id that does not exist, writes nothing and says which', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const before = snapshotTree(root);
    await assert.rejects(
      ws.record({ summary: 'x', decisions: ['ok decision', { summary: 'y'.repeat(201) }], findings: ['f'] }),
      /decisions\[1\]\.summary: must be at most 200 characters/,
    );
    await assert.rejects(ws.record({ summary: 'x', resolves: ['01M80HHK5EACAY1D2CS04B6000'] }), /not on the blackboard; nothing was written/);
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
  });
});
