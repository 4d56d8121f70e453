/**
 * The decision records a briefing reads for its costs (operations/decision-record-cache.ts): a long-lived
 * engine (`keepRecordsWarm`, as the extension and the MCP server open it) reads the other active
 * decisions' records in the background after a briefing, so the next briefing of another scope
 * reads none (shown here by removing the file: the briefing still carries its rationale); a
 * decision whose record and index entry change together (a git pull, another process) is read
 * again, whatever was kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { tempProject } from '../../../support/tmp';

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise(resolve => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('records read in the background serve the next briefing; a changed index entry reads its record again', async () => {
  const root = tempProject();
  const engine = await openWorkspace(root, { keepRecordsWarm: true, warn: () => undefined });
  await engine.init();
  const decide = (scope: string, rationale: string) =>
    engine.decide({ domain: 'arch', scope, summary: `Decision for ${scope}`, context: 'c', rationale, agent_id: 'writer' }) as Promise<{ id: string }>;
  await decide('a/', 'Rationale A');
  const b = await decide('b/', 'Rationale B');
  const c = await decide('c/', 'Rationale C');

  const first = await engine.assemble({ task: 't', scope: 'a/', agent_id: 'reader' });
  assert.deepEqual(
    first.active_decisions.map(d => d.rationale),
    ['Rationale A'],
  );
  const recordB = engine.layout.decision(b.id);
  // Read in the background meanwhile: the file can go and the next briefing of b/ still has it.
  await new Promise(resolve => setTimeout(resolve, 300));
  fs.renameSync(recordB, `${recordB}.away`);
  const second = await engine.assemble({ task: 't', scope: 'b/', agent_id: 'reader' });
  assert.deepEqual(
    second.active_decisions.map(d => d.rationale),
    ['Rationale B'],
    'the record kept from the background read',
  );
  fs.renameSync(`${recordB}.away`, recordB);

  // Another process changes c's record and its index entry together (as every writer does).
  const recordC = engine.layout.decision(c.id);
  const edited = JSON.parse(fs.readFileSync(recordC, 'utf8'));
  edited.rationale = 'Rationale C, revised';
  edited.commit_hashes = ['abc1234'];
  fs.writeFileSync(recordC, JSON.stringify(edited, null, 2));
  const indexFile = path.join(root, '.twining', 'decisions', 'index.json');
  const index = JSON.parse(fs.readFileSync(indexFile, 'utf8')) as { id: string; commit_hashes: string[] }[];
  index.find(d => d.id === c.id)!.commit_hashes = ['abc1234'];
  fs.writeFileSync(indexFile, JSON.stringify(index, null, 2));
  await until(
    async () => (await engine.assemble({ task: 't', scope: 'c/', agent_id: 'reader' })).active_decisions[0]?.rationale === 'Rationale C, revised',
    'the revised rationale',
  );
});
