/**
 * Interoperability with twining-mcp, on its own reference folder (test/fixtures/reference-twining,
 * see /shared/interop/README.md for how it was produced): what it wrote reads back with the
 * values it meant, and what we write is what it writes, field for field and in key order.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { REFERENCE, at, emptyProject, read, referenceProject } from '../../../support/fixture';

const ref = (rel: string) => fs.readFileSync(path.join(REFERENCE, rel), 'utf8');
const refJson = (rel: string) => JSON.parse(ref(rel));
const refLines = (rel: string) =>
  ref(rel)
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l));

describe('reading what twining-mcp wrote', () => {
  test('at 02:33 every agent is active and both delegations are open', async () => {
    const ws = await openWorkspace(referenceProject(), { now: at('2026-11-22T02:33:00.000Z') });
    const { agents, total_registered, active_count } = await ws.agents();
    assert.deepEqual(
      agents.map(a => [a.agent_id, a.liveness]),
      [
        ['backend-dev', 'active'],
        ['frontend-dev', 'active'],
        ['reviewer', 'active'],
        ['tester', 'active'],
      ],
    );
    assert.deepEqual([total_registered, active_count], [4, 4]);
    assert.deepEqual(agents[0].capabilities, ['typescript', 'api', 'database']);
    const { delegations } = await ws.delegations();
    assert.deepEqual(
      delegations.map(d => [d.summary, d.urgency, d.required_capabilities, d.expired]),
      [
        ['Write integration tests for the JWT refresh flow', 'high', ['testing', 'typescript'], false],
        ['Review the API rate-limiting design', 'low', ['review', 'security'], false],
      ],
    );
    assert.equal(delegations[0].expires_at, '2026-11-22T02:37:12.356Z');
    assert.deepEqual(
      delegations[0].suggested_agents.map(a => [a.agent_id, a.total_score]),
      [
        ['tester', 1],
        ['backend-dev', 0.6499999999999999],
        ['frontend-dev', 0.6499999999999999],
        ['reviewer', 0.3],
      ],
    );
  });
  test('at 02:40 the high-urgency delegation has expired and the agents are idle; at 03:10 they are gone', async () => {
    const root = referenceProject();
    const later = await openWorkspace(root, { now: at('2026-11-22T02:40:00.000Z') });
    assert.ok((await later.agents()).agents.every(a => a.liveness === 'idle'));
    const d = await later.delegations({ include_expired: true });
    assert.deepEqual(
      d.delegations.map(x => [x.urgency, x.expired]),
      [
        ['low', false],
        ['high', true],
      ],
    );
    const gone = await openWorkspace(root, { now: at('2026-11-22T03:10:00.000Z') });
    assert.ok((await gone.agents()).agents.every(a => a.liveness === 'gone'));
    assert.equal((await gone.agents({ include_gone: false })).agents.length, 0);
  });
  test('handoffs, their acknowledgement state and the four decisions read back', async () => {
    const ws = await openWorkspace(referenceProject(), { now: at('2026-11-22T02:33:00.000Z') });
    const { handoffs } = await ws.handoffs();
    assert.deepEqual(
      handoffs.map(h => [h.source_agent, h.target_agent, h.scope, h.result_status, h.acknowledged]),
      [
        ['frontend-dev', 'reviewer', undefined, 'completed', true],
        ['backend-dev', undefined, 'src/auth/', 'mixed', false],
      ],
    );
    const record = await ws.getHandoff('01M80HHKBXQEDY2H6KWG27Q6EF');
    assert.deepEqual([record?.acknowledged_by, record?.acknowledged_at], ['reviewer', '2026-11-22T02:32:12.443Z']);
    const { decisions } = await ws.decisions({ status: 'active' });
    assert.deepEqual(decisions.map(d => d.scope).sort(), ['project', 'src/api/', 'src/auth/', 'src/auth/jwt.ts']);
    const read = await ws.read({ entry_types: ['warning'] });
    assert.deepEqual(
      read.entries.map(e => e.scope),
      ['src/auth/jwt.ts', 'src/api/', 'project'],
    );
  });
  test('our automatic snapshot equals the one twining-mcp stored, for both handoffs', async () => {
    const ws = await openWorkspace(referenceProject(), { now: at('2026-11-22T02:33:00.000Z') });
    // twining-mcp took both snapshots before the handoffs' own status entries existed; they are
    // status entries, which snapshots never include, so the comparison holds today too.
    assert.deepEqual(await ws.previewSnapshot('src/auth/'), refJson('handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json').context_snapshot);
    assert.deepEqual(await ws.previewSnapshot(undefined), refJson('handoffs/01M80HHKBXQEDY2H6KWG27Q6EF.json').context_snapshot);
  });
  test('status matches what twining-mcp would report', async () => {
    const ws = await openWorkspace(referenceProject(), { now: at('2026-11-22T02:33:00.000Z') });
    const s = await ws.status();
    assert.deepEqual(
      [s.blackboard_entries, s.active_decisions, s.graph_entities, s.graph_relations, s.registered_agents, s.active_agents, s.needs_archiving],
      [14, 4, 23, 18, 4, 4, false],
    );
  });
});

/** Replaces ULIDs and timestamps by placeholders numbered in order of appearance. */
function normalise(text: string): string {
  const ids = new Map<string, string>();
  return text
    .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, id => {
      if (!ids.has(id)) ids.set(id, `ID${ids.size}`);
      return ids.get(id)!;
    })
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'TIME');
}

