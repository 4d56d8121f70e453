/** The coordination rules of docs/format.md, one by one, against real folders on disk. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace, overlaps, normaliseTags, livenessOf, snapshotDigest, isTwiningError } from '../../../../src/core';
import { parseConfig, defaultConfigYaml } from '../../../../src/core/engine/config';
import { JsonlFile } from '../../../../src/core/storage/files/jsonl';
import { GITIGNORE } from '../../../../src/core/storage/layout';
import { at, emptyProject, read, readJson, readLines, referenceProject } from '../../../support/fixture';

const T0 = '2026-11-22T10:00:00.000Z';
const plus = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

/** A workspace whose clock can be moved by the test. */
async function clocked(root: string, iso = T0) {
  let now = new Date(iso);
  const ws = await openWorkspace(root, { now: () => now, warn: () => undefined });
  return { ws, set: (t: string) => (now = new Date(t)) };
}

describe('scope overlap (docs/format.md §Scope overlap)', () => {
  test('plain case-sensitive prefix in either direction', () => {
    assert.equal(overlaps('src/auth/', 'src/auth/jwt.ts'), true);
    assert.equal(overlaps('src/auth/jwt.ts', 'src/auth/'), true);
    assert.equal(overlaps('src/auth/', 'src/'), true);
    assert.equal(overlaps('src/auth/', 'src/auth'), true);
    assert.equal(overlaps('src/auth/', 'src/api/'), false);
    assert.equal(overlaps('project', 'src/auth/'), false);
    assert.equal(overlaps('', 'anything'), true);
    assert.equal(overlaps('Src/', 'src/'), false);
  });
});

describe('tag normalisation (docs/format.md §Tag normalisation)', () => {
  test('lower-cases, trims, drops empties and duplicates keeping the first', () => {
    assert.deepEqual(normaliseTags([' TypeScript', 'api', '', '  ', 'typescript', 'API ', 'Ünïcode']), ['typescript', 'api', 'ünïcode']);
  });
});

describe('liveness (docs/format.md §Liveness)', () => {
  const t = { idle_after_ms: 300000, gone_after_ms: 1800000 };
  const now = new Date(T0);
  test('strict boundaries: exactly 5 min is idle, exactly 30 min is gone', () => {
    assert.equal(livenessOf(plus(-299999), now, t), 'active');
    assert.equal(livenessOf(plus(-300000), now, t), 'idle');
    assert.equal(livenessOf(plus(-1799999), now, t), 'idle');
    assert.equal(livenessOf(plus(-1800000), now, t), 'gone');
  });
  test('unparseable is gone, the future is active', () => {
    assert.equal(livenessOf('yesterday-ish', now, t), 'gone');
    assert.equal(livenessOf(undefined, now, t), 'gone');
    assert.equal(livenessOf(plus(60000), now, t), 'active');
  });
  test('thresholds come from config.yml and are re-read when it changes', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    await ws.register({ agent_id: 'a' });
    set(plus(60000));
    assert.equal((await ws.agents()).agents[0].liveness, 'active');
    const config = read(root, 'config.yml').replace('idle_after_ms: 300000', 'idle_after_ms: 30000');
    fs.writeFileSync(path.join(root, '.twining', 'config.yml'), config);
    assert.equal((await ws.agents()).agents[0].liveness, 'idle');
  });
  test('work counts, not only registration (docs/format.md §Liveness tied to registration): the latest blackboard entry by the agent is its last sign of life', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    await ws.register({ agent_id: 'worker', capabilities: ['testing'] });
    await ws.register({ agent_id: 'idler', capabilities: ['testing'] });
    set(plus(4 * 60000));
    await ws.post({ entry_type: 'status', summary: 'still at it', agent_id: 'worker' });
    set(plus(6 * 60000));
    const byId = async () => Object.fromEntries((await ws.agents()).agents.map(a => [a.agent_id, [a.liveness, a.last_seen]]));
    assert.deepEqual(await byId(), { worker: ['active', plus(4 * 60000)], idler: ['idle', T0] });
    // The registry is not written: last_active stays the registration time, as twining-mcp keeps it.
    assert.equal(readJson(root, 'agents/registry.json')[0].last_active, T0);
    // Ranking and counts use it too.
    const ranked = (await ws.discover({ required_capabilities: ['testing'] })).agents;
    assert.deepEqual(
      ranked.map(a => [a.agent_id, a.liveness]),
      [
        ['worker', 'active'],
        ['idler', 'idle'],
      ],
    );
    assert.equal((await ws.status()).active_agents, 1);
    // Another program's line counts; one with a timestamp that does not parse does not.
    fs.appendFileSync(
      path.join(root, '.twining', 'blackboard.jsonl'),
      [
        JSON.stringify({
          entry_type: 'finding',
          summary: 'from elsewhere',
          detail: '',
          tags: [],
          scope: 'project',
          agent_id: 'idler',
          id: '01M80HHKAVJT8FG2B08Q4NGZ60',
          timestamp: plus(5 * 60000),
        }),
        JSON.stringify({
          entry_type: 'finding',
          summary: 'garbled time',
          detail: '',
          tags: [],
          scope: 'project',
          agent_id: 'worker',
          id: '01M80HHKAVJT8FG2B08Q4NGZ61',
          timestamp: 'soon',
        }),
      ].join('\n') + '\n',
    );
    assert.deepEqual(await byId(), { worker: ['active', plus(4 * 60000)], idler: ['active', plus(5 * 60000)] });
    set(plus(9 * 60000 + 1));
    assert.deepEqual(await byId(), { worker: ['idle', plus(4 * 60000)], idler: ['active', plus(5 * 60000)] });
    // A timestamp not in toISOString form is compared as a time, not as a string.
    const later = '2026-11-22T09:08:00-01:00'; // T0 + 8 min, though it sorts first as a string
    fs.appendFileSync(
      path.join(root, '.twining', 'blackboard.jsonl'),
      JSON.stringify({
        entry_type: 'status',
        summary: 'offset clock',
        detail: '',
        tags: [],
        scope: 'project',
        agent_id: 'worker',
        id: '01M80HHKAVJT8FG2B08Q4NGZ62',
        timestamp: later,
      }) + '\n',
    );
    assert.deepEqual((await byId()).worker, ['active', later]);
  });
});

describe('registration (docs/format.md §Registration)', () => {
  test('upsert merges capabilities, keeps registered_at, replaces role only when given', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    const first = await ws.register({ agent_id: 'dev', capabilities: ['TypeScript', ' api '] });
    assert.deepEqual(Object.keys(first), ['agent_id', 'capabilities', 'registered_at', 'last_active']);
    set(plus(1000));
    const second = await ws.register({ agent_id: 'dev', capabilities: ['API', 'react'], role: 'implementer' });
    assert.deepEqual(second.capabilities, ['typescript', 'api', 'react']);
    assert.equal(second.registered_at, T0);
    assert.equal(second.last_active, plus(1000));
    // A role gained later is written after last_active, as twining-mcp does.
    assert.deepEqual(Object.keys(readJson(root, 'agents/registry.json')[0]), ['agent_id', 'capabilities', 'registered_at', 'last_active', 'role']);
    const third = await ws.register({ agent_id: 'dev' });
    assert.equal(third.role, 'implementer');
    assert.equal(readJson(root, 'agents/registry.json').length, 1);
  });
});

