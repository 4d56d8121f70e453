/**
 * The table of what each operation writes (src/core/operations/operation-writes.ts) against what
 * each one does: every writing operation is run on a copy of the reference folder (some more than
 * once, to reach the writes that depend on the input: a handoff that releases its sender's claims,
 * a record with a handoff), and the files it changed, by kind of data, must be among the kinds it
 * declares; each declared kind must be written by at least one of the runs.
 */
import { test } from 'node:test';
import * as fs from 'fs';
import * as path from 'path';
import assert from 'node:assert/strict';
import { openWorkspace, type TwiningEngine } from '../../../../src/core';
import { kindOfPath } from '../../../../src/core/engine/data-kinds';
import { type WritingOperation, writes, writtenBy, writtenInWords } from '../../../../src/core/operations/operation-writes';
import { OPERATION_NAMES } from '../../../../src/core/schemas/schemas';
import { at, referenceProject } from '../../../support/fixture';
import { changedFiles, snapshotTree } from '../../../support/tmp';

const NOW = at('2026-11-22T02:33:00.000Z');
const JWT_BEARER = '01M80HHJN7TF8W1N7EW8PHV7MT';
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';

interface Run {
  op: WritingOperation;
  /** Done before the tree is looked at (not counted). */
  setup?: (engine: TwiningEngine) => Promise<Record<string, unknown>>;
  input: (made: Record<string, unknown>) => Record<string, unknown>;
}

const RUNS: Run[] = [
  { op: 'register', input: () => ({ agent_id: 'reviewer', role: 'reviews' }) },
  { op: 'delegate', input: () => ({ summary: 'Review the token rotation', required_capabilities: ['review'], scope: 'src/auth/' }) },
  { op: 'handoff', input: () => ({ source_agent: 'main', scope: 'src/auth/', summary: 'Token work', results: [] }) },
  {
    op: 'handoff',
    setup: async e => (await e.claim({ agent_id: 'main', paths: ['src/auth/jwt.ts'], reason: 'rotating keys' }), {}),
    input: () => ({ source_agent: 'main', target_agent: 'reviewer', scope: 'src/auth/', summary: 'Token work, done', results: [] }),
  },
  {
    op: 'acknowledge',
    setup: async e => ({ id: (await e.handoff({ source_agent: 'main', scope: 'src/auth/', summary: 'Token work', results: [] })).id }),
    input: made => ({ handoff_id: made.id, agent_id: 'reviewer' }),
  },
  { op: 'post', input: () => ({ entry_type: 'warning', summary: 'Rotation is flaky', scope: 'src/auth/jwt.ts' }) },
  { op: 'decide', input: () => ({ domain: 'security', scope: 'src/auth/', summary: 'Sessions expire after 8 hours', context: 'c', rationale: 'r' }) },
  {
    op: 'dismiss',
    setup: async e => ({ id: (await e.post({ entry_type: 'finding', summary: 'Old finding', scope: 'src/' })).id }),
    input: made => ({ ids: [made.id], reason: 'not true now' }),
  },
  { op: 'reconsider', input: () => ({ decision_id: RS256, new_context: 'keys leak' }) },
  { op: 'override', input: () => ({ decision_id: RS256, reason: 'HS256 after all' }) },
  {
    op: 'promote',
    setup: async e => ({
      id: (await e.decide({ domain: 'api', scope: 'src/api/', summary: 'Paginate lists', context: 'c', rationale: 'r', confidence: 'low' })).id,
    }),
    input: made => ({ decision_ids: [made.id] }),
  },
  { op: 'claim', input: () => ({ agent_id: 'main', paths: ['src/auth/jwt.ts'], reason: 'rotating keys' }) },
  {
    op: 'release',
    setup: async e => (await e.claim({ agent_id: 'main', paths: ['src/auth/jwt.ts'], reason: 'rotating keys' }), {}),
    input: () => ({ agent_id: 'main', paths: ['src/auth/jwt.ts'] }),
  },
  { op: 'link_commit', input: () => ({ decision_id: JWT_BEARER, commit_hash: 'abc1234' }) },
  { op: 'archive', input: () => ({ before: '2030-01-01T00:00:00.000Z' }) },
  { op: 'add_entity', input: () => ({ name: 'TokenService', type: 'class' }) },
  {
    op: 'add_relation',
    setup: async e => (await e.add_entity({ name: 'TokenService', type: 'class' }), await e.add_entity({ name: 'KeyStore', type: 'class' }), {}),
    input: () => ({ source: 'TokenService', target: 'KeyStore', type: 'depends_on' }),
  },
  { op: 'prune_graph', setup: async e => (await e.add_entity({ name: 'Orphan', type: 'concept' }), {}), input: () => ({}) },
  { op: 'record', input: () => ({ summary: 'Rotated the keys', decisions: ['Keys rotate monthly'], affected_files: ['src/auth/jwt.ts'] }) },
  {
    op: 'record',
    setup: async e => (await e.claim({ agent_id: 'main', paths: ['src/auth/jwt.ts'], reason: 'rotating keys' }), {}),
    input: () => ({ summary: 'Rotated the keys', findings: ['Rotation works'], affected_files: ['src/auth/jwt.ts'], handoff: { target_agent: 'reviewer' } }),
  },
  {
    op: 'resolve',
    setup: async e => ({ id: (await e.post({ entry_type: 'need', summary: 'Someone review this', scope: 'src/auth/' })).id }),
    input: made => ({ ids: [made.id], note: 'reviewed' }),
  },
  {
    op: 'archive_stale',
    setup: async e => ({ id: (await e.post({ entry_type: 'finding', summary: 'Stale finding', scope: 'src/' })).id }),
    input: made => ({ ids: [RS256, made.id], reason: 'stale' }),
  },
  {
    op: 'unarchive',
    setup: async e => (await e.archive_stale({ ids: [RS256], reason: 'stale' }), {}),
    input: () => ({ ids: [RS256], reason: 'still true' }),
  },
  {
    op: 'housekeeping',
    // A provisional decision to promote, every entry past the newest one archived, a metric past its retention.
    setup: async e => {
      const config = path.join(e.layout.dir, 'config.yml');
      fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('archive:\n', 'archive:\n  retain_recent: 1\n'));
      await e.reconsider({ decision_id: RS256, new_context: 'keys leak' });
      fs.writeFileSync(path.join(e.layout.dir, 'metrics.jsonl'), '{"timestamp":"2020-01-01T00:00:00.000Z","tool":"twining_post"}\n');
      return {};
    },
    input: () => ({ execute: true, archive: true, promote_provisionals: true, stale_days: 0 }),
  },
  { op: 'amend', input: () => ({ decision_id: RS256, add_affected_files: ['src/auth/keys.ts'] }) },
];

