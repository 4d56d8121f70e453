/**
 * The blackboard's merge by walking sides in time order (core/merge/sorted-merge.ts) against the
 * general merge by record (readJsonlSides + mergeEntries), on random histories of one base: posts
 * on either side (some at the same time as another), dismissals, twining-mcp 2.x resolutions on
 * one side or both, the same entry added on both sides, entries changed on one side and removed
 * on the other. Where the walk applies it must give the general merge's file, summary counts and
 * notes; where it does not (a side out of order, a key twice, a line that is not a record), the
 * driver's result must still be the general merge's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeTwiningFile } from '../../../../src/core/merge/merge-file';
import { mergeSortedBytes } from '../../../../src/core/merge/sorted-merge';
import { mergeEntries } from '../../../../src/core/merge/record-collection';
import { blackboardEntries } from '../../../../src/core/merge/blackboard-merge';
import { readJsonlSides, writeJsonl } from '../../../../src/core/merge/merge-text';
import { prng } from '../../../support/prng';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

type Entry = Record<string, unknown> & { id: string; timestamp: string };

function makeEntry(rand: () => number, ms: number, summary: string): Entry {
  let id = '';
  for (let i = 9, t = ms; i >= 0; i--, t = Math.floor(t / 32)) id = CROCKFORD[t % 32] + id;
  for (let i = 0; i < 16; i++) id += CROCKFORD[Math.floor(rand() * 32)];
  return {
    entry_type: ['warning', 'finding', 'need', 'status'][Math.floor(rand() * 4)],
    summary,
    detail: rand() < 0.2 ? 'détail non ASCII ✓' : 'detail',
    tags: [],
    scope: `src/mod${Math.floor(rand() * 5)}/`,
    agent_id: `agent-${Math.floor(rand() * 3)}`,
    id,
    timestamp: new Date(ms).toISOString(),
  };
}

/** twining-mcp 2.x's resolve: the entry marked, keys as its writer puts them (before id and timestamp, so the tail stays). */
function resolved(e: Entry, by: string): Entry {
  const { id, timestamp, ...rest } = e;
  return { ...rest, status: 'resolved', resolved_by: by, resolved_at: '2026-02-01T00:00:00.000Z', id, timestamp };
}

const text = (entries: Entry[]) => entries.map(e => `${JSON.stringify(e)}\n`).join('');
const byTime = (list: Entry[]) =>
  list.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** One side: the base with some entries dismissed, some resolved, and new posts (some shared with the other side). */
function side(rand: () => number, base: Entry[], name: string, shared: Entry[], start: number): Entry[] {
  const out: Entry[] = [];
  for (const e of base) {
    const r = rand();
    if (r < 0.08) continue;
    out.push(r < 0.14 ? resolved(e, name) : r < 0.17 ? resolved(e, 'both') : e);
  }
  for (let i = 0, n = Math.floor(rand() * 12); i < n; i++) out.push(makeEntry(rand, start + Math.floor(rand() * 20) * 1000, `${name} ${i}`));
  out.push(...shared);
  return byTime(out);
}

function general(base: string, ours: string, theirs: string) {
  const notes: string[] = [];
  const { items, stats } = mergeEntries(readJsonlSides({ base, ours, theirs }, '.twining/blackboard.jsonl', notes, true), blackboardEntries, notes);
  return { text: writeJsonl(items), stats, notes };
}

describe('blackboard merge walking the sides in time order', () => {
  test('gives the general merge result on 300 random sorted histories', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = prng(seed);
      const start = Date.parse('2026-01-01T00:00:00.000Z');
      // Some entries share a millisecond: the id orders them.
      const base = byTime(Array.from({ length: 1 + Math.floor(rand() * 30) }, (_, k) => makeEntry(rand, start + Math.floor(k / 2) * 1000, `base ${k}`)));
      const later = start + 100_000;
      const shared = rand() < 0.5 ? [makeEntry(rand, later + 500, 'on both sides')] : [];
      const [b, o, t] = [text(base), text(side(rand, base, 'ours', shared, later)), text(side(rand, base, 'theirs', shared, later))];
      const expected = general(b, o, t);
      const notes: string[] = [];
      const walked = mergeSortedBytes({ base: Buffer.from(b), ours: Buffer.from(o), theirs: Buffer.from(t) }, blackboardEntries, notes);
      assert.ok(walked, `seed ${seed}: the walk applies to sorted sides`);
      assert.equal(Buffer.concat(walked.parts).toString('utf8'), expected.text, `seed ${seed}: merged file`);
      assert.deepEqual(walked.stats, expected.stats, `seed ${seed}: counts`);
      assert.deepEqual([...notes].sort(), [...expected.notes].sort(), `seed ${seed}: notes`);
      // And through the driver's entry point, both directions.
      const outcome = mergeTwiningFile('.twining/blackboard.jsonl', b, o, t)!;
      assert.equal(outcome.text, expected.text);
      assert.equal(mergeTwiningFile('.twining/blackboard.jsonl', b, t, o)!.text, expected.text, `seed ${seed}: symmetric`);
    }
  });

  test('leaves sides it cannot walk to the general merge, with the same result', () => {
    const rand = prng(7);
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const base = byTime(Array.from({ length: 10 }, (_, k) => makeEntry(rand, start + k * 1000, `base ${k}`)));
    const late = makeEntry(rand, start + 50_000, 'late');
    const early = makeEntry(rand, start + 500, 'early, appended last');
    const cases: [string, string, string][] = [
      // An entry appended with an earlier time than the one before it (a skewed clock).
      [text(base), text([...base, late, early]), text(base)],
      // The same entry twice on one side (an earlier hand merge).
      [text(base), text([...base, late, late]), text(base)],
      // A line that is not a record, kept verbatim.
      [text(base), `${text(base)}not json\n`, text([...base, late])],
      // CRLF line ends.
      [text(base), text([...base, late]).replace(/\n/g, '\r\n'), text(base)],
      // A record without the usual tail (keys in another order).
      [text(base), `${text(base)}${JSON.stringify({ id: late.id, timestamp: late.timestamp, summary: 'x' })}\n`, text(base)],
    ];
    for (const [b, o, t] of cases) {
      assert.equal(mergeSortedBytes({ base: Buffer.from(b), ours: Buffer.from(o), theirs: Buffer.from(t) }, blackboardEntries, []), undefined);
      const expected = general(b, o, t);
      const outcome = mergeTwiningFile('.twining/blackboard.jsonl', b, o, t)!;
      assert.equal(outcome.text, expected.text);
      assert.deepEqual(outcome.notes, expected.notes);
    }
  });
});
