/**
 * Bad input, through the library and the CLI: corrupt or hand-edited files, wrong types, unknown
 * values and fields, huge inputs, path-traversal ids, CRLF line endings. Every case must give an
 * error that names the problem AND lose nothing: failed writes are byte-compared against the
 * folder before the call, and a file that cannot be parsed is never overwritten.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { OPERATION_NAMES, isWriteRefusal, openWorkspace, Workspace } from '../../../../src/core';
import { writes } from '../../../../src/core/operations/operation-writes';
import { fixtureProject, tw, readText, writeText, snapshotTree, changedFiles, parseJsonl, CLI_JS } from '../../../support/tmp';

const H0 = '01M80HHKAVJT8FG2B08Q4NGZ4W'; // unacknowledged fixture handoff
const H1 = '01M80HHKBXQEDY2H6KWG27Q6EF'; // acknowledged fixture handoff
const MISSING_ULID = '01M80HHKAVJT8FG2B08Q4NGZ4Z';
const FIXTURE_ENTRIES = 14;

async function open(root: string, warnings: string[] = []): Promise<Workspace> {
  return openWorkspace(root, { warn: m => warnings.push(m) });
}

/** Awaits a rejection and checks its code and that its message matches every pattern. */
async function rejects(work: Promise<unknown> | (() => Promise<unknown>), code: string, ...patterns: RegExp[]): Promise<Error & { code: string }> {
  let error: (Error & { code: string }) | undefined;
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (e) {
    error = e as Error & { code: string };
  }
  assert.ok(error, `expected a ${code} error, but the call succeeded`);
  assert.equal(error.code, code, `code of: ${error.message}`);
  for (const p of patterns) assert.match(error.message, p);
  return error;
}

/** Runs `work`, expecting it to fail with `code`, and checks that no file of the folder changed. */
async function failsWithoutWriting(root: string, work: () => Promise<unknown>, code: string, ...patterns: RegExp[]) {
  const before = snapshotTree(root);
  const error = await rejects(work, code, ...patterns);
  assert.deepEqual(changedFiles(before, snapshotTree(root)), [], `nothing written by a failed call (${error.message})`);
  return error;
}

// ---------------------------------------------------------------------------------------------

