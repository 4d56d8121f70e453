/**
 * twining_read with a scope goes through the positions kept per scope (storage/files/scope-positions.ts):
 * it must return exactly what the filter of docs/format.md §Reading the blackboard returns (types, then scope overlap,
 * total_count before the limit, the last N oldest first), after appends and rewrites too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import type { BlackboardEntry } from '../../../../src/core/records';
import { overlaps } from '../../../../src/core/scope';
import { at, emptyProject, readLines } from '../../../support/fixture';

test('a scoped read equals the filter over every entry, as lines are appended and after a rewrite', async () => {
  const root = emptyProject();
  const ws = await openWorkspace(root, { now: at('2026-11-22T02:33:00.000Z') });
  await ws.init();
  const scopes = ['project', 'src/', 'src/auth/', 'src/auth/jwt.ts', 'src/api/', 'src/api/v1.ts', 'docs/'];
  const types = ['warning', 'finding', 'need', 'status'] as const;
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const lines: string[] = [];
  for (let i = 0; i < 400; i++)
    lines.push(
      JSON.stringify({
        entry_type: types[next(4)],
        summary: `e${i}`,
        detail: '',
        tags: [],
        scope: scopes[next(scopes.length)],
        agent_id: 'a',
        id: `01M80HHK${String(i).padStart(18, '0')}`,
        timestamp: '2026-11-22T02:32:12.000Z',
      }),
    );
  fs.writeFileSync(path.join(root, '.twining', 'blackboard.jsonl'), lines.join('\n') + '\n');
  const expected = (scope: string, entryTypes: string[] | undefined, limit: number) => {
    const all = readLines(root, 'blackboard.jsonl') as BlackboardEntry[];
    const m = all.filter(e => (!entryTypes || entryTypes.includes(e.entry_type)) && overlaps(e.scope, scope));
    return { entries: limit > 0 ? m.slice(-limit) : m, total_count: m.length };
  };
  const check = async () => {
    for (const scope of ['src/auth/', 'src/api/v1.ts', 'docs/', 'project', 'src/', 'nothing/'])
      for (const entryTypes of [undefined, ['warning'], ['need', 'status']])
        for (const limit of [0, 1, 5, 50])
          assert.deepEqual(
            await ws.read({ scope, entry_types: entryTypes as never, limit }),
            expected(scope, entryTypes, limit),
            `${scope} ${String(entryTypes)} ${limit}`,
          );
  };
  await check();
  for (let i = 0; i < 20; i++) await ws.post({ entry_type: 'warning', summary: `later ${i}`, scope: scopes[next(scopes.length)] });
  await check();
  const some = (readLines(root, 'blackboard.jsonl') as BlackboardEntry[]).filter((_, i) => i % 3 === 0).map(e => e.id);
  await ws.dismiss({ ids: some });
  await check();
});
