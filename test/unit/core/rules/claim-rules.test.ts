/** Claims as pure rules: which targets collide (prefix and glob, both ways) and when a claim lapses. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseTarget, targetsOverlap } from '../../../../src/core/rules/claim-paths';
import { ClaimRecord, claimConflicts, claimState, describeHolder, prune } from '../../../../src/core/rules/claims';

test('targets collide by folder prefix, both ways, and not across siblings', () => {
  assert.equal(targetsOverlap('src/auth/', 'src/auth/jwt.ts'), true);
  assert.equal(targetsOverlap('src/auth/jwt.ts', 'src/auth/'), true);
  assert.equal(targetsOverlap('src/', 'src/auth/'), true);
  assert.equal(targetsOverlap('src/auth/', 'src/authz/'), false);
  assert.equal(targetsOverlap('src/auth/jwt.ts', 'src/auth/jwt.ts.bak'), false);
  assert.equal(targetsOverlap('src/auth', 'src/auth/jwt.ts'), false, 'a file path is not a folder');
  assert.equal(targetsOverlap('src/a.ts', 'src/a.ts'), true);
});

test('globs collide with the paths and folders they can match, and with globs that can meet them', () => {
  assert.equal(targetsOverlap('src/**/*.sql', 'src/db/a.sql'), true);
  assert.equal(targetsOverlap('src/db/a.sql', 'src/**/*.sql'), true);
  assert.equal(targetsOverlap('src/**/*.sql', 'src/a.sql'), true, '** matches no folder too');
  assert.equal(targetsOverlap('src/**/*.sql', 'src/db/a.ts'), false);
  assert.equal(targetsOverlap('src/**/*.sql', 'docs/'), false);
  assert.equal(targetsOverlap('src/**/*.sql', 'src/db/'), true, 'the folder may hold .sql files');
  assert.equal(targetsOverlap('src/*.sql', 'src/db/'), false, '* stays inside one segment');
  assert.equal(targetsOverlap('src/*.sql', 'src/'), true);
  assert.equal(targetsOverlap('src/*.sql', 'src/*.ts'), false, 'different endings cannot meet');
  assert.equal(targetsOverlap('src/a*', 'src/*.ts'), true);
  assert.equal(targetsOverlap('src/a*', 'src/b*'), false);
  assert.equal(targetsOverlap('**', 'anything/at/all.md'), true);
  assert.equal(targetsOverlap('src/file?.ts', 'src/file1.ts'), true);
  assert.equal(targetsOverlap('src/file[12].ts', 'src/file3.ts'), false);
  assert.equal(targetsOverlap('src/**/test/*.ts', 'src/a/b/test/x.ts'), true);
  assert.equal(targetsOverlap('src/**/test/*.ts', 'src/a/b/x.ts'), false);
});

test('a delegation collides only with itself', () => {
  const d = 'delegation:01M80HHKAVJT8FG2B08Q4NGZ4W';
  assert.equal(targetsOverlap(d, d), true);
  assert.equal(targetsOverlap(d, 'delegation:01M80HHKAVJT8FG2B08Q4NGZ4X'), false);
  assert.equal(targetsOverlap(d, '**'), false);
});

test('targets are normalised, and what cannot be a target is named', () => {
  assert.deepEqual(normaliseTarget('./src//auth/'), { target: 'src/auth/' });
  assert.deepEqual(normaliseTarget('src\\auth\\jwt.ts'), { target: 'src/auth/jwt.ts' });
  assert.match((normaliseTarget('../etc/passwd') as { error: string }).error, /inside the project/);
  assert.match((normaliseTarget('./') as { error: string }).error, /names a file/);
  assert.match((normaliseTarget('delegation:nope') as { error: string }).error, /ULID/);
});

const at = (iso: string) => new Date(iso);
const claim = (over: Partial<ClaimRecord> = {}): ClaimRecord => ({
  id: '01M80HHKAVJT8FG2B08Q4NGZ4W',
  agent_id: 'alice',
  target: 'src/auth/',
  reason: 'JWT rework',
  claimed_at: '2026-11-22T10:00:00.000Z',
  renewed_at: '2026-11-22T10:00:00.000Z',
  expires_at: '2026-11-22T10:30:00.000Z',
  ...over,
});

test('a claim is live until its expiry (exclusive), then lapses as expired', () => {
  assert.deepEqual(claimState(claim(), { now: at('2026-11-22T10:29:59.999Z') }), { state: 'live' });
  assert.deepEqual(claimState(claim(), { now: at('2026-11-22T10:30:00.000Z') }), { state: 'lapsed', lapsed_because: 'expired' });
  assert.deepEqual(claimState(claim({ released_at: '2026-11-22T10:01:00.000Z' }), { now: at('2026-11-22T10:02:00.000Z') }), { state: 'released' });
});

test('a claim lapses when its holder shows no sign of life for gone_after_ms, and a recent sign keeps it', () => {
  const long = claim({ expires_at: '2026-11-23T10:00:00.000Z' });
  const clock = (now: string, seen?: string) => ({ now: at(now), goneAfterMs: 60_000, lastSeen: () => seen });
  assert.equal(claimState(long, clock('2026-11-22T10:00:59.999Z')).state, 'live');
  assert.deepEqual(claimState(long, clock('2026-11-22T10:01:00.000Z')), { state: 'lapsed', lapsed_because: 'holder gone' });
  assert.equal(claimState(long, clock('2026-11-22T10:05:00.000Z', '2026-11-22T10:04:30.000Z')).state, 'live');
});

test('claimConflicts lists the live claims of other agents only, oldest first', () => {
  const claims = [
    claim({ id: 'B', agent_id: 'bob', target: 'src/**/*.ts', claimed_at: '2026-11-22T10:05:00.000Z' }),
    claim({ id: 'A', agent_id: 'alice', target: 'src/auth/' }),
    claim({ id: 'C', agent_id: 'carol', target: 'src/auth/x.ts', expires_at: '2026-11-22T10:00:01.000Z' }),
    claim({ id: 'D', agent_id: 'dave', target: 'src/auth/x.ts', released_at: '2026-11-22T10:00:01.000Z' }),
    { not: 'a claim' },
  ];
  const now = { now: at('2026-11-22T10:10:00.000Z') };
  assert.deepEqual(
    claimConflicts(claims, 'src/auth/x.ts', 'erin', now).map(c => c.id),
    ['A', 'B'],
  );
  assert.deepEqual(
    claimConflicts(claims, 'src/auth/x.ts', 'alice', now).map(c => c.id),
    ['B'],
  );
  assert.match(
    describeHolder(claims[1] as ClaimRecord),
    /^alice holds src\/auth\/ since 2026-11-22T10:00:00.000Z until 2026-11-22T10:30:00.000Z \(JWT rework\)$/,
  );
});

test('prune keeps live claims and ended ones for a week', () => {
  const now = at('2026-12-01T00:00:00.000Z');
  const items = [
    claim({ id: 'old', released_at: '2026-11-23T00:00:00.000Z' }),
    claim({ id: 'recent', released_at: '2026-11-25T00:00:00.000Z' }),
    claim({ id: 'expired-long-ago' }),
    claim({ id: 'live', expires_at: '2026-12-01T01:00:00.000Z' }),
    'kept as it is',
  ];
  assert.deepEqual(
    prune(items, now).map(i => (typeof i === 'string' ? i : (i as ClaimRecord).id)),
    ['recent', 'live', 'kept as it is'],
  );
});
