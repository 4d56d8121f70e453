/**
 * The knowledge graph: the five graph tools, and the graph a scripted session leaves, with the
 * entities and relations twining-mcp 1.9 adds for the same calls (src/engine/graph.ts,
 * src/storage/graph-store.ts and src/engine/graph-auto-populator.ts at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b), ids and times aside.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import type { GraphEntity, GraphRelation } from '../../../../src/core/records';
import { at, emptyProject, readJson, referenceProject } from '../../../support/fixture';

const NOW = at('2026-11-22T02:33:00.000Z');

/** The graph by names: entities as [type, name, properties], relations as [source name, type, target name, properties]. */
function byNames(root: string) {
  const entities = readJson(root, 'graph/entities.json') as GraphEntity[];
  const relations = readJson(root, 'graph/relations.json') as GraphRelation[];
  const name = new Map(entities.map(e => [e.id, e.name]));
  return {
    entities: entities.map(e => [e.type, e.name, e.properties]),
    relations: relations.map(r => [name.get(r.source), r.type, name.get(r.target), r.properties]),
  };
}

describe('graph tools', () => {
  test('add_entity upserts by name and type, merging properties; add_relation resolves ids and unambiguous names', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW });
    const a = await ws.add_entity({ name: 'src/auth/jwt.ts', type: 'file', properties: { owner: 'sec' } });
    const again = await ws.add_entity({ name: 'src/auth/jwt.ts', type: 'file', properties: { lang: 'ts' } });
    assert.equal(again.id, a.id);
    assert.deepEqual(again.entity.properties, { owner: 'sec', lang: 'ts' });
    await ws.add_entity({ name: 'test/jwt.test.ts', type: 'file' });
    const rel = await ws.add_relation({ source: a.id, target: 'test/jwt.test.ts', type: 'tested_by' });
    assert.equal(rel.relation.source, a.id);
    await ws.add_entity({ name: 'jwt', type: 'module' });
    await ws.add_entity({ name: 'jwt', type: 'concept' });
    await assert.rejects(
      ws.add_relation({ source: 'jwt', target: a.id, type: 'related_to' }),
      /Ambiguous entity name "jwt" matches: jwt \(module\), jwt \(concept\)/,
    );
    await assert.rejects(ws.add_relation({ source: 'nothing', target: a.id, type: 'related_to' }), /Entity not found: "nothing"/);
    assert.deepEqual(byNames(root).relations, [['src/auth/jwt.ts', 'tested_by', 'test/jwt.test.ts', {}]]);
  });

  test('neighbors: breadth first up to depth 3, each entity once, by relation type; graph_query: substring of names and properties', async () => {
    const ws = await openWorkspace(emptyProject(), { now: NOW });
    for (const n of ['a', 'b', 'c', 'd', 'e']) await ws.add_entity({ name: n, type: 'module', properties: { note: n === 'e' ? 'Legacy JWT code' : '' } });
    await ws.add_relation({ source: 'a', target: 'b', type: 'imports' });
    await ws.add_relation({ source: 'c', target: 'b', type: 'calls' });
    await ws.add_relation({ source: 'c', target: 'd', type: 'imports' });
    await ws.add_relation({ source: 'd', target: 'e', type: 'imports' });
    await ws.add_relation({ source: 'e', target: 'a', type: 'imports' });
    const one = await ws.neighbors({ entity: 'a' });
    assert.deepEqual(
      one.neighbors.map(n => [n.entity.name, n.direction, n.relation.type]),
      [
        ['b', 'outgoing', 'imports'],
        ['e', 'incoming', 'imports'],
      ],
    );
    const deep = await ws.neighbors({ entity: 'a', depth: 9 });
    assert.deepEqual(
      deep.neighbors.map(n => n.entity.name),
      ['b', 'e', 'c', 'd'],
    );
    const imports = await ws.neighbors({ entity: 'a', depth: 3, relation_types: ['imports'] });
    assert.deepEqual(
      imports.neighbors.map(n => n.entity.name),
      ['b', 'e', 'd', 'c'],
    );
    await assert.rejects(ws.neighbors({ entity: 'zzz' }), /Entity not found/);
    assert.deepEqual(
      (await ws.graph_query({ query: 'jwt' })).entities.map(e => e.name),
      ['e'],
    );
    assert.deepEqual(
      (await ws.graph_query({ query: 'A', limit: 1 })).entities.map(e => e.name),
      ['a'],
    );
    assert.deepEqual((await ws.graph_query({ query: 'a', entity_types: ['file'] })).entities, []);
  });

  test('prune_graph removes only entities without relations (dry run first), and counts them before the type filter', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW });
    await ws.add_entity({ name: 'x', type: 'file' });
    await ws.add_entity({ name: 'y', type: 'concept' });
    await ws.add_entity({ name: 'z', type: 'concept' });
    await ws.add_relation({ source: 'y', target: 'z', type: 'related_to' });
    await ws.add_entity({ name: 'lonely', type: 'concept' });
    const dry = await ws.prune_graph({ dry_run: true });
    assert.deepEqual([dry.pruned.map(p => p.name), dry.total_orphans_found, dry.total_removed, dry.dry_run], [['x', 'lonely'], 2, 0, true]);
    const concepts = await ws.prune_graph({ entity_types: ['concept'] });
    assert.deepEqual([concepts.pruned.map(p => p.name), concepts.total_orphans_found, concepts.total_removed], [['lonely'], 2, 1]);
    assert.deepEqual(
      byNames(root).entities.map(e => e[1]),
      ['x', 'y', 'z'],
    );
  });

  test("the reference folder's graph (written by twining-mcp) is read as it is", async () => {
    const root = referenceProject();
    const ws = await openWorkspace(root, { now: NOW });
    const n = await ws.neighbors({ entity: 'src/auth/jwt.ts' });
    assert.ok(n.neighbors.some(x => x.relation.type === 'decided_by' && x.entity.name === '01M80HHK1QX1QEC06YGTWYXEZJ'));
  });
});

