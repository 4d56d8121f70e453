/**
 * The record merge of `.twining/` files (src/core/merge) as pure functions over the three texts:
 * union by id, removals, acknowledgements, status precedence, registrations, ordering, symmetry,
 * twining-mcp's byte format, and bad input (kept and reported, never dropped).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { mergeTwiningFile, MergeOutcome } from '../../../../src/core/merge/merge-file';
import { REFERENCE } from '../../../support/fixture';

const ref = (rel: string) => fs.readFileSync(path.join(REFERENCE, rel), 'utf8');
const json = (v: unknown) => JSON.stringify(v, null, 2);
const line = (v: unknown) => JSON.stringify(v) + '\n';

/** Merges both ways, asserts the two texts are identical (a conflict names its sides, so only for clean merges), returns one outcome. */
function merge(file: string, base: string, ours: string, theirs: string): MergeOutcome {
  const a = mergeTwiningFile(file, base, ours, theirs);
  const b = mergeTwiningFile(file, base, theirs, ours);
  assert.ok(a && b, `${file} has record rules`);
  assert.equal(a.clean, b.clean);
  if (a.clean) assert.equal(a.text, b.text, `${file}: merging ours into theirs and theirs into ours give the same bytes`);
  return a;
}

let seq = 0;
const entry = (summary: string, timestamp: string, id = `01M8000000000000000000${String(seq++).padStart(4, '0')}`) => ({
  entry_type: 'finding',
  summary,
  detail: '',
  tags: [],
  scope: 'project',
  agent_id: 'main',
  id,
  timestamp,
});
const summaries = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map(l => {
      try {
        return JSON.parse(l).summary;
      } catch {
        return `RAW:${l}`;
      }
    });

describe('blackboard.jsonl', () => {
  const e1 = entry('base one', '2026-11-22T10:00:00.000Z');
  const e2 = entry('base two', '2026-11-22T10:00:01.000Z');
  const e3 = entry('base three', '2026-11-22T10:00:02.000Z');
  const base = [e1, e2, e3].map(line).join('');

  test('union of both sides by id, ordered by timestamp then id, each entry once', () => {
    const o1 = entry('ours A', '2026-11-22T11:00:00.000Z');
    const t1 = entry('theirs A', '2026-11-22T10:30:00.000Z');
    const both = entry('posted on both', '2026-11-22T10:45:00.000Z');
    const same = entry('same time, larger id', '2026-11-22T11:00:00.000Z', '01M8ZZZZZZZZZZZZZZZZZZZZZZ');
    const r = merge('.twining/blackboard.jsonl', base, base + [o1, both, same].map(line).join(''), base + [t1, both].map(line).join(''));
    assert.ok(r.clean);
    assert.deepEqual(summaries(r.text), ['base one', 'base two', 'base three', 'theirs A', 'posted on both', 'ours A', 'same time, larger id']);
    assert.deepEqual(r.notes, []);
  });

  test('an entry one side removed (dismiss, archive) and the other left unchanged stays removed; a removal on both sides too', () => {
    const ours = [e1, e3].map(line).join('') + line(entry('ours new', '2026-11-22T12:00:00.000Z'));
    const theirs = [e1, e2].map(line).join('');
    const r = merge('.twining/blackboard.jsonl', base, ours, theirs);
    assert.deepEqual(summaries(r.text), ['base one', 'ours new']);
  });

  test("the lines of an entry are kept byte for byte (twining-mcp's key order, unknown fields, escapes)", () => {
    const fixture = ref('blackboard.jsonl');
    const extra =
      '{"summary":"keys in another order","entry_type":"status","detail":"\\u00e9\\n","tags":[],"scope":"project","agent_id":"x","id":"01M8ZZZZZZZZZZZZZZZZZZZZZ0","timestamp":"2030-01-01T00:00:00.000Z","future_field":{"a":1}}\n';
    const r = merge('.twining/blackboard.jsonl', fixture, fixture + extra, fixture);
    assert.equal(r.text, fixture + extra);
    assert.equal(merge('.twining/blackboard.jsonl', fixture, fixture, fixture).text, fixture);
  });

  test('archive files merge like the blackboard', () => {
    const r = merge('.twining/archive/2026-11-22-blackboard.jsonl', line(e1), line(e1) + line(e2), line(e1) + line(e3));
    assert.deepEqual(summaries(r.text), ['base one', 'base two', 'base three']);
  });

  test('a corrupt line on one side is kept verbatim, in its place, and reported with its line number', () => {
    const torn = '{"entry_type":"warning","summary":"torn wri';
    const ours = line(e1) + torn + '\n' + line(e2) + line(e3);
    const theirs = base + line(entry('theirs new', '2026-11-22T10:00:01.500Z'));
    const r = merge('sub/.twining/blackboard.jsonl', base, ours, theirs);
    assert.ok(r.clean);
    assert.deepEqual(summaries(r.text), ['base one', `RAW:${torn}`, 'base two', 'theirs new', 'base three']);
    assert.ok(
      r.notes.some(n => n.includes('sub/.twining/blackboard.jsonl') && n.includes('ours line 2') && n.includes('kept verbatim')),
      r.notes.join('\n'),
    );
  });

  test('conflict markers from an earlier hand merge: kept, reported, and the records between them merged once', () => {
    const o = entry('ours side of the old conflict', '2026-11-22T10:05:00.000Z');
    const t = entry('theirs side of the old conflict', '2026-11-22T10:06:00.000Z');
    const handMerged = base + '<<<<<<< HEAD\n' + line(o) + '=======\n' + line(t) + '>>>>>>> feature\n';
    const theirs = base + line(o) + line(entry('later', '2026-11-22T13:00:00.000Z'));
    const r = merge('.twining/blackboard.jsonl', base, handMerged, theirs);
    assert.ok(r.clean);
    const s = summaries(r.text);
    assert.equal(s.filter(x => x === o.summary).length, 1, 'the record on both sides is kept once');
    assert.ok(s.includes(t.summary) && s.includes('later'));
    for (const marker of ['<<<<<<< HEAD', '=======', '>>>>>>> feature']) assert.ok(s.includes(`RAW:${marker}`), `${marker} is kept`);
    assert.equal(r.notes.filter(n => n.includes('conflict marker left by an earlier merge')).length, 3, r.notes.join('\n'));
  });

  test('a side that holds one id twice keeps it once and says so', () => {
    const r = merge('.twining/blackboard.jsonl', base, base + line(e2), base);
    assert.deepEqual(summaries(r.text), ['base one', 'base two', 'base three']);
    assert.ok(r.notes.some(n => n.includes(`entry ${e2.id} twice`)));
  });
});

