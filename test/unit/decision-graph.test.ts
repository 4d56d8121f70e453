/**
 * The Show Graph layout (src/extension/present/decision-graph.ts) from the reference fixture's
 * files: a decision's chain, the files and symbols it affects, the handoffs that carried it and its
 * knowledge graph neighbours, each where the legend says and with what a click opens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { decisionGraph, NODE_H, NODE_W, type StoryInput } from '../../src/extension/present/decision-graph';

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
  assert.equal(newer.y, focus.y);
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
  // Nothing overlaps, and everything is inside the picture.
  for (const a of g.nodes) {
    assert.ok(a.x >= 0 && a.y >= 0 && a.x + NODE_W <= g.width && a.y + NODE_H <= g.height, a.id);
    for (const b of g.nodes) if (a !== b) assert.ok(Math.abs(a.x - b.x) >= NODE_W || Math.abs(a.y - b.y) >= NODE_H, `${a.id} overlaps ${b.id}`);
  }
});

test('without a knowledge graph or relations, the decision alone with what it affects', () => {
  const g = decisionGraph({ ...story(), superseded_by: [], handoffs: [] });
  assert.deepEqual(g.nodes.map(n => n.kind).sort(), ['decision', 'file', 'symbol']);
  assert.equal(g.edges.length, 2);
});
