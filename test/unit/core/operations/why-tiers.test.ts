/**
 * why's tiers on a busy scope (rules/why.ts whyTiers): the best-ranked decisions come in full (the
 * top one always, unless it alone is past the budget), the next ones as one-liners in `more` while
 * they fit (at most 50), the rest counted in `omitted_count`; the whole answer keeps to the budget.
 * Before, the budget turned every full decision into a one-liner before it dropped any one-liner,
 * so a scope with a hundred decisions gave none in full at the default 4000 tokens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'child_process';
import { promisify } from 'util';
import { openWorkspace, withModelDefaults, WHY_MAX_TOKENS, type Workspace } from '../../../../src/core';
import { whyMessage } from '../../../../src/core/rules/why';
import type { WhyResult } from '../../../../src/core/operations/why-ops';
import { estimateTokens } from '../../../../src/core/rules/assembly';
import { emptyProject } from '../../../support/fixture';
import { CLI_JS } from '../../../support/tmp';

const FILE = 'src/api/handler.ts';
const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => ['retry', 'queue', 'handler', 'timeout', 'cache', 'route'][(i * 7 + seed) % 6]).join(' ');

/** 150 decisions on src/api/ (newest last), the oldest of them on the file itself: it ranks first. */
async function busyScope() {
  const root = emptyProject();
  let clock = Date.parse('2026-05-01T00:00:00.000Z');
  const ws = await openWorkspace(root, { now: () => new Date((clock += 1000)), warn: () => undefined });
  await ws.init();
  const made: { id: string; rationale: string }[] = [];
  for (let i = 0; i < 150; i++) {
    const rationale = `Decision ${i}: ${words(90, i)}`;
    const d = await ws.decide({
      domain: `area${i}`,
      scope: i === 0 ? FILE : 'src/api/',
      summary: `${i}: ${words(30, i)}`.slice(0, 200),
      context: 'c',
      rationale,
      agent_id: 'tester',
    });
    made.push({ id: d.id, rationale });
  }
  // Ranked: the file's own decision, then the rest newest first (all active).
  const ranked = [made[0], ...made.slice(1).reverse()];
  return { root, ws, ranked };
}

function checkTiers(r: WhyResult, ranked: { id: string; rationale: string }[], budget: number) {
  assert.equal(r.total_in_scope, ranked.length);
  const top = r.decisions.find(d => d.id === ranked[0].id);
  assert.ok(top, `the top-ranked decision comes in full (got ${r.decisions.length} in full, ${r.more?.length ?? 0} one-liners)`);
  assert.equal(top.rationale, ranked[0].rationale, 'with its rationale');
  // The full ones are the best-ranked (listed newest first), the one-liners the next ones in rank order.
  const k = r.decisions.length;
  assert.deepEqual(new Set(r.decisions.map(d => d.id)), new Set(ranked.slice(0, k).map(d => d.id)));
  const more = r.more ?? [];
  assert.deepEqual(
    more.map(d => d.id),
    ranked.slice(k, k + more.length).map(d => d.id),
  );
  assert.ok(more.length <= 50, `at most 50 one-liners, got ${more.length}`);
  // What does not fit is counted, not lost.
  assert.equal(k + more.length + (r.omitted_count ?? 0), ranked.length, 'every decision in full, as a one-liner or counted');
  assert.equal(r.truncated, true);
  assert.equal(r.message, whyMessage(more.length, r.omitted_count ?? 0));
  assert.match(r.message, /call twining_why with ids/);
  const size = estimateTokens(JSON.stringify(r));
  assert.equal(r.token_estimate, size, 'token_estimate is the size of the answer');
  assert.ok(size <= budget, `the answer keeps to ${budget} tokens: ${size}`);
}