describe('scoring and discovery (docs/format.md §Scoring and discovery)', () => {
  async function team() {
    const root = emptyProject();
    const { ws, set } = await clocked(root, plus(-40 * 60000));
    await ws.register({ agent_id: 'gone-tester', capabilities: ['testing', 'typescript'] });
    set(plus(-10 * 60000));
    await ws.register({ agent_id: 'idle-half', capabilities: ['typescript'] });
    set(T0);
    await ws.register({ agent_id: 'active-half', capabilities: ['typescript'] });
    await ws.register({ agent_id: 'active-none', capabilities: ['css'] });
    await ws.register({ agent_id: 'active-half-2', capabilities: ['testing'] });
    return { root, ws };
  }
  test('total = 0.7 × overlap + 0.3 × liveness, unrounded; zero-overlap agents stay', async () => {
    const { ws } = await team();
    const { agents, total_registered } = await ws.discover({ required_capabilities: ['Testing', 'typescript'] });
    assert.equal(total_registered, 5);
    const byId = Object.fromEntries(agents.map(a => [a.agent_id, a]));
    assert.equal(byId['active-half'].total_score, 0.6499999999999999);
    assert.equal(byId['active-none'].total_score, 0.3);
    assert.equal(byId['idle-half'].total_score, 0.7 * 0.5 + 0.3 * 0.5);
    assert.equal(byId['gone-tester'].total_score, 0.7 + 0.03);
    assert.deepEqual(byId['gone-tester'].matched_capabilities, ['testing', 'typescript']);
    assert.deepEqual(Object.keys(byId['active-half']), [
      'agent_id',
      'capabilities',
      'liveness',
      'capability_overlap',
      'liveness_score',
      'total_score',
      'matched_capabilities',
    ]);
  });
  test('stable sort keeps registry order on ties; include_gone false and min_score filter', async () => {
    const { ws } = await team();
    const ranked = (await ws.discover({ required_capabilities: ['testing', 'typescript'] })).agents.map(a => a.agent_id);
    assert.deepEqual(ranked, ['gone-tester', 'active-half', 'active-half-2', 'idle-half', 'active-none']);
    const noGone = await ws.discover({ required_capabilities: ['testing', 'typescript'], include_gone: false, min_score: 0.5 });
    assert.deepEqual(
      noGone.agents.map(a => a.agent_id),
      ['active-half', 'active-half-2', 'idle-half'],
    );
  });
  test('no required capabilities gives overlap 0', async () => {
    const { ws } = await team();
    const { agents } = await ws.discover({ required_capabilities: [] });
    assert.ok(agents.every(a => a.capability_overlap === 0));
  });
  test('a hand-edited capability in another case still matches (docs/format.md §Capabilities compared verbatim)', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.register({ agent_id: 'x', capabilities: ['go'] });
    const file = path.join(root, '.twining', 'agents', 'registry.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"go"', '"TypeScript"'));
    const [score] = (await ws.discover({ required_capabilities: ['typescript'] })).agents;
    assert.equal(score.capability_overlap, 1);
    assert.deepEqual(score.matched_capabilities, ['TypeScript']);
  });
});

describe('delegation (docs/format.md §Delegations)', () => {
  test('need entry: detail keys in order, tags, expiry from urgency and config', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.register({ agent_id: 'tester', capabilities: ['testing'] });
    const result = await ws.delegate({
      summary: 'Write tests',
      required_capabilities: ['Testing', 'TypeScript'],
      urgency: 'high',
      tags: ['auth'],
      scope: 'src/auth/',
      agent_id: 'lead',
    });
    assert.equal(result.expires_at, plus(300000));
    assert.deepEqual(
      result.suggested_agents.map(a => a.agent_id),
      ['tester'],
    );
    const [entry] = readLines(root, 'blackboard.jsonl');
    assert.deepEqual(Object.keys(entry), ['entry_type', 'summary', 'detail', 'tags', 'scope', 'agent_id', 'id', 'timestamp']);
    assert.equal(
      entry.detail,
      `{"type":"delegation","required_capabilities":["testing","typescript"],"urgency":"high","expires_at":"${plus(300000)}","timeout_ms":300000}`,
    );
    assert.deepEqual(entry.tags, ['auth', 'delegation', 'high']);
    const normal = await ws.delegate({ summary: 'n', required_capabilities: [] });
    assert.equal(normal.expires_at, plus(1800000));
    const explicit = await ws.delegate({ summary: 'e', required_capabilities: [], urgency: 'low', timeout_ms: 1234 });
    assert.equal(explicit.expires_at, plus(1234));
    const lines = readLines(root, 'blackboard.jsonl');
    assert.equal(lines[1].scope, 'project');
    assert.equal(lines[1].agent_id, 'main');
  });
  test('expired exactly at expires_at; expired needs are listed only on request, marked', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    await ws.delegate({ summary: 'soon', required_capabilities: ['x'], timeout_ms: 1000 });
    await ws.delegate({ summary: 'later', required_capabilities: ['x'], timeout_ms: 5000 });
    set(plus(999));
    assert.equal((await ws.delegations()).open_count, 2);
    set(plus(1000));
    const open = await ws.delegations();
    assert.deepEqual(
      open.delegations.map(d => d.summary),
      ['later'],
    );
    assert.equal(open.expired_count, 1);
    const all = await ws.delegations({ include_expired: true });
    assert.deepEqual(
      all.delegations.map(d => [d.summary, d.expired]),
      [
        ['later', false],
        ['soon', true],
      ],
    );
  });
  test('a need that is not a delegation is not listed; suggested agents exclude gone ones', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root, plus(-3600000));
    await ws.register({ agent_id: 'old', capabilities: ['x'] });
    set(T0);
    await ws.post({ entry_type: 'need', summary: 'plain need', detail: '{"type":"other"}' });
    await ws.delegate({ summary: 'real', required_capabilities: ['x'] });
    const { delegations } = await ws.delegations();
    assert.deepEqual(
      delegations.map(d => d.summary),
      ['real'],
    );
    assert.deepEqual(delegations[0].suggested_agents, []);
  });
});

