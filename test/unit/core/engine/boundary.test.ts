/**
 * Inputs and files validated at the boundary: dates and clocks (docs/format.md §Timestamps), config.yml values
 * (docs/format.md §config.yml), byte-order marks, and paths that are not regular files (FIFOs, devices, directories).
 * Each case checks the message names what was wrong and that nothing stored was changed.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { canonicalTimestamp } from '../../../../src/core/timestamps';
import { parseConfig } from '../../../../src/core/engine/config';
import { readTextIfExists } from '../../../../src/core/storage/json-files';
import { fixtureProject, tempProject, tw, snapshotTree, changedFiles, rejectsWith as rejects } from '../../../support/tmp';

const FIXTURE_ENTRIES = 14;

describe('dates at the boundary', () => {
  test('ISO 8601 dates are taken in their canonical 24-character form', () => {
    assert.equal(canonicalTimestamp('2026-11-22T02:32:12.379Z'), '2026-11-22T02:32:12.379Z');
    assert.equal(canonicalTimestamp('2026-11-22'), '2026-11-22T00:00:00.000Z');
    assert.equal(canonicalTimestamp('2026-11-22T02:32Z'), '2026-11-22T02:32:00.000Z');
    assert.equal(canonicalTimestamp('2026-11-22T03:32:12+01:00'), '2026-11-22T02:32:12.000Z');
    assert.equal(canonicalTimestamp('2024-02-29'), '2024-02-29T00:00:00.000Z');
  });

  for (const [what, value] of [
    ['an extended year', '+010000-01-01T00:00:00.000Z'],
    ['a year after 9999', '10000-01-01'],
    ['a date before 1970', '1969-12-31T23:59:59.999Z'],
    ['an impossible calendar date', '2026-02-30'],
    ['February 29 of a common year', '2025-02-29'],
    ['hour 24', '2026-11-22T24:00:00Z'],
    ['a bare number', '5'],
    ['a date and time without a zone (local time is ambiguous)', '2026-11-22T02:32:12'],
    ['words', 'yesterday'],
  ] as const) {
    test(`refused: ${what} (${value})`, async () => {
      assert.equal(canonicalTimestamp(value), undefined);
      const ws = await openWorkspace(fixtureProject());
      await rejects(ws.read({ since: value }), 'INVALID_INPUT', /since: must be an ISO 8601 date between 1970 and 9999/);
      await rejects(ws.handoffs({ since: value }), 'INVALID_INPUT', /since: must be an ISO 8601 date/);
    });
  }

  test('a since in the far (but writable) future returns nothing; in the past, everything', async () => {
    const ws = await openWorkspace(fixtureProject());
    assert.equal((await ws.read({ since: '9999-12-31', limit: 0 })).total_count, 0);
    assert.equal((await ws.read({ since: '1970-01-01', limit: 0 })).total_count, FIXTURE_ENTRIES);
    assert.equal((await ws.handoffs({ since: '9999-01-01' })).total_count, 0);
  });

  for (const [what, clock, shown] of [
    ['an invalid Date', () => new Date(NaN), /the clock gives an invalid Date/],
    ['year 10000', () => new Date(Date.UTC(10000, 0, 1)), /the clock gives year 10000/],
    ['a time before 1970', () => new Date(-1000), /the clock gives year 1969/],
  ] as const) {
    test(`a clock giving ${what} is refused before anything is written`, async () => {
      const root = fixtureProject();
      const before = snapshotTree(root);
      const ws = await openWorkspace(root, { now: clock });
      await rejects(ws.post({ entry_type: 'finding', summary: 'never written' }), 'INVALID_INPUT', shown);
      await rejects(
        ws.decide({ domain: 'd', scope: 'src/', summary: 's', context: 'c', rationale: 'r', supersedes: '01M80HHKAVJT8FG2B08Q4NGZ4W' }),
        'INVALID_INPUT',
        /nothing was written/,
      );
      await rejects(ws.register({ agent_id: 'a' }), 'INVALID_INPUT', shown);
      assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
    });
  }

  test('clocks far in the past and future that can be written work, and sort as strings', async () => {
    const root = tempProject();
    const early = await openWorkspace(root, { now: () => new Date('1970-01-01T00:00:01.000Z') });
    const late = await openWorkspace(root, { now: () => new Date('9999-12-31T23:59:59.000Z') });
    const a = await late.post({ entry_type: 'finding', summary: 'late' });
    const b = await early.post({ entry_type: 'finding', summary: 'early' });
    assert.equal(a.timestamp.length, 24);
    assert.equal(b.timestamp.length, 24);
    const since = await early.read({ since: '2000-01-01', limit: 0 });
    assert.deepEqual(
      since.entries.map(e => e.summary),
      ['late'],
    );
  });
});

describe('config.yml values', () => {
  test('negative, zero, NaN and wrongly typed values keep their defaults, each with a warning naming the key and the value used', () => {
    const warnings: string[] = [];
    const config = parseConfig(
      [
        'agents:',
        '  liveness:',
        '    idle_after_ms: -5',
        '    gone_after_ms: .nan',
        'delegations:',
        '  timeouts:',
        '    high_ms: 0',
        '    normal_ms: "soon"',
        '    low_ms: 7200000',
        'archive: 7',
        'tools:',
        '  mode: fast',
        'analytics:',
        '  metrics:',
        '    enabled: "yes"',
      ].join('\n'),
      'p',
      m => warnings.push(m),
    );
    assert.deepEqual(config.agents.liveness, { idle_after_ms: 300000, gone_after_ms: 1800000 });
    assert.deepEqual(config.delegations.timeouts, { high_ms: 300000, normal_ms: 1800000, low_ms: 7200000 });
    assert.equal(config.archive.max_blackboard_entries_before_archive, 500);
    assert.equal(config.tools.mode, 'full');
    assert.equal(config.analytics.metrics.enabled, true);
    const expected = [
      /agents\.liveness\.idle_after_ms is -5, but it must be greater than 0; using 300000/,
      /agents\.liveness\.gone_after_ms is NaN, .*; using 1800000/,
      /delegations\.timeouts\.high_ms is 0, .*; using 300000/,
      /delegations\.timeouts\.normal_ms is "soon", but it must be a number; using 1800000/,
      /archive is 7, not a mapping; using the defaults for archive/,
      /tools\.mode is "fast", but it must be full or lite; using "full"/,
      /analytics\.metrics\.enabled is "yes", but it must be a boolean; using true/,
    ];
    for (const pattern of expected)
      assert.ok(
        warnings.some(w => pattern.test(w)),
        `a warning matches ${pattern}: ${warnings.join(' | ')}`,
      );
    assert.equal(warnings.length, expected.length);
  });

  test('idle after gone falls back to both defaults, with a warning', () => {
    const warnings: string[] = [];
    const config = parseConfig('agents:\n  liveness:\n    idle_after_ms: 600000\n    gone_after_ms: 60000\n', 'p', m => warnings.push(m));
    assert.deepEqual(config.agents.liveness, { idle_after_ms: 300000, gone_after_ms: 1800000 });
    assert.match(warnings.join('\n'), /idle_after_ms \(600000\) must be less than gone_after_ms \(60000\)/);
  });

  test('with negative thresholds and timeouts on disk, agents are not all gone and delegate works', async () => {
    const root = fixtureProject();
    fs.writeFileSync(
      tw(root, 'config.yml'),
      'agents:\n  liveness:\n    idle_after_ms: -1\n    gone_after_ms: -1\ndelegations:\n  timeouts:\n    normal_ms: -1000\n',
    );
    const warnings: string[] = [];
    const now = new Date();
    const ws = await openWorkspace(root, { warn: m => warnings.push(m), now: () => now });
    await ws.register({ agent_id: 'fresh' });
    const agents = await ws.agents();
    assert.equal(agents.agents.find(a => a.agent_id === 'fresh')!.liveness, 'active');
    const d = await ws.delegate({ summary: 'help', required_capabilities: ['x'] });
    assert.equal(Date.parse(d.expires_at) - now.getTime(), 1800000);
    assert.ok(warnings.some(w => /delegations\.timeouts\.normal_ms is -1000/.test(w)));
  });
});

describe('byte-order marks', () => {
  test('a BOM at the start of blackboard.jsonl, the handoff index and a JSON file hides nothing', async () => {
    const root = fixtureProject();
    for (const rel of ['blackboard.jsonl', 'handoffs/index.jsonl', 'agents/registry.json', 'decisions/index.json']) {
      fs.writeFileSync(tw(root, rel), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fs.readFileSync(tw(root, rel))]));
    }
    const warnings: string[] = [];
    const ws = await openWorkspace(root, { warn: m => warnings.push(m) });
    assert.equal((await ws.read({ limit: 0 })).total_count, FIXTURE_ENTRIES);
    assert.equal((await ws.handoffs()).total_count, 2);
    assert.equal((await ws.agents()).total_registered, 4);
    assert.ok((await ws.decisions()).total_count > 0);
    // An acknowledgement rewrites the index: the first line survives (without the BOM).
    await ws.acknowledge({ handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4W', agent_id: 'me' });
    const lines = fs.readFileSync(tw(root, 'handoffs/index.jsonl'), 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 2);
    for (const line of lines) JSON.parse(line);
    assert.deepEqual(warnings, []);
  });
});

describe('reading a whole file', () => {
  test('empty, large with multi-byte characters, and larger than its size said (as a file grown since): all of it, exactly', async () => {
    const dir = tempProject();
    const empty = path.join(dir, 'empty.json');
    fs.writeFileSync(empty, '');
    assert.equal(await readTextIfExists(empty), '');
    const large = path.join(dir, 'large.json');
    const text = 'é€😀 decision '.repeat(300_000);
    fs.writeFileSync(large, '\uFEFF' + text);
    assert.equal(await readTextIfExists(large), text, 'the BOM goes, the rest is exact');
    assert.equal(await readTextIfExists(path.join(dir, 'missing.json')), undefined);
    // /proc files say size 0 and hold more: read on until the end, as after a rewrite in place.
    if (fs.existsSync('/proc/self/status')) assert.match((await readTextIfExists('/proc/self/status')) ?? '', /^Name:[\s\S]*\nPid:\s+\d+/);
  });
});

describe('paths that are not regular files', () => {
  const cases: [string, (file: string) => void][] = [
    ['a FIFO', file => execFileSync('mkfifo', [file])],
    ['a directory', file => fs.mkdirSync(file)],
    ['a device (/dev/zero)', file => fs.symlinkSync('/dev/zero', file)],
  ];
  for (const [what, make] of cases) {
    test(`${what} where blackboard.jsonl belongs is refused with a message, without hanging`, async () => {
      const root = fixtureProject();
      fs.rmSync(tw(root, 'blackboard.jsonl'));
      make(tw(root, 'blackboard.jsonl'));
      const ws = await openWorkspace(root, { warn: () => undefined });
      await rejects(ws.read(), 'CORRUPT', /blackboard\.jsonl is a (FIFO|directory|device).*not a regular file/);
      await assert.rejects(ws.post({ entry_type: 'finding', summary: 'never written' }), (error: any) => {
        assert.match(error.message, /blackboard\.jsonl/);
        assert.match(error.message, /nothing was written|neither reads nor writes/);
        return true;
      });
    });
    test(`${what} where the registry belongs is refused with a message`, async () => {
      const root = fixtureProject();
      fs.rmSync(tw(root, 'agents/registry.json'));
      make(tw(root, 'agents/registry.json'));
      const ws = await openWorkspace(root, { warn: () => undefined });
      await rejects(ws.agents(), 'CORRUPT', /registry\.json is a .*not a regular file/);
    });
  }

  test('a FIFO handoff record is refused by name, and listing still works', async () => {
    const root = fixtureProject();
    const id = '01M80HHKAVJT8FG2B08Q4NGZ4W';
    fs.rmSync(tw(root, `handoffs/${id}.json`));
    execFileSync('mkfifo', [tw(root, `handoffs/${id}.json`)]);
    const ws = await openWorkspace(root, { warn: () => undefined });
    await rejects(ws.verify({ handoff_id: id }), 'CORRUPT', new RegExp(`${id}\\.json is a FIFO`));
    assert.equal((await ws.handoffs()).total_count, 2);
    assert.ok(path.isAbsolute(root));
  });
});
