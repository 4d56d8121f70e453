/**
 * twining-mcp 1.9's other tools (trace, what_changed, summarize, recent, link_commit, commits,
 * archive, export) on a copy of its reference folder, each checked against the rule in its source
 * (src/engine/decisions.ts, context-assembler.ts, archiver.ts, exporter.ts at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { traceChain } from '../../../../src/core/operations/trace-ops';
import { archiveSummary } from '../../../../src/core/operations/archive-ops';
import type { BlackboardEntry, DecisionRecord } from '../../../../src/core/records';
import { at, readJson, readLines, referenceProject } from '../../../support/fixture';

const NOW = at('2026-11-22T02:33:00.000Z');
const JWT_BEARER = '01M80HHJN7TF8W1N7EW8PHV7MT'; // architecture, src/auth/
const VERSIONED = '01M80HHK025WC0FGZ865H3Q5TH'; // api, src/api/
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ'; // security, src/auth/jwt.ts, depends on JWT_BEARER
const VITEST = '01M80HHK4PSMNX1YWBAYPYPVBA'; // testing, project

describe('trace', () => {
  const rec = (id: string, depends_on: string[] = []) => ({ id, summary: id, depends_on, status: 'active' }) as unknown as DecisionRecord;
  test('walks upstream, then downstream, breadth first, each decision once, through a cycle', () => {
    const all = new Map([rec('A'), rec('B', ['A']), rec('C', ['B']), rec('D', ['C', 'A']), rec('E', ['E2']), rec('E2', ['E'])].map(d => [d.id, d]));
    assert.deepEqual(
      traceChain(all, all.get('C')!, 'both').map(e => e.id),
      ['B', 'A', 'D'],
    );
    assert.deepEqual(
      traceChain(all, all.get('A')!, 'downstream').map(e => e.id),
      ['B', 'D', 'C'],
    );
    assert.deepEqual(
      traceChain(all, all.get('E')!, 'both').map(e => e.id),
      ['E2'],
      'a cycle ends at the root',
    );
    assert.deepEqual(traceChain(all, all.get('C')!, 'both').find(e => e.id === 'A')!.dependents, ['B', 'D']);
  });
  test('on the reference folder: RS256 depends on the JWT bearer decision, which has it as its one dependent', async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    assert.deepEqual((await ws.trace({ decision_id: RS256 })).chain, [
      { id: JWT_BEARER, summary: 'Use stateless JWT bearer tokens for API authentication', depends_on: [], dependents: [RS256], status: 'active' },
    ]);
    assert.deepEqual(
      (await ws.trace({ decision_id: JWT_BEARER, direction: 'downstream' })).chain.map(e => e.id),
      [RS256],
    );
    assert.deepEqual((await ws.trace({ decision_id: JWT_BEARER, direction: 'upstream' })).chain, []);
    await assert.rejects(ws.trace({ decision_id: '01M80HHK4PSMNX1YWBAYPYPVBB' }), /Decision not found/);
  });
});

describe('what_changed, summarize, recent', () => {
  test('what_changed: entries and decisions at or after the time, in scope', async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    const all = await ws.what_changed({ since: '2020-01-01T00:00:00Z' });
    assert.deepEqual(
      all.new_decisions.map(d => d.id),
      [JWT_BEARER, VERSIONED, RS256, VITEST],
    );
    assert.equal(all.new_entries.length, (await ws.read({ limit: 0 })).total_count);
    const auth = await ws.what_changed({ since: '2026-11-22T02:32:12.050Z', scope: 'src/auth/jwt.ts' });
    assert.deepEqual(
      auth.new_decisions.map(d => d.id),
      [RS256],
    );
    assert.ok(
      auth.new_entries.every(e => e.id > '01M80HHK1'),
      'only entries after the time',
    );
    await ws.override({ decision_id: VERSIONED, reason: 'GraphQL instead' });
    const after = await ws.what_changed({ since: '2020-01-01T00:00:00Z' });
    assert.deepEqual(after.overridden_decisions, [{ id: VERSIONED, summary: 'Version all REST endpoints under /v1', reason: 'GraphQL instead' }]);
    await ws.reconsider({ decision_id: VITEST, new_context: 'node:test is enough' });
    assert.deepEqual(
      (await ws.what_changed({ since: '2020-01-01T00:00:00Z' })).reconsidered_decisions.map(d => d.id),
      [VITEST],
    );
  });
  test('summarize counts a scope, and "project" counts everything', async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    const entries = (await ws.read({ limit: 0 })).entries;
    const all = await ws.summarize({});
    assert.equal(all.scope, 'project');
    assert.equal(all.active_decisions, 4);
    assert.equal(all.open_needs, entries.filter(e => e.entry_type === 'need').length);
    assert.equal(all.active_warnings, entries.filter(e => e.entry_type === 'warning').length);
    const findings = entries.filter(e => e.entry_type === 'finding').length;
    assert.equal(
      all.recent_activity_summary,
      `In the last 24 hours: 4 decisions made, ${findings} findings posted, ${all.active_warnings} warning${all.active_warnings === 1 ? '' : 's'} raised.`,
    );
    const api = await ws.summarize({ scope: 'src/api/' });
    assert.equal(api.active_decisions, 1);
  });
  test('recent: the last n, newest first, optionally by type', async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    const entries = (await ws.read({ limit: 0 })).entries;
    assert.deepEqual((await ws.recent({ n: 3 })).entries, entries.slice(-3).reverse());
    assert.deepEqual(
      (await ws.recent({ entry_types: ['warning'] })).entries.map(e => e.id),
      entries
        .filter(e => e.entry_type === 'warning')
        .reverse()
        .map(e => e.id),
    );
    assert.equal((await ws.recent()).entries.length, Math.min(20, entries.length));
  });
});

describe('link_commit and commits', () => {
  test('a commit is linked once, in record and index, with a status entry; commits finds it', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const linked = await ws.link_commit({ decision_id: RS256, commit_hash: 'abc1234def', agent_id: 'backend-dev' });
    assert.equal(linked.linked, true);
    await ws.link_commit({ decision_id: RS256, commit_hash: 'abc1234def' });
    assert.deepEqual(readJson(root, `decisions/${RS256}.json`).commit_hashes, ['abc1234def']);
    assert.deepEqual(readJson(root, 'decisions/index.json').find((d: { id: string }) => d.id === RS256).commit_hashes, ['abc1234def']);
    const status = readLines(root, 'blackboard.jsonl').find((e: BlackboardEntry) => e.id === linked.status_entry_id);
    assert.equal(status.summary, 'Commit abc1234 linked to decision: Sign JWTs with RS256 and rotate keys every 30 days');
    assert.equal(status.detail, `Linked commit abc1234def to decision ${RS256}`);
    assert.deepEqual([status.tags, status.scope, status.agent_id], [['security'], 'src/auth/jwt.ts', 'backend-dev']);
    const found = await ws.commits({ commit_hash: 'abc1234def' });
    assert.deepEqual(
      found.decisions.map(d => [d.id, d.commit_hashes]),
      [[RS256, ['abc1234def']]],
    );
    assert.deepEqual((await ws.commits({ commit_hash: 'abc1234' })).decisions, [], 'the hash as it was linked');
    await assert.rejects(ws.link_commit({ decision_id: '01M80HHK4PSMNX1YWBAYPYPVBB', commit_hash: 'abcd' }), /Decision not found/);
  });
});

describe('archive', () => {
  test('moves old entries but decisions to archive/{date}, posts a finding, and every entry stays somewhere', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const before = readLines(root, 'blackboard.jsonl') as BlackboardEntry[];
    const cutoff = '2026-11-22T02:32:12.300Z';
    const result = await ws.archive({ before: cutoff });
    const moved = before.filter(e => e.timestamp < cutoff && e.entry_type !== 'decision');
    assert.ok(moved.length > 0);
    assert.equal(result.archived_count, moved.length);
    assert.equal(result.archive_file, path.join(root, '.twining', 'archive', '2026-11-22-blackboard.jsonl'));
    assert.deepEqual(readLines(root, 'archive/2026-11-22-blackboard.jsonl'), moved, 'archived lines unchanged, in order');
    const after = readLines(root, 'blackboard.jsonl') as BlackboardEntry[];
    assert.deepEqual(
      after.slice(0, -1),
      before.filter(e => !moved.includes(e)),
      'the rest kept in order',
    );
    const finding = after[after.length - 1];
    assert.deepEqual(
      [finding.entry_type, finding.summary, finding.tags, finding.scope, finding.agent_id, finding.detail],
      ['finding', `Archive: ${moved.length} entries archived`, ['archive'], 'project', 'main', archiveSummary(moved)],
    );
    // A handoff snapshot naming archived entries: verify says archived, not dismissed.
    const handoff = (await ws.handoffs({})).handoffs.find(h => h.scope === 'src/auth/')!;
    const drift = await ws.verify({ handoff_id: handoff.id });
    assert.ok(drift.drift.entries_removed.length > 0);
    assert.ok(
      drift.drift.entries_removed.every(item => item.now === 'archived'),
      JSON.stringify(drift.drift.entries_removed),
    );
    assert.deepEqual(await ws.archive({ before: cutoff }), { archived_count: 0, archive_file: '' }, 'nothing left to archive');
  });
  test('keep_decisions false, retain and summarize false', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const before = readLines(root, 'blackboard.jsonl') as BlackboardEntry[];
    const result = await ws.archive({ keep_decisions: false, retain: 2, summarize: false });
    assert.equal(result.archived_count, before.length - 2);
    assert.deepEqual(readLines(root, 'blackboard.jsonl'), before.slice(-2));
    assert.equal(result.summary, undefined);
    assert.ok(fs.existsSync(path.join(root, '.twining', 'archive', '2026-11-22-blackboard.jsonl')));
  });
  test('a line that does not parse stays on the blackboard', async () => {
    const root = referenceProject();
    fs.appendFileSync(path.join(root, '.twining', 'blackboard.jsonl'), '{not json\n');
    const ws = await openWorkspace(root, { now: NOW, warn: () => undefined });
    await ws.archive({ summarize: false });
    assert.match(fs.readFileSync(path.join(root, '.twining', 'blackboard.jsonl'), 'utf8'), /\{not json\n/);
  });
});

describe('export', () => {
  test("twining-mcp's sections, decisions newest first, and a scope filter", async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    const { markdown, stats } = await ws.export({});
    const headings = markdown.split('\n').filter(l => l.startsWith('#'));
    assert.deepEqual(headings.slice(0, 3), ['# Twining State Export', '## Summary', '## Decisions']);
    assert.deepEqual(headings.filter(h => h.startsWith('### ')).slice(0, 4), [
      '### Use Vitest for unit tests and Playwright for e2e',
      '### Sign JWTs with RS256 and rotate keys every 30 days',
      '### Version all REST endpoints under /v1',
      '### Use stateless JWT bearer tokens for API authentication',
    ]);
    assert.ok(
      headings.includes('## Blackboard') && headings.includes('## Knowledge Graph') && headings.includes('### Entities') && headings.includes('### Relations'),
    );
    assert.match(markdown, /- Decisions: 4 \(4 active, 0 provisional, 0 superseded, 0 overridden\)/);
    assert.equal(stats.scope, 'all');
    assert.equal(stats.graph_entities, readJson(referenceProject(), 'graph/entities.json').length);
    const api = await ws.export({ scope: 'src/api/' });
    assert.equal(api.stats.decisions, 1);
    assert.match(api.markdown, /\*Scope: src\/api\/\*/);
  });
});