describe('handoff snapshot and record (docs/format.md §Creating a handoff, docs/format.md §Handoff records, docs/format.md §Handoff index)', () => {
  async function seeded() {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    for (let i = 0; i < 7; i++)
      await ws.decide({ domain: `d${i}`, scope: i % 2 ? 'src/a/' : 'src/b/', summary: `decision ${i}`, context: 'c', rationale: 'r' });
    await ws.decide({ domain: 'd0', scope: 'src/b/x.ts', summary: 'conflicting', context: 'c', rationale: 'r' });
    for (let i = 0; i < 5; i++) await ws.post({ entry_type: 'warning', summary: `warning ${i}`, scope: i % 2 ? 'src/a/f.ts' : 'project' });
    for (let i = 0; i < 5; i++) await ws.post({ entry_type: 'finding', summary: `finding ${i}`, scope: 'src/a/' });
    return { root, ws, set };
  }
  test('no scope: every active decision, warning and finding; summaries capped 5/3/3 in order', async () => {
    const { ws } = await seeded();
    const h = await ws.handoff({ source_agent: 'me', summary: 's', results: [] });
    const s = h.context_snapshot;
    assert.equal(s.decision_ids.length, 7, 'the provisional decision is excluded');
    assert.equal(s.warning_ids.length, 6, 'five posted plus the conflict warning of the provisional decision');
    assert.equal(s.finding_ids.length, 5);
    assert.deepEqual(s.summaries, [
      ...[0, 1, 2, 3, 4].map(i => `Decision: decision ${i}`),
      'Warning: Potential conflict: new decision may conflict with 1 existing decision(s)',
      ...[0, 1].map(i => `Warning: warning ${i}`),
      ...[0, 1, 2].map(i => `Finding: finding ${i}`),
    ]);
    assert.equal(h.snapshot_digest, snapshotDigest(s));
  });
  test('a scope keeps overlapping ones only; "project" is an ordinary string', async () => {
    const { ws } = await seeded();
    const a = await ws.handoff({ source_agent: 'me', scope: 'src/a/f.ts', summary: 's', results: [] });
    assert.equal(a.context_snapshot.decision_ids.length, 3);
    assert.deepEqual(
      a.context_snapshot.summaries.filter(x => x.startsWith('Warning')),
      ['Warning: warning 1', 'Warning: warning 3'],
    );
    const p = await ws.handoff({ source_agent: 'me', scope: 'project', summary: 's', results: [] });
    assert.equal(p.context_snapshot.decision_ids.length, 0);
    assert.equal(p.context_snapshot.warning_ids.length, 3);
    assert.equal(p.context_snapshot.finding_ids.length, 0);
  });
  test('auto_snapshot false gives empty arrays; an explicit snapshot overrides', async () => {
    const { ws } = await seeded();
    const none = await ws.handoff({ source_agent: 'me', summary: 's', results: [], auto_snapshot: false });
    assert.deepEqual(none.context_snapshot, { decision_ids: [], warning_ids: [], finding_ids: [], summaries: [] });
    const snapshot = { decision_ids: ['01M80HHJN7TF8W1N7EW8PHV7MT'], warning_ids: [], finding_ids: [], summaries: ['Decision: given'] };
    const given = await ws.handoff({ source_agent: 'me', summary: 's', results: [], context_snapshot: snapshot });
    assert.deepEqual(given.context_snapshot, snapshot);
  });
  test('record and index line in key order, optional fields omitted, result_status aggregated', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    const h = await ws.handoff({
      source_agent: 'a',
      summary: 'x'.repeat(300),
      results: [
        { description: 'd', status: 'partial', notes: 'n', artifacts: ['f'] },
        { description: 'e', status: 'partial' },
      ],
    });
    const file = readJson(root, `handoffs/${h.id}.json`);
    assert.deepEqual(Object.keys(file), ['source_agent', 'summary', 'results', 'context_snapshot', 'id', 'created_at', 'snapshot_digest']);
    assert.deepEqual(Object.keys(file.results[0]), ['description', 'status', 'artifacts', 'notes']);
    assert.deepEqual(Object.keys(file.context_snapshot), ['decision_ids', 'warning_ids', 'finding_ids', 'summaries']);
    const [line] = readLines(root, 'handoffs/index.jsonl');
    assert.deepEqual(line, { id: h.id, created_at: T0, source_agent: 'a', summary: 'x'.repeat(300), result_status: 'partial', acknowledged: false });
    await ws.handoff({ source_agent: 'a', target_agent: 'b', scope: 'src/', summary: 'y', results: [] });
    await ws.handoff({
      source_agent: 'a',
      summary: 'z',
      results: [
        { description: 'd', status: 'completed' },
        { description: 'e', status: 'failed' },
      ],
    });
    const lines = readLines(root, 'handoffs/index.jsonl');
    assert.deepEqual(Object.keys(lines[1]), ['id', 'created_at', 'source_agent', 'target_agent', 'scope', 'summary', 'result_status', 'acknowledged']);
    assert.deepEqual(
      lines.map(l => l.result_status),
      ['partial', 'completed', 'mixed'],
    );
    const status = readLines(root, 'blackboard.jsonl').filter(e => e.entry_type === 'status');
    assert.equal(status[0].summary.length, 200, 'the status entry summary is cut to 200 characters');
    assert.equal(status[0].detail, 'From a to any agent. 2 result(s).');
    assert.deepEqual(status[1], { ...status[1], detail: 'From a to b. 0 result(s).', tags: ['handoff'], scope: 'src/', agent_id: 'a' });
    assert.equal(status[0].scope, 'project');
    assert.equal('relates_to' in status[0], false);
  });
  test('continues must name an existing handoff', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await assert.rejects(ws.handoff({ source_agent: 'a', summary: 's', results: [], continues: '01M80HHKAVJT8FG2B08Q4NGZ4W' }), e =>
      isTwiningError(e, 'NOT_FOUND'),
    );
    assert.equal(fs.existsSync(path.join(root, '.twining', 'handoffs', 'index.jsonl')), false);
  });
});

