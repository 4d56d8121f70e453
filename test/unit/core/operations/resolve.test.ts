/**
 * twining-mcp 2.x's record fields and resolve on the 1.x layout, from test/fixtures/files-2x (see
 * its README): resolve writes what twining-mcp's files backend writes (src/storage/blackboard-store.ts
 * at commit 0b79c990a41b2359874184538547d3ca6e27c56d, re-implemented below from its source), keeps
 * every other line byte for byte, and a resolved warning, need or question is no longer open in
 * the counts, the Context view's data, snapshots, drift, verify and briefings.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import type { ScopeVerifyResult } from '../../../../src/core/operations/scope-verify-ops';
import { resolvedEntry, resolvedIdsOf } from '../../../../src/core/rules/resolution';
import { blackboardEntries } from '../../../../src/core/merge/blackboard-merge';
import { at, read } from '../../../support/fixture';
import { tempProject } from '../../../support/tmp';

const FIXTURE = path.resolve(__dirname, '../../test/fixtures/files-2x');
const NOW = '2026-11-22T08:00:00.000Z';
const W = '01KAW0000000000000000WARN1'; // resolved warning
const W2 = '01KAW0000000000000000WARN2'; // open warning, src/auth/session.ts
const N = '01KAW0000000000000000NEED1';
const Q = '01KAW000000000000000QSTN01';
const F = '01KAW00000000000000FNDNG01';
const H = '01KAW00000000000000HNDFF01';

function project(): string {
  const root = tempProject();
  fs.cpSync(FIXTURE, path.join(root, '.twining'), { recursive: true });
  fs.rmSync(path.join(root, '.twining', 'README.md'));
  return root;
}

/** twining-mcp's files-backend resolve, from its source: the bytes it would write for `text`. */
function theirResolve(text: string, ids: string[], stamp: { at: string; by?: string; note?: string }): string {
  const out: string[] = [];
  for (const line of text.split('\n').filter(l => l.trim().length > 0)) {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line);
    } catch {
      out.push(line);
      continue;
    }
    if (ids.includes(entry.id as string) && entry.status !== 'resolved') {
      entry.status = 'resolved';
      entry.resolved_at = stamp.at;
      if (stamp.by) entry.resolved_by = stamp.by;
      if (stamp.note) entry.resolution_note = stamp.note;
      out.push(JSON.stringify(entry));
    } else out.push(line);
  }
  return out.join('\n') + '\n';
}

