/**
 * Many decision records under a low limit of open files: `why` of a folder and `reconsider` (which
 * looks for the decisions depending on one) read every matching record. Read all at once, the
 * opens past the limit failed with EMFILE, the records were taken as unreadable, and the answers
 * silently left them out. The CLI runs here with 256 open files allowed (the default soft limit on
 * macOS; Node raises it to the hard limit, which `ulimit -n` lowers too).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { mapBounded } from '../../../../src/core/storage/bounded';
import { at, emptyProject } from '../../../support/fixture';
import { CLI_JS, tw } from '../../../support/tmp';

const COUNT = 1200;

/** A folder with COUNT decisions under src/, written as files (the last one depends on the first). */
async function folder(): Promise<{ root: string; ids: string[] }> {
  const root = emptyProject();
  await (await openWorkspace(root, { now: at('2026-11-24T04:00:00.000Z') })).init();
  const ids = Array.from({ length: COUNT }, (_, i) => `01M9000000000000000000${String(i).padStart(4, '0')}`);
  const index = ids.map((id, i) => {
    const timestamp = new Date(Date.UTC(2026, 10, 1) + i * 60000).toISOString();
    const record = {
      id,
      agent_id: 'a',
      domain: 'architecture',
      scope: `src/mod${i % 7}/`,
      summary: `Decision ${i}`,
      context: 'c',
      rationale: 'r',
      constraints: [],
      alternatives: [],
      depends_on: i === COUNT - 1 ? [ids[0]] : [],
      confidence: 'medium',
      reversible: true,
      affected_files: [],
      affected_symbols: [],
      commit_hashes: [],
      timestamp,
      status: 'active',
    };
    fs.writeFileSync(tw(root, 'decisions', `${id}.json`), JSON.stringify(record, null, 2));
    const { domain, scope, summary, confidence, status, affected_files, affected_symbols, commit_hashes } = record;
    return { id, timestamp, domain, scope, summary, affected_files, affected_symbols, confidence, status, commit_hashes };
  });
  fs.writeFileSync(tw(root, 'decisions', 'index.json'), JSON.stringify(index, null, 2));
  return { root, ids };
}

/** The CLI's JSON answer, run with at most 256 files open. */
function cliUnderLimit(args: string[]): Record<string, unknown> {
  const out = execFileSync('sh', ['-c', 'ulimit -n 256 && exec "$0" "$@"', process.execPath, CLI_JS, ...args, '--json'], { encoding: 'utf8' });
  return JSON.parse(out);
}

describe('many records under a low limit of open files', { skip: process.platform === 'win32' && 'ulimit is a POSIX shell builtin' }, () => {
  test('why of a folder lists every decision in it, and reconsider finds the dependent read last', async () => {
    const { root, ids } = await folder();
    const why = cliUnderLimit(['why', '--dir', root, '--scope', 'src/']) as { decisions: { id: string }[]; active_count: number };
    assert.equal(why.decisions.length, COUNT);
    assert.equal(why.active_count, COUNT);
    const reconsidered = cliUnderLimit(['reconsider', '--dir', root, '--decision-id', ids[0], '--new-context', 'The cache moved']) as { dependents: string[] };
    assert.deepEqual(reconsidered.dependents, [ids[COUNT - 1]]);
  });

  test('mapBounded keeps the order and never runs more than its limit at once', async () => {
    let running = 0;
    let most = 0;
    const results = await mapBounded(
      Array.from({ length: 50 }, (_, i) => i),
      async i => {
        running++;
        most = Math.max(most, running);
        await new Promise(resolve => setTimeout(resolve, (i * 7) % 5));
        running--;
        return i * 2;
      },
      4,
    );
    assert.deepEqual(
      results,
      Array.from({ length: 50 }, (_, i) => i * 2),
    );
    assert.equal(most, 4);
    assert.deepEqual(await mapBounded([], () => Promise.resolve(1)), []);
  });

  test('mapBounded throws the first failure only once every call has settled', async () => {
    let running = 0;
    let settled = 0;
    await assert.rejects(
      mapBounded(
        Array.from({ length: 20 }, (_, i) => i),
        async i => {
          running++;
          await new Promise(resolve => setTimeout(resolve, i === 0 ? 0 : 5));
          running--;
          settled++;
          if (i === 0 || i === 3) throw new Error(`item ${i} failed`);
          return i;
        },
        4,
      ),
      /item 0 failed/,
    );
    assert.equal(running, 0, 'nothing still runs when the failure is thrown');
    assert.equal(settled, 20, 'the items after the failure were still done');
  });
});