describe('handoff listing (docs/format.md §Handoff index)', () => {
  test('filters by source, target, scope (no-scope lines always match), since, acknowledged; newest first; limit', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    const a = await ws.handoff({ source_agent: 'a', target_agent: 'b', scope: 'src/auth/', summary: '1', results: [] });
    set(plus(1000));
    const b = await ws.handoff({ source_agent: 'b', summary: '2', results: [] });
    set(plus(2000));
    const c = await ws.handoff({ source_agent: 'a', scope: 'src/api/', summary: '3', results: [] });
    await ws.acknowledge({ handoff_id: a.id, agent_id: 'b' });
    const ids = async (input: Parameters<typeof ws.handoffs>[0]) => (await ws.handoffs(input)).handoffs.map(h => h.id);
    assert.deepEqual(await ids({}), [c.id, b.id, a.id]);
    assert.deepEqual(await ids({ source_agent: 'a' }), [c.id, a.id]);
    assert.deepEqual(await ids({ target_agent: 'b' }), [a.id]);
    assert.deepEqual(await ids({ scope: 'src/auth/jwt.ts' }), [b.id, a.id]);
    assert.deepEqual(await ids({ since: plus(1000) }), [c.id, b.id]);
    assert.deepEqual(await ids({ acknowledged: false }), [c.id, b.id]);
    assert.deepEqual(await ids({ acknowledged: true }), [a.id]);
    const limited = await ws.handoffs({ limit: 1 });
    assert.deepEqual([limited.handoffs.length, limited.total_count], [1, 3]);
  });
  test('the listing kept between calls matches a full re-read through appends out of order, repeated ids and rewrites', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.init();
    const index = path.join(root, '.twining', 'handoffs', 'index.jsonl');
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const ids = Array.from({ length: 40 }, (_, i) => `01M80HHKAVJT8FG2B08Q4NG${String(100 + i)}`);
    const lineFor = (id: string) =>
      JSON.stringify({
        id,
        created_at: plus(Math.floor(random() * 20) * 1000),
        source_agent: random() < 0.5 ? 'a' : 'b',
        target_agent: random() < 0.5 ? 'me' : undefined,
        scope: 'src/',
        summary: id,
        result_status: 'completed',
        acknowledged: random() < 0.3,
      });
    // What twining-mcp's listing gives: last line per id, newest first by created_at then id.
    const expected = (filter: (h: Record<string, unknown>) => boolean, limit: number) => {
      const latest = new Map<string, Record<string, unknown>>();
      for (const l of fs.readFileSync(index, 'utf8').split('\n').filter(Boolean)) latest.set(JSON.parse(l).id, JSON.parse(l));
      const all = [...latest.values()]
        .filter(filter)
        .sort((x, y) => (x.created_at === y.created_at ? (String(x.id) < String(y.id) ? 1 : -1) : String(x.created_at) < String(y.created_at) ? 1 : -1));
      return { ids: all.slice(0, limit).map(h => h.id), total: all.length };
    };
    const check = async () => {
      for (const [input, filter] of [
        [{ limit: 7 }, () => true],
        [{ limit: 100 }, () => true],
        [{ target_agent: 'me', acknowledged: false, limit: 3 }, (h: Record<string, unknown>) => h.target_agent === 'me' && h.acknowledged !== true],
        [{ source_agent: 'a', limit: 100 }, (h: Record<string, unknown>) => h.source_agent === 'a'],
      ] as const) {
        const got = await ws.handoffs(input);
        const want = expected(filter, input.limit);
        assert.deepEqual({ ids: got.handoffs.map(h => h.id), total: got.total_count }, want, JSON.stringify(input));
      }
      assert.equal((await ws.status()).unacknowledged_handoffs, expected(h => h.acknowledged !== true, 1000).total);
    };
    for (let round = 0; round < 12; round++) {
      // Appends: mostly new ids in random time order, some repeating an id (a later state of it).
      const batch = Array.from({ length: 1 + Math.floor(random() * 4) }, () => lineFor(ids[Math.floor(random() * ids.length)]));
      fs.appendFileSync(index, batch.join('\n') + '\n');
      await check();
      if (round % 5 === 4) {
        // A rewrite (an acknowledgement by another program): the file is replaced.
        const text = fs.readFileSync(index, 'utf8').replace('"acknowledged":false', '"acknowledged":true');
        fs.writeFileSync(index + '.tmp', text);
        fs.renameSync(index + '.tmp', index);
        await check();
      }
    }
  });
});

