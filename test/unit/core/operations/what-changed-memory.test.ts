/**
 * what_changed answered from what the engine holds (ops/entries-by-time.ts: the blackboard's
 * positions and the decision index kept in time order, extended as lines are appended) equals
 * what_changed computed afresh from the files, over random histories: posts by this engine with a
 * clock that sometimes goes back (a skewed agent), lines appended by another writer with any
 * time, dismissals (the file rewritten), decisions, overrides and reconsiderations; asked after
 * every step for several times and scopes, on one engine that lives through the whole history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { overlaps } from '../../../../src/core/scope';
import { emptyProject } from '../../../support/fixture';
import { parseJsonl } from '../../../support/tmp';
import { prng } from '../../../support/prng';

const SCOPES = ['project', 'src/a/', 'src/a/x.ts', 'src/b/', 'src/b/y.ts', 'docs/'];
const BASE = Date.parse('2026-03-01T00:00:00.000Z');

/** what_changed by its definition, from the files as they are now. */
function fromFiles(root: string, since: string, scope: string | undefined) {
  const dir = path.join(root, '.twining');
  const inScope = (item: { scope?: unknown }) => !scope || (typeof item.scope === 'string' && overlaps(item.scope, scope));
  const entries = parseJsonl(path.join(dir, 'blackboard.jsonl'));
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'decisions', 'index.json'), 'utf8')) as Record<string, any>[];
  const recent = index.filter(d => typeof d.timestamp === 'string' && d.timestamp >= since && inScope(d));
  const overridden = index
    .filter(d => d.status === 'overridden' && typeof d.timestamp === 'string' && d.timestamp >= since)
    .map(d => JSON.parse(fs.readFileSync(path.join(dir, 'decisions', `${d.id}.json`), 'utf8')))
    .filter(d => d.timestamp >= since && inScope(d));
  return {
    new_decisions: recent.filter(d => d.status === 'active' || d.status === 'provisional').map(d => ({ id: d.id, summary: d.summary })),
    new_entries: entries
      .filter(e => typeof e.timestamp === 'string' && e.timestamp >= since && inScope(e))
      .map(e => ({ id: e.id, entry_type: e.entry_type, summary: e.summary })),
    overridden_decisions: overridden.map(d => ({
      id: d.id,
      summary: d.summary,
      reason: typeof d.override_reason === 'string' ? d.override_reason : 'No reason provided',
    })),
    reconsidered_decisions: recent.filter(d => d.status === 'provisional').map(d => ({ id: d.id, summary: d.summary })),
  };
}

test('what_changed from the engine equals what_changed from the files over random histories', async () => {
  for (let seed = 1; seed <= 6; seed++) {
    const rand = prng(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
    const root = emptyProject();
    let clock = BASE;
    const ws = await openWorkspace(root, { now: () => new Date(clock), warn: () => undefined });
    await ws.init();
    const board = path.join(root, '.twining', 'blackboard.jsonl');
    const decided: string[] = [];
    for (let step = 0; step < 40; step++) {
      // Mostly forward; now and then an agent whose clock is behind.
      clock += rand() < 0.15 ? -Math.floor(rand() * 60_000) : Math.floor(rand() * 20_000);
      const r = rand();
      if (r < 0.45) await ws.post({ entry_type: pick(['warning', 'finding', 'status', 'need']), summary: `post ${step}`, scope: pick(SCOPES) });
      else if (r < 0.6) {
        // Another writer's line, with a time of its own (maybe before everything).
        const t = new Date(BASE + Math.floor(rand() * (clock - BASE + 60_000)) - 30_000).toISOString();
        const id = `01KA${String(step).padStart(2, '0')}${'X'.repeat(20)}`.slice(0, 26);
        fs.appendFileSync(
          board,
          `${JSON.stringify({ entry_type: 'finding', summary: `other ${step}`, detail: '', tags: [], scope: pick(SCOPES), agent_id: 'other', id, timestamp: t })}\n`,
        );
      } else if (r < 0.68) {
        const entries = (await ws.read({ limit: 0 })).entries;
        if (entries.length) await ws.dismiss({ ids: [pick(entries).id] });
      } else if (r < 0.85) {
        const d = await ws.decide({
          domain: 'd',
          scope: pick(SCOPES),
          summary: `decision ${step}`,
          context: 'c',
          rationale: 'r',
          confidence: pick(['high', 'medium', 'low']),
        });
        decided.push(d.id);
      } else if (decided.length) {
        const id = pick(decided);
        if (rand() < 0.5) await ws.override({ decision_id: id, reason: `because ${step}`, overridden_by: 'lead' }).catch(() => undefined);
        else await ws.reconsider({ decision_id: id, new_context: `new ${step}` }).catch(() => undefined);
      }
      for (const back of [0, 10_000, 120_000, 10_000_000]) {
        const since = new Date(clock - back).toISOString();
        for (const scope of [undefined, pick(SCOPES)]) {
          const got = await ws.what_changed({ since, ...(scope ? { scope } : {}) });
          assert.deepEqual(got, fromFiles(root, since, scope), `seed ${seed}, step ${step}, since ${since}, scope ${scope}`);
        }
      }
    }
  }
});
