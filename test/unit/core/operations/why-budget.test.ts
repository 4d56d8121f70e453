/**
 * why keeps to its token budget by measuring the answer in parts (each list item measured once,
 * ops/why-ops.ts tokensOf) instead of stringifying the whole answer at every cut, and a long-lived
 * engine answers from the decision records it keeps warm (every status, ops/decision-record-cache.ts):
 *  - over random answers (lists present, empty or absent, text needing JSON escapes), the size in
 *    parts equals the estimate of the whole answer's JSON;
 *  - over random decisions (superseded, overridden, some records rewritten by another process),
 *    a warm engine's why, with random budgets, `include_superseded` and `lineage`, equals a new
 *    engine's, which reads every record from disk.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { tokensOf, type WhyResult } from '../../../../src/core/operations/why-ops';
import { estimateTokens } from '../../../../src/core/rules/assembly';
import { emptyProject } from '../../../support/fixture';
import { prng } from '../../../support/prng';
import type { DecisionIndexEntry } from '../../../../src/core/records';

test('why: the answer measured in parts is the estimate of its whole JSON', () => {
  const rand = prng(2911);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const text = () => Array.from({ length: Math.floor(rand() * 12) }, () => pick(['a', 'é', '"', '\\', '\n', ' ', '0', '\u2028', '🙂'])).join('');
  const compact = () => ({ id: text(), summary: text(), status: pick(['active', 'superseded']), confidence: 'high', timestamp: text() });
  for (let i = 0; i < 500; i++) {
    const list = <T>(make: () => T) => Array.from({ length: Math.floor(rand() * 5) }, make);
    const result: WhyResult = {
      decisions: list(() => ({
        ...compact(),
        rationale: text(),
        alternatives_count: Math.floor(rand() * 3),
        commit_hashes: list(text),
        domain: text(),
        scope: text(),
        agent_id: text(),
        ...(rand() < 0.3 ? { superseded_by: text() } : {}),
      })),
      truncated: rand() < 0.5,
      total_in_scope: Math.floor(rand() * 1000),
      superseded_count: 0,
      active_count: 1,
      provisional_count: 2,
      token_estimate: Math.floor(rand() * 100000),
    };
    if (rand() < 0.6) result.more = list(compact);
    if (rand() < 0.4) result.superseded_excluded = list(() => ({ id: text(), summary: text() }));
    if (rand() < 0.3) result.omitted_count = 3;
    if (rand() < 0.3) result.message = text();
    assert.equal(tokensOf(result), estimateTokens(JSON.stringify(result)), JSON.stringify(result));
    // Measured again after a cut (items keep their measure): still the whole answer's estimate.
    result.decisions.pop();
    result.more?.shift();
    assert.equal(tokensOf(result), estimateTokens(JSON.stringify(result)));
  }
});

test('why from a warm engine with a budget equals why from a new engine reading every record', async () => {
  const rand = prng(2912);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const PATHS = ['src/', 'src/a/', 'src/a/x.ts', 'src/a/y.ts', 'src/b/', 'src/b/z.ts', 'project'];
  const root = emptyProject();
  let clock = Date.parse('2026-04-01T00:00:00.000Z');
  const now = () => new Date((clock += 1000));
  const warm = await openWorkspace(root, { now, warn: () => undefined, keepRecordsWarm: true });
  await warm.init();
  const ids: string[] = [];
  const check = async (round: number) => {
    // The warm engine reads the records in the background after a briefing (and after a why).
    await warm.assemble({ task: 't', scope: 'src/', agent_id: 'a' });
    await new Promise(resolve => setTimeout(resolve, 50));
    const cold = await openWorkspace(root, { now, warn: () => undefined });
    for (let k = 0; k < 12; k++) {
      const input = {
        scope: pick(PATHS),
        max_tokens: pick([undefined, 100, 200, 400, 2000]),
        include_superseded: pick([undefined, true, false]),
        lineage: rand() < 0.5,
      };
      const got = await warm.why(input);
      const want = await cold.why(input);
      assert.deepEqual(got, want, `round ${round}: ${JSON.stringify(input)}`);
    }
  };
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 25; i++) {
      const d = await warm.decide({
        domain: 'd',
        scope: pick(PATHS),
        summary: `decision ${round}.${i} ${'words '.repeat(Math.floor(rand() * 20))}`,
        context: 'c',
        rationale: 'because '.repeat(1 + Math.floor(rand() * 30)),
        affected_files: rand() < 0.5 ? [pick(PATHS)] : [],
        ...(ids.length && rand() < 0.2 ? { supersedes: pick(ids) } : {}),
      });
      ids.push(d.id);
    }
    for (let i = 0; i < 3; i++) await warm.override({ decision_id: pick(ids), reason: 'r', overridden_by: 'lead' }).catch(() => undefined);
    await check(round);
    // Another process rewrites a record and its index entry (as a merge does): neither engine keeps the old copy.
    const dir = path.join(root, '.twining', 'decisions');
    const id = pick(ids);
    const record = JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf8')) as Record<string, unknown>;
    record.rationale = `rewritten elsewhere in round ${round}`;
    record.summary = `rewritten ${round}`;
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(record, null, 2));
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as DecisionIndexEntry[];
    index.find(d => d.id === id)!.summary = `rewritten ${round}`;
    fs.writeFileSync(path.join(dir, 'index.json'), JSON.stringify(index, null, 2));
    await check(round);
  }
});
