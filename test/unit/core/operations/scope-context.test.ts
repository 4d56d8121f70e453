/**
 * scopeContext (what the Context view, the status bar item, the diagnostics and the CodeLens show
 * for a file) and decisionStory (the decision document's chain), on a copy of twining-mcp's
 * reference folder. Expectations are computed from the fixture files by the test itself.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { at, readJson, readLines, referenceProject } from '../../../support/fixture';

const NOW = at('2026-11-22T02:33:00.000Z');
const JWT_BEARER = '01M80HHJN7TF8W1N7EW8PHV7MT';
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';
const EXP_WARNING = '01M80HHK5EACAY1D2CS04B635E';
const JWT_HANDOFF = '01M80HHKAVJT8FG2B08Q4NGZ4W';

type Raw = Record<string, unknown>;
const prefixEither = (a: unknown, b: string) => typeof a === 'string' && (a.startsWith(b) || b.startsWith(a));

/** What the fixture says bears on `file`, computed straight from its files. */
function expectedFor(root: string, file: string) {
  const index = readJson(root, 'decisions/index.json') as Raw[];
  const entries = readLines(root, 'blackboard.jsonl') as Raw[];
  const decisions = index
    .filter(
      d => prefixEither(d.scope, file) || (d.affected_files as string[]).some(f => prefixEither(f, file)) || (d.affected_symbols as string[]).includes(file),
    )
    .map(d => d.id)
    .sort();
  const of = (type: string) =>
    entries
      .filter(e => e.entry_type === type && prefixEither(e.scope, file))
      .map(e => e.id)
      .sort();
  return { decisions, warnings: of('warning'), findings: of('finding') };
}

describe('scopeContext', () => {
  test('a file: exactly the fixture decisions, warnings and findings in its scope, current decisions first, with their authors', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const ctx = await ws.scopeContext('src/auth/jwt.ts');
    const want = expectedFor(root, 'src/auth/jwt.ts');
    assert.deepEqual(ctx.decisions.map(d => d.id).sort(), want.decisions);
    assert.deepEqual(want.decisions, [JWT_BEARER, RS256].sort(), 'the fixture has the two decisions the issue names');
    assert.deepEqual(ctx.warnings.map(w => w.id).sort(), want.warnings);
    assert.deepEqual(
      ctx.warnings.map(w => w.id),
      [EXP_WARNING],
    );
    assert.deepEqual(ctx.findings.map(f => f.id).sort(), want.findings);
    assert.equal(ctx.findings.length, 2);
    // Newest first: RS256 (02:32:12.087) before the JWT bearer decision (02:32:11.687).
    assert.deepEqual(
      ctx.decisions.map(d => [d.id, d.agent_id, d.status]),
      [
        [RS256, 'reviewer', 'active'],
        [JWT_BEARER, 'backend-dev', 'active'],
      ],
    );
    assert.equal(ctx.active_count, 2);
    assert.equal(ctx.provisional_count, 0);
    // The open high-urgency need on src/auth/ (expires 02:37) and the unacknowledged handoff on src/auth/.
    assert.deepEqual(
      ctx.delegations.map(d => d.entry_id),
      ['01M80HHKA4QXFKQJDMA5FP7RS1'],
    );
    assert.deepEqual(
      ctx.handoffs.map(h => h.id),
      [JWT_HANDOFF],
    );
  });

  test('a file elsewhere sees none of it; the whole project sees everything, unscoped handoffs included', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const none = await ws.scopeContext('docs/readme.md');
    assert.deepEqual([none.decisions.length, none.warnings.length, none.findings.length, none.handoffs.length], [0, 0, 0, 0]);
    const all = await ws.scopeContext(undefined);
    const index = readJson(root, 'decisions/index.json') as Raw[];
    const entries = readLines(root, 'blackboard.jsonl') as Raw[];
    assert.equal(all.decisions.length, index.length);
    assert.equal(all.warnings.length, entries.filter(e => e.entry_type === 'warning').length);
    assert.equal(all.findings.length, entries.filter(e => e.entry_type === 'finding').length);
    assert.deepEqual(
      all.handoffs.map(h => h.id),
      [JWT_HANDOFF],
      'the acknowledged one is left out',
    );
    // Expired at 02:37: no longer listed after it.
    const later = await openWorkspace(root, { now: at('2026-11-22T03:00:00.000Z') });
    assert.deepEqual((await later.scopeContext('src/auth/jwt.ts')).delegations, []);
  });

  test('follows writes and dismissals; a superseded or overridden decision goes last and says what replaced it', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    await ws.scopeContext('src/auth/jwt.ts');
    const other = await openWorkspace(root, { now: NOW });
    await other.dismiss({ ids: [EXP_WARNING], reason: 'exp is checked now', agent_id: 'reviewer' });
    const replaced = await other.decide({
      domain: 'security',
      scope: 'src/auth/jwt.ts',
      summary: 'Sign JWTs with EdDSA',
      context: 'Smaller keys',
      rationale: 'Faster verification',
      supersedes: RS256,
      agent_id: 'reviewer',
    });
    await other.override({ decision_id: JWT_BEARER, reason: 'Sessions must be revocable', overridden_by: 'lead' });
    const ctx = await ws.scopeContext('src/auth/jwt.ts');
    assert.deepEqual(ctx.warnings, [], 'the dismissed warning is gone');
    assert.deepEqual(
      ctx.decisions.map(d => [d.id, d.status]),
      [
        [replaced.id, 'active'],
        [RS256, 'superseded'],
        [JWT_BEARER, 'overridden'],
      ],
      'past decisions after the current ones, each group newest first by its own time',
    );
    const rs = ctx.decisions.find(d => d.id === RS256)!;
    assert.deepEqual(rs.replaced_by, { id: replaced.id, summary: 'Sign JWTs with EdDSA', status: 'active' });
    const bearer = ctx.decisions.find(d => d.id === JWT_BEARER)!;
    assert.deepEqual([bearer.overridden_by, bearer.override_reason], ['lead', 'Sessions must be revocable']);
    assert.equal(ctx.active_count, 1);
  });

  test("a replacement outside the scope is named once the decision's story has been read, not by reading every record per look", async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    await ws.scopeContext('src/auth/jwt.ts');
    const elsewhere = await ws.decide({
      domain: 'security',
      scope: 'lib/crypto/',
      summary: 'Token signing moves to lib/crypto',
      context: 'c',
      rationale: 'r',
      supersedes: RS256,
    });
    const before = await ws.scopeContext('src/auth/jwt.ts');
    assert.deepEqual(before.decisions.find(d => d.id === RS256)?.status, 'superseded');
    assert.equal(before.decisions.find(d => d.id === RS256)?.replaced_by, undefined, 'not among the records in scope');
    await ws.decisionStory(RS256);
    const after = await ws.scopeContext('src/auth/jwt.ts');
    assert.deepEqual(after.decisions.find(d => d.id === RS256)?.replaced_by, {
      id: elsewhere.id,
      summary: 'Token signing moves to lib/crypto',
      status: 'active',
    });
  });
});