describe('acknowledgement (docs/format.md §Acknowledging a handoff)', () => {
  test('sets the fields, rewrites the index line only, repeats overwrite in place', async () => {
    const root = referenceProject();
    const { ws, set } = await clocked(root);
    const before = read(root, 'handoffs/index.jsonl').split('\n');
    const id = '01M80HHKAVJT8FG2B08Q4NGZ4W';
    const result = await ws.acknowledge({ handoff_id: id, agent_id: 'tester' });
    assert.deepEqual(result, {
      id,
      acknowledged_by: 'tester',
      acknowledged_at: T0,
      summary: 'JWT auth middleware implemented; needs tests and a security review',
      source_agent: 'backend-dev',
    });
    const after = read(root, 'handoffs/index.jsonl').split('\n');
    assert.equal(after[0], before[0].replace('"acknowledged":false', '"acknowledged":true'));
    assert.equal(after[1], before[1]);
    set(plus(5000));
    await ws.acknowledge({ handoff_id: id, agent_id: 'reviewer' });
    const file = readJson(root, `handoffs/${id}.json`);
    assert.deepEqual(Object.keys(file).slice(-2), ['acknowledged_by', 'acknowledged_at']);
    assert.deepEqual([file.acknowledged_by, file.acknowledged_at], ['reviewer', plus(5000)]);
    assert.equal(ws.blackboard.entries.filter(e => e.summary.includes('acknowledg')).length, 0);
  });
  test('an unknown handoff is NOT_FOUND and changes nothing', async () => {
    const root = referenceProject();
    const { ws } = await clocked(root);
    const before = read(root, 'handoffs/index.jsonl');
    await assert.rejects(ws.acknowledge({ handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4X', agent_id: 'x' }), /Handoff not found: 01M80HHKAVJT8FG2B08Q4NGZ4X/);
    assert.equal(read(root, 'handoffs/index.jsonl'), before);
  });
  test('a record missing from the index gets its line when acknowledged', async () => {
    const root = referenceProject();
    const { ws } = await clocked(root);
    fs.writeFileSync(path.join(root, '.twining', 'handoffs', 'index.jsonl'), read(root, 'handoffs/index.jsonl').split('\n')[1] + '\n');
    await ws.acknowledge({ handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4W', agent_id: 'x' });
    const lines = readLines(root, 'handoffs/index.jsonl');
    assert.deepEqual(
      lines.map(l => [l.id, l.acknowledged, l.result_status]),
      [
        ['01M80HHKBXQEDY2H6KWG27Q6EF', true, 'completed'],
        ['01M80HHKAVJT8FG2B08Q4NGZ4W', true, 'mixed'],
      ],
    );
  });
});

describe('blackboard post and read (docs/format.md §Blackboard, docs/format.md §Reading the blackboard)', () => {
  test('defaults, key order, relates_to only when given', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.post({ entry_type: 'finding', summary: 'f' });
    await ws.post({ entry_type: 'warning', summary: 'w', relates_to: ['x'], tags: ['A', 'a'], scope: 'src/' });
    const [f, w] = readLines(root, 'blackboard.jsonl');
    assert.deepEqual(f, { entry_type: 'finding', summary: 'f', detail: '', tags: [], scope: 'project', agent_id: 'main', id: f.id, timestamp: T0 });
    assert.deepEqual(Object.keys(w), ['entry_type', 'summary', 'detail', 'tags', 'scope', 'relates_to', 'agent_id', 'id', 'timestamp']);
    assert.deepEqual(w.tags, ['A', 'a'], 'blackboard tags are stored as given');
    assert.match(f.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(w.id > f.id, 'ULIDs increase within one process even in the same millisecond');
  });
  test('filters in order, total before the limit, the last N oldest first, limit 0 for all', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    for (let i = 0; i < 6; i++) {
      set(plus(i * 1000));
      await ws.post({ entry_type: i % 2 ? 'warning' : 'finding', summary: `e${i}`, tags: i < 3 ? ['t1'] : ['t2'], scope: i < 4 ? 'src/a/' : 'src/b/' });
    }
    const summaries = async (input: Parameters<typeof ws.read>[0]) => (await ws.read(input)).entries.map(e => e.summary);
    assert.deepEqual(await summaries({ entry_types: ['warning'] }), ['e1', 'e3', 'e5']);
    assert.deepEqual(await summaries({ tags: ['t1', 'zz'] }), ['e0', 'e1', 'e2']);
    assert.deepEqual(await summaries({ scope: 'src/a/file.ts' }), ['e0', 'e1', 'e2', 'e3']);
    assert.deepEqual(await summaries({ since: plus(4000) }), ['e4', 'e5']);
    const limited = await ws.read({ limit: 2 });
    assert.deepEqual([limited.entries.map(e => e.summary), limited.total_count], [['e4', 'e5'], 6]);
    assert.equal((await ws.read({ limit: 0 })).entries.length, 6);
  });
});

describe('decisions (docs/format.md §Decision index, docs/format.md §Decision records, docs/format.md §Decisions)', () => {
  test('defaults and key order of record and index entry; cross-posted decision entry', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    const r = await ws.decide({
      domain: 'api',
      scope: 'src/api/',
      summary: 'Version under /v1',
      context: 'c',
      rationale: 'why',
      commit_hash: 'abcdef1234',
      alternatives: [{ option: 'none', reason_rejected: 'no' }],
    });
    assert.deepEqual(Object.keys(r), ['id', 'timestamp']);
    const record = readJson(root, `decisions/${r.id}.json`);
    assert.deepEqual(Object.keys(record), [
      'agent_id',
      'domain',
      'scope',
      'summary',
      'context',
      'rationale',
      'constraints',
      'alternatives',
      'depends_on',
      'confidence',
      'reversible',
      'affected_files',
      'affected_symbols',
      'commit_hashes',
      'assembled_before',
      'id',
      'timestamp',
      'status',
    ]);
    assert.deepEqual(record.alternatives, [{ option: 'none', pros: [], cons: [], reason_rejected: 'no' }]);
    assert.deepEqual(
      [record.agent_id, record.confidence, record.reversible, record.commit_hashes, record.status],
      ['main', 'medium', true, ['abcdef1234'], 'active'],
    );
    const [entry] = readJson(root, 'decisions/index.json');
    assert.deepEqual(Object.keys(entry), [
      'id',
      'timestamp',
      'domain',
      'scope',
      'summary',
      'confidence',
      'status',
      'affected_files',
      'affected_symbols',
      'commit_hashes',
    ]);
    const [posted] = readLines(root, 'blackboard.jsonl');
    assert.deepEqual(
      [posted.entry_type, posted.summary, posted.detail, posted.tags, posted.scope],
      ['decision', 'Version under /v1', 'why', ['api'], 'src/api/'],
    );
    assert.notEqual(posted.id, r.id);
  });
  test('a conflict makes the new decision provisional and posts a warning before the decision entry', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    const a = await ws.decide({ domain: 'security', scope: 'src/auth/', summary: 'RS256', context: 'c', rationale: 'r' });
    await ws.decide({ domain: 'security', scope: 'src/api/', summary: 'other scope', context: 'c', rationale: 'r' });
    await ws.decide({ domain: 'other', scope: 'src/auth/', summary: 'other domain', context: 'c', rationale: 'r' });
    await ws.decide({ domain: 'security', scope: 'src/auth/', summary: 'RS256', context: 'c', rationale: 'same summary' });
    const b = await ws.decide({ domain: 'security', scope: 'src/auth/jwt.ts', summary: 'HS256', context: 'c', rationale: 'r' });
    assert.deepEqual(
      b.conflicts,
      [
        { id: a.id, summary: 'RS256' },
        { id: (await ws.decisions({ status: 'active', domain: 'security', scope: 'src/auth/' })).decisions[0].id, summary: 'RS256' },
      ].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    assert.equal(readJson(root, `decisions/${b.id}.json`).status, 'provisional');
    const tail = readLines(root, 'blackboard.jsonl').slice(-2);
    assert.equal(tail[0].entry_type, 'warning');
    assert.equal(tail[0].summary, 'Potential conflict: new decision may conflict with 2 existing decision(s)');
    assert.equal(tail[0].detail.split('\n')[0], 'New decision "HS256" conflicts with:');
    assert.deepEqual([tail[0].tags, tail[0].scope], [['security'], 'src/auth/jwt.ts']);
    assert.equal(tail[1].entry_type, 'decision');
  });
  test('supersedes marks the old decision in file and index; an unknown one writes nothing', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    const a = await ws.decide({ domain: 'd', scope: 's', summary: 'old', context: 'c', rationale: 'r' });
    const b = await ws.decide({ domain: 'd', scope: 's', summary: 'new', context: 'c', rationale: 'r', supersedes: a.id });
    assert.equal(b.conflicts, undefined, 'the superseded decision is not a conflict');
    assert.equal(readJson(root, `decisions/${a.id}.json`).status, 'superseded');
    assert.deepEqual(
      readJson(root, 'decisions/index.json').map((d: { status: string }) => d.status),
      ['superseded', 'active'],
    );
    assert.equal(readJson(root, `decisions/${b.id}.json`).supersedes, a.id);
    const before = read(root, 'decisions/index.json');
    await assert.rejects(ws.decide({ domain: 'd', scope: 's', summary: 'x', context: 'c', rationale: 'r', supersedes: '01M80HHKAVJT8FG2B08Q4NGZ4X' }), e =>
      isTwiningError(e, 'NOT_FOUND'),
    );
    assert.equal(read(root, 'decisions/index.json'), before);
  });
  test('decisions lists newest first by scope, status and domain', async () => {
    const root = referenceProject();
    const { ws } = await clocked(root);
    const all = await ws.decisions();
    assert.deepEqual(
      all.decisions.map(d => d.summary.slice(0, 12)),
      ['Use Vitest f', 'Sign JWTs wi', 'Version all ', 'Use stateles'],
    );
    assert.equal((await ws.decisions({ scope: 'src/auth/jwt.ts' })).total_count, 2);
    assert.equal((await ws.decisions({ status: ['superseded'] })).total_count, 0);
    assert.equal((await ws.decisions({ domain: 'api' })).decisions[0].id, '01M80HHK025WC0FGZ865H3Q5TH');
  });
});

describe('verify: integrity and drift', () => {
  test('intact, then altered snapshot detected', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    const h = await ws.handoff({ source_agent: 'a', summary: 's', results: [] });
    assert.equal((await ws.verify({ handoff_id: h.id })).intact, true);
    const file = path.join(root, '.twining', 'handoffs', `${h.id}.json`);
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    record.context_snapshot.summaries.push('Decision: smuggled in');
    fs.writeFileSync(file, JSON.stringify(record, null, 2));
    const v = await ws.verify({ handoff_id: h.id });
    assert.deepEqual([v.intact, v.has_digest], [false, true]);
    assert.notEqual(v.stored_digest, v.computed_digest);
  });
  test('superseded decisions, dismissed and archived entries, new decisions and warnings in scope', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    const d1 = await ws.decide({ domain: 'd', scope: 'src/a/', summary: 'd1', context: 'c', rationale: 'r' });
    const w1 = await ws.post({ entry_type: 'warning', summary: 'w1', scope: 'src/a/' });
    const f1 = await ws.post({ entry_type: 'finding', summary: 'f1', scope: 'src/a/' });
    const h = await ws.handoff({ source_agent: 'a', scope: 'src/a/', summary: 's', results: [] });
    set(plus(1000));
    await ws.decide({ domain: 'd', scope: 'src/a/', summary: 'd2', context: 'c', rationale: 'r', supersedes: d1.id });
    await ws.post({ entry_type: 'warning', summary: 'w2', scope: 'src/a/x.ts' });
    await ws.post({ entry_type: 'warning', summary: 'elsewhere', scope: 'src/b/' });
    // Dismiss w1 (remove its line) and archive f1 (move it), as twining-mcp does.
    const bb = path.join(root, '.twining', 'blackboard.jsonl');
    const lines = fs.readFileSync(bb, 'utf8').split('\n').filter(Boolean);
    const f1Line = lines.find(l => l.includes(f1.id))!;
    fs.writeFileSync(bb, lines.filter(l => !l.includes(w1.id) && !l.includes(f1.id)).join('\n') + '\n');
    fs.mkdirSync(path.join(root, '.twining', 'archive'), { recursive: true });
    fs.writeFileSync(path.join(root, '.twining', 'archive', '2026-11-22-blackboard.jsonl'), f1Line + '\n');
    const v = await ws.verify({ handoff_id: h.id });
    assert.equal(v.intact, true);
    assert.deepEqual(v.drift.decisions_no_longer_active, [{ id: d1.id, summary: 'd1', now: 'superseded' }]);
    assert.deepEqual(v.drift.entries_removed, [
      { id: w1.id, now: 'dismissed' },
      { id: f1.id, summary: 'f1', now: 'archived' },
    ]);
    assert.deepEqual(
      v.drift.new_decisions.map(d => d.summary),
      ['d2'],
    );
    assert.deepEqual(
      v.drift.new_warnings.map(w => w.summary),
      ['w2'],
    );
    assert.equal(v.drifted, true);
  });
  test('new warnings and decisions are found by time, also when another writer appends out of time order', async () => {
    const root = emptyProject();
    const { ws, set } = await clocked(root);
    const h = await ws.handoff({ source_agent: 'a', scope: 'src/a/', summary: 's', results: [] });
    const newOnes = async () => {
      const v = await ws.verify({ handoff_id: h.id });
      return [v.drift.new_warnings.map(w => w.summary), v.drift.new_decisions.map(d => d.summary)];
    };
    assert.deepEqual(await newOnes(), [[], []]);
    set(plus(2000));
    await ws.post({ entry_type: 'warning', summary: 'at +2s', scope: 'src/a/' });
    await ws.decide({ domain: 'd', scope: 'src/a/', summary: 'decided at +2s', context: 'c', rationale: 'r' });
    assert.deepEqual(await newOnes(), [['at +2s'], ['decided at +2s']]);
    // Another writer's clock is behind: lines stamped +1 s and -1 s arrive after the +2 s one.
    const bb = path.join(root, '.twining', 'blackboard.jsonl');
    const at = (ms: number) => new Date(Date.parse(h.created_at) + ms).toISOString();
    const line = (summary: string, ms: number, id: string) =>
      JSON.stringify({ entry_type: 'warning', summary, detail: '', tags: [], scope: 'src/a/x.ts', agent_id: 'other', id, timestamp: at(ms) }) + '\n';
    fs.appendFileSync(bb, line('at +1s', 1000, '01M80HHKAVJT8FG2B08Q4NGZ50') + line('at -1s', -1000, '01M80HHKAVJT8FG2B08Q4NGZ51'));
    const index = path.join(root, '.twining', 'decisions', 'index.json');
    const decisions = JSON.parse(fs.readFileSync(index, 'utf8'));
    decisions.push({ ...decisions[0], id: '01M80HHKAVJT8FG2B08Q4NGZ52', summary: 'decided at +1s', timestamp: at(1000) });
    fs.writeFileSync(index, JSON.stringify(decisions, null, 2));
    assert.deepEqual(await newOnes(), [
      ['at +1s', 'at +2s'],
      ['decided at +1s', 'decided at +2s'],
    ]);
  });
  test('the same Workspace follows the archive as it grows, gains files, and is rewritten', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    const posted: { id: string }[] = [];
    for (const n of [1, 2, 3]) posted.push(await ws.post({ entry_type: 'warning', summary: `w${n}`, scope: 'src/a/' }));
    const h = await ws.handoff({ source_agent: 'a', scope: 'src/a/', summary: 's', results: [] });
    const bb = path.join(root, '.twining', 'blackboard.jsonl');
    const lineOf = (id: string) =>
      fs
        .readFileSync(bb, 'utf8')
        .split('\n')
        .find(l => l.includes(id))! + '\n';
    const lines = posted.map(p => lineOf(p.id));
    fs.writeFileSync(
      bb,
      fs
        .readFileSync(bb, 'utf8')
        .split('\n')
        .filter(l => l && !posted.some(p => l.includes(p.id)))
        .join('\n') + '\n',
    );
    const archive = path.join(root, '.twining', 'archive');
    fs.mkdirSync(archive, { recursive: true });
    const removed = async () => Object.fromEntries((await ws.verify({ handoff_id: h.id })).drift.entries_removed.map(e => [e.summary ?? e.id, e.now]));
    const first = path.join(archive, '2026-11-20-blackboard.jsonl');
    fs.writeFileSync(first, lines[0]);
    assert.deepEqual(await removed(), { w1: 'archived', [posted[1].id]: 'dismissed', [posted[2].id]: 'dismissed' });
    fs.appendFileSync(first, lines[1]); // the same file grows
    assert.deepEqual(await removed(), { w1: 'archived', w2: 'archived', [posted[2].id]: 'dismissed' });
    fs.writeFileSync(path.join(archive, '2026-11-21-blackboard.jsonl'), lines[2]); // a new file
    assert.deepEqual(await removed(), { w1: 'archived', w2: 'archived', w3: 'archived' });
    fs.writeFileSync(first, lines[1]); // rewritten without w1
    assert.deepEqual(await removed(), { [posted[0].id]: 'dismissed', w2: 'archived', w3: 'archived' });
    fs.rmSync(path.join(archive, '2026-11-21-blackboard.jsonl')); // a file removed
    assert.deepEqual(await removed(), { [posted[0].id]: 'dismissed', w2: 'archived', [posted[2].id]: 'dismissed' });
  });
  test('a chain A → B → C is followed back from C; a reference handoff has no digest', async () => {
    const root = referenceProject();
    const { ws } = await clocked(root);
    const a = await ws.handoff({ source_agent: 'a', summary: 'A', results: [] });
    const b = await ws.handoff({ source_agent: 'b', summary: 'B', results: [], continues: a.id });
    const c = await ws.handoff({ source_agent: 'c', summary: 'C', results: [], continues: b.id });
    assert.deepEqual((await ws.verify({ handoff_id: c.id })).chain, [c.id, b.id, a.id]);
    const ref = await ws.verify({ handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4W' });
    assert.deepEqual([ref.intact, ref.has_digest], [true, false]);
  });
});

describe('status', () => {
  test('counts agents by liveness, delegations, unacknowledged handoffs, decisions, warnings', async () => {
    const root = referenceProject();
    const { ws } = await clocked(root, '2026-11-22T02:40:00.000Z');
    const s = await ws.status();
    assert.equal(s.project, path.basename(root));
    assert.deepEqual(s.agents_by_liveness, { active: 0, idle: 4, gone: 0 });
    assert.deepEqual([s.open_delegations, s.expired_delegations], [1, 1]);
    assert.deepEqual([s.handoffs, s.unacknowledged_handoffs], [2, 1]);
    assert.deepEqual([s.active_decisions, s.provisional_decisions, s.warning_entries, s.blackboard_entries], [4, 0, 3, 14]);
    assert.equal(s.last_activity, '2026-11-22T02:32:12.417Z');
    // The tester agent and the Vitest decision (no affected files) have no relation: twining-mcp warns about both.
    assert.deepEqual(s.warnings, ['2 graph entities have no relations']);
    assert.equal(
      s.summary,
      'Needs attention. 14 blackboard entries, 4 active decisions, 23 graph entities. 4 registered agents (0 active). 2 graph entities have no relations.',
    );
  });
});

describe('folder creation (docs/format.md §A new folder, docs/format.md §Creating a folder)', () => {
  test('init creates every entry with its exact content', async () => {
    const root = emptyProject('my-proj');
    const { ws } = await clocked(root);
    assert.equal(await ws.exists(), false);
    assert.equal((await ws.init()).created, true);
    assert.equal(read(root, '.gitignore'), GITIGNORE);
    assert.equal(Buffer.byteLength(GITIGNORE), 50);
    assert.equal(read(root, 'config.yml'), defaultConfigYaml('my-proj'));
    assert.match(read(root, 'config.yml'), /^project_name: my-proj$/m);
    for (const f of ['decisions/index.json', 'graph/entities.json', 'graph/relations.json', 'agents/registry.json']) assert.equal(read(root, f), '[]');
    assert.equal(read(root, 'blackboard.jsonl'), '');
    for (const d of ['handoffs', 'embeddings', 'archive']) assert.ok(fs.statSync(path.join(root, '.twining', d)).isDirectory());
    assert.equal(fs.existsSync(path.join(root, '.twining', 'handoffs', 'index.jsonl')), false);
    assert.deepEqual(fs.readdirSync(path.dirname(root)), ['my-proj'], 'no temporary folder is left behind');
  });
  test('an existing folder is completed, never overwritten', async () => {
    const root = emptyProject();
    fs.mkdirSync(path.join(root, '.twining'));
    fs.writeFileSync(path.join(root, '.twining', 'blackboard.jsonl'), '{"keep":1}\n');
    const { ws } = await clocked(root);
    assert.equal((await ws.init()).created, false);
    assert.equal(read(root, 'blackboard.jsonl'), '{"keep":1}\n');
    assert.equal(read(root, 'decisions/index.json'), '[]');
  });
  test('the first write creates the folder; concurrent creators agree on one folder', async () => {
    const root = emptyProject();
    const wss = await Promise.all([0, 1, 2, 3].map(() => openWorkspace(root, { now: at(T0) })));
    await Promise.all(wss.map((ws, i) => ws.post({ entry_type: 'status', summary: `p${i}` })));
    assert.equal(readLines(root, 'blackboard.jsonl').length, 4);
    assert.deepEqual(fs.readdirSync(root), ['.twining']);
  });
});

describe('incremental reads (jsonl.ts)', () => {
  function file() {
    const root = emptyProject();
    const p = path.join(root, 'f.jsonl');
    fs.writeFileSync(p, '{"a":1}\n{"a":2}\n');
    return { p, f: new JsonlFile<{ a: number }>(p, () => undefined) };
  }
  test('parses only appended lines; a partial last line waits for its newline', async () => {
    const { p, f } = file();
    assert.deepEqual(await f.refresh(), { changed: true, reloaded: true, appended: [{ a: 1 }, { a: 2 }] });
    assert.deepEqual(await f.refresh(), { changed: false, reloaded: false, appended: [] });
    fs.appendFileSync(p, '{"a":3}\n{"a":');
    assert.deepEqual(await f.refresh(), { changed: true, reloaded: false, appended: [{ a: 3 }] });
    fs.appendFileSync(p, '4}\n');
    assert.deepEqual((await f.refresh()).appended, [{ a: 4 }]);
    assert.deepEqual(
      f.all.map(x => x.a),
      [1, 2, 3, 4],
    );
  });
  test('a shrunk, replaced or rewritten-in-place file is read again in full', async () => {
    const { p, f } = file();
    await f.refresh();
    fs.writeFileSync(p, '{"a":1}\n');
    assert.equal((await f.refresh()).reloaded, true);
    assert.deepEqual(f.all, [{ a: 1 }]);
    // Same inode, longer, but the already-read prefix changed (an acknowledgement rewrite + append).
    fs.writeFileSync(p, '{"a":9}\n{"a":2}\n');
    assert.equal((await f.refresh()).reloaded, true);
    assert.deepEqual(
      f.all.map(x => x.a),
      [9, 2],
    );
    fs.writeFileSync(p + '.new', '{"a":5}\n');
    fs.renameSync(p + '.new', p);
    assert.deepEqual((await f.refresh()).reloaded, true);
    assert.deepEqual(f.all, [{ a: 5 }]);
    fs.rmSync(p);
    assert.deepEqual(await f.refresh(), { changed: true, reloaded: true, appended: [] });
    assert.deepEqual(f.all, []);
  });
  test('corrupt lines are skipped with a warning and kept for rewrites; CRLF is tolerated', async () => {
    const root = emptyProject();
    const p = path.join(root, 'g.jsonl');
    fs.writeFileSync(p, '{"a":1}\r\nnot json\n[1,2]\n\n{"a":2}\n');
    const warnings: string[] = [];
    const f = new JsonlFile<{ a: number }>(p, m => warnings.push(m));
    await f.refresh();
    assert.deepEqual(f.all, [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(f.skippedLines, [
      { line: 2, raw: 'not json' },
      { line: 3, raw: '[1,2]' },
    ]);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0], /line 2 is not a JSON object/);
  });
});

describe('config.yml (docs/format.md §config.yml)', () => {
  test('missing or non-mapping means defaults; deep merge of known keys; bad weights fall back', () => {
    assert.equal(parseConfig(undefined, 'p').agents.liveness.idle_after_ms, 300000);
    assert.equal(parseConfig('- a list', 'p').delegations.timeouts.high_ms, 300000);
    const c = parseConfig(
      'agents:\n  liveness:\n    idle_after_ms: 1000\nunknown: 1\ndelegations:\n  timeouts:\n    low_ms: "soon"\ncontext_assembly:\n  priority_weights:\n    recency: 0.9\n',
      'p',
    );
    assert.deepEqual(c.agents.liveness, { idle_after_ms: 1000, gone_after_ms: 1800000 });
    assert.equal(c.delegations.timeouts.low_ms, 14400000, 'a string cannot replace a number');
    assert.equal('unknown' in c, false);
    assert.equal(c.context_assembly.priority_weights.recency, 0.2, 'weights summing to 1.7 fall back to the defaults');
  });
  test('delegate uses the configured timeout', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.init();
    fs.writeFileSync(path.join(root, '.twining', 'config.yml'), 'delegations:\n  timeouts:\n    normal_ms: 60000\n');
    assert.equal((await ws.delegate({ summary: 's', required_capabilities: [] })).expires_at, plus(60000));
  });
});