describe('handoffs', () => {
  const idx = ref('handoffs/index.jsonl');
  const lines = idx
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l));
  const open = lines.find(l => l.acknowledged === false);

  test('an acknowledgement made on either side is kept in the index, with new handoffs from both', () => {
    const acked = idx.replace(JSON.stringify(open), JSON.stringify({ ...open, acknowledged: true }));
    const mine = {
      id: '01M8Y00000000000000000000A',
      created_at: '2026-11-23T00:00:00.000Z',
      source_agent: 'a',
      summary: 'new on theirs',
      result_status: 'completed',
      acknowledged: false,
    };
    const r = merge('.twining/handoffs/index.jsonl', idx, acked, idx + line(mine));
    const out = r.text
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l));
    assert.deepEqual(
      out.map(l => [l.id, l.acknowledged]),
      [...lines.map(l => [l.id, true]), [mine.id, false]],
    );
    assert.equal(r.text.split('\n')[1] + '\n', idx.split('\n')[1] + '\n', 'an unchanged line keeps its bytes');
  });

  test('a handoff acknowledged on both sides keeps the earlier acknowledgement, both fields together', () => {
    const rec = JSON.parse(ref('handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json'));
    const ours = { ...rec, acknowledged_by: 'late', acknowledged_at: '2026-11-23T09:00:00.000Z' };
    const theirs = { ...rec, acknowledged_by: 'early', acknowledged_at: '2026-11-23T08:00:00.000Z' };
    const r = merge('.twining/handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json', json(rec), json(ours), json(theirs));
    const out = JSON.parse(r.text);
    assert.deepEqual([out.acknowledged_by, out.acknowledged_at], ['early', '2026-11-23T08:00:00.000Z']);
    assert.deepEqual(Object.keys(out), Object.keys(theirs), "twining-mcp's key order: acknowledgement fields last");
    assert.ok(r.notes.some(n => n.includes('kept the earlier acknowledgement (early')));
  });

  test('an acknowledgement on one side and an unrelated change on the other are both kept', () => {
    const rec = JSON.parse(ref('handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json'));
    const ours = { ...rec, acknowledged_by: 'x', acknowledged_at: '2026-11-23T09:00:00.000Z' };
    const theirs = { ...rec, continues: '01M80HHKBXQEDY2H6KWG27Q6EF' };
    const out = JSON.parse(merge('.twining/handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json', json(rec), json(ours), json(theirs)).text);
    assert.equal(out.acknowledged_by, 'x');
    assert.equal(out.continues, '01M80HHKBXQEDY2H6KWG27Q6EF');
  });

  test('a handoff file added on both sides (no base) merges', () => {
    const rec = JSON.parse(ref('handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json'));
    const out = JSON.parse(
      merge(
        '.twining/handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json',
        '',
        json(rec),
        json({ ...rec, acknowledged_by: 'y', acknowledged_at: '2026-11-23T00:00:00.000Z' }),
      ).text,
    );
    assert.equal(out.acknowledged_by, 'y');
  });
});