describe('corrupt and hand-edited files', () => {
  test('corrupt blackboard lines are skipped with a warning naming the file and line, and kept by a post', async () => {
    const root = fixtureProject();
    const lines = readText(root, 'blackboard.jsonl').split('\n');
    const bad = ['not json at all', '{"entry_type":"finding","summary":', '[1,2,3]', '42', 'null', '"a string"'];
    lines.splice(3, 0, ...bad);
    const corrupted = lines.join('\n');
    writeText(root, 'blackboard.jsonl', corrupted);
    const warnings: string[] = [];
    const ws = await open(root, warnings);
    const all = await ws.read({ limit: 0 });
    assert.equal(all.total_count, FIXTURE_ENTRIES);
    assert.equal(warnings.length, bad.length);
    assert.match(warnings[0], /blackboard\.jsonl: line 4 is not a JSON object/);
    assert.match(warnings[5], /line 9 /);
    const posted = await ws.post({ entry_type: 'finding', summary: 'after corrupt lines' });
    const text = readText(root, 'blackboard.jsonl');
    assert.ok(text.startsWith(corrupted), 'a post only appends: the corrupt lines are kept verbatim');
    assert.equal((await ws.read({ limit: 1 })).entries[0].id, posted.id);
    assert.equal((await ws.status()).blackboard_entries, FIXTURE_ENTRIES + 1);
  });

  test('registry.json with garbage JSON: every operation names the file, and a registration never overwrites it', async () => {
    const root = fixtureProject();
    const garbage = readText(root, 'agents/registry.json').slice(0, 180) + '}oops';
    writeText(root, 'agents/registry.json', garbage);
    const ws = await open(root);
    await failsWithoutWriting(root, () => ws.register({ agent_id: 'newcomer', capabilities: ['x'] }), 'CORRUPT', /registry\.json/, /not valid JSON/);
    await rejects(ws.agents(), 'CORRUPT', /registry\.json/);
    await rejects(ws.discover({ required_capabilities: ['x'] }), 'CORRUPT', /registry\.json/);
    await rejects(ws.status(), 'CORRUPT', /registry\.json/);
    assert.equal(readText(root, 'agents/registry.json'), garbage);
  });

  test('registry.json that is valid JSON but not an array is reported as such and never overwritten', async () => {
    for (const content of ['{"agents":[]}', '"[]"', 'null', '42']) {
      const root = fixtureProject();
      writeText(root, 'agents/registry.json', content);
      const ws = await open(root);
      await failsWithoutWriting(root, () => ws.register({ agent_id: 'newcomer' }), 'CORRUPT', /registry\.json/, /not an array/);
      await rejects(ws.agents(), 'CORRUPT', /registry\.json/, /not an array/);
      assert.equal(readText(root, 'agents/registry.json'), content);
    }
  });

  test('a registry caught half-rewritten (twining-mcp rewrites in place) is re-read, not taken as empty', async () => {
    const root = fixtureProject();
    const full = readText(root, 'agents/registry.json');
    writeText(root, 'agents/registry.json', full.slice(0, full.length / 2));
    setTimeout(() => writeText(root, 'agents/registry.json', full), 60);
    const ws = await open(root);
    await ws.register({ agent_id: 'newcomer', capabilities: ['x'] });
    const after = JSON.parse(readText(root, 'agents/registry.json'));
    assert.deepEqual(after.slice(0, 4), JSON.parse(full), 'every fixture agent is kept');
    assert.equal(after[4].agent_id, 'newcomer');
  });

  test('items of the registry that are not agent objects survive a registration', async () => {
    // Hand edits can leave odd items; a rewrite must not silently drop what it does not understand.
    const root = fixtureProject();
    const registry = JSON.parse(readText(root, 'agents/registry.json'));
    registry.splice(1, 0, 'a stray string', 42, null);
    writeText(root, 'agents/registry.json', JSON.stringify(registry, null, 2));
    const ws = await open(root);
    const before = snapshotTree(root);
    try {
      await ws.register({ agent_id: 'newcomer' });
    } catch (error) {
      // Refusing is acceptable too, provided the file is untouched and the message says why.
      assert.match((error as Error).message, /registry\.json/);
      assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
      return;
    }
    const after = JSON.parse(readText(root, 'agents/registry.json'));
    assert.deepEqual(after.slice(0, registry.length), registry, 'the odd items are still there, in place');
  });

  test('items of the decision index that are not objects survive a decision', async () => {
    const root = fixtureProject();
    const index = JSON.parse(readText(root, 'decisions/index.json'));
    index.push('a stray string', 7);
    writeText(root, 'decisions/index.json', JSON.stringify(index, null, 2));
    const ws = await open(root);
    const before = snapshotTree(root);
    try {
      await ws.decide({ domain: 'api', scope: 'docs/', summary: 'x', context: 'c', rationale: 'r' });
    } catch (error) {
      assert.match((error as Error).message, /index\.json/);
      assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
      return;
    }
    const after = JSON.parse(readText(root, 'decisions/index.json'));
    assert.deepEqual(after.slice(0, index.length), index, 'the odd items are still there, in place');
  });

  test('unknown fields and values in stored records are kept and tolerated', async () => {
    const root = fixtureProject();
    const registry = JSON.parse(readText(root, 'agents/registry.json'));
    registry[0].team = 'platform';
    registry[0].capabilities.push('Hand-Edited');
    writeText(root, 'agents/registry.json', JSON.stringify(registry, null, 2));
    fs.appendFileSync(
      tw(root, 'blackboard.jsonl'),
      JSON.stringify({
        entry_type: 'rumour',
        summary: 'unknown type',
        detail: '',
        tags: ['x'],
        scope: 'src/',
        agent_id: 'a',
        id: '01M80HHKZZZZZZZZZZZZZZZZZ1',
        timestamp: '2026-11-22T02:40:00.000Z',
        mood: 'curious',
      }) + '\n',
    );
    const index = JSON.parse(readText(root, 'decisions/index.json'));
    index[1].status = 'pondering';
    index[1].reviewer = 'someone';
    writeText(root, 'decisions/index.json', JSON.stringify(index, null, 2));
    const ws = await open(root);
    const read = await ws.read({ limit: 1 });
    assert.equal(read.entries[0].entry_type, 'rumour');
    assert.equal(read.entries[0].mood, 'curious');
    assert.equal(
      (await ws.read({ entry_types: ['finding'], limit: 0 })).entries.every(e => e.entry_type === 'finding'),
      true,
    );
    const record = await ws.register({ agent_id: registry[0].agent_id, capabilities: ['new'] });
    assert.equal(record.team, 'platform', 'an unknown field of a stored agent survives its re-registration');
    assert.ok(record.capabilities.includes('new'));
    const status = await ws.status();
    assert.equal(status.active_decisions, index.filter((d: { status: string }) => d.status === 'active').length);
    const decided = await ws.decide({ domain: 'api', scope: 'docs/', summary: 'x', context: 'c', rationale: 'r' });
    const after = JSON.parse(readText(root, 'decisions/index.json'));
    assert.equal(after[1].status, 'pondering');
    assert.equal(after[1].reviewer, 'someone', 'unknown fields of index entries survive a decision');
    assert.equal(after[after.length - 1].id, decided.id);
  });

  test('blackboard lines without tags or scope (or with wrong types) do not break filtered reads', async () => {
    const root = fixtureProject();
    const base = { detail: '', agent_id: 'hand', timestamp: '2026-11-22T02:40:00.000Z' };
    const odd = [
      { entry_type: 'warning', summary: 'no tags', scope: 'src/auth/', id: '01M80HHKZZZZZZZZZZZZZZZZZ1', ...base },
      { entry_type: 'finding', summary: 'no scope', tags: ['auth'], id: '01M80HHKZZZZZZZZZZZZZZZZZ2', ...base },
      { entry_type: 'warning', summary: 'neither', id: '01M80HHKZZZZZZZZZZZZZZZZZ3', ...base },
      { entry_type: 'finding', summary: 'tags is a string', tags: 'auth', scope: 5, id: '01M80HHKZZZZZZZZZZZZZZZZZ4', ...base },
      { entry_type: 'need', summary: 'no detail, no scope', id: '01M80HHKZZZZZZZZZZZZZZZZZ5', agent_id: 'x' },
    ];
    fs.appendFileSync(tw(root, 'blackboard.jsonl'), odd.map(o => JSON.stringify(o) + '\n').join(''));
    const ws = await open(root);
    assert.equal((await ws.read({ limit: 0 })).total_count, FIXTURE_ENTRIES + odd.length);
    const byTag = await ws.read({ tags: ['auth'], limit: 0 });
    assert.ok(byTag.entries.some(e => e.summary === 'no scope'));
    assert.ok(!byTag.entries.some(e => e.summary === 'no tags' || e.summary === 'tags is a string'));
    const byScope = await ws.read({ scope: 'src/auth/', limit: 0 });
    assert.ok(byScope.entries.some(e => e.summary === 'no tags'));
    assert.ok(!byScope.entries.some(e => e.summary === 'no scope' || e.summary === 'neither'));
    const since = await ws.read({ since: '2026-11-22T02:39:00Z', limit: 0 });
    assert.equal(since.total_count, 4, 'the line without a timestamp is not "since" anything');
    const h = await ws.handoff({ source_agent: 'a', scope: 'src/auth/', summary: 'with odd lines', results: [] });
    assert.ok(h.context_snapshot.warning_ids.includes('01M80HHKZZZZZZZZZZZZZZZZZ1'));
    assert.ok(!h.context_snapshot.finding_ids.includes('01M80HHKZZZZZZZZZZZZZZZZZ2'));
    await ws.delegations({ scope: 'src/', include_expired: true });
    await ws.status();
    const v = await ws.verify({ handoff_id: h.id });
    assert.equal(v.intact, true);
  });

  test('a handoff index line that does not parse: acknowledge works and keeps the bad line verbatim', async () => {
    const root = fixtureProject();
    const [l0, l1] = readText(root, 'handoffs/index.jsonl').split('\n');
    const bad = '{"id":"01M80HHK…truncated';
    writeText(root, 'handoffs/index.jsonl', `${l0}\n${bad}\n${l1}\n`);
    const warnings: string[] = [];
    const ws = await open(root, warnings);
    const listed = await ws.handoffs();
    assert.equal(listed.total_count, 2);
    assert.match(warnings.join('\n'), /index\.jsonl: line 2 is not a JSON object/);
    const ack = await ws.acknowledge({ handoff_id: H0, agent_id: 'tester' });
    assert.equal(ack.acknowledged_by, 'tester');
    const after = readText(root, 'handoffs/index.jsonl').split('\n');
    assert.equal(after.length, 4);
    assert.equal(after[1], bad, 'the bad line is kept verbatim, in place');
    assert.equal(after[2], l1, 'the other line is kept byte for byte');
    assert.deepEqual(JSON.parse(after[0]), { ...JSON.parse(l0), acknowledged: true });
    assert.equal(JSON.parse(readText(root, `handoffs/${H0}.json`)).acknowledged_by, 'tester');
  });

  test('a handoff record that does not parse: acknowledge and verify say it is corrupt, naming the file, and change nothing', async () => {
    const root = fixtureProject();
    const torn = '{"source_agent": "backend-dev", "summ';
    writeText(root, `handoffs/${H0}.json`, torn);
    const ws = await open(root);
    const file = new RegExp(`handoffs[\\\\/]${H0}\\.json`);
    await failsWithoutWriting(root, () => ws.acknowledge({ handoff_id: H0, agent_id: 'tester' }), 'CORRUPT', file, /not valid JSON/);
    await rejects(ws.verify({ handoff_id: H0 }), 'CORRUPT', file);
    // The listing still works and shows the handoff from its index line.
    assert.ok((await ws.handoffs({})).handoffs.some(h => h.id === H0));
    assert.equal(readText(root, `handoffs/${H0}.json`), torn);
  });

  test('a handoff record that is JSON but not an object is reported as such; a chain through it still verifies', async () => {
    const root = fixtureProject();
    writeText(root, `handoffs/${H1}.json`, '[]');
    const ws = await open(root);
    await failsWithoutWriting(root, () => ws.acknowledge({ handoff_id: H1, agent_id: 'tester' }), 'CORRUPT', new RegExp(H1), /not an object/);
    // A new handoff continuing the unreadable one: verify reports the chain up to it.
    const next = await ws.handoff({ source_agent: 'tester', summary: 'After the broken one', results: [], continues: H0 });
    writeText(root, `handoffs/${H0}.json`, JSON.stringify({ ...JSON.parse(readText(root, `handoffs/${H0}.json`)), continues: H1 }));
    const result = await ws.verify({ handoff_id: next.id });
    assert.deepEqual(result.chain, [next.id, H0, H1]);
  });

  test('decisions/index.json missing: status and decisions work, the records are indexed again, decide adds to it', async () => {
    const root = fixtureProject();
    fs.rmSync(tw(root, 'decisions/index.json'));
    const records = fs
      .readdirSync(tw(root, 'decisions'))
      .filter(n => /^[0-9A-HJKMNP-TV-Z]{26}\.json$/.test(n))
      .map(n => JSON.parse(readText(root, `decisions/${n}`)));
    const ws = await open(root);
    const status = await ws.status();
    // A lost index is rebuilt from the records (they are orphans), not taken as "no decisions".
    assert.equal(status.active_decisions, records.filter(r => r.status === 'active').length);
    assert.equal(status.provisional_decisions, records.filter(r => r.status === 'provisional').length);
    assert.equal((await ws.decisions()).total_count, records.length);
    const h = await ws.handoff({ source_agent: 'a', summary: 'no index', results: [] });
    assert.equal(h.context_snapshot.decision_ids.length, status.active_decisions);
    const d = await ws.decide({ domain: 'api-new', scope: 'src/api-new/', summary: 'Recreate the index', context: 'c', rationale: 'r' });
    const index = JSON.parse(readText(root, 'decisions/index.json'));
    assert.equal(index.length, records.length + 1);
    assert.equal(index[index.length - 1].id, d.id);
    assert.equal(index[index.length - 1].status, 'active');
    assert.equal(JSON.parse(readText(root, `decisions/${d.id}.json`)).id, d.id);
  });

  test('decisions/index.json with garbage: decide fails naming the file and writes nothing', async () => {
    const root = fixtureProject();
    writeText(root, 'decisions/index.json', '[{"id": "01M80HHJN7TF8W1N7EW8PHV7MT",');
    const ws = await open(root);
    await failsWithoutWriting(
      root,
      () => ws.decide({ domain: 'api', scope: 'src/', summary: 's', context: 'c', rationale: 'r' }),
      'CORRUPT',
      /decisions[\\/]index\.json/,
    );
    await rejects(ws.decisions(), 'CORRUPT', /index\.json/);
    await rejects(ws.status(), 'CORRUPT', /index\.json/);
  });

  test('CRLF line endings in the JSONL and JSON files are read like LF', async () => {
    const lf = fixtureProject();
    const crlf = fixtureProject();
    for (const rel of ['blackboard.jsonl', 'handoffs/index.jsonl', 'agents/registry.json', 'decisions/index.json']) {
      writeText(crlf, rel, readText(lf, rel).replace(/\n/g, '\r\n'));
    }
    const [a, b] = [await open(lf), await open(crlf)];
    assert.deepEqual((await b.read({ limit: 0 })).entries, (await a.read({ limit: 0 })).entries);
    assert.deepEqual(await b.read({ tags: ['auth'], scope: 'src/', limit: 0 }), await a.read({ tags: ['auth'], scope: 'src/', limit: 0 }));
    assert.deepEqual(await b.handoffs(), await a.handoffs());
    assert.deepEqual(
      (await b.agents()).agents.map(x => x.agent_id),
      (await a.agents()).agents.map(x => x.agent_id),
    );
    const before = readText(crlf, 'blackboard.jsonl');
    const posted = await b.post({ entry_type: 'finding', summary: 'after CRLF' });
    assert.ok(readText(crlf, 'blackboard.jsonl').startsWith(before));
    assert.equal((await b.read({ limit: 1 })).entries[0].id, posted.id);
    const [l0, l1] = readText(crlf, 'handoffs/index.jsonl').split('\n');
    await b.acknowledge({ handoff_id: H0, agent_id: 'tester' });
    const after = readText(crlf, 'handoffs/index.jsonl').split('\n');
    assert.equal(JSON.parse(after[0]).acknowledged, true);
    assert.equal(after[1], l1, 'the untouched CRLF line is kept verbatim');
    assert.ok(l0.endsWith('\r'));
    await b.register({ agent_id: 'newcomer' });
    assert.equal(JSON.parse(readText(crlf, 'agents/registry.json')).length, 5);
  });

  test('a 10 MB blackboard line written by another program is read', async () => {
    const root = fixtureProject();
    const huge = {
      entry_type: 'finding',
      summary: 'huge detail',
      detail: 'x'.repeat(10 * 1024 * 1024),
      tags: [],
      scope: 'src/',
      agent_id: 'a',
      id: '01M80HHKZZZZZZZZZZZZZZZZZ9',
      timestamp: '2026-11-22T02:40:00.000Z',
    };
    fs.appendFileSync(tw(root, 'blackboard.jsonl'), JSON.stringify(huge) + '\n');
    const ws = await open(root);
    const read = await ws.read({ limit: 1 });
    assert.equal(read.entries[0].detail.length, huge.detail.length);
    const h = await ws.handoff({ source_agent: 'a', scope: 'src/', summary: 'after huge', results: [] });
    assert.ok(h.context_snapshot.finding_ids.includes(huge.id));
  });
});