describe('resolve', () => {
  test('writes the bytes twining-mcp 2.x writes, keeps every other line, and the first resolve wins', async () => {
    const root = project();
    // A line that does not parse, and a blank line, as a hand edit might leave them.
    fs.appendFileSync(path.join(root, '.twining', 'blackboard.jsonl'), 'not json\n\n');
    const before = read(root, 'blackboard.jsonl');
    const ws = await openWorkspace(root, { now: at(NOW), warn: () => undefined });
    const r = await ws.resolve({ ids: [W2, Q, W, 'NOPE'], note: 'SameSite=Lax set', agent_id: 'reviewer' });
    assert.deepEqual(r, { resolved: [W, W2, Q], not_found: ['NOPE'] });
    const after = read(root, 'blackboard.jsonl');
    // W was already resolved: its stamp stays; Q had status "open", which keeps its place.
    assert.equal(after, theirResolve(before, [W2, Q, W], { at: NOW, by: 'reviewer', note: 'SameSite=Lax set' }));
    const lines = after.split('\n');
    assert.ok(lines.includes('not json'), 'a line that does not parse is kept');
    const w2 = JSON.parse(lines.find(l => l.includes(W2))!);
    assert.deepEqual(Object.keys(w2).slice(-4), ['status', 'resolved_at', 'resolved_by', 'resolution_note']);
    assert.equal(w2.origin, 'discovery');
    assert.equal(w2.provenance.commit_sha, '4f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39');
    const w = JSON.parse(lines.find(l => l.includes(W))!);
    assert.equal(w.resolved_by, 'reviewer');
    assert.equal(w.resolved_at, '2026-11-21T10:30:00.000Z');

    // Again: nothing changes (not even the file's identity).
    const ino = fs.statSync(path.join(root, '.twining', 'blackboard.jsonl')).ino;
    assert.deepEqual(await ws.resolve({ ids: [W2] }), { resolved: [W2], not_found: [] });
    assert.equal(fs.statSync(path.join(root, '.twining', 'blackboard.jsonl')).ino, ino);
  });

  test('without agent_id or note, only status and resolved_at are written (as twining-mcp does)', async () => {
    const root = project();
    const ws = await openWorkspace(root, { now: at(NOW) });
    await ws.resolve({ ids: [N] });
    const need = JSON.parse(
      read(root, 'blackboard.jsonl')
        .split('\n')
        .find(l => l.includes(N))!,
    );
    assert.equal(need.status, 'resolved');
    assert.equal(need.resolved_at, NOW);
    assert.ok(!('resolved_by' in need) && !('resolution_note' in need));
    await assert.rejects(ws.resolve({ ids: [] }), /ids: must name at least one id/);
  });

  test('a resolved warning, need or question is not open: counts, context, snapshot, drift, verify, briefing', async () => {
    const root = project();
    const ws = await openWorkspace(root, { now: at(NOW), warn: () => undefined });

    // The fixture's resolved warning W is folded away; W2 is open.
    let ctx = await ws.scopeContext('src/auth/session.ts');
    assert.deepEqual(
      ctx.warnings.map(e => e.id),
      [W2],
    );
    ctx = await ws.scopeContext('src/auth/');
    assert.deepEqual(
      ctx.resolved.map(e => e.id),
      [W],
    );
    assert.equal(ctx.totals.resolved, 1);
    assert.equal((await ws.status()).warning_entries, 1);
    assert.deepEqual((await ws.previewSnapshot('src/auth/')).warning_ids, [W2]);
    let summary = await ws.summarize({ scope: 'src/auth/' });
    assert.deepEqual([summary.active_warnings, summary.open_needs, summary.unanswered_questions], [1, 1, 1]);

    // The handoff attached W2; resolving it is drift the receiver hears about.
    assert.equal((await ws.verify({ handoff_id: H })).drifted, false);
    await ws.resolve({ ids: [W2, N, Q], agent_id: 'reviewer', note: 'done' });
    const v = await ws.verify({ handoff_id: H });
    assert.deepEqual(v.drift.entries_removed, [{ id: W2, summary: 'Session cookie lacks SameSite', now: 'resolved' }]);

    ctx = await ws.scopeContext('src/auth/');
    assert.deepEqual(ctx.warnings, []);
    assert.deepEqual(ctx.resolved.map(e => e.id).sort(), [N, Q, W, W2].sort());
    assert.equal((await ws.status()).warning_entries, 0);
    assert.deepEqual((await ws.previewSnapshot('src/auth/')).warning_ids, []);
    summary = await ws.summarize({ scope: 'src/auth/' });
    assert.deepEqual([summary.active_warnings, summary.open_needs, summary.unanswered_questions], [0, 0, 0]);

    const checks = (await ws.verify({ scope: 'src/auth/', checks: ['warnings'] })) as ScopeVerifyResult;
    const warnings = checks.checks.warnings as unknown as { warnings_in_scope: number; resolved: number; silently_ignored: number };
    assert.deepEqual([warnings.warnings_in_scope, warnings.resolved, warnings.silently_ignored], [2, 2, 0]);

    const briefing = await ws.assemble({ task: 'auth work', scope: 'src/auth/', agent_id: 'tester' });
    assert.deepEqual(briefing.active_warnings, []);
    assert.deepEqual(briefing.open_needs, []);
    // Still searchable history.
    const found = await ws.search({ query: 'SameSite' });
    assert.ok(found.results.some((x: { id: string }) => x.id === W2));
  });

  test('other rewrites keep the 2.x fields: dismiss keeps lines, lifecycle keeps decision fields, why leaves archived out', async () => {
    const root = project();
    const ws = await openWorkspace(root, { now: at(NOW), warn: () => undefined });
    const before = read(root, 'blackboard.jsonl').split('\n');
    await ws.dismiss({ ids: [F], reason: 'measured again' });
    const after = read(root, 'blackboard.jsonl').split('\n');
    for (const line of before.filter(l => l && !l.includes(F))) assert.ok(after.includes(line), `kept: ${line.slice(0, 60)}`);

    const D2 = '01KAW0000000000000DECSN002';
    await ws.reconsider({ decision_id: D2, new_context: 'Multi-region now' });
    const d2 = JSON.parse(read(root, `decisions/${D2}.json`));
    assert.equal(d2.status, 'provisional');
    assert.deepEqual(
      [d2.rationale_source, d2.assumptions, d2.provenance.branch, d2.supersedes],
      ['authored', ['Single region'], 'main', '01KAW0000000000000DECSN001'],
    );

    // A decision superseded here gets twining-mcp 2.x's back-link, every other field kept.
    const next = await ws.decide({
      domain: 'security',
      scope: 'src/auth/',
      summary: 'Sessions in encrypted cookies',
      context: 'c',
      rationale: 'r',
      supersedes: D2,
    });
    const old = JSON.parse(read(root, `decisions/${D2}.json`));
    assert.deepEqual([old.status, old.superseded_by, old.rationale_source, old.provenance.branch], ['superseded', next.id, 'authored', 'main']);

    const why = await ws.why({ scope: 'src/auth/session.ts' });
    assert.deepEqual(why.decisions.map(d => d.id).sort(), ['01KAW0000000000000DECSN001', D2, next.id].sort());
    // A handoff without a scope concerns the whole project.
    assert.ok((await ws.scopeContext('src/auth/session.ts')).handoffs.some(h => h.id === H) === false);
    assert.ok((await ws.handoffs({ scope: 'src/auth/' })).handoffs.some(h => h.id === H));
  });
});

