/**
 * why finds a scope's decisions through the paths they name (rules/decision-paths.ts) and takes
 * their records from what the engine keeps (ops/decision-record-cache.ts): over random decisions
 * (scopes, affected files and symbols, some archived, overridden or superseded, one record file
 * gone with its index entry changed, as a checkout does), its answer equals why by its definition,
 * every index entry asked and every record read from disk; also after decisions change status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { decisionAffects, newestFirst } from '../../../../src/core/rules/why';
import { emptyProject } from '../../../support/fixture';
import { prng } from '../../../support/prng';
import type { DecisionIndexEntry } from '../../../../src/core/records';

const PATHS = ['src/', 'src/a/', 'src/a/x.ts', 'src/a/y.ts', 'src/b/', 'src/b/z.ts', 'docs/readme.md', 'project'];
const SYMBOLS = ['parse', 'render', 'src/a/x.ts'];

function byDefinition(root: string, scope: string) {
  const dir = path.join(root, '.twining', 'decisions');
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as DecisionIndexEntry[];
  const records = index
    .filter(d => d.status !== 'archived' && decisionAffects(d, scope))
    .map(d => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, `${d.id}.json`), 'utf8'));
      } catch {
        return undefined;
      }
    })
    .filter(r => r !== undefined)
    .sort(newestFirst);
  return records.map(d => d.id);
}

test('why through the decision paths and kept records equals why by its definition', async () => {
  const rand = prng(29);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const root = emptyProject();
  let clock = Date.parse('2026-04-01T00:00:00.000Z');
  const ws = await openWorkspace(root, { now: () => new Date((clock += 1000)), warn: () => undefined });
  await ws.init();
  const ids: string[] = [];
  const check = async () => {
    for (const scope of [...PATHS, ...SYMBOLS, 'src/a', 'nowhere/']) {
      const got = await ws.why({ scope });
      assert.deepEqual(
        got.decisions.map(d => d.id),
        byDefinition(root, scope),
        `scope ${scope}`,
      );
    }
  };
  for (let i = 0; i < 60; i++) {
    const d = await ws.decide({
      domain: 'd',
      scope: pick(PATHS),
      summary: `decision ${i}`,
      context: 'c',
      rationale: 'r',
      affected_files: rand() < 0.5 ? [pick(PATHS)] : [],
      affected_symbols: rand() < 0.3 ? [pick(SYMBOLS)] : [],
    });
    ids.push(d.id);
  }
  await check();
  for (let i = 0; i < 10; i++) await ws.override({ decision_id: pick(ids), reason: 'r', overridden_by: 'lead' }).catch(() => undefined);
  // Another writer (a checkout) takes a record away and changes its index entry: the kept copy goes with it, and the entry is skipped.
  fs.rmSync(path.join(root, '.twining', 'decisions', `${ids[3]}.json`));
  const indexFile = path.join(root, '.twining', 'decisions', 'index.json');
  const index = JSON.parse(fs.readFileSync(indexFile, 'utf8')) as DecisionIndexEntry[];
  index.find(d => d.id === ids[3])!.summary = 'changed elsewhere';
  fs.writeFileSync(indexFile, JSON.stringify(index, null, 2));
  await check();
});
