/**
 * twining-mcp 2.x's `records/` files merged by the driver: each record file changed on both
 * branches is merged field by field with the 1.x rules (resolution kept, first resolve wins,
 * status by precedence, commit hashes unioned, acknowledgement kept) and written in the bytes
 * twining-mcp's record export writes (keys sorted recursively, 2 spaces, newline; re-implemented
 * below from src/storage/sync/record-export.ts at 0b79c990, see test/fixtures/twining-2/README.md).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { mergeTwiningFile } from '../../../../src/core/merge/merge-file';
import { ATTRIBUTE_LINES } from '../../../../src/core/git/git-setup';
import { commitAll, conflicted, fixtureRepo, git, gitMay } from '../../../support/git-repo';

/** twining-mcp's stableStringify, written again here from its description: the test's own copy. */
function exported(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map(k => [k, sort((v as any)[k])]),
          )
        : v;
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

const ID = '01KAYQ3W1Z8Q0S7V4XJ2N5M6PB';
const POST = `.twining/records/posts/2026-11/${ID}.json`;
const warning = {
  id: ID,
  timestamp: '2026-11-20T10:00:00.000Z',
  agent_id: 'a',
  entry_type: 'warning',
  summary: 'auth tokens leak',
  detail: '',
  tags: [],
  scope: 'src/auth/',
  relates_to: [],
};
const resolvedBy = (by: string, at: string, note?: string) => ({
  ...warning,
  status: 'resolved',
  resolved_at: at,
  resolved_by: by,
  ...(note ? { resolution_note: note } : {}),
});
const merge = (file: string, base: unknown, a: unknown, b: unknown) => {
  const ab = mergeTwiningFile(file, exported(base), exported(a), exported(b))!;
  const ba = mergeTwiningFile(file, exported(base), exported(b), exported(a))!;
  assert.equal(ab.text, ba.text, 'the same whichever side is ours');
  assert.ok(ab.clean);
  return ab;
};

describe('records/ files merged by field', () => {
  test('a post resolved on one side and given a tag on the other keeps both, in the export bytes', () => {
    const out = merge(POST, warning, resolvedBy('bob', '2026-11-21T09:00:00.000Z', 'fixed in #12'), { ...warning, tags: ['security'] });
    assert.equal(out.text, exported({ ...resolvedBy('bob', '2026-11-21T09:00:00.000Z', 'fixed in #12'), tags: ['security'] }));
  });

  test('a post resolved on both sides keeps the first resolve whole (its note or its lack of one)', () => {
    const first = resolvedBy('carol', '2026-11-21T08:00:00.000Z');
    const out = merge(POST, warning, first, resolvedBy('bob', '2026-11-21T09:00:00.000Z', 'later note'));
    assert.equal(out.text, exported(first));
    assert.match(out.notes.join('\n'), /resolved on both sides; kept the first resolve \(2026-11-21T08:00:00\.000Z, by carol\)/);
  });

  test('a decision: status by precedence and commit hashes unioned, as decisions/<id>.json', () => {
    const base = { id: ID, timestamp: '2026-11-20T10:00:00.000Z', status: 'active', summary: 'JWT', commit_hashes: [] };
    const out = merge(
      `.twining/records/decisions/${ID}.json`,
      base,
      { ...base, status: 'overridden', overridden_by: 'lead', override_reason: 'no' },
      { ...base, commit_hashes: ['abc'] },
    );
    assert.equal(out.text, exported({ ...base, status: 'overridden', overridden_by: 'lead', override_reason: 'no', commit_hashes: ['abc'] }));
  });

  test('a handoff acknowledged on both sides keeps the earlier acknowledgement', () => {
    const base = { id: ID, created_at: '2026-11-20T10:00:00.000Z', source_agent: 'a', summary: 's', results: [], scope: 'project' };
    const early = { ...base, acknowledged_by: 'x', acknowledged_at: '2026-11-21T08:00:00.000Z' };
    const out = merge(`.twining/records/handoffs/${ID}.json`, base, early, { ...base, acknowledged_by: 'y', acknowledged_at: '2026-11-21T09:00:00.000Z' });
    assert.equal(out.text, exported(early));
  });

  test('paths outside the record layout keep git`s text merge', () => {
    assert.equal(mergeTwiningFile('.twining/records/RECORDS-FROZEN.md', '', 'a', 'b'), undefined);
    assert.equal(mergeTwiningFile('.twining/records/agents/x.json', '{}', '{}', '{}'), undefined);
  });
});

describe('git merges records/ through the driver', () => {
  test('git-setup routes records/**/*.json; a post resolved on both branches (a text conflict) merges to the first resolve', () => {
    assert.ok(ATTRIBUTE_LINES.some(line => line.startsWith('records/**/*.json ')));
    const repo = fixtureRepo();
    const file = path.join(repo, POST);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, exported(warning));
    commitAll(repo, 'a 2.x post');
    assert.match(git(repo, 'check-attr', 'merge', '--', POST), /merge: twining$/, 'routed to the driver');
    git(repo, 'checkout', '-q', '-b', 'other');
    const first = resolvedBy('carol', '2026-11-21T08:00:00.000Z');
    fs.writeFileSync(file, exported(first));
    commitAll(repo, 'resolved by carol');
    git(repo, 'checkout', '-q', 'main');
    fs.writeFileSync(file, exported(resolvedBy('bob', '2026-11-21T09:00:00.000Z', 'fixed')));
    commitAll(repo, 'resolved by bob');
    const result = gitMay(repo, 'merge', '--no-edit', 'other');
    assert.equal(result.status, 0, result.stderr + result.stdout);
    assert.deepEqual(conflicted(repo), []);
    assert.equal(fs.readFileSync(file, 'utf8'), exported(first));
  });
});