describe('resolution rules', () => {
  test("twining-mcp's predicate: status or a relates_to back-reference", () => {
    const ids = resolvedIdsOf([
      { id: 'a', status: 'resolved' },
      { id: 'b', relates_to: ['c'] },
      { id: 'd', status: 'open' },
    ] as never[]);
    assert.deepEqual([...ids].sort(), ['a', 'c']);
  });

  test('resolvedEntry keeps key places and never restamps', () => {
    const open = { id: 'x', status: 'open', extra: { kept: true } };
    const r = resolvedEntry(open, { at: 'T1', by: 'me', note: 'n' });
    assert.deepEqual(Object.keys(r), ['id', 'status', 'extra', 'resolved_at', 'resolved_by', 'resolution_note']);
    assert.equal(resolvedEntry(r, { at: 'T2', by: 'other' }), r);
  });

  test('the blackboard merge keeps a resolution, and the first of two resolves', () => {
    const base = { id: 'x', summary: 's', timestamp: 'T0' };
    const a = { ...base, status: 'resolved', resolved_at: 'T2', resolved_by: 'late' };
    const b = { ...base, status: 'resolved', resolved_at: 'T1', resolved_by: 'early', resolution_note: 'first' };
    const notes: string[] = [];
    const merged = blackboardEntries.combine(base, a, b, notes);
    assert.deepEqual([merged.resolved_by, merged.resolved_at, merged.resolution_note], ['early', 'T1', 'first']);
    assert.deepEqual(blackboardEntries.combine(base, b, a, []), merged);
    assert.match(notes[0], /kept the first resolve \(T1, by early\)/);
  });
});