// ---------------------------------------------------------------------------------------------

describe('invalid operation inputs are rejected by name, and nothing is written', () => {
  const big = 'x'.repeat(10 * 1024 * 1024);
  const manyTags = Array.from({ length: 100_000 }, (_, i) => `t${i}`);
  const cases: [string, string, unknown, RegExp[]][] = [
    ['post', 'missing summary', { entry_type: 'finding' }, [/summary/]],
    ['post', 'summary of the wrong type', { entry_type: 'finding', summary: 123 }, [/summary/]],
    ['post', 'entry_type decision', { entry_type: 'decision', summary: 's' }, [/entry_type/, /decide/]],
    ['post', 'unknown entry_type', { entry_type: 'rumour', summary: 's' }, [/entry_type/, /warning/]],
    ['post', 'tags as a string', { entry_type: 'finding', summary: 's', tags: 'auth' }, [/tags/]],
    ['post', 'a number among the tags', { entry_type: 'finding', summary: 's', tags: ['ok', 5] }, [/tags\[1\]/]],
    ['post', 'summary of 201 characters', { entry_type: 'finding', summary: 'y'.repeat(201) }, [/summary/, /200/]],
    ['post', 'a 10 MB summary', { entry_type: 'finding', summary: big }, [/summary/, /200/]],
    ['post', 'a 10 MB detail', { entry_type: 'finding', summary: 's', detail: big }, [/detail/]],
    ['post', '100k tags', { entry_type: 'finding', summary: 's', tags: manyTags }, [/tags/, /at most 100/]],
    ['post', 'an unknown field', { entry_type: 'finding', summary: 's', sumary: 'typo' }, [/unknown field "sumary"/]],
    ['post', 'an empty scope', { entry_type: 'finding', summary: 's', scope: '' }, [/scope/]],
    ['post', 'null scope', { entry_type: 'finding', summary: 's', scope: null }, [/scope/]],
    ['post', 'an array instead of an object', [], [/input/]],
    ['register', 'missing agent_id', { capabilities: ['x'] }, [/agent_id/]],
    ['register', 'a path-traversal agent_id', { agent_id: '../../etc/passwd' }, [/agent_id/, /slash/]],
    ['register', 'agent_id ".."', { agent_id: '..' }, [/agent_id/]],
    ['register', 'agent_id with a backslash', { agent_id: 'a\\b' }, [/agent_id/]],
    ['register', 'capabilities as a string', { agent_id: 'a', capabilities: 'typescript' }, [/capabilities/]],
    ['register', 'a misspelt field', { agent_id: 'a', capabilites: ['x'] }, [/unknown field "capabilites"/]],
    ['acknowledge', 'a path-traversal handoff_id', { handoff_id: '../../etc/passwd', agent_id: 'a' }, [/handoff_id/, /ULID/]],
    ['acknowledge', 'a handoff_id with a slash', { handoff_id: `handoffs/${H0}`, agent_id: 'a' }, [/handoff_id/]],
    ['acknowledge', 'a lower-case ULID', { handoff_id: H0.toLowerCase(), agent_id: 'a' }, [/handoff_id/, /ULID/]],
    ['acknowledge', 'a ULID with a U', { handoff_id: H0.slice(0, 25) + 'U', agent_id: 'a' }, [/handoff_id/]],
    ['acknowledge', 'missing agent_id', { handoff_id: H0 }, [/agent_id/]],
    ['verify', 'a path-traversal handoff_id', { handoff_id: '../decisions/index' }, [/handoff_id/]],
    ['handoff', 'missing results', { source_agent: 'a', summary: 's' }, [/results/]],
    ['handoff', 'an unknown result status', { source_agent: 'a', summary: 's', results: [{ description: 'd', status: 'done' }] }, [/results\[0\]\.status/]],
    ['handoff', 'a path-traversal continues', { source_agent: 'a', summary: 's', results: [], continues: '../../etc/passwd' }, [/continues/]],
    ['handoff', 'a 10 MB summary', { source_agent: 'a', summary: big, results: [] }, [/summary/]],
    ['decide', 'missing rationale', { domain: 'd', scope: 's', summary: 's', context: 'c' }, [/rationale/]],
    ['decide', 'an empty context', { domain: 'd', scope: 's', summary: 's', context: '', rationale: 'r' }, [/context/]],
    ['decide', 'an unknown confidence', { domain: 'd', scope: 's', summary: 's', context: 'c', rationale: 'r', confidence: 'certain' }, [/confidence/]],
    [
      'decide',
      'a path-traversal supersedes',
      { domain: 'd', scope: 's', summary: 's', context: 'c', rationale: 'r', supersedes: '../../etc/passwd' },
      [/supersedes/],
    ],
    ['decide', 'a non-hex commit hash', { domain: 'd', scope: 's', summary: 's', context: 'c', rationale: 'r', commit_hash: 'HEAD~1' }, [/commit_hash/]],
    ['decide', 'a 10 MB context', { domain: 'd', scope: 's', summary: 's', context: big, rationale: 'r' }, [/context/]],
    ['delegate', 'an unknown urgency', { summary: 's', required_capabilities: ['x'], urgency: 'urgent' }, [/urgency/]],
    ['delegate', 'a negative timeout', { summary: 's', required_capabilities: ['x'], timeout_ms: -5 }, [/timeout_ms/]],
    ['delegate', 'missing required_capabilities', { summary: 's' }, [/required_capabilities/]],
    ['read', 'limit as a string', { limit: '5' }, [/limit/]],
    ['read', 'a negative limit', { limit: -1 }, [/limit/]],
    ['read', 'an unparseable since', { since: 'yesterday' }, [/since/]],
    ['read', 'an unknown entry type', { entry_types: ['rumour'] }, [/entry_types\[0\]/]],
    ['handoffs', 'acknowledged as a string', { acknowledged: 'yes' }, [/acknowledged/]],
    ['decisions', 'an unknown status', { status: 'pondering' }, [/status/]],
    ['discover', 'min_score above 1', { required_capabilities: ['x'], min_score: 2 }, [/min_score/]],
    ['status', 'an unknown field', { verbose: true }, [/unknown field "verbose"/]],
  ];

  for (const [op, what, input, patterns] of cases) {
    test(`${op}: ${what}`, async () => {
      const root = fixtureProject();
      const parent = fs.readdirSync(path.dirname(root)); // the temp folder holding only demo-project
      const ws = await open(root);
      const started = Date.now();
      const error = await failsWithoutWriting(
        root,
        () => (ws[op as 'post'] as (i: unknown) => Promise<unknown>).call(ws, input),
        'INVALID_INPUT',
        new RegExp(`^${op}: `),
        ...patterns,
      );
      assert.ok(error.message.length < 1000, `the message does not echo the input (${error.message.length} characters)`);
      assert.ok(Date.now() - started < 10000, `rejected in ${Date.now() - started} ms`);
      assert.deepEqual(fs.readdirSync(path.dirname(root)), parent, 'nothing created outside the project');
    });
  }

  test('getHandoff and getDecision refuse path-traversal ids too', async () => {
    const root = fixtureProject();
    const ws = await open(root);
    await rejects(ws.getHandoff('../../../etc/passwd'), 'INVALID_INPUT', /ULID/);
    await rejects(ws.getDecision('../index'), 'INVALID_INPUT', /ULID/);
    assert.equal(await ws.getHandoff(MISSING_ULID), undefined);
  });

  test('a read-only workspace refuses every write and writes nothing', async () => {
    const root = fixtureProject();
    const ws = await openWorkspace(root, { readOnly: true });
    await failsWithoutWriting(root, () => ws.post({ entry_type: 'finding', summary: 's' }), 'INVALID_INPUT', /read-only/);
    await failsWithoutWriting(root, () => ws.acknowledge({ handoff_id: H0, agent_id: 'a' }), 'INVALID_INPUT', /read-only/);
    await failsWithoutWriting(root, () => ws.register({ agent_id: 'a' }), 'INVALID_INPUT', /read-only/);
    // Every writing operation meets the one rule, with the one refusal the extension recognises.
    for (const op of OPERATION_NAMES.filter(writes)) {
      await assert.rejects((ws[op] as (input: unknown) => Promise<unknown>).call(ws, {}), (error: unknown) => {
        assert.ok(isWriteRefusal(error), `${op}: ${(error as Error).message}`);
        assert.match(error.message, new RegExp(`"${op}" would write to the project; nothing was written\\. Trust the workspace`));
        return true;
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('the CLI', () => {
  const cli = (root: string, args: string[], stdin?: string) => {
    const r = spawnSync(process.execPath, [CLI_JS, args[0], '--dir', root, ...args.slice(1)], { input: stdin, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  /** Runs the CLI expecting `code`, a message on stderr matching the patterns, nothing on stdout, no file changed. */
  const expectFailure = (root: string, args: string[], code: number, patterns: RegExp[], stdin?: string) => {
    const before = snapshotTree(root);
    const r = cli(root, args, stdin);
    assert.equal(r.code, code, `exit status of twining ${args.join(' ').slice(0, 100)}; stderr: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^twining: /);
    for (const p of patterns) assert.match(r.stderr, p);
    assert.ok(r.stderr.length < 2000, 'stderr does not echo the input');
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
  };

  test('exit 1 with the problem on stderr for invalid input or usage', () => {
    const root = fixtureProject();
    expectFailure(root, ['post'], 1, [/entry_type/, /summary/]);
    expectFailure(root, ['post', '--entry-type', 'rumour', '--summary', 's'], 1, [/entry_type/]);
    expectFailure(root, ['post', '--entry-type', 'finding', '--sumary', 's'], 1, [/unknown option --sumary/]);
    expectFailure(root, ['frobnicate'], 1, [/unknown command "frobnicate"/]);
    expectFailure(root, ['read', '--limit', 'many'], 1, [/--limit must be a number/]);
    expectFailure(root, ['register', '../../etc/passwd'], 1, [/agent_id/]);
    expectFailure(root, ['acknowledge', '../../etc/passwd', '--agent-id', 'a'], 1, [/handoff_id/, /ULID/]);
    expectFailure(root, ['acknowledge', H0.toLowerCase(), '--agent-id', 'a'], 1, [/handoff_id/]);
    expectFailure(root, ['post', '--input', '{"entry_type": "finding",'], 1, [/--input is not valid JSON/]);
    expectFailure(root, ['post', '--input', '[1]'], 1, [/--input must be a JSON object/]);
    expectFailure(root, ['status', '--now', 'teatime'], 1, [/--now must be an ISO 8601 date/]);
    expectFailure(root, ['post', '--summary'], 1, [/--summary needs a value/]);
    expectFailure(root, ['handoff', '--source-agent', 'a', '--summary', 's'], 1, [/^twining: handoff: results: required \(array\)$/m]);
    expectFailure(root, ['decide', '--domain', 'd', '--scope', 's', '--summary', 'x', '--context', 'c'], 1, [/rationale: required \(string\)/]);
  });

  test('--help marks required options and negatable switches, and long ones wrap', () => {
    const root = fixtureProject();
    const r = cli(root, ['handoff', '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}--summary <string> +\(required\) What is being handed over\.$/m);
    assert.match(r.stdout, /^ {2}--target-agent <string> +The intended receiver/m);
    assert.match(r.stdout, /^ {2}--\[no-\]auto-snapshot +Attach/m);
    const post = cli(root, ['post', '--help']).stdout;
    assert.match(post, /^ {2}--entry-type <need\|offer\|[a-z|]+>\n {44}\(required\) The kind of entry\.$/m);
  });

  test('exit 1 for a 10 MB summary and 100k tags given on standard input', () => {
    const root = fixtureProject();
    expectFailure(root, ['post', '--input', '-'], 1, [/summary/, /200/], JSON.stringify({ entry_type: 'finding', summary: 'x'.repeat(10 * 1024 * 1024) }));
    expectFailure(
      root,
      ['post', '--input', '-'],
      1,
      [/tags/, /100/],
      JSON.stringify({ entry_type: 'finding', summary: 's', tags: Array.from({ length: 100_000 }, (_, i) => `t${i}`) }),
    );
  });

  test('exit 2 for a handoff id that does not exist', () => {
    const root = fixtureProject();
    expectFailure(root, ['acknowledge', MISSING_ULID, '--agent-id', 'tester'], 2, [new RegExp(`Handoff not found: ${MISSING_ULID}`)]);
    expectFailure(root, ['verify', MISSING_ULID], 2, [/Handoff not found/]);
  });

  test('exit 3 for a corrupt handoff record, which is left untouched', () => {
    const root = fixtureProject();
    writeText(root, `handoffs/${H0}.json`, '{"id": ');
    expectFailure(root, ['acknowledge', H0, '--agent-id', 'tester'], 3, [new RegExp(`Handoff ${H0}`), /not valid JSON/]);
    assert.equal(readText(root, `handoffs/${H0}.json`), '{"id": ');
  });

  test('exit 3 for a corrupt registry, which is left untouched', () => {
    const root = fixtureProject();
    writeText(root, 'agents/registry.json', '[{"agent_id": ');
    expectFailure(root, ['register', 'newcomer', '--capabilities', 'x'], 3, [/registry\.json/]);
    assert.equal(readText(root, 'agents/registry.json'), '[{"agent_id": ');
  });

  test('valid calls still succeed (the harness itself works)', () => {
    const root = fixtureProject();
    const r = cli(root, ['post', '--entry-type', 'finding', '--summary', 'from the CLI', '--tags', 'a,b', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { id } = JSON.parse(r.stdout);
    const last = parseJsonl(tw(root, 'blackboard.jsonl')).pop()!;
    assert.equal(last.id, id);
    assert.deepEqual(last.tags, ['a', 'b']);
    const ack = cli(root, ['acknowledge', H1, '--agent-id', 'tester']);
    assert.equal(ack.code, 0, ack.stderr);
  });
});
