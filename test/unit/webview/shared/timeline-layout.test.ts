/**
 * The timeline's layout data (src/webview/shared/timeline-layout.ts) from the reference
 * fixture's files as they are on disk: lanes, items, handoff arrows, warning spans, links, and
 * the filters and delta merge the webview uses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import {
  buildTimeline,
  firstAtOrAfter,
  itemVisible,
  arrowVisible,
  mergeByTime,
  entryItem,
  decisionLookup,
  isoTime,
  type HandoffExtra,
  type DecisionExtra,
  type TimelineInput,
} from '../../../../src/webview/shared/timeline-layout';
import { packItems, unpackItems } from '../../../../src/webview/shared/timeline-packing';

const FIXTURE = path.resolve(__dirname, '..', '..', 'test', 'fixtures', 'reference-twining');
const read = (rel: string) => fs.readFileSync(path.join(FIXTURE, rel), 'utf8');
const jsonl = (rel: string) =>
  read(rel)
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l));

function fixtureInput(): TimelineInput {
  const handoffs = jsonl('handoffs/index.jsonl');
  const handoffRecords = new Map<string, HandoffExtra>(handoffs.map(h => [h.id, JSON.parse(read(`handoffs/${h.id}.json`))]));
  const decisions = JSON.parse(read('decisions/index.json'));
  const decisionRecords = new Map<string, DecisionExtra>(decisions.map((d: { id: string }) => [d.id, JSON.parse(read(`decisions/${d.id}.json`))]));
  return {
    entries: jsonl('blackboard.jsonl'),
    handoffs,
    handoffRecords,
    decisions,
    decisionRecords,
    agents: JSON.parse(read('agents/registry.json')),
    user: 'user-me',
  };
}

test('one lane per agent, the user first, then by first appearance', () => {
  const data = buildTimeline(fixtureInput());
  assert.deepEqual(
    data.lanes.map(l => l.id),
    ['user-me', 'backend-dev', 'reviewer', 'tester', 'frontend-dev'],
  );
  assert.equal(data.lanes[0].isUser, true);
  assert.equal(data.lanes.find(l => l.id === 'reviewer')?.role, 'reviewer');
});

test('every blackboard entry but the handoff notices is an item, sorted by time; decisions open their records', () => {
  const input = fixtureInput();
  const data = buildTimeline(input);
  assert.equal(data.items.length, input.entries.length - 2, 'the two "Handoff created" notices are drawn as arrows');
  for (let i = 1; i < data.items.length; i++) assert.ok(data.items[i - 1].t <= data.items[i].t);
  const jwt = data.items.find(i => i.summary === 'Use stateless JWT bearer tokens for API authentication')!;
  assert.deepEqual(jwt.open, { type: 'decision', id: '01M80HHJN7TF8W1N7EW8PHV7MT' }, 'the decision entry finds its record by scope and summary');
  assert.equal(jwt.status, 'active');
  assert.equal(jwt.lane, 'backend-dev');
  const need = data.items.find(i => i.id === '01M80HHKA4QXFKQJDMA5FP7RS1')!;
  assert.equal(need.kind, 'delegation');
  assert.equal(need.end, Date.parse('2026-11-22T02:37:12.356Z'), 'a delegation spans until it expires');
  const warnings = data.items.filter(i => i.kind === 'warning');
  assert.equal(warnings.length, 3);
  assert.ok(
    warnings.every(w => w.standing && w.end === undefined),
    'warnings on the blackboard stand until dismissed',
  );
});

test('handoffs are arrows from the source lane to the target (or whoever acknowledged it)', () => {
  const data = buildTimeline(fixtureInput());
  assert.equal(data.arrows.length, 2);
  const [open, reviewed] = data.arrows;
  assert.equal(open.from, 'backend-dev');
  assert.equal(open.to, undefined, 'addressed to any agent and not picked up');
  assert.equal(open.acknowledged, false);
  assert.equal(reviewed.from, 'frontend-dev');
  assert.equal(reviewed.to, 'reviewer');
  assert.equal(reviewed.acknowledged, true);
  assert.equal(reviewed.ackBy, 'reviewer');
  assert.equal(reviewed.ackAt, Date.parse('2026-11-22T02:32:12.443Z'));
  assert.deepEqual(data.links, [], 'the fixture has no continues or supersedes');
});

test('continues chains and supersession become links; a warning ends at the entry that relates to it', () => {
  const input = fixtureInput();
  const [first, second] = input.handoffs.map(h => h.id);
  const handoffRecords = new Map(input.handoffRecords);
  handoffRecords.set(second, { ...handoffRecords.get(second), continues: first });
  const decisionRecords = new Map(input.decisionRecords);
  decisionRecords.set('01M80HHK1QX1QEC06YGTWYXEZJ', { supersedes: '01M80HHJN7TF8W1N7EW8PHV7MT' });
  const warning = '01M80HHK5EACAY1D2CS04B635E';
  const fix = {
    ...input.entries[0],
    entry_type: 'status' as const,
    summary: 'exp checked',
    id: '01M80HHKZZZZZZZZZZZZZZZZZZ',
    timestamp: '2026-11-22T03:00:00.000Z',
    relates_to: [warning],
  };
  const data = buildTimeline({ ...input, handoffRecords, decisionRecords, entries: [...input.entries, fix] });
  assert.deepEqual(data.links, [
    { kind: 'continues', from: second, to: first },
    { kind: 'supersedes', from: '01M80HHK1QX1QEC06YGTWYXEZJ', to: '01M80HHJN7TF8W1N7EW8PHV7MT' },
  ]);
  const w = data.items.find(i => i.id === warning)!;
  assert.equal(w.end, Date.parse('2026-11-22T03:00:00.000Z'));
  assert.equal(w.standing, undefined);
});

test('filters: scope by prefix overlap, agents, kinds; arrows by either end', () => {
  const data = buildTimeline(fixtureInput());
  const auth = data.items.filter(i => itemVisible(i, { scope: 'src/auth/' }));
  assert.deepEqual([...new Set(auth.map(i => i.scope))].sort(), ['src/auth/', 'src/auth/jwt.ts']);
  assert.equal(data.items.filter(i => itemVisible(i, { agents: ['tester'] })).length, 3);
  assert.ok(data.items.filter(i => itemVisible(i, { hiddenKinds: ['warning'] })).every(i => i.kind !== 'warning'));
  assert.deepEqual(
    data.arrows.filter(a => arrowVisible(a, { scope: 'src/auth/' })).map(a => a.from),
    ['backend-dev'],
  );
  assert.deepEqual(
    data.arrows.filter(a => arrowVisible(a, { agents: ['reviewer'] })).map(a => a.from),
    ['frontend-dev'],
  );
  assert.equal(data.arrows.filter(a => arrowVisible(a, { hiddenKinds: ['handoff'] })).length, 0);
});

test('appended entries merge into the sorted list (the live delta), and the window is found by binary search', () => {
  const input = fixtureInput();
  const data = buildTimeline(input);
  const lookup = decisionLookup(input.decisions);
  const late = entryItem({ ...input.entries[5], id: '01M80HHMAAAAAAAAAAAAAAAAAA', timestamp: '2026-11-22T04:00:00.000Z' }, lookup)!;
  const early = entryItem({ ...input.entries[5], id: '01M80HHJ00000000000000000A', timestamp: '2026-11-22T01:00:00.000Z' }, lookup)!;
  const items = data.items.slice();
  mergeByTime(items, [late, early]);
  assert.equal(items[0], early);
  assert.equal(items[items.length - 1], late);
  for (let i = 1; i < items.length; i++) assert.ok(items[i - 1].t <= items[i].t);
  assert.equal(firstAtOrAfter(items, Date.parse('2026-11-22T03:00:00.000Z')), items.length - 1);
  assert.equal(firstAtOrAfter(items, 0), 0);
});

test('items packed for the webview (typed arrays, shared tables) unpack to the same items', () => {
  const items = buildTimeline(fixtureInput()).items;
  const packed = packItems(items);
  assert.ok(packed.t instanceof Float64Array && packed.lane instanceof Uint32Array);
  assert.deepEqual(packed.kinds.sort(), ['decision', 'delegation', 'finding', 'warning']);
  assert.equal(packed.refs.length, 4, 'only the decisions carry a reference of their own');
  assert.deepEqual(unpackItems(packItems(items)), items);
  assert.deepEqual(unpackItems(packItems([])), []);
});

test("isoTime is Date.parse: the stores' form read digit by digit, every other string left to Date.parse", () => {
  const samples = [
    '2026-11-22T02:33:00.000Z',
    '2026-11-22T23:59:59.999Z',
    '2026-11-23T00:00:00.000Z',
    '2026-11-22T02:33:00.000Z', // the same day again, then an older one: the day kept is replaced
    '2024-02-29T12:00:00.500Z',
    '1970-01-01T00:00:00.000Z',
    '2026-11-22T24:00:00.000Z', // hour 24: Date.parse's own answer
    '2026-11-22T02:60:00.000Z',
    '2026-11-22T02:33:61.000Z',
    '2026-02-30T02:33:00.000Z',
    '2026-1x-22T02:33:00.000Z',
    '2026-11-22T0a:33:00.000Z',
    '2026-11-22T02:33:00.00xZ',
    '+02026-11-22T02:33:00Z',
    '2026-11-22T02:33:00+02:00',
    '2026-11-22T02:33:00.000+0',
    '2026-11-22',
    'yesterday',
    '',
    '2026-11-22T02:33:00.000z',
  ];
  for (const s of samples) assert.deepEqual(isoTime(s), Date.parse(s), s);
  // A run of times across days, in and out of order.
  for (let i = 0; i < 2000; i++) {
    const ms = Date.UTC(2026, 0, 1) + ((i * 7919) % 400) * 86400e3 + ((i * 104729) % 86400e3);
    const s = new Date(ms).toISOString();
    assert.equal(isoTime(s), ms, s);
  }
});