/** The answer had its next-ranked decision been given in full (no one-liners) or as one more one-liner: over the budget, or it would have been. */
async function checkNothingMoreFits(ws: Workspace, r: WhyResult, ranked: { id: string }[], budget: number) {
  const k = r.decisions.length;
  const more = r.more ?? [];
  const [next] = (await ws.why({ ids: [ranked[k].id] })).decisions;
  const { context: _c, alternatives: _a, constraints: _s, depends_on: _d, ...inFull } = next;
  const answer = (decisions: object[], oneLiners: object[]) => {
    const omitted = ranked.length - decisions.length - oneLiners.length;
    const { more: _m, omitted_count: _o, message: _g, ...rest } = r;
    return JSON.stringify({
      ...rest,
      decisions,
      token_estimate: budget,
      ...(oneLiners.length ? { more: oneLiners } : {}),
      ...(omitted ? { omitted_count: omitted } : {}),
      message: whyMessage(oneLiners.length, omitted),
    });
  };
  assert.ok(estimateTokens(answer([...r.decisions, inFull], [])) > budget, 'the next-ranked decision did not fit in full');
  if (more.length < 50 && k + more.length < ranked.length) {
    const [after] = (await ws.why({ ids: [ranked[k + more.length].id] })).decisions;
    const oneLiner = { id: after.id, summary: after.summary, status: after.status, confidence: after.confidence, timestamp: after.timestamp };
    assert.ok(estimateTokens(answer(r.decisions, [...more, oneLiner])) > budget, 'one more one-liner did not fit');
  }
}

test('why on a busy scope at the default budget gives the best-ranked decisions in full, then one-liners, the rest counted', async () => {
  const { root, ws, ranked } = await busyScope();
  // A model's call (MCP server, language model tool): twining-mcp's default budget.
  const input = withModelDefaults('why', { scope: FILE }) as { scope: string; max_tokens: number };
  assert.equal(input.max_tokens, WHY_MAX_TOKENS);
  const r = await ws.why(input);
  checkTiers(r, ranked, WHY_MAX_TOKENS);
  await checkNothingMoreFits(ws, r, ranked, WHY_MAX_TOKENS);
  assert.ok((r.more?.length ?? 0) > 0, 'one-liners after the full ones');
  assert.ok(r.decisions.length >= 2, `as many in full as fit: ${r.decisions.length}`);
  // Smaller budgets: still the top one in full while it fits.
  for (const max_tokens of [2000, 1000, 500]) {
    const small = await ws.why({ scope: FILE, max_tokens });
    checkTiers(small, ranked, max_tokens);
    await checkNothingMoreFits(ws, small, ranked, max_tokens);
  }
  // The CLI with --max-tokens takes the same rule.
  const { stdout } = await promisify(execFile)(process.execPath, [CLI_JS, 'why', FILE, '--max-tokens', '4000', '--dir', root, '--json']);
  assert.deepEqual(JSON.parse(stdout), r);
});

test('why: a top-ranked decision alone past the budget comes as a one-liner, as before, and the message says how to get it', async () => {
  const root = emptyProject();
  const ws = await openWorkspace(root, { warn: () => undefined });
  await ws.init();
  const huge = await ws.decide({ domain: 'd', scope: FILE, summary: 'huge', context: 'c', rationale: 'x'.repeat(19000), agent_id: 'tester' });
  const small = await ws.decide({ domain: 'e', scope: 'src/api/', summary: 'small', context: 'c', rationale: 'y', agent_id: 'tester' });
  const r = await ws.why({ scope: FILE, max_tokens: 1000 });
  assert.deepEqual(r.decisions, []);
  assert.deepEqual(
    r.more?.map(d => d.id),
    [huge.id, small.id],
  );
  assert.match(r.message ?? '', /2 more decision\(s\) in scope returned as one-liners in 'more' — call twining_why with ids/);
  assert.ok(estimateTokens(JSON.stringify(r)) <= 1000);
  // Its full text is there through ids (no budget unless one is given).
  assert.equal((await ws.why({ ids: [huge.id] })).decisions[0].rationale, 'x'.repeat(19000));
});
