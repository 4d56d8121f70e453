/**
 * The rules modules (src/core/rules/) as pure functions: drift, conflicts, scoring, snapshot,
 * delegation detail, and the data kinds. No file system, no engine: facts in, answers out.
 * (architecture.test.ts checks that these modules import nothing that does I/O.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { driftOf, missingEntries, DriftFacts } from '../../../../src/core/rules/drift';
import { conflictWarning, conflictingDecisions, statusOfNewDecision } from '../../../../src/core/rules/conflicts';
import { livenessOf, mergeRegistration, nextLivenessChange, rankAgents, scoreAgent } from '../../../../src/core/rules/scoring';
import { buildSnapshot, normaliseSnapshot, resultStatusOf, snapshotDigest, snapshotIntegrity, snapshotSources } from '../../../../src/core/rules/snapshot';
import { delegationOf, isExpired } from '../../../../src/core/rules/delegation-detail';
import { changedKinds, handoffIdOfPath, kindOfPath, Versions } from '../../../../src/core/engine/data-kinds';
import { driftCount, driftItems, driftSummary } from '../../../../src/core/text/drift-text';
import type { AgentRecord, BlackboardEntry, HandoffSnapshot, DecisionIndexEntry } from '../../../../src/core/records';

const ID = (n: number) => `01M80HHK${String(n).padStart(18, '0')}`;
const T = (minute: number) => `2026-11-22T10:${String(minute).padStart(2, '0')}:00.000Z`;

function decision(n: number, fields: Partial<DecisionIndexEntry> = {}): DecisionIndexEntry {
  return {
    id: ID(n),
    timestamp: T(n),
    domain: 'api',
    scope: 'src/api/',
    summary: `decision ${n}`,
    confidence: 'medium',
    status: 'active',
    affected_files: [],
    affected_symbols: [],
    commit_hashes: [],
    ...fields,
  };
}

function entry(n: number, fields: Partial<BlackboardEntry> = {}): BlackboardEntry {
  return {
    entry_type: 'warning',
    summary: `entry ${n}`,
    detail: '',
    tags: [],
    scope: 'src/api/',
    agent_id: 'a',
    id: ID(n),
    timestamp: T(n),
    ...fields,
  };
}

function snapshot(fields: Partial<HandoffSnapshot>): HandoffSnapshot {
  return { decision_ids: [], warning_ids: [], finding_ids: [], summaries: [], ...fields };
}

function facts(fields: Partial<DriftFacts>): DriftFacts {
  return {
    snapshot: snapshot({}),
    scope: 'src/api/',
    decisionsById: new Map(),
    missing: [],
    archived: new Map(),
    decisionsAfter: [],
    warningsAfter: [],
    ...fields,
  };
}

describe('rules/drift', () => {
  test('nothing changed: no drift', () => {
    const d1 = decision(1);
    const result = driftOf(facts({ snapshot: snapshot({ decision_ids: [d1.id] }), decisionsById: new Map([[d1.id, d1]]) }));
    assert.equal(result.drifted, false);
    assert.deepEqual(result.drift, { decisions_no_longer_active: [], entries_removed: [], new_decisions: [], new_warnings: [] });
  });

  test('a snapshot decision superseded or gone from the index is no longer active', () => {
    const superseded = decision(1, { status: 'superseded' });
    const result = driftOf(facts({ snapshot: snapshot({ decision_ids: [superseded.id, ID(2)] }), decisionsById: new Map([[superseded.id, superseded]]) }));
    assert.deepEqual(result.drift.decisions_no_longer_active, [
      { id: ID(1), summary: 'decision 1', now: 'superseded' },
      { id: ID(2), now: 'missing' },
    ]);
    assert.equal(result.drifted, true);
  });

  test('removed entries are archived when the archive has them, else dismissed', () => {
    const result = driftOf(facts({ missing: [ID(3), ID(4)], archived: new Map([[ID(4), { summary: 'old warning' }]]) }));
    assert.deepEqual(result.drift.entries_removed, [
      { id: ID(3), now: 'dismissed' },
      { id: ID(4), summary: 'old warning', now: 'archived' },
    ]);
  });

  test('missingEntries: the warnings and findings no longer on the blackboard, in snapshot order', () => {
    const onBoard = new Set([ID(2)]);
    assert.deepEqual(
      missingEntries(snapshot({ warning_ids: [ID(1), ID(2)], finding_ids: [ID(3)] }), id => onBoard.has(id)),
      [ID(1), ID(3)],
    );
  });

  test('later decisions and warnings count only in scope and when not already in the snapshot', () => {
    const known = decision(5);
    const later = [known, decision(6), decision(7, { scope: 'src/ui/' }), decision(8, { scope: 'src/' })];
    const warnings = [entry(9), entry(10, { scope: 'docs/' })];
    const result = driftOf(facts({ snapshot: snapshot({ decision_ids: [known.id] }), decisionsAfter: later, warningsAfter: warnings }));
    assert.deepEqual(
      result.drift.new_decisions.map(d => d.id),
      [ID(6), ID(8)],
    );
    assert.deepEqual(result.drift.new_decisions[0], { id: ID(6), summary: 'decision 6', scope: 'src/api/', timestamp: T(6) });
    assert.deepEqual(
      result.drift.new_warnings.map(w => w.id),
      [ID(9)],
    );
  });

  test('a handoff without a scope (or an empty one) sees the whole project', () => {
    for (const scope of [undefined, '']) {
      const result = driftOf(facts({ scope, decisionsAfter: [decision(7, { scope: 'src/ui/' })], warningsAfter: [entry(10, { scope: 'docs/' })] }));
      assert.equal(result.drift.new_decisions.length, 1);
      assert.equal(result.drift.new_warnings.length, 1);
    }
  });
});

describe('rules/conflicts', () => {
  const index: unknown[] = [
    decision(1, { summary: 'REST' }),
    decision(2, { summary: 'GraphQL', scope: 'src/' }),
    decision(3, { summary: 'gRPC', status: 'superseded' }),
    decision(4, { summary: 'SOAP', domain: 'security' }),
    decision(5, { summary: 'Thrift', scope: 'src/ui/' }),
    'not a decision',
    null,
  ];

  test('active, same domain, overlapping scope, different summary', () => {
    assert.deepEqual(conflictingDecisions(index, { domain: 'api', scope: 'src/api/handlers/', summary: 'JSON-RPC' }), [
      { id: ID(1), summary: 'REST' },
      { id: ID(2), summary: 'GraphQL' },
    ]);
  });

  test('the same summary again is no conflict; a conflict makes the new decision provisional', () => {
    const conflicts = conflictingDecisions(index, { domain: 'api', scope: 'src/api/', summary: 'REST' });
    assert.deepEqual(conflicts, [{ id: ID(2), summary: 'GraphQL' }]);
    assert.equal(statusOfNewDecision(conflicts), 'provisional');
    assert.equal(statusOfNewDecision([]), 'active');
  });

  test('the warning names every conflicting decision', () => {
    const w = conflictWarning('JSON-RPC', [{ id: ID(1), summary: 'REST' }]);
    assert.equal(w.summary, 'Potential conflict: new decision may conflict with 1 existing decision(s)');
    assert.equal(w.detail, `New decision "JSON-RPC" conflicts with:\n- ${ID(1)}: "REST"`);
  });
});

describe('rules/scoring', () => {
  const thresholds = { idle_after_ms: 60_000, gone_after_ms: 600_000 };
  const now = new Date(T(30));

  test('liveness boundaries are strict, and an unparseable time is gone', () => {
    assert.equal(livenessOf(new Date(now.getTime() - 59_999).toISOString(), now, thresholds), 'active');
    assert.equal(livenessOf(new Date(now.getTime() - 60_000).toISOString(), now, thresholds), 'idle');
    assert.equal(livenessOf(new Date(now.getTime() - 600_000).toISOString(), now, thresholds), 'gone');
    assert.equal(livenessOf('yesterday', now, thresholds), 'gone');
    assert.equal(nextLivenessChange(T(29), now, thresholds), Date.parse(T(29)) + 600_000);
  });

  test('scores: 0.7 capability overlap + 0.3 liveness; stored capabilities are compared normalised', () => {
    const agent = { agent_id: 'x', capabilities: ['TypeScript', 'review'], registered_at: T(0), last_active: T(0) } as AgentRecord;
    const score = scoreAgent(agent, ['typescript', 'testing'], 'idle');
    assert.equal(score.capability_overlap, 0.5);
    assert.equal(score.total_score, 0.7 * 0.5 + 0.3 * 0.5);
    assert.deepEqual(score.matched_capabilities, ['TypeScript']);
  });

  test('ranking is stable, drops gone agents and low scores on request', () => {
    const agents = ['a', 'b', 'c'].map(id => ({ agent_id: id, capabilities: ['x'], registered_at: T(0), last_active: T(0) }));
    const liveness = { a: 'idle', b: 'active', c: 'gone' } as const;
    const ranked = rankAgents(agents, ['x'], a => liveness[a.agent_id as 'a'], { include_gone: false, min_score: 0.8 });
    assert.deepEqual(
      ranked.map(s => s.agent_id),
      ['b', 'a'],
    );
  });

  test('registration merges capabilities and keeps unknown fields and items', () => {
    const registry: unknown[] = ['junk', { agent_id: 'x', capabilities: ['a'], registered_at: T(0), last_active: T(0), extra: 1 }];
    const { registry: next, record } = mergeRegistration(registry, { agent_id: 'x', capabilities: ['B', 'a'] }, T(5));
    assert.deepEqual(record, { agent_id: 'x', capabilities: ['a', 'b'], registered_at: T(0), last_active: T(5), extra: 1 });
    assert.equal(next[0], 'junk');
    assert.equal(registry[1] !== next[1], true, 'the input is not changed');
  });
});

describe('rules/snapshot', () => {
  test('sources in scope, summaries capped per kind, digest independent of key order', () => {
    const decisions = [1, 2, 3, 4, 5, 6].map(n => decision(n));
    const warnings = [entry(7), entry(8, { scope: 'docs/' })];
    const sources = snapshotSources([...decisions, decision(9, { status: 'superseded' })], warnings, [], 'src/api/x.ts');
    const built = buildSnapshot(sources);
    assert.equal(built.decision_ids.length, 6);
    assert.deepEqual(built.warning_ids, [ID(7)]);
    assert.equal(built.summaries.filter(s => s.startsWith('Decision: ')).length, 5);
    const reordered = { summaries: built.summaries, finding_ids: built.finding_ids, warning_ids: built.warning_ids, decision_ids: built.decision_ids };
    assert.equal(snapshotDigest(reordered), snapshotDigest(built));
  });

  test('integrity: intact without a digest, broken when an id changed', () => {
    const s = snapshot({ decision_ids: [ID(1)] });
    const digest = snapshotDigest(s);
    assert.deepEqual(snapshotIntegrity(s, undefined), { intact: true, has_digest: false, computed_digest: digest });
    assert.deepEqual(snapshotIntegrity(s, digest), { intact: true, has_digest: true, stored_digest: digest, computed_digest: digest });
    assert.equal(snapshotIntegrity(snapshot({ decision_ids: [ID(2)] }), digest).intact, false);
  });

  test('a stored snapshot of any shape becomes four string arrays', () => {
    assert.deepEqual(normaliseSnapshot({ decision_ids: [ID(1), 3, null], warning_ids: 'x' }), snapshot({ decision_ids: [ID(1)] }));
    assert.deepEqual(normaliseSnapshot(undefined), snapshot({}));
  });

  test('result status: all the same, or mixed; none is completed', () => {
    assert.equal(resultStatusOf([]), 'completed');
    assert.equal(
      resultStatusOf([
        { description: 'a', status: 'partial' },
        { description: 'b', status: 'partial' },
      ]),
      'partial',
    );
    assert.equal(
      resultStatusOf([
        { description: 'a', status: 'partial' },
        { description: 'b', status: 'failed' },
      ]),
      'mixed',
    );
  });
});

describe('rules/delegation-detail', () => {
  test('a need with a delegation detail; anything else is not a delegation', () => {
    const detail = { type: 'delegation', required_capabilities: ['x', 3], urgency: 'urgent', expires_at: T(10), timeout_ms: 5 };
    assert.deepEqual(delegationOf(entry(1, { entry_type: 'need', detail: JSON.stringify(detail) })), {
      type: 'delegation',
      required_capabilities: ['x'],
      urgency: 'normal',
      expires_at: T(10),
      timeout_ms: 5,
    });
    assert.equal(delegationOf(entry(1, { entry_type: 'need', detail: '{not json' })), undefined);
    assert.equal(delegationOf(entry(1, { entry_type: 'finding', detail: JSON.stringify(detail) })), undefined);
  });

  test('expired at the expiry instant; an unparseable expiry is expired', () => {
    const d = { type: 'delegation' as const, required_capabilities: [], urgency: 'normal' as const, expires_at: T(10), timeout_ms: 0 };
    assert.equal(isExpired(d, new Date(Date.parse(T(10)) - 1)), false);
    assert.equal(isExpired(d, new Date(T(10))), true);
    assert.equal(isExpired({ ...d, expires_at: 'soon' }, new Date(T(0))), true);
  });
});

describe('data kinds', () => {
  const v: Versions = { registry: 1, blackboard: 1, handoffs: 1, handoffRecords: 0, decisions: 1, config: 1, sessions: 0, claims: 1, drift: 2 };

  test('changed kinds by name; every kind when there is no earlier look', () => {
    assert.deepEqual(changedKinds(v, { ...v, blackboard: 2, drift: 3 }), ['blackboard']);
    assert.deepEqual(changedKinds(v, v), []);
    assert.deepEqual(changedKinds(undefined, v), ['registry', 'blackboard', 'handoffs', 'handoffRecords', 'decisions', 'config', 'sessions', 'claims']);
  });

  test('paths: which file holds which kind; locks and temporary files hold none', () => {
    assert.equal(kindOfPath('.twining/handoffs/index.jsonl'), 'handoffs');
    assert.equal(kindOfPath(`.twining/handoffs/${ID(1)}.json`), 'handoffRecords');
    assert.equal(kindOfPath('.twining/blackboard.jsonl.lock'), undefined);
    assert.equal(kindOfPath('.twining/agents/.registry.json.1.abcdef12.tmp'), undefined);
    assert.equal(kindOfPath('.twining/claims/claims.jsonl'), 'claims');
    assert.equal(kindOfPath('.twining/claims/claims.jsonl.lock.owner'), undefined);
    assert.equal(kindOfPath('.twining/claims/.claims.jsonl.12.abcdef12.tmp'), undefined);
    assert.equal(handoffIdOfPath(`.twining/handoffs/${ID(1)}.json`), ID(1));
    assert.equal(handoffIdOfPath('.twining/handoffs/index.jsonl'), undefined);
  });
});

describe('drift in words (core/drift-text.ts)', () => {
  const v = {
    handoff_id: ID(1),
    intact: false,
    has_digest: true,
    computed_digest: 'sha256:x',
    drift: {
      decisions_no_longer_active: [
        { id: ID(2), summary: 'Use REST', now: 'superseded' },
        { id: ID(3), now: 'missing' },
      ],
      entries_removed: [{ id: ID(4), now: 'dismissed' }],
      new_decisions: [{ id: ID(5), summary: 'Use gRPC', scope: 'src/', timestamp: T(5) }],
      new_warnings: [],
    },
    drifted: true,
    chain: [ID(1)],
  };

  test('one text per item, in one order; a missing decision has nothing to open', () => {
    const items = driftItems(v);
    assert.deepEqual(
      items.map(i => i.sentence),
      [
        'The stored snapshot no longer matches its digest (it was edited after the handoff was written)',
        'Decision now superseded: Use REST',
        `Decision now missing: ${ID(3)}`,
        `Entry dismissed: ${ID(4)}`,
        'New decision in scope: Use gRPC (src/)',
      ],
    );
    assert.deepEqual(
      items.map(i => i.target?.id),
      [undefined, ID(2), undefined, undefined, ID(5)],
    );
  });

  test('count and summary', () => {
    assert.equal(driftCount(v), 5);
    assert.equal(driftSummary(v), '2 decisions no longer active, 1 entry removed, 1 new decision, snapshot edited');
    assert.equal(driftCount(undefined), 0);
  });
});
