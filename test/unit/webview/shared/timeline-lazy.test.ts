/**
 * The timeline laid out lazily (src/webview/shared/timeline-lazy.ts) against the full layout
 * (buildTimeline): on generated blackboards (out-of-order times, handoff notices, lines without an
 * id, warnings resolved later, delegations, decisions with records), after every piece, every
 * window's complete columns hold the same markers, counts and bars as the full layout's, the
 * density, total, first time and lanes are the same from the start, and once every piece is in,
 * whole windows and keyboard moves are the same too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BlackboardEntry, DecisionIndexEntry } from '../../../../src/core/records';
import { buildTimeline, decisionLookup, lanesOf, type TimelineFilter } from '../../../../src/webview/shared/timeline-layout';
import { LazyLayout } from '../../../../src/webview/shared/timeline-lazy';
import { TimelineIndex, type TimelineWindow } from '../../../../src/webview/shared/timeline-window';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const MIN = 60e3;

/** A small seeded generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function blackboard(rnd: () => number, n: number): { entries: BlackboardEntry[]; decisions: DecisionIndexEntry[] } {
  const kinds = ['status', 'finding', 'warning', 'decision', 'need', 'question', 'answer'];
  const entries: BlackboardEntry[] = [];
  const decisions: DecisionIndexEntry[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = kinds[Math.floor(rnd() * kinds.length)];
    // Mostly in order, some lines from a merge or a skewed clock far back, a few at the same minute.
    const minute = rnd() < 0.1 ? Math.floor(rnd() * i) : i;
    const id = `E${String(i).padStart(6, '0')}`;
    const entry: BlackboardEntry = {
      id,
      entry_type: kind,
      agent_id: `agent-${Math.floor(rnd() * 5)}`,
      scope: rnd() < 0.5 ? 'src/auth/' : 'src/db/',
      summary: `entry ${i}`,
      detail: '',
      tags: rnd() < 0.05 && kind === 'status' ? ['handoff'] : [],
      timestamp: new Date(T0 + minute * MIN).toISOString(),
    } as BlackboardEntry;
    if (rnd() < 0.01) delete (entry as { id?: string }).id;
    if (kind === 'warning') warnings.push(id);
    if (kind === 'answer' && warnings.length && rnd() < 0.5) entry.relates_to = [warnings[Math.floor(rnd() * warnings.length)]];
    if (kind === 'need' && rnd() < 0.5) entry.detail = JSON.stringify({ type: 'delegation', expires_at: new Date(T0 + (minute + 30) * MIN).toISOString() });
    if (kind === 'decision' && rnd() < 0.7) {
      decisions.push({ id: `D${i}`, scope: entry.scope, summary: entry.summary, status: rnd() < 0.2 ? 'superseded' : 'active' } as DecisionIndexEntry);
    }
    entries.push(entry);
  }
  return { entries, decisions };
}

/** The markers (id and count) of a window from `start` on. */
const markers = (w: TimelineWindow, start: number) => w.items.flatMap((item, i) => (item.t >= start ? [`${item.id}×${w.counts[i]}`] : []));

test('after every piece, the complete columns of any window hold what the full layout gives them', () => {
  for (let seed = 1; seed <= 12; seed++) {
    const rnd = random(seed);
    const n = 200 + Math.floor(rnd() * 1500);
    const { entries, decisions } = blackboard(rnd, n);
    const now = T0 + (n + 60) * MIN;
    const full = buildTimeline({ entries, handoffs: [], decisions, agents: [], user: 'me' });
    const whole = new TimelineIndex(full.items);
    const lookup = decisionLookup(decisions);
    const index = new TimelineIndex();
    const lazy = new LazyLayout(
      entries,
      () => lookup,
      index,
      () => {},
    );
    assert.equal(lazy.total, whole.size, `seed ${seed}: total`);
    assert.equal(lazy.first, whole.first, `seed ${seed}: first`);
    assert.deepEqual(lanesOf('me', [], lazy.laneFirsts, []), full.lanes, `seed ${seed}: lanes`);
    assert.deepEqual(lazy.density({}, now), whole.density({}, now), `seed ${seed}: density`);
    assert.equal(lazy.density({ scope: 'src/db/' }, now), undefined, 'a filtered density needs the items');
    let pieces = 0;
    for (;;) {
      for (let k = 0; k < 6; k++) {
        const a = T0 + rnd() * (n + 60) * MIN;
        const b = a + (rnd() < 0.3 ? (n + 60) * MIN : rnd() * 200 * MIN);
        const filter: TimelineFilter = rnd() < 0.3 ? { scope: 'src/auth/' } : rnd() < 0.2 ? { agents: ['agent-1', 'agent-3'] } : {};
        const q = { start: a, end: b, columns: 1 + Math.floor(rnd() * 300), filter };
        const got = index.window(q, now, -Infinity, lazy.pendingUpTo);
        const want = whole.window(q, now);
        const what = `seed ${seed}, piece ${pieces}, window ${JSON.stringify(q)}`;
        assert.ok(got.start >= q.start, what);
        if (got.start > q.start) assert.ok(got.start - (q.end - q.start) / q.columns <= lazy.pendingUpTo, `${what}: a complete column left out`);
        assert.deepEqual(markers(got, got.start), markers(want, got.start), what);
        assert.deepEqual(got.bars, want.bars, `${what}: bars`);
        if (lazy.done) assert.deepEqual(got, want, `${what}: all laid out`);
      }
      if (lazy.done) break;
      lazy.layOut(1 + Math.floor(rnd() * 400));
      pieces++;
    }
    assert.ok(pieces > 0, `seed ${seed}: laid out in pieces`);
    assert.deepEqual(index.all, whole.all, `seed ${seed}: the same items in the same order`);
    for (let k = 0; k < 20; k++) {
      const from = { t: T0 + rnd() * n * MIN };
      const dir = (['next', 'prev', 'near'] as const)[k % 3];
      assert.deepEqual(index.step('agent-2', from, dir, {}), whole.step('agent-2', from, dir, {}), `seed ${seed}: step ${dir}`);
    }
  }
});

test('the first piece answers the newest window in full, without laying out the history', () => {
  const rnd = random(99);
  const { entries, decisions } = blackboard(rnd, 20000);
  const lookup = decisionLookup(decisions);
  let laid = 0;
  const index = new TimelineIndex();
  const lazy = new LazyLayout(
    entries,
    () => lookup,
    index,
    () => laid++,
  );
  const spans = laid;
  lazy.layOut(1000);
  assert.ok(laid - spans <= 1000 && index.size < lazy.total / 2, `${index.size} of ${lazy.total} items laid out`);
  const end = T0 + 20000 * MIN;
  const q = { start: end - 300 * MIN, end, columns: 100, filter: {} };
  const got = index.window(q, end, -Infinity, lazy.pendingUpTo);
  const whole = new TimelineIndex(buildTimeline({ entries, handoffs: [], decisions, agents: [], user: 'me' }).items);
  // Out-of-order lines reach far back, so the newest columns are complete only after the latest of them.
  assert.ok(got.start < q.end, 'some columns are complete');
  assert.deepEqual(markers(got, got.start), markers(whole.window(q, end), got.start));
});
