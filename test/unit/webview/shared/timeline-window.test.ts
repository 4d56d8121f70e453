/**
 * What the timeline page is sent of its window (src/webview/shared/timeline-window.ts): at most
 * one marker per lane and column, the one that matters most with the number it stands for, spans
 * merged into bars, the density of the whole history, appends and resolved warnings, and the
 * keyboard's moves over every entry. Built from the reference fixture's blackboard and from a
 * generated one of 100,000 entries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { buildTimeline, entryItem, type TimelineItem } from '../../../../src/webview/shared/timeline-layout';
import { TimelineIndex } from '../../../../src/webview/shared/timeline-window';

const FIXTURE = path.resolve(__dirname, '..', '..', 'test', 'fixtures', 'reference-twining');
const jsonl = (rel: string) =>
  fs
    .readFileSync(path.join(FIXTURE, rel), 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l));

const HOUR = 3600e3;
const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const KINDS = ['status', 'finding', 'warning', 'decision', 'question'] as const;

/** `n` entries, one a minute, on `lanes` agents in turn, kinds in turn. */
function generated(n: number, lanes = 4): TimelineItem[] {
  const entries = Array.from({ length: n }, (_, i) => ({
    id: `E${String(i).padStart(8, '0')}`,
    entry_type: KINDS[i % KINDS.length],
    agent_id: `agent-${i % lanes}`,
    scope: i % 2 ? 'src/auth/' : 'src/db/',
    summary: `entry ${i}`,
    detail: '',
    tags: [],
    timestamp: new Date(T0 + i * 60e3).toISOString(),
  }));
  return buildTimeline({ entries, handoffs: [], decisions: [], agents: [], user: 'me' }).items;
}

test('zoomed in, the window holds every entry in range; zoomed out, one marker per lane and column with its count', () => {
  const index = new TimelineIndex(generated(1000));
  const near = index.window({ start: T0, end: T0 + 10 * 60e3, columns: 300, filter: {} }, T0 + 1000 * 60e3);
  assert.equal(near.items.length, 11);
  assert.deepEqual(near.counts, new Array(11).fill(1));
  assert.equal(near.inWindow, 11);

  const far = index.window({ start: T0, end: T0 + 1000 * 60e3, columns: 10, filter: {} }, T0 + 1000 * 60e3);
  assert.equal(far.inWindow, 1000);
  assert.ok(far.items.length <= 4 * 10, `${far.items.length} markers`);
  assert.equal(
    far.counts.reduce((a, b) => a + b, 0),
    1000,
  );
  // Sorted by time, and a column's marker is its decision or warning when it has one.
  for (let i = 1; i < far.items.length; i++) assert.ok(far.items[i - 1].t <= far.items[i].t);
  assert.ok(
    far.items.every(i => i.kind === 'decision' || i.kind === 'warning'),
    far.items.map(i => i.kind).join(),
  );
});

test('the window is bounded by lanes × columns at 100,000 entries; the focused entry is its column’s marker', () => {
  const items = generated(100000, 8);
  const index = new TimelineIndex(items);
  const end = T0 + 100000 * 60e3;
  const w = index.window({ start: T0, end, columns: 400, filter: {}, focus: items[5001].id }, end);
  assert.ok(w.items.length <= 8 * 400, `${w.items.length} markers`);
  assert.equal(w.inWindow, 100000);
  assert.ok(w.items.some(i => i.id === items[5001].id));
  // Standing warnings (20,000 of them) come as a few bars per lane.
  assert.ok(w.bars.length <= 8 * 2, `${w.bars.length} bars`);
  assert.ok(w.bars.every(b => b.kind === 'warning' && b.standing));
});

test('the filter narrows markers, counts and density; the density covers the history up to now', () => {
  const index = new TimelineIndex(generated(1000));
  const now = T0 + 1000 * 60e3;
  const filter = { scope: 'src/auth/', agents: ['agent-1'] };
  const w = index.window({ start: T0, end: now, columns: 2000, filter }, now);
  assert.ok(w.items.every(i => i.lane === 'agent-1' && i.scope === 'src/auth/'));
  assert.equal(w.inWindow, 250);
  const d = index.density(filter, now);
  assert.equal(d.shown, 250);
  assert.equal(
    d.counts.reduce((a, b) => a + b, 0),
    250,
  );
  assert.equal(d.start, T0);
  assert.equal(index.density({}, now).shown, 1000);
  assert.equal(index.density({ hiddenKinds: ['status'] }, now).shown, 800);
});

