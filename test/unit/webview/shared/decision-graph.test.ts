/**
 * The Show Graph layout (src/webview/shared/decision-graph.ts) from the reference fixture's
 * files: a decision's chain, the files and symbols it affects, the handoffs that carried it and its
 * knowledge graph neighbours, each where the legend says and with what a click opens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { decisionGraph, type DecisionGraph, type StoryInput } from '../../../../src/webview/shared/decision-graph';
import { CHAR_W, wrapText } from '../../../../src/webview/shared/graph-layout';

const FIXTURE = path.resolve(__dirname, '..', '..', 'test', 'fixtures', 'reference-twining');
const json = (rel: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE, rel), 'utf8'));
const JWT = '01M80HHJN7TF8W1N7EW8PHV7MT';
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';

function story(): StoryInput {
  const handoffs = fs
    .readFileSync(path.join(FIXTURE, 'handoffs', 'index.jsonl'), 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l))
    .filter(h => json(`handoffs/${h.id}.json`).context_snapshot.decision_ids.includes(JWT));
  // As if RS256 had superseded the JWT decision (the fixture has no supersession of its own).
  return { record: json(`decisions/${JWT}.json`), supersedes: [], superseded_by: [{ id: RS256, summary: 'Sign JWTs with RS256', status: 'active' }], handoffs };
}

test('the chain on one row, handoffs above, affected files and symbols below, graph neighbours at the bottom', () => {
  const g = decisionGraph(story(), { entities: json('graph/entities.json'), relations: json('graph/relations.json') });
  const node = (id: string) => g.nodes.find(n => n.id === id)!;
  const focus = node(JWT);
  assert.equal(focus.relation, 'this decision');
  assert.deepEqual(focus.open, { type: 'decision', id: JWT });
  const newer = node(RS256);
  assert.ok(Math.abs(newer.y + newer.h / 2 - (focus.y + focus.h / 2)) <= 1, 'on the chain’s line');
  assert.ok(newer.x > focus.x, 'what superseded it is to the right');
  assert.ok(g.edges.some(e => e.from === RS256 && e.to === JWT && e.label === 'supersedes'));
  const handoffs = g.nodes.filter(n => n.kind === 'handoff');
  assert.equal(handoffs.length, 2, 'both fixture handoffs carried it');
  assert.ok(handoffs.every(h => h.y < focus.y && h.open?.type === 'handoff'));
  const file = node('file:src/auth/middleware.ts');
  assert.deepEqual(file.open, { type: 'file', path: 'src/auth/middleware.ts' });
  assert.ok(file.y > focus.y);
  assert.ok(node('symbol:authenticate').y === file.y);
  const neighbours = g.nodes.filter(n => n.id.startsWith('entity:'));
  assert.ok(neighbours.length > 0, 'the knowledge graph names the decision');
  assert.ok(neighbours.every(n => n.y > file.y));
  assert.ok(!neighbours.some(n => n.label.startsWith('src/auth/middleware.ts ')), 'a file shown as affected is not repeated as a neighbour');
  assertReadable(g);
});

type Rect = { x: number; y: number; w: number; h: number; what: string };
const overlap = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Nothing overlaps (nodes, captions, edge labels), every line fits its node, and no edge runs across a node it does not join. */
function assertReadable(g: DecisionGraph): void {
  const rects: Rect[] = [
    ...g.nodes.map(n => ({ x: n.x, y: n.y, w: n.w, h: n.h, what: `node ${n.id}` })),
    ...g.captions.map(c => ({ x: c.x, y: c.y - 11, w: c.text.length * CHAR_W, h: 13, what: `caption ${c.text}` })),
    ...g.edges
      .filter(e => e.labelAt)
      .map(e => ({ x: e.labelAt![0] - (e.label.length * CHAR_W) / 2, y: e.labelAt![1] - 11, w: e.label.length * CHAR_W, h: 13, what: `label ${e.label}` })),
  ];
  for (const r of rects) assert.ok(r.x >= 0 && r.y >= 0 && r.x + r.w <= g.width && r.y + r.h <= g.height, `${r.what} is outside the picture`);
  for (let i = 0; i < rects.length; i++)
    for (let j = i + 1; j < rects.length; j++) assert.ok(!overlap(rects[i], rects[j]), `${rects[i].what} overlaps ${rects[j].what}`);
  for (const n of g.nodes) for (const line of n.lines) assert.ok(line.length * CHAR_W <= n.w - 16, `"${line}" is wider than its node`);
  for (const e of g.edges) {
    for (let k = 1; k < e.points.length; k++) {
      const [[x1, y1], [x2, y2]] = [e.points[k - 1], e.points[k]];
      const seg = { x: Math.min(x1, x2), y: Math.min(y1, y2), w: Math.abs(x2 - x1) || 0.1, h: Math.abs(y2 - y1) || 0.1, what: 'edge' };
      for (const n of g.nodes) {
        if (n.id === e.from || n.id === e.to) continue;
        // Inset by a pixel: touching a node's border where the edge meets its own node is fine.
        assert.ok(!overlap(seg, { x: n.x + 1, y: n.y + 1, w: n.w - 2, h: n.h - 2, what: '' }), `the edge ${e.from} -> ${e.to} runs across ${n.id}`);
      }
    }
  }
}