describe('graph filled in by the operations, as twining-mcp fills it', () => {
  // batchGraph (the MCP server): the steps are queued and written together; the same graph once settled.
  for (const batchGraph of [false, true])
    test(`a scripted session leaves the same entities and relations twining-mcp 1.9 adds for it${batchGraph ? ' (graph upkeep batched)' : ''}`, async () => {
      await scriptedSession(batchGraph);
    });

  test('batched graph upkeep: a graph query right after posts sees their steps, and a burst is written together', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, batchGraph: true });
    await ws.init();
    const posted = [];
    for (let i = 0; i < 5; i++) posted.push(await ws.post({ entry_type: 'finding', summary: `f${i}`, scope: `src/m${i}.ts` }));
    const found = await ws.graph_query({ query: 'finding:' });
    assert.deepEqual(found.entities.map(e => e.name).sort(), posted.map(p => `finding:${p.id}`).sort());
    await ws.settled();
    assert.equal(byNames(root).relations.length, 5);
  });

  test('batched graph upkeep: a query answers from the queued steps while another writer holds the graph, and the ids it gave are the ones written', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, batchGraph: true });
    await ws.init();
    await ws.add_entity({ name: 'src/seen.ts', type: 'file' });
    // Another process (twining-mcp's own proper-lockfile, as it locks) holds the entities file.
    const lockfile = require('proper-lockfile') as typeof import('proper-lockfile');
    const entitiesFile = path.join(root, '.twining', 'graph', 'entities.json');
    const unlock = lockfile.lockSync(entitiesFile);
    let released = false;
    try {
      const posted = [];
      for (let i = 0; i < 3; i++) posted.push(await ws.post({ entry_type: 'finding', summary: `f${i}`, scope: `src/m${i}.ts` }));
      const started = Date.now();
      const found = await ws.graph_query({ query: 'finding:' });
      // The write waits for the lock (retrying for seconds); the query does not.
      assert.ok(Date.now() - started < 1000, `the query waited ${Date.now() - started} ms for the graph's lock`);
      assert.deepEqual(found.entities.map(e => e.name).sort(), posted.map(p => `finding:${p.id}`).sort());
      const onDisk = readJson(root, 'graph/entities.json') as GraphEntity[];
      assert.deepEqual(
        onDisk.map(e => e.name),
        ['src/seen.ts'],
        'nothing is written while the lock is held',
      );
      unlock();
      released = true;
      await ws.settled();
      const written = readJson(root, 'graph/entities.json') as GraphEntity[];
      for (const e of found.entities)
        assert.deepEqual(
          written.find(w => w.name === e.name),
          e,
          `${e.name} as the query gave it`,
        );
      assert.equal(byNames(root).relations.length, 3);
    } finally {
      if (!released) unlock();
    }
  });

  test('batched graph upkeep: a query that runs while the batch is being written sees the posts before it, whenever it starts, and so does the next', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, batchGraph: true });
    await ws.init();
    // The query starts at every point of the write's way: after 0, 1, 2, ... turns of the event loop.
    for (let i = 0; i < 120; i++) {
      const posted = await ws.post({ entry_type: 'finding', summary: `f${i}`, scope: `src/m${i % 40}.ts` });
      // The batch's write starts now, and the query runs beside it (the MCP server answers calls while it writes).
      const writing = ws.settled();
      for (let turn = 0; turn < i % 40; turn++) await new Promise(resolve => setImmediate(resolve));
      const during = await ws.graph_query({ query: `finding:${posted.id}` });
      await writing;
      const after = await ws.graph_query({ query: `finding:${posted.id}` });
      assert.equal(during.entities.length, 1, `round ${i}: the query during the write`);
      assert.equal(after.entities.length, 1, `round ${i}: the query after the write`);
    }
  });

  test('batched graph upkeep: an entity added while a post is queued and read is seen at once, and written with it', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, batchGraph: true });
    await ws.init();
    await ws.post({ entry_type: 'finding', summary: 'first', scope: 'src/a.ts' });
    // The add writes the queue first, then its entity; a post and a query come while it does.
    const adding = ws.add_entity({ name: 'src/added.ts', type: 'file' });
    await ws.post({ entry_type: 'finding', summary: 'second', scope: 'src/b.ts' });
    const during = await ws.graph_query({ query: 'src/' });
    const added = await adding;
    const after = await ws.graph_query({ query: 'src/' });
    assert.deepEqual(after.entities.map(e => e.name).sort(), ['src/a.ts', 'src/added.ts', 'src/b.ts']);
    assert.equal(after.entities.find(e => e.name === 'src/added.ts')!.id, added.id);
    assert.ok(
      during.entities.some(e => e.name === 'src/b.ts'),
      'the query beside the add sees the post before it',
    );
    await ws.settled();
    assert.deepEqual(
      (readJson(root, 'graph/entities.json') as GraphEntity[])
        .map(e => e.name)
        .filter(n => n.startsWith('src/'))
        .sort(),
      ['src/a.ts', 'src/added.ts', 'src/b.ts'],
    );
    assert.deepEqual((await ws.graph_query({ query: 'src/' })).entities, after.entities, 'the ids and times the queries gave are the ones written');
  });

  test('batched graph upkeep: a graph another process changed before the batch is written keeps its change and gets the queued steps', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, batchGraph: true });
    await ws.init();
    await ws.add_entity({ name: 'src/first.ts', type: 'file' });
    const w = await ws.post({ entry_type: 'warning', summary: 'w', scope: 'src/first.ts' });
    // Seen from the queue: the warning's concept, not yet written.
    assert.ok((await ws.graph_query({ query: `warning:${w.id}` })).entities.length === 1);
    // Another process adds an entity before the batch is written.
    const other = await openWorkspace(root, { now: NOW });
    await other.add_entity({ name: 'src/theirs.ts', type: 'file' });
    await ws.settled();
    const g = byNames(root);
    assert.deepEqual(
      g.entities.map(e => e[1]),
      ['src/first.ts', 'src/theirs.ts', `warning:${w.id}`],
    );
    assert.deepEqual(g.relations, [[`warning:${w.id}`, 'affects', 'src/first.ts', { summary: 'w' }]]);
    // Once written, the files are read again: the other process's entity is seen.
    assert.equal((await ws.graph_query({ query: 'src/theirs.ts' })).entities.length, 1);
  });
});

