/**
 * What the writing operations do on a twining-mcp 2.x folder where 2.x differs from 1.9, read in
 * its 2.x source (src/engine/decisions.ts `decide`, src/engine/blackboard.ts `post`/`resolve`/
 * `touchAgent`, src/storage/sqlite/sqlite-stores.ts `SqliteAgentStore.touch`): `decide` and
 * `override` post no `decision` entry (its issue #30), a decision overlapping others gets a finding
 * and keeps its status, and every post, decide and resolve registers its agent (#32); and that
 * resolve, archive_stale/unarchive, housekeeping and the automatic archive go through the store's
 * records path: rows and record files that agree, in twining-mcp's bytes, and tombstones in
 * archive/. The same records in a 1.x folder keep 1.9's behaviour. Needs node:sqlite (run under
 * Node 24 by scripts/test.js, as every sqlite-*.test.js).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../../src/core';
import { fixtureProject, parseJsonl, tempProject, tw } from '../../../../support/tmp';
import { assertAgree, hasSqlite, mcpRecordPath, openMcpDb, stableStringify, twoXFrom1x } from '../../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: (m: string) => (process.env.TWINING_TEST_WARN ? console.error(m) : undefined) };

const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ'; // security, src/auth/jwt.ts, active
const JWT_WARNING = '01M80HHK5EACAY1D2CS04B635E';
const USERS_FINDING = '01M80HHK8G7GAZNJET9N2K4VQP';

/** A 2.x twin of the reference fixture (rows and record files), and the 1.x original; `config` edits both config.yml. */
function twins(config: (text: string) => string = t => t): { one: string; two: string } {
  const one = fixtureProject();
  const file = tw(one, 'config.yml');
  fs.writeFileSync(file, config(fs.readFileSync(file, 'utf8')));
  const two = tempProject('demo-project');
  twoXFrom1x(tw(one), tw(two));
  return { one, two };
}

type Row = Record<string, any>;
function query(dir: string, sql: string, ...params: unknown[]): Row[] {
  const db = openMcpDb(dir);
  try {
    return db.prepare(sql).all(...params);
  } finally {
    db.close();
  }
}
const posts = (dir: string): Row[] => query(dir, 'SELECT rowid, * FROM blackboard ORDER BY seq').map(r => ({ ...r, entry: JSON.parse(r.data) }));
const agents = (dir: string) => new Map(query(dir, 'SELECT rowid, agent_id, data FROM agents').map(r => [r.agent_id as string, r]));
const archiveLines = (dir: string) =>
  fs.existsSync(path.join(dir, 'archive'))
    ? fs
        .readdirSync(path.join(dir, 'archive'))
        .filter(f => f.endsWith('-blackboard.jsonl'))
        .flatMap(f => parseJsonl(path.join(dir, 'archive', f)))
    : [];