test('the decision in the middle is shown whole; long labels elsewhere are wrapped, the rest in their tooltip', () => {
  const long =
    'Sign access tokens with Ed25519 (EdDSA) instead of RS256 because the keys are smaller, signing is faster and the library we already ship supports it without a new dependency';
  const s = story();
  const g = decisionGraph({ ...s, record: { ...s.record, summary: long } });
  const focus = g.nodes.find(n => n.relation === 'this decision')!;
  assert.equal(focus.lines.join(' '), long);
  assert.deepEqual(wrapText('a b c d e f', 3, 2), ['a b', 'c…']);
  assert.deepEqual(wrapText('01M80HHJN7TF8W1N7EW8PHV7MT', 10, 3), ['01M80HHJN7', 'TF8W1N7EW8', 'PHV7MT']);
  assertReadable(g);
});

test('knowledge graph neighbours are named by their summaries, decisions open, and what is shown already is not repeated', () => {
  const s = story();
  const other = '01M80HHK1QX1QEC06YGTWYXEZZ';
  const entities = [
    { id: 'e1', name: JWT, type: 'concept', properties: { summary: 'x' } },
    { id: 'e2', name: other, type: 'concept' },
    { id: 'e3', name: 'warning:01ABC', type: 'concept', properties: { summary: 'Clock skew breaks expiry checks' } },
    { id: 'e4', name: RS256, type: 'concept' },
    ...Array.from({ length: 15 }, (_, i) => ({ id: `m${i}`, name: `src/module-${i}/`, type: 'module' })),
  ];
  const relations = [
    { source: 'e1', target: 'e2', type: 'depends_on' },
    { source: 'e3', target: 'e1', type: 'related_to' },
    { source: 'e4', target: 'e1', type: 'supersedes' },
    ...Array.from({ length: 15 }, (_, i) => ({ source: `m${i}`, target: 'e1', type: 'decided_by' })),
  ];
  const g = decisionGraph(
    s,
    { entities, relations },
    new Map([
      [other, 'Rotate signing keys every 90 days'],
      [RS256, 'Sign JWTs with RS256'],
    ]),
  );
  const dep = g.nodes.find(n => n.id === 'entity:e2')!;
  assert.equal(dep.label, 'Rotate signing keys every 90 days');
  assert.deepEqual(dep.open, { type: 'decision', id: other });
  assert.match(dep.tag, /depends on →/);
  assert.equal(g.nodes.find(n => n.id === 'entity:e3')?.label, 'Clock skew breaks expiry checks');
  assert.ok(!g.nodes.some(n => n.id === 'entity:e4'), 'the chain already shows RS256');
  assert.equal(g.nodes.filter(n => n.id.startsWith('entity:m')).length, 15);
  assertReadable(g);
});

test('without a knowledge graph or relations, the decision alone with what it affects', () => {
  const g = decisionGraph({ ...story(), superseded_by: [], handoffs: [] });
  assert.deepEqual(g.nodes.map(n => n.kind).sort(), ['decision', 'file', 'symbol']);
  assert.equal(g.edges.length, 2);
});