/** The session of the test above, with the graph's upkeep batched or not. */
async function scriptedSession(batchGraph: boolean) {
  const root = emptyProject();
  const ws = await openWorkspace(root, { now: NOW, batchGraph });
  await ws.register({ agent_id: 'dev', capabilities: ['TypeScript', 'api'], role: 'implementer' });
  const d1 = await ws.decide({
    domain: 'security',
    scope: 'src/auth/jwt.ts',
    summary: 'Sign with RS256',
    context: 'c',
    rationale: 'r',
    affected_files: ['src/auth/jwt.ts'],
    affected_symbols: ['sign'],
    commit_hash: 'abc1234',
    agent_id: 'dev',
  });
  const d2 = await ws.decide({ domain: 'architecture', scope: 'src/auth/', summary: 'Stateless tokens', context: 'c', rationale: 'r', depends_on: [d1.id] });
  const w = await ws.post({ entry_type: 'warning', summary: 'exp not checked', scope: 'src/auth/jwt.ts', relates_to: [d1.id] });
  await ws.post({ entry_type: 'status', summary: 'nothing for the graph', scope: 'project' });
  await ws.handoff({
    source_agent: 'dev',
    target_agent: 'rev',
    scope: 'src/auth/',
    summary: 'done',
    results: [{ description: 'mw', status: 'completed', artifacts: ['src/auth/mw.ts'] }],
  });
  await ws.link_commit({ decision_id: d2.id, commit_hash: 'def5678' });
  await ws.reconsider({ decision_id: d1.id, new_context: 'keys leak', agent_id: 'rev' });
  await ws.settled();
  const g = byNames(root);
  const reconsiderWarning = (await ws.read({ entry_types: ['warning'] })).entries.find(e => e.summary.startsWith('Reconsideration'))!;
  assert.deepEqual(g.entities, [
    ['agent', 'dev', { capabilities: 'TypeScript, api', role: 'implementer' }],
    ['file', 'src/auth/jwt.ts', { entry_type: 'warning', scope: 'src/auth/jwt.ts' }],
    ['concept', d1.id, { summary: 'Sign with RS256', scope: 'src/auth/jwt.ts' }],
    ['function', 'sign', { scope: 'src/auth/jwt.ts' }],
    ['commit', 'abc1234', { decision: d1.id }],
    ['module', 'src/auth/', { entry_type: 'status' }],
    ['concept', d2.id, { summary: 'Stateless tokens', scope: 'src/auth/' }],
    ['concept', `warning:${w.id}`, { summary: 'exp not checked', entry_type: 'warning' }],
    ['agent', 'rev', {}],
    ['file', 'src/auth/mw.ts', { produced_by: 'dev' }],
    ['commit', 'def5678', { decision: d2.id }],
    ['concept', `warning:${reconsiderWarning.id}`, { summary: reconsiderWarning.summary, entry_type: 'warning' }],
  ]);
  assert.deepEqual(g.relations, [
    ['src/auth/jwt.ts', 'decided_by', d1.id, { decision_summary: 'Sign with RS256' }],
    ['sign', 'decided_by', d1.id, { decision_summary: 'Sign with RS256' }],
    ['abc1234', 'decided_by', d1.id, {}],
    [d2.id, 'depends_on', d1.id, {}],
    [`warning:${w.id}`, 'affects', 'src/auth/jwt.ts', { summary: 'exp not checked' }],
    ['src/auth/jwt.ts', 'related_to', d1.id, { via: w.id }],
    ['dev', 'related_to', 'rev', { type: 'handoff' }],
    ['dev', 'produces', 'src/auth/mw.ts', {}],
    ['dev', 'affects', 'src/auth/', { via: 'handoff' }],
    ['def5678', 'decided_by', d2.id, {}],
    [`warning:${reconsiderWarning.id}`, 'affects', 'src/auth/jwt.ts', { summary: reconsiderWarning.summary }],
    ['rev', 'challenged', d1.id, { action: 'reconsider' }],
  ]);
}

test('graph.auto_populate: false in config.yml (twining-mcp 2.x) leaves the graph alone', async () => {
  const root = emptyProject();
  const ws = await openWorkspace(root, { now: NOW });
  await ws.init();
  fs.appendFileSync(path.join(root, '.twining', 'config.yml'), 'graph:\n  auto_populate: false\n');
  await ws.decide({ domain: 'd', scope: 'src/a.ts', summary: 's', context: 'c', rationale: 'r', affected_files: ['src/a.ts'] });
  assert.deepEqual(readJson(root, 'graph/entities.json'), []);
  assert.deepEqual((await ws.decisions({})).decisions.length, 1);
});