describe("twining-mcp 2.x's write semantics on a 2.x folder", { skip }, () => {
  test('decide posts no decision entry, registers its agent, and notes related decisions with a finding (status kept); a 1.x folder keeps 1.9', async () => {
    const { one, two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const before = posts(dir).length;
    const agentsBefore = agents(dir);
    const input = {
      domain: 'security',
      scope: 'src/auth/',
      summary: 'Rotate signing keys weekly',
      context: 'Audit',
      rationale: 'Shorter exposure',
      agent_id: 'newcomer',
    };
    const made = await engine.decide(input);
    assert.deepEqual(made.conflicts, [{ id: RS256, summary: 'Sign JWTs with RS256 and rotate keys every 30 days' }]);
    const [row] = query(dir, 'SELECT * FROM decisions WHERE id = ?', made.id);
    assert.equal(row.status, 'active', '2.x never demotes the new decision');
    assert.equal(JSON.parse(row.data).status, 'active');

    const added = posts(dir).slice(before);
    assert.deepEqual(
      added.map(r => [r.entry_type, r.entry.summary, r.entry.detail, r.entry.tags, r.scope, r.entry.agent_id]),
      [
        [
          'finding',
          'Related decisions in scope: 1 existing decision(s) overlap',
          `New decision "Rotate signing keys weekly" relates to:\n- ${RS256}: "Sign JWTs with RS256 and rotate keys every 30 days"`,
          ['security'],
          'src/auth/',
          'newcomer',
        ],
      ],
      'one finding and no decision entry',
    );
    const after = agents(dir);
    // SqliteAgentStore.touch's new record, then touched again by the finding's post (as twining-mcp's post does).
    const newcomer = JSON.parse(after.get('newcomer')!.data);
    assert.deepEqual(Object.keys(newcomer), ['agent_id', 'capabilities', 'registered_at', 'last_active']);
    assert.deepEqual(newcomer.capabilities, []);
    assert.ok(made.timestamp <= newcomer.registered_at && newcomer.registered_at <= newcomer.last_active, JSON.stringify(newcomer));
    for (const [id, r] of agentsBefore) assert.deepEqual(after.get(id), r, `${id} untouched`);
    assertAgree(dir);

    // The same decision in the 1.x twin: 1.9's provisional status, conflict warning and decision entry; no agent registered.
    const oneEngine = await openWorkspace(one, quiet);
    const registry = fs.readFileSync(tw(one, 'agents', 'registry.json'), 'utf8');
    const lines = parseJsonl(tw(one, 'blackboard.jsonl')).length;
    const oneMade = await oneEngine.decide(input);
    assert.equal((await oneEngine.decisions({})).decisions.find(d => d.id === oneMade.id)?.status, 'provisional');
    assert.deepEqual(
      parseJsonl(tw(one, 'blackboard.jsonl'))
        .slice(lines)
        .map(e => e.entry_type),
      ['warning', 'decision'],
    );
    assert.equal(fs.readFileSync(tw(one, 'agents', 'registry.json'), 'utf8'), registry);
  });

  test('override posts no decision entry on a 2.x folder', async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const before = posts(dir).length;
    await engine.override({ decision_id: RS256, reason: 'ES256 instead', overridden_by: 'lead' });
    assert.deepEqual(
      posts(dir)
        .slice(before)
        .map(r => r.entry_type),
      [],
    );
    assert.equal(query(dir, 'SELECT status FROM decisions WHERE id = ?', RS256)[0].status, 'overridden');
    assertAgree(dir);
  });

  test('a post refreshes its known agent in place and registers a new one, never "unknown"; resolve rewrites the row and file and registers the resolver', async () => {
    const { one, two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const before = agents(dir);
    const posted = await engine.post({ entry_type: 'finding', summary: 'Keys load slowly', scope: 'src/auth/', agent_id: 'backend-dev' });
    const known = agents(dir).get('backend-dev')!;
    assert.equal(known.rowid, before.get('backend-dev')!.rowid, 'updated in place');
    const touched = JSON.parse(known.data);
    assert.ok(touched.last_active >= posted.timestamp, 'last_active is the time of the touch, after the post');
    assert.deepEqual(touched, { ...JSON.parse(before.get('backend-dev')!.data), last_active: touched.last_active }, 'only last_active changes');
    assert.deepEqual(Object.keys(JSON.parse(known.data)), Object.keys(JSON.parse(before.get('backend-dev')!.data)), 'keys in their order');
    await engine.post({ entry_type: 'finding', summary: 'From nowhere', agent_id: 'unknown' });
    assert.equal(agents(dir).has('unknown'), false);
    const fresh = await engine.post({ entry_type: 'status', summary: 'Started', agent_id: 'night-shift' });
    assert.ok(JSON.parse(agents(dir).get('night-shift')!.data).registered_at >= fresh.timestamp);

    const resolved = await engine.resolve({ ids: [JWT_WARNING], note: 'exp is checked now', agent_id: 'lead' });
    assert.deepEqual(resolved, { resolved: [JWT_WARNING], not_found: [] });
    const [row] = query(dir, 'SELECT data FROM blackboard WHERE id = ?', JWT_WARNING);
    const entry = JSON.parse(row.data);
    assert.deepEqual([entry.status, entry.resolved_by, entry.resolution_note], ['resolved', 'lead', 'exp is checked now']);
    assert.equal(fs.readFileSync(mcpRecordPath(dir, 'posts', entry), 'utf8'), stableStringify(entry));
    assert.ok(agents(dir).has('lead'), 'the resolver is registered');
    assertAgree(dir);

    // 1.9 registers nobody on a write.
    const oneEngine = await openWorkspace(one, quiet);
    const registry = fs.readFileSync(tw(one, 'agents', 'registry.json'), 'utf8');
    await oneEngine.post({ entry_type: 'status', summary: 'Started', agent_id: 'night-shift' });
    await oneEngine.resolve({ ids: [JWT_WARNING], agent_id: 'lead' });
    assert.equal(fs.readFileSync(tw(one, 'agents', 'registry.json'), 'utf8'), registry);
  });

  test('archive_stale and unarchive write rows, record files and the dismissal tombstone as twining-mcp does', async () => {
    const { two } = twins();
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const entryBefore = posts(dir).find(r => r.id === USERS_FINDING)!.entry;
    const r = await engine.archive_stale({ ids: [RS256, USERS_FINDING], reason: 'moved to the gateway' });
    assert.deepEqual([r.archived_decisions, r.archived_entries], [[RS256], [USERS_FINDING]]);
    const decision = JSON.parse(query(dir, 'SELECT data FROM decisions WHERE id = ?', RS256)[0].data);
    assert.deepEqual([decision.status, decision.archived_from], ['archived', 'active']);
    assert.equal(query(dir, 'SELECT status FROM decisions WHERE id = ?', RS256)[0].status, 'archived');
    assert.deepEqual(query(dir, 'SELECT id FROM blackboard WHERE id = ?', USERS_FINDING), [], 'the entry row is gone');
    assert.equal(fs.existsSync(mcpRecordPath(dir, 'posts', entryBefore)), false, 'and its record file');
    const tomb = archiveLines(dir).find(e => e.id === USERS_FINDING);
    assert.ok(tomb, 'a tombstone in .twining/archive/');
    assert.deepEqual({ ...tomb, dismissed: undefined }, { ...entryBefore, dismissed: undefined }, 'the whole entry');
    assert.deepEqual([tomb.dismissed.dismissed_by, tomb.dismissed.reason], ['archive_stale', 'moved to the gateway']);
    assert.ok(r.finding_id && query(dir, 'SELECT id FROM blackboard WHERE id = ?', r.finding_id).length === 1, 'the finding has its row');
    assertAgree(dir);

    await engine.unarchive({ ids: [RS256], reason: 'back in use' });
    const restored = JSON.parse(query(dir, 'SELECT data FROM decisions WHERE id = ?', RS256)[0].data);
    assert.equal(restored.status, 'active');
    assert.equal('archived_from' in restored, false);
    assertAgree(dir);
    // Another window reads the same.
    const again = await openWorkspace(two, quiet);
    assert.equal((await again.decisions({})).decisions.find(d => d.id === RS256)?.status, 'active');
  });

  test('housekeeping (execute) removes duplicate and archived entries through rows and record files, with tombstones in archive/', async () => {
    const { two } = twins(t =>
      t.replace('  max_blackboard_entries_before_archive: 500\n', '  max_blackboard_entries_before_archive: 500\n  retain_recent: 3\n'),
    );
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const first = await engine.post({ entry_type: 'finding', summary: 'Twice said', scope: 'src/', agent_id: 'tester' });
    await engine.post({ entry_type: 'finding', summary: 'Twice said', scope: 'src/', agent_id: 'tester' });
    const preview = await engine.housekeeping({ archive: true });
    assert.equal(preview.dry_run, true);
    const rowsBefore = posts(dir);
    const r = await engine.housekeeping({ execute: true, archive: true });
    assert.deepEqual(r.deduplicated.ids, [first.id]);
    assert.ok(r.archived.count > 0, JSON.stringify(r.archived));
    const kept = new Set(posts(dir).map(p => p.id));
    const gone = rowsBefore.filter(p => !kept.has(p.id));
    assert.equal(gone.length, r.deduplicated.removed + r.archived.count);
    for (const p of gone) assert.equal(fs.existsSync(mcpRecordPath(dir, 'posts', p.entry)), false, `${p.id} has no record file left`);
    const archived = new Set(archiveLines(dir).map(e => e.id));
    for (const p of gone) assert.ok(archived.has(p.id), `${p.id} is kept in .twining/archive/`);
    assert.ok(
      posts(dir).every(p => !['need', 'warning', 'question'].includes(p.entry_type) || kept.has(p.id)),
      'open needs and warnings stay',
    );
    assertAgree(dir);
  });

  test('the automatic archive after a post moves entries out of the rows and record files into archive/', async () => {
    const { two } = twins(t => t.replace('max_blackboard_entries_before_archive: 500', 'max_blackboard_entries_before_archive: 10'));
    const dir = tw(two);
    const engine = await openWorkspace(two, quiet);
    const rowsBefore = posts(dir);
    assert.ok(rowsBefore.length >= 10, 'the fixture is over the threshold');
    await engine.post({ entry_type: 'status', summary: 'One more', agent_id: 'tester' });
    const after = posts(dir);
    assert.ok(after.length < rowsBefore.length, `archived (${rowsBefore.length} → ${after.length} rows)`);
    const kept = new Set(after.map(p => p.id));
    const archived = new Set(archiveLines(dir).map(e => e.id));
    for (const p of rowsBefore.filter(p => !kept.has(p.id))) {
      assert.ok(archived.has(p.id), `${p.id} is in .twining/archive/`);
      assert.equal(fs.existsSync(mcpRecordPath(dir, 'posts', p.entry)), false, `${p.id} has no record file left`);
    }
    assert.ok(
      after.some(p => p.entry_type === 'finding' && /^Archive: \d+ entries archived/.test(p.entry.summary)),
      'the summary finding has its row',
    );
    assertAgree(dir);
  });
});