describe('decisions', () => {
  const index = ref('decisions/index.json');
  const entries = JSON.parse(index);
  const file = `decisions/${entries[0].id}.json`;
  const record = JSON.parse(ref(file));

  test('a status change on one side and a linked commit on the other are both kept, in file and index alike', () => {
    const over = { ...record, status: 'overridden', overridden_by: 'lead', override_reason: 'too risky' };
    const linked = { ...record, commit_hashes: ['abc1234'] };
    const rf = JSON.parse(merge(`.twining/${file}`, json(record), json(over), json(linked)).text);
    assert.deepEqual([rf.status, rf.overridden_by, rf.override_reason, rf.commit_hashes], ['overridden', 'lead', 'too risky', ['abc1234']]);
    const oi = entries.map((e: any, i: number) => (i === 0 ? { ...e, status: 'overridden' } : e));
    const ti = entries.map((e: any, i: number) => (i === 0 ? { ...e, commit_hashes: ['abc1234'] } : e));
    const ri = JSON.parse(merge('.twining/decisions/index.json', index, json(oi), json(ti)).text);
    assert.deepEqual([ri[0].status, ri[0].commit_hashes], [rf.status, rf.commit_hashes]);
  });

  for (const [a, b, winner] of [
    ['provisional', 'superseded', 'superseded'],
    ['superseded', 'overridden', 'overridden'],
    ['provisional', 'overridden', 'overridden'],
  ] as const) {
    test(`status changed on both sides: ${a} vs ${b} gives ${winner}; commit hashes are unioned`, () => {
      const ours = { ...record, status: a, commit_hashes: ['bbbbbbb'] };
      const theirs = { ...record, status: b, commit_hashes: ['aaaaaaa'], ...(b === 'overridden' ? { overridden_by: 'human', override_reason: 'r' } : {}) };
      const r = merge(`.twining/${file}`, json(record), json(ours), json(theirs));
      const out = JSON.parse(r.text);
      assert.equal(out.status, winner);
      assert.deepEqual(out.commit_hashes, ['aaaaaaa', 'bbbbbbb']);
      assert.equal(out.overridden_by, winner === 'overridden' ? 'human' : undefined);
      assert.ok(r.notes.some(n => n.includes('status changed on both sides')));
    });
  }

  test('decisions recorded on both sides are all in the index, in creation order', () => {
    const n1 = { ...entries[0], id: '01M8Z00000000000000000000B', timestamp: '2026-11-23T02:00:00.000Z', summary: 'ours' };
    const n2 = { ...entries[0], id: '01M8Z00000000000000000000A', timestamp: '2026-11-23T01:00:00.000Z', summary: 'theirs' };
    const r = merge('.twining/decisions/index.json', index, json([...entries, n1]), json([...entries, n2]));
    assert.deepEqual(
      JSON.parse(r.text).map((e: any) => e.id),
      [...entries.map((e: any) => e.id), n2.id, n1.id],
    );
    assert.equal(merge('.twining/decisions/index.json', index, index, index).text, index, 'byte for byte');
  });
});