test('an append shows in the next window and the density; a resolved warning stops standing', () => {
  const index = new TimelineIndex(generated(10));
  const now = T0 + 3 * HOUR;
  assert.equal(index.density({}, now).shown, 10);
  const warning = index.all.find(i => i.kind === 'warning')!;
  const later = entryItem(
    {
      id: 'LATER',
      entry_type: 'answer',
      agent_id: 'ops',
      scope: 'project',
      summary: 'fixed',
      detail: '',
      tags: [],
      timestamp: new Date(T0 + HOUR).toISOString(),
    },
    new Map(),
  )!;
  index.add([later]);
  assert.equal(index.size, 11);
  assert.equal(index.density({}, now).shown, 11);
  assert.ok(index.kinds.includes('answer'));
  assert.ok(index.resolve(warning.id, later.t));
  assert.equal(index.resolve(warning.id, later.t), false);
  const w = index.window({ start: T0, end: now, columns: 100, filter: { hiddenKinds: [] } }, now);
  assert.ok(w.items.some(i => i.id === 'LATER'));
  const bar = w.bars.find(b => b.kind === 'warning' && b.lane === warning.lane)!;
  assert.equal(bar.t2, later.t);
  assert.equal(bar.standing, undefined);
});

test('the keyboard reaches every entry of a lane in order, and the nearest one in another lane', () => {
  const items = generated(100, 4);
  const index = new TimelineIndex(items);
  const lane0 = items.filter(i => i.lane === 'agent-0');
  let at: TimelineItem | undefined = index.step('agent-0', { t: T0 - 1 }, 'near', {});
  const seen: string[] = [];
  while (at) {
    seen.push(at.id);
    at = index.step('agent-0', at, 'next', {});
  }
  assert.deepEqual(
    seen,
    lane0.map(i => i.id),
  );
  assert.equal(index.step('agent-0', lane0[3], 'prev', {})?.id, lane0[2].id);
  assert.equal(index.step('agent-0', lane0[0], 'prev', {}), undefined);
  // agent-2's entries are at minutes 2, 6, 10…: the nearest to minute 41 is minute 42.
  assert.equal(index.step('agent-2', { t: T0 + 41 * 60e3 }, 'near', {})?.id, items[42].id);
  // With a filter, only what it keeps.
  // agent-1's entries are at minutes 1 (a finding), 5 (a status)…
  assert.equal(index.step('agent-1', { t: T0 }, 'near', { hiddenKinds: ['finding'] })?.id, items[5].id);
});

test('the fixture: every item of the layout is in the index, and a window over all of it counts them', () => {
  const entries = jsonl('blackboard.jsonl');
  const data = buildTimeline({ entries, handoffs: [], decisions: [], agents: [], user: 'user-me' });
  const index = new TimelineIndex(data.items);
  const last = data.items[data.items.length - 1].t;
  const w = index.window({ start: data.items[0].t, end: last, columns: 100000, filter: {} }, last);
  assert.equal(w.inWindow, data.items.length);
  assert.equal(w.items.length, data.items.length);
});

test('after appends, the window from the first appended entry’s column on equals that part of the whole window', () => {
  const items = generated(2000, 4);
  const index = new TimelineIndex(items.slice(0, 1990));
  const q = { start: T0 - 500 * 60e3, end: T0 + 2500 * 60e3, columns: 300, filter: {} };
  const now = T0 + 2000 * 60e3;
  index.window(q, now, index.takeChangedFrom());
  assert.equal(index.takeChangedFrom(), Infinity, 'nothing changed since');
  index.add(items.slice(1990));
  const from = index.takeChangedFrom();
  assert.equal(from, items[1990].t);
  const part = index.window(q, now, from);
  const whole = index.window(q, now);
  assert.ok(part.start > q.start && part.start <= from);
  const tail = whole.items.map((it, i) => [it.id, whole.counts[i]] as const).filter(([,], i) => whole.items[i].t >= part.start);
  assert.deepEqual(
    part.items.map((it, i) => [it.id, part.counts[i]] as const),
    tail,
  );
  // A changed decision's status can move any marker: the next window is whole.
  index.patch(items[3].id, { open: items[3].open, status: 'superseded' });
  assert.equal(index.takeChangedFrom(), -Infinity);
});
