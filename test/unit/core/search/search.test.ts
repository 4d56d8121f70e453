/**
 * search: ranking (BM25 with boosted summaries, prefixes, typos), filters, the index kept
 * incrementally (appends, rewrites and status changes by this engine, another engine and another
 * process give the same results as an index built afresh), twining-mcp's two search tools as
 * aliases, and the reference folder.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'child_process';
import { mkdirSync, rmSync, writeFileSync } from 'fs';
import { promisify } from 'util';
import { openWorkspace, type TwiningEngine } from '../../../../src/core';
import { aliasInput } from '../../../../src/core/schemas/tool-aliases';
import type { SearchResult } from '../../../../src/core/search/search-index';
import type { TextIndex } from '../../../../src/core/search/text-index';
import MiniSearch from 'minisearch';
import { KeywordIndex } from '../../../../src/core/search/keyword-index';
import { TermTable, hashOf, terms } from '../../../../src/core/search/term-table';
import { at, emptyProject, referenceProject } from '../../../support/fixture';
import { CLI_JS } from '../../../support/tmp';

const run = promisify(execFile);
const NOW = at('2026-11-22T02:33:00.000Z');
const ids = (r: SearchResult) => r.results.map(h => h.id);
const summaries = (r: SearchResult) => r.results.map(h => h.summary);

async function decide(ws: TwiningEngine, fields: Partial<Parameters<TwiningEngine['decide']>[0]> & { summary: string }) {
  return ws.decide({ domain: 'architecture', scope: 'src/', context: 'Some context.', rationale: 'Some rationale.', agent_id: 'a', ...fields });
}

describe('search: ranking and filters', () => {
  test('a match in the summary ranks above a match only in the detail; every match is counted', async () => {
    const ws = await openWorkspace(emptyProject(), { now: NOW });
    const inDetail = await ws.post({ entry_type: 'finding', summary: 'Login is slow', detail: 'The session cache misses on every request' });
    const inSummary = await ws.post({ entry_type: 'finding', summary: 'Session cache misses', detail: 'Seen in the profiler' });
    await ws.post({ entry_type: 'finding', summary: 'Unrelated', detail: 'Nothing here' });
    const r = await ws.search({ query: 'session cache' });
    assert.deepEqual(ids(r), [inSummary.id, inDetail.id]);
    assert.equal(r.total_matched, 2);
    assert.equal(r.fallback_mode, true, 'keyword ranking, as twining-mcp says without embeddings');
    assert.ok(r.results[0].relevance > r.results[1].relevance);
  });

  test('decisions are searched in their context, rationale, alternatives, domain and scope', async () => {
    const ws = await openWorkspace(emptyProject(), { now: NOW });
    const d = await decide(ws, {
      summary: 'Use Postgres',
      domain: 'persistence',
      scope: 'src/db/',
      context: 'We need transactions across orders',
      rationale: 'Mature replication',
      alternatives: [{ option: 'MongoDB', reason_rejected: 'No multi-document transactions then' }],
    });
    for (const query of ['transactions', 'replication', 'mongodb', 'persistence', 'db']) assert.deepEqual(ids(await ws.search({ query })), [d.id], query);
  });

  test('prefixes match as you type, and a typo in a longer word is forgiven', async () => {
    const ws = await openWorkspace(emptyProject(), { now: NOW });
    const w = await ws.post({ entry_type: 'warning', summary: 'Middleware skips authentication for OPTIONS', scope: 'src/auth/' });
    assert.deepEqual(ids(await ws.search({ query: 'authent' })), [w.id], 'prefix');
    assert.deepEqual(ids(await ws.search({ query: 'midleware' })), [w.id], 'one letter missing');
    assert.deepEqual(ids(await ws.search({ query: 'the for' })), [], 'stop words alone match nothing');
    assert.deepEqual(ids(await ws.search({ query: 'zebra' })), []);
  });

  test('filters: source, entry types, domain, status, confidence, scope; the blackboard copy of a decision only with source blackboard', async () => {
    const ws = await openWorkspace(emptyProject(), { now: NOW });
    const a = await decide(ws, { summary: 'Cache tokens in memory', domain: 'security', scope: 'src/auth/', confidence: 'high' });
    const b = await decide(ws, { summary: 'Cache pages at the edge', domain: 'performance', scope: 'src/web/' });
    const w = await ws.post({ entry_type: 'warning', summary: 'Cache poisoning risk', scope: 'src/web/' });
    const f = await ws.post({ entry_type: 'finding', summary: 'Cache hit rate 40%', scope: 'src/auth/' });
    const all = await ws.search({ query: 'cache' });
    assert.deepEqual(new Set(ids(all)), new Set([a.id, b.id, w.id, f.id]), 'each decision once, from its record');
    assert.equal(all.results.find(h => h.id === a.id)!.kind, 'decision');
    assert.deepEqual(new Set(ids(await ws.search({ query: 'cache', source: 'decisions' }))), new Set([a.id, b.id]));
    const board = await ws.search({ query: 'cache', source: 'blackboard' });
    assert.equal(board.results.length, 4, 'two entries and the blackboard copies of the two decisions');
    assert.ok(board.results.every(h => h.kind === 'entry'));
    assert.deepEqual(new Set(ids(await ws.search({ query: 'cache', entry_types: ['warning', 'decision'] }))), new Set([w.id, a.id, b.id]));
    assert.deepEqual(ids(await ws.search({ query: 'cache', domain: 'security' })), [a.id]);
    assert.deepEqual(ids(await ws.search({ query: 'cache', confidence: 'high' })), [a.id]);
    assert.deepEqual(new Set(ids(await ws.search({ query: 'cache', status: 'active' }))), new Set([a.id, b.id]), 'decision filters leave entries out');
    assert.deepEqual(new Set(ids(await ws.search({ query: 'cache', scope: 'src/auth/login.ts' }))), new Set([a.id, f.id]), 'scope overlap either way');
    assert.deepEqual(ids(await ws.search({ query: 'cache', limit: 1 })).length, 1);
    assert.equal((await ws.search({ query: 'cache', limit: 1 })).total_matched, 4);
  });

  test('bad input is refused naming the field', async () => {
    const ws = await openWorkspace(emptyProject(), { now: NOW });
    await assert.rejects(ws.search({ query: '' }), /search: query: must not be empty/);
    await assert.rejects(ws.search({ query: 'x', source: 'everything' as never }), /search: source/);
    await assert.rejects(ws.search({ query: 'x', entry_types: ['memo' as never] }), /search: entry_types\[0\]/);
    await assert.rejects(ws.search({ query: 'x', limit: 0 }), /search: limit/);
  });
});

describe('search: the keyword index itself', () => {
  const all = () => true;
  test('words are split exactly as MiniSearch splits them, for every ASCII character and beyond', () => {
    const reference = (text: string) =>
      (MiniSearch.getDefault('tokenize') as (t: string) => string[])(text.toLowerCase()).filter(t => t !== '' && !['the', 'of'].includes(t));
    const texts: string[] = [];
    for (let c = 0; c < 128; c++) texts.push(`ab${String.fromCharCode(c)}cd`, `${String.fromCharCode(c)}x`, `x${String.fromCharCode(c)}`);
    texts.push('Hello, world! foo-bar_baz x.y/z $a+b |c~d `e` <f>', "don't\tstop", 'Café — naïve “quoted” text', 'src/auth/jwt.ts', 'The end of time');
    texts.push('MixedCase WORDS then Words', 'a'.repeat(300), 'x y z '.repeat(200));
    const table = new TermTable();
    for (const text of texts) {
      assert.deepEqual(terms(text), reference(text), JSON.stringify(text));
      // The index's own scan (character by character, no string per known word) agrees, seen once and again.
      for (let pass = 0; pass < 2; pass++) {
        const count = table.scan(text);
        assert.deepEqual(
          [...table.scanned.subarray(0, count)].map(n => table.names[n]),
          reference(text),
          `${JSON.stringify(text)}, pass ${pass + 1}`,
        );
      }
    }
    assert.equal(new Set(table.names).size, table.names.length, 'each word is numbered once');
    for (const [n, name] of table.names.entries()) assert.equal(table.find(name), n);
  });

  test('a word in one record, then two, then one again, then none and back, ranks as in a fresh index', () => {
    const texts = [
      { summary: 'quokka 4242 alpha', detail: 'one' },
      { summary: 'quokka beta', detail: 'two' },
      { summary: 'numbat 4242', detail: 'three' },
      { summary: 'quokka numbat', detail: 'four' },
    ];
    // Once with no query between the steps (words added and removed before the prefix tree, which
    // takes new words when a query comes, saw them), once with a query after each step (scores use
    // norms cached per average length).
    const replay = (query: boolean) => {
      const index = new KeywordIndex();
      const step = (change: () => void) => {
        change();
        if (query) index.search('quok 4242 alph bet numb', all, 10);
      };
      step(() => index.add(0, texts[0])); // "quokka", "4242": one record each
      step(() => index.add(1, texts[1])); // "quokka" in two
      step(() => index.remove(0, texts[0])); // "quokka" in one again, "4242" in none
      step(() => index.add(2, texts[2])); // "4242" back
      step(() => index.add(3, texts[3]));
      step(() => index.remove(1, texts[1]));
      return index;
    };
    const kept = replay(false);
    const fresh = new KeywordIndex();
    fresh.add(2, texts[2]);
    fresh.add(3, texts[3]);
    for (const index of [kept, replay(true)])
      for (const q of ['quokka', '4242', 'numbat', 'quok', 'quokka 4242', 'alpha', 'alph', 'beta', 'bet', '424'])
        assert.deepEqual(index.search(q, all, 10), fresh.search(q, all, 10), q);
    assert.deepEqual(
      kept.search('quokka', all, 10).matches.map(m => m.key),
      [3],
    );
  });

  test('the term table keeps words apart whose hashes collide, and grows without losing any', () => {
    const table = new TermTable();
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`);
    const numbers = words.map(w => table.number(w));
    words.forEach((w, i) => assert.equal(table.find(w), numbers[i]));
    assert.equal(table.find('never-seen'), -1);
    // "gwzx" and "16cd" have the same FNV-1a hash: both are found, in the text scan as by name.
    assert.equal(hashOf('gwzx'), hashOf('16cd'));
    const a = table.number('gwzx');
    const count = table.scan('16CD gwzx 16cd');
    assert.deepEqual(
      [...table.scanned.subarray(0, count)].map(n => table.names[n]),
      ['16cd', 'gwzx', '16cd'],
    );
    assert.notEqual(table.find('16cd'), a);
    assert.equal(table.find('gwzx'), a);
  });

  test('a record matching more of the query words ranks above one matching one word often', () => {
    const index = new KeywordIndex();
    index.add(1, { summary: 'cache cache cache cache', detail: 'cache everywhere cache' });
    index.add(2, { summary: 'cache eviction', detail: 'eviction by age' });
    index.add(3, { summary: 'unrelated' });
    const { matches, total } = index.search('cache eviction', all, 10);
    assert.deepEqual(
      matches.map(m => m.key),
      [2, 1],
    );
    assert.equal(total, 2);
  });

  test('removing a record scores as if it had never been added; the limit keeps every tie', () => {
    const texts = [
      { summary: 'token rotation', detail: 'keys rotate monthly' },
      { summary: 'token cache', detail: 'in memory' },
      { summary: 'rotation alerts', detail: 'page on failure' },
      { summary: 'token token', detail: 'duplicate words' },
    ];
    const kept = new KeywordIndex();
    const fresh = new KeywordIndex();
    texts.forEach((t, i) => kept.add(i, t));
    kept.remove(1, texts[1]);
    texts.forEach((t, i) => i !== 1 && fresh.add(i, t));
    for (const q of ['token', 'rotation', 'tok', 'rotatoin keys']) assert.deepEqual(kept.search(q, all, 10), fresh.search(q, all, 10), q);
    const ties = new KeywordIndex();
    for (let i = 0; i < 5; i++) ties.add(i, { summary: 'same words here' });
    assert.equal(ties.search('same', all, 2).matches.length, 5, 'all five tie with the second');
    assert.equal(ties.search('same', key => key !== 3, 2).total, 4, 'the filter is applied before counting');
  });
});

describe('search: the index is kept, not rebuilt', () => {
  /** The results of a fresh engine (its index built from the files) for each query. */
  async function fresh(root: string, queries: Parameters<TwiningEngine['search']>[0][]) {
    const ws = await openWorkspace(root, { now: NOW, warn: () => {} });
    return Promise.all(queries.map(q => ws.search(q)));
  }
  const QUERIES = [{ query: 'cache' }, { query: 'token' }, { query: 'cache', status: 'active' as const }, { query: 'rotation', source: 'blackboard' as const }];
  // Scores equal up to float rounding (MiniSearch keeps running averages of field lengths).
  const strip = (r: SearchResult[]) => r.map(x => ({ ...x, results: x.results.map(h => ({ ...h, relevance: Number(h.relevance.toPrecision(8)) })) }));

  test('appends by this engine, another engine and another process, a dismiss and an override: same results as a fresh index, with only the new work done', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, warn: () => {} });
    const other = await openWorkspace(root, { now: NOW, warn: () => {} });
    const d = await decide(ws, { summary: 'Cache tokens in memory', domain: 'security', scope: 'src/auth/' });
    await ws.post({ entry_type: 'warning', summary: 'Token cache never expires', scope: 'src/auth/' });
    assert.deepEqual(strip(await Promise.all(QUERIES.map(q => ws.search(q)))), strip(await fresh(root, QUERIES)), 'first build');
    const index = (ws as unknown as { ctx: { searchIndex: { work: { added: number; removed: number }; size: number } } }).ctx.searchIndex;
    const added = index.work.added;

    await ws.post({ entry_type: 'finding', summary: 'Key rotation is manual', detail: 'cache of keys', scope: 'src/auth/' });
    await other.post({ entry_type: 'warning', summary: 'Rotation job has no alert', scope: 'ops/' });
    await run(process.execPath, [CLI_JS, 'post', '--dir', root, '--entry-type', 'finding', '--summary', 'Token refresh races', '--scope', 'src/auth/']);
    assert.deepEqual(strip(await Promise.all(QUERIES.map(q => ws.search(q)))), strip(await fresh(root, QUERIES)), 'after three appends');
    assert.equal(index.work.added - added, 3, 'only the three new entries were indexed');

    const cacheWarning = (await ws.search({ query: 'expires', entry_types: ['warning'] })).results[0].id;
    await run(process.execPath, [CLI_JS, 'dismiss', cacheWarning, '--dir', root, '--reason', 'fixed']);
    await other.override({ decision_id: d.id, reason: 'Tokens move to Redis', new_decision: 'Cache tokens in Redis' });
    const after = await Promise.all(QUERIES.map(q => ws.search(q)));
    assert.deepEqual(strip(after), strip(await fresh(root, QUERIES)), 'after a dismiss and an override by others');
    assert.ok(!after[0].results.some(h => h.id === cacheWarning), 'the dismissed warning is gone');
    assert.equal(
      after[2].results.find(h => h.id === d.id),
      undefined,
      'the overridden decision is no longer active',
    );
    assert.deepEqual(
      ids(await ws.search({ query: 'memory', status: 'superseded' })),
      [d.id],
      'found under its new status (overridden, then superseded by its replacement)',
    );
    assert.equal(index.work.removed, 1, 'the dismissed warning was removed; nothing was rebuilt');
  });

  test('a replay of random appends gives the same results as one build over the final folder', async () => {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, warn: () => {} });
    const words = ['cache', 'token', 'rotation', 'session', 'schema', 'index', 'retry', 'queue'];
    let seed = 7;
    const pick = () => words[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % words.length];
    for (let i = 0; i < 60; i++) {
      if (i % 7 === 0) await decide(ws, { summary: `${pick()} ${pick()} decision ${i}`, domain: pick(), rationale: `${pick()} because ${pick()}` });
      else
        await (i % 2 ? ws : await openWorkspace(root, { now: NOW })).post({
          entry_type: i % 3 ? 'finding' : 'warning',
          summary: `${pick()} ${pick()} ${i}`,
          detail: pick(),
        });
      if (i % 10 === 0) await ws.search({ query: pick() });
    }
    const queries = words.map(query => ({ query, limit: 100 }));
    assert.deepEqual(strip(await Promise.all(queries.map(q => ws.search(q)))), strip(await fresh(root, queries)));
  });
});