describe('agents/registry.json', () => {
  const registry = ref('agents/registry.json');
  const agents = JSON.parse(registry);

  test('union by agent_id; an agent registered on both sides merges as registration does', () => {
    const a0 = agents[0];
    const ours = [{ ...a0, capabilities: [...a0.capabilities, 'rust'], role: 'lead', last_active: '2026-11-23T10:00:00.000Z' }, ...agents.slice(1)];
    const theirs = [
      { ...a0, capabilities: [...a0.capabilities, 'go'], role: 'ops', last_active: '2026-11-23T09:00:00.000Z' },
      ...agents.slice(1),
      { agent_id: 'newcomer', capabilities: [], registered_at: '2026-11-23T08:00:00.000Z', last_active: '2026-11-23T08:00:00.000Z' },
    ];
    const r = merge('.twining/agents/registry.json', registry, json(ours), json(theirs));
    const out = JSON.parse(r.text);
    assert.deepEqual(
      out.map((a: any) => a.agent_id),
      [...agents.map((a: any) => a.agent_id), 'newcomer'],
    );
    assert.deepEqual(out[0].capabilities, [...a0.capabilities, 'go', 'rust'], 'earlier registration first, then the later one');
    assert.deepEqual([out[0].role, out[0].last_active, out[0].registered_at], ['lead', '2026-11-23T10:00:00.000Z', a0.registered_at]);
    assert.equal(merge('.twining/agents/registry.json', registry, registry, registry).text, registry, 'byte for byte');
  });

  test('a side whose registry does not parse: both sides kept between conflict markers, the merge reports it, exit status says conflict', () => {
    const broken = registry.slice(0, registry.length - 40);
    const theirs = json([...agents, { agent_id: 'x', capabilities: [], registered_at: '2026-11-23T08:00:00.000Z', last_active: '2026-11-23T08:00:00.000Z' }]);
    const r = merge('.twining/agents/registry.json', registry, broken, theirs);
    assert.equal(r.clean, false);
    assert.ok(r.text.includes(broken) && r.text.includes(theirs), 'both sides in full');
    assert.match(r.text, /^<<<<<<< ours\n/);
    assert.ok(
      r.notes.some(n => n.includes('.twining/agents/registry.json') && n.includes('does not parse') && n.includes('nothing was dropped')),
      r.notes.join('\n'),
    );
  });

  test('a registry that is JSON but not an array, and one with markers of an earlier hand merge, are conflicts too', () => {
    assert.equal(merge('.twining/agents/registry.json', registry, '{"agent_id":"x"}', registry.replace(']', ',{"agent_id":"y"}]')).clean, false);
    const marked = `<<<<<<< HEAD\n${registry}\n=======\n[]\n>>>>>>> b\n`;
    const r = merge('.twining/agents/registry.json', registry, marked, registry.replace(']', ',{"agent_id":"y"}]'));
    assert.equal(r.clean, false);
    assert.ok(r.notes.some(n => n.includes('conflict marker from an earlier merge (line 1)')));
  });
});

describe('other files', () => {
  test('graph entities and relations merge by id', () => {
    const ents = ref('graph/entities.json');
    const list = JSON.parse(ents);
    const add = (name: string, id: string) => ({
      id,
      name,
      type: 'concept',
      properties: {},
      created_at: '2026-11-23T00:00:00.000Z',
      updated_at: '2026-11-23T00:00:00.000Z',
    });
    const out = JSON.parse(
      merge(
        '.twining/graph/entities.json',
        ents,
        json([...list, add('a', '01M8Z0000000000000000000A1')]),
        json([...list, add('b', '01M8Z0000000000000000000A2')]),
      ).text,
    );
    assert.equal(out.length, list.length + 2);
    const rels = ref('graph/relations.json');
    assert.equal(merge('.twining/graph/relations.json', rels, rels, rels).text, rels);
  });

  test("config.yml and unknown files have no record rules (git's text merge)", () => {
    assert.equal(mergeTwiningFile('.twining/config.yml', '', '', ''), undefined);
    assert.equal(mergeTwiningFile('.twining/.gitignore', '', '', ''), undefined);
    assert.equal(mergeTwiningFile('src/blackboard.ts', '', '', ''), undefined);
  });

  test('every file of the reference folder merged with itself is unchanged, byte for byte', () => {
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap(e => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    let merged = 0;
    for (const file of walk(REFERENCE)) {
      const rel = path.relative(REFERENCE, file).split(path.sep).join('/');
      const text = fs.readFileSync(file, 'utf8');
      const r = mergeTwiningFile(`.twining/${rel}`, text, text, text);
      if (!r) continue;
      merged++;
      assert.equal(r.text, text, rel);
    }
    assert.ok(merged >= 10, `${merged} files have record rules`);
  });
});
