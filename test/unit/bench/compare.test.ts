/**
 * bench/compare.js's reading of the benchmarks' output and its rule for "slower": the rows it
 * pairs up, the rows it refuses to invent, and that it knows every benchmark `npm run bench` runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';

type Rows = Record<string, number>;
type Compared = { row: string; before?: number; after?: number; ratio?: number; mark: string; note?: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compare = require('../../../bench/compare.js') as {
  benchList: (script: string) => string[];
  jsonLine: (text: string, tag: string) => unknown;
  timeRows: (value: unknown, skip?: string[]) => Rows;
  twoXRows: (text: string, build: string) => Rows;
  migrateRows: (text: string) => Rows;
  judge: (row: string, before: number[], after: number[]) => { before: number; after: number; ratio: number; mark: string };
  compareRounds: (rounds: { before?: Rows; after?: Rows }[]) => Compared[];
  reason: (text: string) => string;
  BENCHES: { name: string; own?: (old: string) => string[]; rows: (text: string) => unknown }[];
};

const ROOT = path.resolve(__dirname, '../..');

test('it knows every benchmark of package.json\'s "bench" script, in its order', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const listed = compare.benchList(pkg.scripts.bench);
  assert.ok(listed.includes('two-x') && listed.includes('run'), listed.join());
  assert.deepEqual(
    compare.BENCHES.map(b => b.name),
    listed,
  );
});

test('the last BENCH_*_JSON line is read, its time figures flattened and named by size or event', () => {
  const text = [
    'noise',
    'BENCH_JSON {"results":[{"size":1}]}',
    'BENCH_JSON {"results":[{"size":1000,"cold_read_ms":7.4,"file_mb":0.4,"runs":[1,2]},{"size":10000,"cold_read_ms":50}]}',
  ].join('\n');
  const json = compare.jsonLine(text, 'BENCH_JSON') as { results: unknown };
  assert.deepEqual(compare.timeRows(json.results), { '1000.cold_read_ms': 7.4, '10000.cold_read_ms': 50 });
  assert.equal(compare.jsonLine(text, 'BENCH_HOOKS_JSON'), undefined);
  const hooks = { events: { PreToolUse: { ms: 80.1, ratio: 1.2, cpu_ms: 60 } }, openToPaintMs: 600 };
  assert.deepEqual(compare.timeRows(hooks), { 'events.PreToolUse.ms': 80.1, 'events.PreToolUse.cpu_ms': 60, openToPaintMs: 600 });
});

test('an own-before benchmark gives both sides from one output; a missing side stays missing', () => {
  const hooks = compare.BENCHES.find(b => b.name === 'hooks')!;
  assert.deepEqual(hooks.own!('OLD'), ['--before', path.join('OLD', 'dist')]);
  const both = hooks.rows(`BENCH_HOOKS_JSON ${JSON.stringify({ node_e_0_ms: 60, events: { Stop: { ms: 70 } }, before: { events: { Stop: { ms: 65 } } } })}`);
  assert.deepEqual(both, { after: { 'Stop.ms': 70, node_e_0_ms: 60 }, before: { 'Stop.ms': 65, node_e_0_ms: 60 } });
  const mcp = compare.BENCHES.find(b => b.name === 'mcp')!;
  const rows = [
    { size: 1000, server: 'ours', label: 'twining mcp (this build)', why_ms: 1.5, first: { why: 9 } },
    { size: 1000, server: 'before', label: 'twining mcp (old)', why_ms: 2.5, first: { why: 9 } },
  ];
  assert.deepEqual(mcp.rows(`BENCH_MCP_JSON ${JSON.stringify({ rows })}`), { after: { '1000.why_ms': 1.5 }, before: { '1000.why_ms': 2.5 } });
});

test("two-x's and migrate's text lines are read per build", () => {
  const text = [
    'two-x: 3000 decisions, 20000 posts, 5 runs (medians); load average before 1.00 1.00 1.00',
    '  this   twining why src/m7/f7.ts (new process): 2.x 120.5 ms, 1.x 118 ms, ratio 1.02',
    '  before twining why src/m7/f7.ts (new process): 2.x 300 ms, 1.x 110 ms, ratio 2.73',
    "  this   1.x files          reopen (new process: open + first view) 86.6 ms, thread CPU 81.7 ms (the engine's load before it 40 ms)",
    "  this   2.x twining.db     reopen (new process: open + first view) 148 ms, thread CPU NaN ms (the engine's load before it 40 ms)",
    "  this   2.x twining.db     open again in this process 12.5 ms (the first open: 30 ms); another process's post seen 3.5 ms",
    '  this   2.x records/ only  open again in this process 20 ms (the first open: 31 ms)',
    "  before 1.x files          post: an engine's first 5 ms, the next 1.5 ms; `twining post` (new process) 150 ms",
  ].join('\n');
  assert.deepEqual(compare.twoXRows(text, 'this'), {
    'why (new process) 2.x': 120.5,
    'why (new process) 1.x': 118,
    'reopen (new process) 1.x files': 86.6,
    'reopen (new process) 1.x files, thread CPU': 81.7,
    'reopen (new process) 2.x twining.db': 148,
    'open again in this process 2.x twining.db': 12.5,
    "another process's post seen 2.x twining.db": 3.5,
    'open again in this process 2.x records/ only': 20,
  });
  assert.deepEqual(compare.twoXRows(text, 'before'), {
    'why (new process) 2.x': 300,
    'why (new process) 1.x': 110,
    "post, an engine's first 1.x files": 5,
    'post, the next 1.x files': 1.5,
    'twining post (new process) 1.x files': 150,
  });
  const migrate =
    'migrate at 3000 decisions and 20000 posts, medians of 3 (ms):\n  dry run 210.5  files → sqlite 1500  again (nothing to write) 90  sqlite → files 800\n';
  assert.deepEqual(compare.migrateRows(migrate), { 'dry run': 210.5, 'files → sqlite': 1500, 'again (nothing to write)': 90, 'sqlite → files': 800 });
});

test('slower: more than 1.10x and 0.5 beyond before, and with rounds, spreads that do not overlap', () => {
  assert.equal(compare.judge('x_ms', [100], [109]).mark, '');
  assert.equal(compare.judge('x_ms', [100], [120]).mark, 'slower?');
  assert.equal(compare.judge('x_ms', [1], [1.4]).mark, '', '0.4 ms is under the floor');
  assert.equal(compare.judge('x_ms', [100, 104, 130], [120, 125, 128]).mark, '', 'overlapping rounds are noise');
  assert.equal(compare.judge('x_ms', [100, 104, 110], [120, 125, 128]).mark, 'slower');
  assert.equal(compare.judge('node_e_0_ms', [60, 61], [80, 81]).mark, '', "the machine's reference is never marked");
  const rows = compare.compareRounds([
    { before: { a_ms: 10, gone_ms: 3 }, after: { a_ms: 9, new_ms: 4 } },
    { before: { a_ms: 12, gone_ms: 3 }, after: { a_ms: 10, new_ms: 4 } },
  ]);
  assert.deepEqual(
    rows.map(r => [r.row, r.before, r.after, r.note ?? '']),
    [
      ['a_ms', 11, 9.5, ''],
      ['gone_ms', 3, undefined, 'not measured after'],
      ['new_ms', undefined, 4, 'not measured before'],
    ],
  );
});

test("a failed benchmark's first error is quoted for the table", () => {
  assert.equal(compare.reason('x\nbench/merge.js: Error: merged 3900 | 3800\n    at y'), ': Error: merged 3900 / 3800');
  assert.equal(compare.reason('all fine'), '');
});