describe('search: the reference folder and twining-mcp tool shapes', () => {
  test("finds each of the reference folder's decisions by words of its summary, rationale or context", async () => {
    const ws = await openWorkspace(referenceProject(), { now: NOW });
    const { decisions } = await ws.decisions({});
    assert.equal(decisions.length, 4);
    for (const d of decisions) {
      const word = d.summary.split(/\W+/).sort((a, b) => b.length - a.length)[0];
      const r = await ws.search({ query: word, source: 'decisions' });
      assert.ok(ids(r).includes(d.id), `${word} finds ${d.summary}: ${summaries(r).join(' | ')}`);
    }
    const jwt = await ws.search({ query: 'jwt', scope: 'src/auth/jwt.ts' });
    assert.deepEqual(
      jwt.results.map(h => (h.kind === 'decision' ? `decision:${h.id}` : `${h.entry_type}:${h.id}`)).sort(),
      [
        'decision:01M80HHJN7TF8W1N7EW8PHV7MT',
        'decision:01M80HHK1QX1QEC06YGTWYXEZJ',
        'finding:01M80HHK98QEQA5H4QX6S0M6XA',
        'need:01M80HHKA4QXFKQJDMA5FP7RS1',
        'status:01M80HHKB28RQC917F7S5PCGAT',
        'warning:01M80HHK5EACAY1D2CS04B635E',
      ].sort(),
    );
  });

  test('twining_search_decisions and twining_query inputs map onto search with their own fields only', () => {
    assert.deepEqual(aliasInput('search_decisions', { query: 'jwt', status: 'active', limit: 5 }), {
      query: 'jwt',
      status: 'active',
      limit: 5,
      source: 'decisions',
    });
    assert.deepEqual(aliasInput('query', { query: 'jwt', entry_types: ['warning'] }), {
      query: 'jwt',
      entry_types: ['warning'],
      source: 'blackboard',
      limit: 10,
    });
    assert.throws(() => aliasInput('query', { query: 'jwt', domain: 'security' }), /query: unknown field "domain"/);
    assert.throws(() => aliasInput('search_decisions', { query: 'jwt', status: 'gone' }), /search_decisions: status/);
    assert.throws(() => aliasInput('search_decisions', {}), /search_decisions: query: required/);
  });

  test('the ranker is a seam: an engine given another TextIndex ranks with it', async () => {
    // A ranker by exact substring, standing in for a semantic index (none can run offline here).
    const texts = new Map<number, string>();
    const substring: TextIndex = {
      semantic: true,
      add: (key, text) => void texts.set(key, Object.values(text).join(' ').toLowerCase()),
      remove: key => void texts.delete(key),
      search: (query, accept) => {
        const matches = [...texts].filter(([key, t]) => t.includes(query.toLowerCase()) && accept(key)).map(([key]) => ({ key, score: 1 }));
        return { matches, total: matches.length };
      },
    };
    const ws = await openWorkspace(referenceProject(), { now: NOW, textIndex: () => substring });
    const r = await ws.search({ query: 'exp claim' });
    assert.equal(r.fallback_mode, false);
    assert.deepEqual(summaries(r), ['verifyToken does not check the exp claim']);
  });
});