describe('decisionStory', () => {
  test('the chain both ways, and every handoff whose snapshot carried the decision', async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const second = await ws.decide({ domain: 'security', scope: 'src/auth/jwt.ts', summary: 'EdDSA', context: 'c', rationale: 'r', supersedes: RS256 });
    const handoff = await ws.handoff({ source_agent: 'me', scope: 'src/auth/jwt.ts', summary: 'carrying EdDSA', results: [] });
    const third = await ws.decide({ domain: 'security', scope: 'src/auth/jwt.ts', summary: 'Ed448', context: 'c', rationale: 'r', supersedes: second.id });
    const story = (await ws.decisionStory(second.id))!;
    assert.equal(story.record.summary, 'EdDSA');
    assert.deepEqual(story.supersedes, [{ id: RS256, summary: 'Sign JWTs with RS256 and rotate keys every 30 days', status: 'superseded' }]);
    assert.deepEqual(story.superseded_by, [{ id: third.id, summary: 'Ed448', status: 'active' }]);
    assert.deepEqual(
      story.handoffs.map(h => h.id),
      [handoff.id],
    );
    // The fixture's handoff on src/auth/ carried RS256 and the JWT bearer decision (its record says so).
    const fixtureHandoff = JSON.parse(fs.readFileSync(path.join(root, '.twining', 'handoffs', `${JWT_HANDOFF}.json`), 'utf8'));
    const rs = (await ws.decisionStory(RS256))!;
    assert.equal(
      rs.handoffs.some(h => h.id === JWT_HANDOFF),
      fixtureHandoff.context_snapshot.decision_ids.includes(RS256),
    );
    assert.deepEqual(
      rs.superseded_by.map(d => d.id),
      [second.id, third.id],
    );
    assert.equal(await ws.decisionStory('01M80HHK1QX1QEC06YGTWYXEZZ'), undefined);
  });
});