describe('concurrent refreshes', () => {
  test('simultaneous reads of one workspace never count an appended entry twice', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    const other = await openWorkspace(root, { now: at(T0) });
    await ws.post({ entry_type: 'status', summary: 'first' });
    await ws.read();
    for (let i = 0; i < 5; i++) await other.post({ entry_type: 'warning', summary: `w${i}` });
    const results = await Promise.all([ws.read({ limit: 0 }), ws.read({ limit: 0 }), ws.delegations(), ws.previewSnapshot()]);
    assert.deepEqual([results[0].total_count, results[1].total_count], [6, 6]);
    assert.equal(ws.blackboard.warnings.length, 5);
    assert.equal(results[3].warning_ids.length, 5);
  });
});

describe('leftovers of killed writers', () => {
  test('temporary files of dead processes are removed before the first write; live ones are kept', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.init();
    const dir = path.join(root, '.twining', 'handoffs');
    const dead = path.join(dir, '.01M80HHKAVJT8FG2B08Q4NGZ4W.json.999999999.1a2b3c4d.tmp');
    const live = path.join(dir, `.01M80HHKAVJT8FG2B08Q4NGZ4W.json.${process.ppid}.1a2b3c4d.tmp`);
    fs.writeFileSync(dead, '{"half":');
    fs.writeFileSync(live, '{"half":');
    const fresh = await openWorkspace(root, { now: at(T0), warn: () => undefined });
    await fresh.post({ entry_type: 'status', summary: 'after' });
    assert.equal(fs.existsSync(dead), false);
    assert.equal(fs.existsSync(live), true);
  });
  test('taking over a lock a killed writer left also clears its temporary files', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.register({ agent_id: 'a' });
    const registry = path.join(root, '.twining', 'agents', 'registry.json');
    const temp = path.join(root, '.twining', 'agents', '.registry.json.999999999.1a2b3c4d.tmp');
    fs.writeFileSync(temp, '[{"half":');
    fs.mkdirSync(registry + '.lock');
    const old = new Date(Date.now() - 20_000);
    fs.utimesSync(registry + '.lock', old, old);
    await ws.register({ agent_id: 'b' });
    assert.equal(fs.existsSync(temp), false);
    assert.equal(fs.existsSync(registry + '.lock'), false);
    assert.deepEqual(
      readJson(root, 'agents/registry.json').map((r: { agent_id: string }) => r.agent_id),
      ['a', 'b'],
    );
  });
});