describe('search: decision records read by a worker thread', () => {
  type Work = { added: number; removed: number; offThread: number };
  const workOf = (ws: TwiningEngine) => (ws as unknown as { ctx: { searchIndex: { work: Work } } }).ctx.searchIndex.work;
  const QUERIES = [
    { query: 'cache' },
    { query: 'postgres replication' },
    { query: 'decision', source: 'decisions' as const, limit: 100 },
    { query: 'mongo' },
    { query: 'token', status: 'active' as const },
    { query: 'broken' },
  ];

  /** A folder with 30 decisions, and records the worker cannot read: corrupt JSON, an array, a folder, a missing file and (POSIX) a FIFO. */
  async function folder(): Promise<{ root: string; damaged: string[] }> {
    const root = emptyProject();
    const ws = await openWorkspace(root, { now: NOW, warn: () => {} });
    const made: string[] = [];
    for (let i = 0; i < 30; i++) {
      const d = await decide(ws, {
        summary: `${['Cache', 'Token', 'Postgres'][i % 3]} decision ${i}`,
        agent_id: `agent-${i % 4}`,
        rationale: i % 2 ? 'Replication is mature' : 'Tokens expire',
        alternatives: [{ option: i % 5 ? 'MongoDB' : 'Redis', reason_rejected: 'No transactions' }],
      });
      made.push(d.id);
    }
    await ws.post({ entry_type: 'warning', summary: 'Token cache never expires', scope: 'src/auth/' });
    const record = (id: string) => `${root}/.twining/decisions/${id}.json`;
    const damaged = made.slice(0, 5);
    writeFileSync(record(damaged[0]), '{"summary": "broken');
    writeFileSync(record(damaged[1]), '["an array"]');
    rmSync(record(damaged[2]));
    mkdirSync(record(damaged[2]));
    rmSync(record(damaged[3]));
    if (process.platform !== 'win32') {
      rmSync(record(damaged[4]));
      execFileSync('mkfifo', [record(damaged[4])]);
    }
    return { root, damaged };
  }

  /** The results of QUERIES on a new engine with these worker options, the warnings it gave, and its index's work. */
  async function searchAll(root: string, searchWorker: { minRecords: number; script?: string } | false) {
    const warnings: string[] = [];
    const ws = await openWorkspace(root, { now: NOW, warn: m => warnings.push(m), searchWorker });
    const results = [];
    for (const q of QUERIES) results.push(await ws.search(q));
    return { results, warnings: warnings.sort(), work: workOf(ws) };
  }

  test('a worker reads the records: the same results and warnings as reading them here, damaged records read and reported here', async () => {
    const { root, damaged } = await folder();
    const here = await searchAll(root, false);
    const worker = await searchAll(root, { minRecords: 1 });
    assert.deepEqual(worker.results, here.results);
    assert.deepEqual(worker.warnings, here.warnings);
    const unreadable = process.platform === 'win32' ? 4 : 5;
    assert.equal(here.warnings.length, unreadable - 1, 'a warning for each unreadable record but the missing one (indexed by its index entry, as before)');
    for (const id of damaged.slice(0, unreadable))
      if (id !== damaged[3])
        assert.ok(
          here.warnings.some(w => w.includes(id)),
          `the warning names ${id}`,
        );
    assert.equal(here.work.offThread, 0);
    assert.equal(worker.work.offThread, 30 - unreadable, 'every readable record came from the worker');
    assert.equal(worker.work.added, here.work.added);
    assert.ok(
      worker.results[2].results.some(h => h.kind === 'decision' && h.agent_id === 'agent-1'),
      "a hit names its decision's author, read by the worker",
    );
  });

  test('without its script, or below the threshold, the records are read here, with the same results', async () => {
    const { root } = await folder();
    const here = await searchAll(root, false);
    const missing = await searchAll(root, { minRecords: 1, script: `${root}/no-such-worker.js` });
    const few = await searchAll(root, { minRecords: 31 });
    assert.deepEqual(missing.results, here.results);
    assert.deepEqual(few.results, here.results);
    assert.equal(missing.work.offThread, 0);
    assert.equal(few.work.offThread, 0);
  });
});
