/**
 * twining_verify of a scope, check by check as twining-mcp 1.9's src/engine/verify.ts runs them
 * (commit 4846d7048cd84fe6771ff8c51aac1a29cc96d02b), beside the handoff check reached by its
 * input's shape; and forgiving input (core/forgiving-input.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { editDistance, forgivingInput, likelyMeant } from '../../../../src/core/schemas/forgiving-input';
import { inputs } from '../../../../src/core/schemas/schemas';
import type { ScopeVerifyResult } from '../../../../src/core/operations/scope-verify-ops';
import { at, readJson, readLines, referenceProject } from '../../../support/fixture';

const NOW = at('2026-11-22T02:33:00.000Z');
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ'; // security, src/auth/jwt.ts

describe('verify by input shape', () => {
  test('handoff_id checks the handoff; scope runs the scope checks; both or neither is refused', async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    const handoff = (await ws.handoffs({})).handoffs[0];
    const h = await ws.verify({ handoff_id: handoff.id });
    assert.equal(h.handoff_id, handoff.id);
    await assert.rejects(ws.verify({ handoff_id: handoff.id, scope: 'src/' }), /handoff_id .* or scope/);
    await assert.rejects(ws.verify({}), /handoff_id .* or scope/);
  });

  test('the scope checks, field for field, and the finding that records them', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW, warn: () => undefined });
    const r = (await ws.verify({
      scope: 'src/auth/',
      checks: ['test_coverage', 'warnings', 'assembly', 'constraints'],
      agent_id: 'reviewer',
      fail_on: ['assembly'],
    })) as ScopeVerifyResult;
    assert.equal(r.scope, 'src/auth/');
    assert.deepEqual(Object.keys(r.checks), ['test_coverage', 'warnings', 'assembly', 'constraints']);
    assert.equal(
      r.summary,
      Object.entries(r.checks)
        .map(([n, c]) => `${n}: ${c.status}`)
        .join(', '),
    );
    // Assembly: the reviewer's RS256 decision was made without assembled context.
    assert.deepEqual(r.checks.assembly, {
      status: 'fail',
      decisions_by_agent: 1,
      assembled_before: 0,
      blind_decisions: [{ decision_id: RS256, summary: 'Sign JWTs with RS256 and rotate keys every 30 days', agent_id: 'reviewer' }],
    });
    assert.equal(r.failed, true, 'assembly failed and is in fail_on');
    // Warnings: in scope, none related to by an answer, finding or status.
    const warnings = (await ws.read({ entry_types: ['warning'], scope: 'src/auth/', limit: 0 })).entries;
    const w = r.checks.warnings as unknown as { silently_ignored: number; warnings_in_scope: number };
    assert.equal(w.warnings_in_scope, warnings.length);
    const finding = readLines(root, 'blackboard.jsonl').at(-1);
    assert.deepEqual(
      [finding.entry_type, finding.summary, finding.tags, finding.scope, finding.agent_id],
      ['finding', `Verification: ${r.summary}`, ['verify'], 'src/auth/', 'reviewer'],
    );
    assert.deepEqual(JSON.parse(finding.detail), r.checks);
    // An answer relating to a warning acknowledges it; a status resolves it.
    await ws.post({ entry_type: 'answer', summary: 'handled', scope: 'src/auth/', relates_to: [warnings[0].id] });
    const again = (await ws.verify({ scope: 'src/auth/', checks: ['warnings'] })) as ScopeVerifyResult;
    assert.equal((again.checks.warnings as unknown as { acknowledged: number }).acknowledged, 1);
    assert.equal(again.failed, false);
  });

  test('test coverage: a test file named like an affected file gets tested_by once, and covers the decision', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW, warn: () => undefined });
    const before = (await ws.verify({ scope: 'src/auth/jwt.ts', checks: ['test_coverage'] })) as ScopeVerifyResult;
    const cov = before.checks.test_coverage as unknown as { status: string; decisions_with_tested_by: number; uncovered: { decision_id: string }[] };
    assert.ok(cov.uncovered.some(u => u.decision_id === RS256));
    await ws.add_entity({ name: 'src/auth/jwt.test.ts', type: 'file' });
    const after = (await ws.verify({ scope: 'src/auth/jwt.ts', checks: ['test_coverage'] })) as ScopeVerifyResult;
    await ws.verify({ scope: 'src/auth/jwt.ts', checks: ['test_coverage'] });
    const covAfter = after.checks.test_coverage as unknown as typeof cov;
    assert.ok(!covAfter.uncovered.some(u => u.decision_id === RS256));
    const tested = (readJson(root, 'graph/relations.json') as { type: string }[]).filter(r => r.type === 'tested_by');
    assert.equal(tested.length, 1, 'related once, however often verified');
  });

  test('drift skips outside git; constraints are counted, never run', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW, warn: () => undefined });
    const marker = path.join(root, 'ran');
    await ws.post({
      entry_type: 'constraint',
      summary: 'no marker',
      scope: 'src/',
      detail: JSON.stringify({ check_command: `touch ${marker}`, expected: '' }),
    });
    const r = (await ws.verify({ scope: 'src/', checks: ['drift', 'constraints'] })) as ScopeVerifyResult;
    assert.equal(r.checks.drift!.status, 'skip');
    assert.equal(r.checks.constraints!.status, 'skip');
    assert.equal(r.checks.constraints!.not_run, 1);
    assert.equal(fs.existsSync(marker), false);
  });
});

describe('forgiving input', () => {
  test('a field the tool does not have is left out and named; a likely misspelling is refused with the field meant', () => {
    assert.deepEqual(forgivingInput('twining_why', inputs.why, { scope: 'src/', agent_id: 'a' }), { input: { scope: 'src/' }, ignored: ['agent_id'] });
    assert.throws(() => forgivingInput('twining_why', inputs.why, { scop: 'src/' }), /twining_why: unknown field "scop" \(did you mean "scope"\?\)/);
    assert.throws(() => forgivingInput('twining_trace', inputs.trace, { decisionId: RS256 }), /did you mean "decision_id"/);
    assert.throws(() => forgivingInput('twining_read', inputs.read, { tag: ['x'] }), /did you mean "tags"/);
    assert.equal(likelyMeant('agent', ['agent_id']), undefined, 'too far for a short name');
    assert.equal(likelyMeant('affected_fles', ['affected_files', 'affected_symbols']), 'affected_files');
    assert.equal(editDistance('decison_id', 'decision_id'), 1);
    assert.equal(editDistance('sumamry', 'summary'), 1, 'a swap is one edit');
  });
});