/** What a changed file under `.twining/` holds, as the table names it. */
function writtenKindOf(rel: string): string {
  const kind = kindOfPath(`.twining/${rel}`);
  if (kind && kind !== 'presence') return kind;
  if (rel === '.last-record') return 'lastRecord';
  if (rel === 'metrics.jsonl') return 'metrics';
  const top = rel.split('/')[0];
  return top === 'graph' || top === 'archive' ? top : `(not a kind: ${rel})`;
}

test('every writing operation is run here', () => {
  const run = new Set(RUNS.map(r => r.op));
  assert.deepEqual(
    OPERATION_NAMES.filter(op => writes(op) && !run.has(op)),
    [],
  );
  assert.deepEqual(
    OPERATION_NAMES.filter(op => !writes(op) && writtenBy(op).length > 0),
    [],
  );
});

test('each writing operation writes only the kinds of data it declares, and every kind it declares in some run', async () => {
  const seen = new Map<WritingOperation, Set<string>>();
  const undeclared: string[] = [];
  for (const run of RUNS) {
    const root = referenceProject();
    const engine = await openWorkspace(root, { now: NOW, warn: () => undefined });
    const made = run.setup ? await run.setup(engine) : {};
    const before = snapshotTree(root);
    await engine.run(run.op, run.input(made));
    await engine.settled();
    const kinds = new Set(changedFiles(before, snapshotTree(root)).map(writtenKindOf));
    const declared: readonly string[] = writtenBy(run.op);
    const extra = [...kinds].filter(k => !declared.includes(k));
    if (extra.length) undeclared.push(`${run.op} (${JSON.stringify(run.input(made))}) wrote ${extra.join(', ')}`);
    const all = seen.get(run.op) ?? new Set();
    for (const k of kinds) all.add(k);
    seen.set(run.op, all);
  }
  assert.deepEqual(undeclared, [], 'written without being declared');
  const unwritten = [...seen].flatMap(([op, kinds]) =>
    writtenBy(op)
      .filter(k => !kinds.has(k))
      .map(k => `${op}: ${k}`),
  );
  assert.deepEqual(unwritten, [], 'declared without any run writing it');
});

test('what an operation may change, in words, as the editor asks to confirm it', () => {
  assert.equal(writtenInWords('post'), 'the blackboard and the knowledge graph');
  assert.equal(writtenInWords('claim'), 'claims');
  assert.equal(writtenInWords('acknowledge'), 'the handoff list and handoff records');
  assert.equal(writtenInWords('read'), '');
});
