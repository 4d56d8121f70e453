/**
 * Records and indexes brought back in step on the next open, with a warning saying what was
 * repaired: decision records without an index entry (a writer killed between the two, for real in
 * a SIGKILL loop), acknowledgements recorded in the handoff but not in the index, and blackboard
 * lines without an id, which snapshots leave out instead of storing `null`.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { fixtureProject, tw, startWorker, sleep } from '../../../support/tmp';

const HANDOFF = '01M80HHKAVJT8FG2B08Q4NGZ4W';

function decisionsOnDisk(root: string) {
  const index = JSON.parse(fs.readFileSync(tw(root, 'decisions/index.json'), 'utf8')) as { id: string; status: string }[];
  const records = fs
    .readdirSync(tw(root, 'decisions'))
    .filter(n => /^[0-9A-Z]{26}\.json$/.test(n))
    .map(n => n.slice(0, 26));
  return { index, records };
}

describe('repairs on the next open', () => {
  test('a decision record without its index entry is indexed, with a warning naming it', async () => {
    const root = fixtureProject();
    const ws = await openWorkspace(root, { warn: () => undefined });
    const { id } = await ws.decide({ domain: 'repair', scope: 'src/repair/', summary: 'orphaned', context: 'c', rationale: 'r' });
    // As a writer killed after the record and before the index leaves it:
    const index = JSON.parse(fs.readFileSync(tw(root, 'decisions/index.json'), 'utf8')).filter((d: { id: string }) => d.id !== id);
    fs.writeFileSync(tw(root, 'decisions/index.json'), JSON.stringify(index, null, 2));
    const warnings: string[] = [];
    const fresh = await openWorkspace(root, { warn: m => warnings.push(m) });
    const listed = await fresh.decisions({ domain: 'repair' });
    assert.deepEqual(
      listed.decisions.map(d => d.id),
      [id],
    );
    assert.equal(listed.decisions[0].summary, 'orphaned');
    assert.ok(
      warnings.some(w => w.includes(`indexed 1 decision record(s)`) && w.includes(id)),
      warnings.join('\n'),
    );
    const disk = decisionsOnDisk(root);
    assert.deepEqual(new Set(disk.index.map(d => d.id)), new Set(disk.records));
  });

  test('an acknowledgement in the record but not in the index is carried into the index', async () => {
    const root = fixtureProject();
    const ws = await openWorkspace(root, { warn: () => undefined });
    await ws.acknowledge({ handoff_id: HANDOFF, agent_id: 'taker' });
    const lines = fs
      .readFileSync(tw(root, 'handoffs/index.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l));
    for (const l of lines) if (l.id === HANDOFF) l.acknowledged = false;
    fs.writeFileSync(tw(root, 'handoffs/index.jsonl'), lines.map(l => JSON.stringify(l) + '\n').join(''));
    const warnings: string[] = [];
    const fresh = await openWorkspace(root, { warn: m => warnings.push(m) });
    const open = await fresh.handoffs({ acknowledged: false });
    assert.ok(!open.handoffs.some(h => h.id === HANDOFF), 'listed as acknowledged, as its record says');
    assert.ok(
      warnings.some(w => w.includes('marked 1 handoff(s) acknowledged') && w.includes(HANDOFF)),
      warnings.join('\n'),
    );
    const repaired = fs
      .readFileSync(tw(root, 'handoffs/index.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l));
    assert.equal(repaired.find(l => l.id === HANDOFF).acknowledged, true);
  });

  test('blackboard lines without an id stay out of snapshots; verify calls the handoff intact', async () => {
    const root = fixtureProject();
    fs.appendFileSync(
      tw(root, 'blackboard.jsonl'),
      JSON.stringify({ entry_type: 'warning', summary: 'no id', scope: 'project', timestamp: '2026-11-22T02:40:00.000Z' }) + '\n',
    );
    const ws = await openWorkspace(root, { warn: () => undefined });
    const h = await ws.handoff({ source_agent: 'a', summary: 'with an unnamed warning around', results: [] });
    for (const list of [h.context_snapshot.decision_ids, h.context_snapshot.warning_ids, h.context_snapshot.finding_ids]) {
      assert.ok(
        list.every(id => typeof id === 'string'),
        `no null id: ${JSON.stringify(list)}`,
      );
    }
    const stored = JSON.parse(fs.readFileSync(tw(root, `handoffs/${h.id}.json`), 'utf8'));
    assert.ok(!JSON.stringify(stored.context_snapshot).includes('null'));
    const v = await (await openWorkspace(root, { warn: () => undefined })).verify({ handoff_id: h.id });
    assert.equal(v.intact, true);
  });
});

describe('decision writers killed with SIGKILL, again and again', () => {
  test('every decision record ends up indexed once, and every index entry has its record', async () => {
    const root = fixtureProject();
    let kills = 0;
    for (let round = 0; round < 8; round++) {
      const worker = startWorker({ mode: 'decide', root, name: `d${round}`, ops: 1_000_000, domain: `race${round % 2}` });
      await worker.waitFor(m => m.op === 'decide');
      await sleep(20 + ((round * 37) % 90));
      worker.child.kill('SIGKILL');
      await worker.exited;
      kills++;
    }
    const warnings: string[] = [];
    const ws = await openWorkspace(root, { warn: m => warnings.push(m) });
    // A killed writer's lock is taken over at once; its orphaned record, if any, is indexed.
    const listed = await ws.decisions();
    const disk = decisionsOnDisk(root);
    assert.deepEqual(new Set(disk.index.map(d => d.id)), new Set(disk.records), 'records and index name the same decisions');
    assert.equal(disk.index.length, new Set(disk.index.map(d => d.id)).size, 'no decision indexed twice');
    assert.equal(listed.total_count, disk.index.length);
    for (const d of disk.index)
      assert.equal(JSON.parse(fs.readFileSync(tw(root, 'decisions', `${d.id}.json`), 'utf8')).status, d.status, `${d.id}: record and index agree`);
    process.stdout.write(
      `# ${kills} decision writers killed; ${disk.index.length} decisions; repairs: ${warnings.filter(w => /indexed|marked/.test(w)).join(' | ') || 'none needed'}\n`,
    );
  });
});