describe('locks (docs/format.md §Locking)', () => {
  test("a project reached through a symbolic link locks the real path, as twining-mcp's proper-lockfile does", async () => {
    const real = emptyProject();
    const link = `${real}-link`;
    fs.symlinkSync(real, link, 'dir');
    try {
      const { ws } = await clocked(link);
      await ws.post({ entry_type: 'status', summary: 'first' }); // resolves the path once
      const lockfile = require('proper-lockfile') as typeof import('proper-lockfile');
      const release = await lockfile.lock(path.join(link, '.twining', 'blackboard.jsonl'), { stale: 10000, update: 5000, realpath: true });
      assert.ok(fs.existsSync(path.join(real, '.twining', 'blackboard.jsonl.lock')));
      const started = Date.now();
      const posting = ws.post({ entry_type: 'status', summary: 'waited' });
      await new Promise(resolve => setTimeout(resolve, 400));
      assert.equal(readLines(real, 'blackboard.jsonl').length, 1, 'nothing written while the other writer holds the lock');
      await release();
      await posting;
      assert.ok(Date.now() - started >= 400);
      assert.deepEqual(
        readLines(real, 'blackboard.jsonl').map(l => l.summary),
        ['first', 'waited'],
      );
    } finally {
      fs.rmSync(link);
    }
  });
  test('a lock target deleted after its first use is written again, and a removed folder is a clear error', async () => {
    const root = emptyProject();
    const { ws } = await clocked(root);
    await ws.register({ agent_id: 'a' });
    fs.rmSync(path.join(root, '.twining', 'agents', 'registry.json'));
    await ws.register({ agent_id: 'b' });
    assert.deepEqual(
      readJson(root, 'agents/registry.json').map((r: { agent_id: string }) => r.agent_id),
      ['b'],
    );
    fs.rmSync(path.join(root, '.twining'), { recursive: true });
    for (const attempt of [() => ws.register({ agent_id: 'c' }), () => ws.post({ entry_type: 'status', summary: 's' })]) {
      await assert.rejects(
        attempt(),
        (e: Error & { code?: string }) => e.code === 'NOT_FOUND' && /\.twining.* does not exist .*removed while in use.*nothing was written/.test(e.message),
      );
    }
    assert.equal(fs.existsSync(path.join(root, '.twining')), false, "not re-created behind the user's back");
  });
});