describe('writing what twining-mcp writes', () => {
  test('replaying the reference run gives the same files, byte for byte up to ids and times', async () => {
    const root = emptyProject('demo-project');
    let clock = Date.parse('2026-11-22T02:32:11.592Z');
    // Each call moves the clock on by 1 ms, so ULIDs and timestamps are ordered like the original run.
    const ws = await openWorkspace(root, { now: () => new Date(clock++) });
    await ws.init();
    for (const agent of refJson('agents/registry.json')) {
      await ws.register({ agent_id: agent.agent_id, capabilities: agent.capabilities, role: agent.role, description: agent.description });
    }
    const idMap = new Map<string, string>();
    for (const entry of refJson('decisions/index.json')) {
      const d = refJson(`decisions/${entry.id}.json`);
      const r = await ws.decide({
        agent_id: d.agent_id,
        domain: d.domain,
        scope: d.scope,
        summary: d.summary,
        context: d.context,
        rationale: d.rationale,
        constraints: d.constraints,
        alternatives: d.alternatives,
        depends_on: d.depends_on.map((x: string) => idMap.get(x)),
        confidence: d.confidence,
        reversible: d.reversible,
        affected_files: d.affected_files,
        affected_symbols: d.affected_symbols,
      });
      idMap.set(d.id, r.id);
    }
    for (const e of refLines('blackboard.jsonl').filter(e => e.entry_type === 'warning' || e.entry_type === 'finding')) {
      await ws.post({
        entry_type: e.entry_type,
        summary: e.summary,
        detail: e.detail,
        tags: e.tags,
        scope: e.scope,
        agent_id: e.agent_id,
        relates_to: e.relates_to?.map((x: string) => idMap.get(x)),
      });
    }
    await ws.delegate({
      summary: 'Write integration tests for the JWT refresh flow',
      required_capabilities: ['testing', 'typescript'],
      urgency: 'high',
      tags: ['auth'],
      scope: 'src/auth/',
      agent_id: 'backend-dev',
    });
    await ws.delegate({
      summary: 'Review the API rate-limiting design',
      required_capabilities: ['review', 'security'],
      urgency: 'low',
      scope: 'src/api/',
      agent_id: 'backend-dev',
    });
    const handoffIds: string[] = [];
    for (const line of refLines('handoffs/index.jsonl')) {
      const h = refJson(`handoffs/${line.id}.json`);
      const created = await ws.handoff({ source_agent: h.source_agent, target_agent: h.target_agent, scope: h.scope, summary: h.summary, results: h.results });
      handoffIds.push(created.id);
    }
    await ws.acknowledge({ handoff_id: handoffIds[1], agent_id: 'reviewer' });

    for (const file of ['agents/registry.json', 'blackboard.jsonl', 'decisions/index.json', 'handoffs/index.jsonl', '.gitignore']) {
      assert.equal(normalise(read(root, file)), normalise(ref(file)), file);
    }
    // config.yml is 1.9's plus `storage.backend: files`, said so that twining-mcp 2.x keeps the layout (docs/twining-2.md §Which layout a folder is in).
    assert.equal(normalise(read(root, 'config.yml')), normalise(`${ref('config.yml')}storage:\n  backend: files\n`), 'config.yml');
    const ours = JSON.parse(read(root, 'decisions/index.json')).map((d: { id: string }) => d.id);
    refJson('decisions/index.json').forEach((d: { id: string }, i: number) => {
      assert.equal(normalise(read(root, `decisions/${ours[i]}.json`)), normalise(ref(`decisions/${d.id}.json`)), `decision ${i}`);
    });
    refLines('handoffs/index.jsonl').forEach((h: { id: string }, i: number) => {
      const record = JSON.parse(read(root, `handoffs/${handoffIds[i]}.json`));
      assert.match(record.snapshot_digest, /^sha256:[0-9a-f]{64}$/);
      delete record.snapshot_digest; // our one addition, which twining-mcp ignores and keeps
      assert.equal(normalise(JSON.stringify(record, null, 2)), normalise(ref(`handoffs/${h.id}.json`)), `handoff ${i}`);
    });
  });
  test('acknowledging and appending keep twining-mcp files byte-compatible', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: at('2026-11-22T03:00:00.000Z') });
    const id = '01M80HHKAVJT8FG2B08Q4NGZ4W';
    await ws.acknowledge({ handoff_id: id, agent_id: 'tester' });
    const original = ref(`handoffs/${id}.json`);
    assert.equal(
      read(root, `handoffs/${id}.json`),
      original.slice(0, -2) + ',\n  "acknowledged_by": "tester",\n  "acknowledged_at": "2026-11-22T03:00:00.000Z"\n}',
    );
    assert.equal(read(root, 'handoffs/index.jsonl'), ref('handoffs/index.jsonl').replace('"acknowledged":false', '"acknowledged":true'));
    await ws.post({ entry_type: 'finding', summary: 'appended' });
    const bb = read(root, 'blackboard.jsonl');
    assert.ok(bb.startsWith(ref('blackboard.jsonl')), 'the existing lines are untouched');
    assert.equal(bb.slice(ref('blackboard.jsonl').length).split('\n').length, 2, 'exactly one new line');
    await ws.register({ agent_id: 'tester', capabilities: ['e2e'] });
    const registry = JSON.parse(read(root, 'agents/registry.json'));
    assert.deepEqual(registry.slice(0, 3), refJson('agents/registry.json').slice(0, 3));
    assert.deepEqual(registry[3].capabilities, ['testing', 'typescript', 'e2e']);
  });
  test('fields written by another program are kept when we rewrite a record', async () => {
    const root = referenceProject();
    const file = path.join(root, '.twining', 'handoffs', '01M80HHKAVJT8FG2B08Q4NGZ4W.json');
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    record.future_field = { nested: [1, 2] };
    fs.writeFileSync(file, JSON.stringify(record, null, 2));
    const registryFile = path.join(root, '.twining', 'agents', 'registry.json');
    const registry = JSON.parse(fs.readFileSync(registryFile, 'utf8'));
    registry[0].x_team = 'core';
    fs.writeFileSync(registryFile, JSON.stringify(registry, null, 2));
    const ws = await openWorkspace(root, { now: at('2026-11-22T03:00:00.000Z') });
    await ws.acknowledge({ handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4W', agent_id: 'x' });
    await ws.register({ agent_id: 'backend-dev' });
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')).future_field, { nested: [1, 2] });
    assert.equal(JSON.parse(fs.readFileSync(registryFile, 'utf8'))[0].x_team, 'core');
  });
});
