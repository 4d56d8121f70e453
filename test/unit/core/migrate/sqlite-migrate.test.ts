/**
 * `twining migrate` both ways (src/core/migrate/migrate-ops.ts), nothing lost. Followed from
 * twining-mcp's own migration (daveangulo/twining-mcp: src/migrate/forward.ts and config-edit.ts at
 * 75b67af2, reverse.ts at dfd6adde, verify.ts at 49d10113, cli.ts at 166a69df;
 * src/storage/sync/record-export.ts at 0b79c990, record-ingest.ts at 4b698631), with the rows and
 * record files it would leave checked against the re-implementation of its store in
 * twining-mcp-2x.ts. The folder is the reference fixture (test/fixtures/reference-twining, a copy of
 * twining-mcp 1.9's folder): migrated forward, every reading operation gives what it gives on the
 * 1.x folder; migrated back, the records equal the original ones. Dry runs write nothing; a write
 * failing half-way, or a migration killed, leaves a folder that reads as before. Needs node:sqlite:
 * scripts/test.js runs this file under Node 24.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn, spawnSync } from 'child_process';
import * as yaml from 'js-yaml';
import { migrate, openWorkspace, TwiningEngine } from '../../../../src/core';
import { CLI_JS, CORE_JS, changedFiles, fixtureProject, sleep, snapshotTree, tempProject, tw } from '../../../support/tmp';
import { hasSqlite, mcpHandoffIndex, mcpRecordPath, openMcpDb, stableStringify, twoXFrom1x } from '../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: (m: string) => (process.env.TWINING_TEST_WARN ? console.error(m) : undefined) };
const KINDS = ['posts', 'decisions', 'entities', 'relations', 'handoffs'] as const;
type Kind = (typeof KINDS)[number];

/** The results of every reading operation (what a view, tool or CLI command shows). */
/**
 * status without its record route: the route names the folder each engine was opened on (two
 * folders here), so it is checked to name that folder and left out of the comparison.
 */
function statusOf(status: Awaited<ReturnType<TwiningEngine['status']>>, engine: TwiningEngine): unknown {
  const { record, ...rest } = status as typeof status & { record?: { path: string } };
  assert.equal(record?.path, engine.layout.dir);
  return rest;
}

async function readAll(root: string): Promise<unknown> {
  const engine: TwiningEngine = await openWorkspace(root, quiet);
  const handoffs = await engine.handoffs({});
  const first = handoffs.handoffs[0]?.id;
  return {
    read: await engine.read({ limit: 1000 }),
    decisions: await engine.decisions({}),
    handoffs,
    agents: await engine.agents({}),
    status: statusOf(await engine.status({}), engine),
    why: await engine.why({ scope: 'src/' }),
    whyAuth: await engine.why({ scope: 'src/auth/' }),
    search: await engine.search({ query: 'token' }),
    verify: first ? await engine.verify({ handoff_id: first }).catch((e: Error) => e.message) : undefined,
  };
}

const json = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const lines = (file: string) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l))
    : [];

/** The 1.x folder's records by kind (as parsed objects, in their files' order) and its agents. */
function records1x(dir: string): Record<Kind | 'agents', Record<string, any>[]> {
  const decisionIds: string[] = json(path.join(dir, 'decisions', 'index.json')).map((d: { id: string }) => d.id);
  const handoffIds: string[] = lines(path.join(dir, 'handoffs', 'index.jsonl')).map((h: { id: string }) => h.id);
  return {
    posts: lines(path.join(dir, 'blackboard.jsonl')),
    decisions: decisionIds.map(id => json(path.join(dir, 'decisions', `${id}.json`))),
    entities: json(path.join(dir, 'graph', 'entities.json')),
    relations: json(path.join(dir, 'graph', 'relations.json')),
    handoffs: handoffIds.map(id => json(path.join(dir, 'handoffs', `${id}.json`))),
    agents: json(path.join(dir, 'agents', 'registry.json')),
  };
}

/** Records compared as twining-mcp's verify compares them: by id, in stableStringify's bytes. */
const canonical = (rs: Record<string, any>[], key = 'id') => new Map(rs.map(r => [String(r[key]), stableStringify(r)]));

describe('twining migrate (files → sqlite, and --reverse)', { skip }, () => {
  test('forward: the rows and record files are what twining-mcp migrate leaves, the 1.x files are untouched, and every read gives what the 1.x folder gives', async () => {
    const one = fixtureProject();
    const root = fixtureProject();
    const dir = tw(root);
    const original = records1x(dir);
    const configBefore = fs.readFileSync(path.join(dir, 'config.yml'), 'utf8');
    const before = snapshotTree(root);
    const report = await migrate(root, {});
    assert.equal(report.finalized, true, JSON.stringify(report, null, 2));
    assert.deepEqual(report.counts, { posts: 14, decisions: 4, entities: 23, relations: 18, handoffs: 2, agents: 4 });
    // What changed: records/, twining.db, config.yml (+ its backup) and .gitignore; every 1.x file as it was.
    const changed = changedFiles(before, snapshotTree(root));
    assert.deepEqual(
      changed.filter(f => !f.startsWith('records/') && !f.startsWith('twining.db')),
      ['.gitignore', 'config.yml', 'config.yml.pre-migrate.bak'],
    );
    assert.equal(fs.readFileSync(path.join(dir, 'config.yml.pre-migrate.bak'), 'utf8'), configBefore);
    const config = fs.readFileSync(path.join(dir, 'config.yml'), 'utf8');
    assert.deepEqual(yaml.load(config), { ...(yaml.load(configBefore) as object), version: 2, storage: { backend: 'sqlite' } });
    assert.equal(config, configBefore.replace('version: 1', 'version: 2') + 'storage:\n  backend: sqlite\n', 'only the two values changed in the text');
    assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /\ntwining\.db\ntwining\.db-wal\ntwining\.db-shm\n$/);
    // Every record: its file in twining-mcp's bytes and path, its row as twining-mcp's ingest writes it.
    const db = openMcpDb(dir);
    try {
      const tables: Record<Kind, string> = { posts: 'blackboard', decisions: 'decisions', entities: 'entities', relations: 'relations', handoffs: 'handoffs' };
      const acked = new Map(lines(path.join(dir, 'handoffs', 'index.jsonl')).map((l: any) => [l.id, l.acknowledged === true]));
      for (const kind of KINDS) {
        const rows = db.prepare(`SELECT * FROM ${tables[kind]} ORDER BY rowid`).all();
        assert.deepEqual(
          rows.map(r => r.id),
          original[kind].map(r => r.id),
          `${kind}: one row per record, in the 1.x order`,
        );
        for (const r of original[kind]) {
          assert.equal(fs.readFileSync(mcpRecordPath(dir, kind, r), 'utf8'), stableStringify(r), `${kind}/${r.id}: the record file`);
          const row = rows.find(x => x.id === r.id)!;
          assert.equal(row.data, JSON.stringify(JSON.parse(stableStringify(r))), `${kind}/${r.id}: data as ingest writes it (from the record file)`);
          if (kind === 'handoffs') assert.equal(row.index_data, JSON.stringify(mcpHandoffIndex(r, acked.get(r.id))));
        }
      }
      assert.deepEqual(
        db
          .prepare('SELECT data FROM agents ORDER BY rowid')
          .all()
          .map(r => JSON.parse(r.data)),
        original.agents,
        'the agents are in twining.db',
      );
    } finally {
      db.close();
    }
    assert.deepEqual(await readAll(root), await readAll(one));
    // A second run changes nothing and checks clean (twining-mcp's re-run is idempotent).
    const again = snapshotTree(root);
    const second = await migrate(root, {});
    assert.equal(second.verified, true);
    assert.deepEqual(
      changedFiles(again, snapshotTree(root)).filter(f => !f.startsWith('twining.db')),
      [],
    );
  });

  test('reverse: the 1.x files written back hold the original records, and every read gives what it gave', async () => {
    const one = fixtureProject();
    const root = fixtureProject();
    const dir = tw(root);
    const original = records1x(dir);
    const bytes = snapshotTree(root);
    assert.equal((await migrate(root, {})).finalized, true);
    // Remove the frozen 1.x files' content, so that what is read afterwards is what reverse wrote.
    for (const rel of ['blackboard.jsonl', 'handoffs/index.jsonl']) fs.writeFileSync(path.join(dir, rel), '');
    for (const rel of ['decisions/index.json', 'graph/entities.json', 'graph/relations.json', 'agents/registry.json'])
      fs.writeFileSync(path.join(dir, rel), '[]');
    const report = await migrate(root, { reverse: true });
    assert.equal(report.finalized, true, JSON.stringify(report, null, 2));
    const back = records1x(dir);
    for (const kind of [...KINDS, 'agents'] as const) {
      const key = kind === 'agents' ? 'agent_id' : 'id';
      assert.deepEqual(canonical(back[kind], key), canonical(original[kind], key), `${kind}: the same records`);
      assert.deepEqual(
        back[kind].map(r => r[key]),
        original[kind].map(r => r[key]),
        `${kind}: in the same order`,
      );
    }
    // The index lines are twining-mcp's own (index_data as stored), equal to the 1.x ones.
    assert.equal(fs.readFileSync(path.join(dir, 'handoffs', 'index.jsonl'), 'utf8'), bytes.get('handoffs/index.jsonl')!.toString());
    assert.equal(fs.readFileSync(path.join(dir, 'decisions', 'index.json'), 'utf8'), bytes.get('decisions/index.json')!.toString());
    const config = yaml.load(fs.readFileSync(path.join(dir, 'config.yml'), 'utf8')) as Record<string, any>;
    assert.equal(config.version, 1);
    assert.equal(config.storage.backend, 'files');
    assert.equal(fs.readFileSync(path.join(dir, 'config.yml.pre-migrate.bak')).equals(bytes.get('config.yml')!), true, 'the first backup is kept');
    assert.ok(fs.existsSync(path.join(dir, 'pre-reverse-backup', 'decisions', 'index.json')), 'the 1.x files it replaced are copied');
    assert.ok(fs.existsSync(path.join(dir, 'twining.db')) && fs.existsSync(path.join(dir, 'records')), 'twining.db and records/ stay, frozen');
    assert.deepEqual(await readAll(root), await readAll(one));
    await assert.rejects(migrate(root, { reverse: true }), /already says storage\.backend: files: there is nothing to reverse/);
  });

  test("reverse of a folder twining-mcp 2.x made (its rows and records/), and of a fresh clone's records/ alone", async () => {
    const one = fixtureProject();
    const expected = (await readAll(one)) as Record<string, any>;
    const two = tempProject('demo-project');
    twoXFrom1x(tw(one), tw(two));
    assert.equal((await migrate(two, { reverse: true })).finalized, true);
    assert.deepEqual(await readAll(two), expected);
    const clone = tempProject('demo-project');
    twoXFrom1x(tw(one), tw(clone), { withDb: false });
    const report = await migrate(clone, { reverse: true });
    assert.equal(report.finalized, true);
    assert.equal(report.counts.agents, 0, 'a clone has no agents: they live only in twining.db');
    const got = (await readAll(clone)) as Record<string, any>;
    for (const key of ['read', 'decisions', 'handoffs', 'why', 'whyAuth', 'search']) assert.deepEqual(got[key], expected[key], key);
  });

  test('dry runs write nothing (the folder byte for byte) and say what a run writes', async () => {
    const root = fixtureProject();
    const before = snapshotTree(root);
    const forward = await migrate(root, { dry_run: true });
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
    assert.equal(forward.dry_run, true);
    assert.deepEqual(forward.counts, { posts: 14, decisions: 4, entities: 23, relations: 18, handoffs: 2, agents: 4 });
    assert.ok(forward.writes.includes('records/decisions/: 4 files (4 new)'), forward.writes.join('\n'));
    assert.equal(forward.config_change, 'storage.backend: (not set) → sqlite, version: 1 → 2');
    await migrate(root, {});
    const migrated = snapshotTree(root);
    const cli = spawnSync(process.execPath, [CLI_JS, 'migrate', '--reverse', '--dry-run', '--dir', root], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(changedFiles(migrated, snapshotTree(root)), [], 'the reverse dry run wrote nothing, twining.db included');
    assert.match(cli.stdout, /sqlite → files \(dry run\)/);
    assert.match(cli.stdout, /posts: 14 {2}decisions: 4 {2}entities: 23 {2}relations: 18 {2}handoffs: 2 {2}agents: 4/);
    assert.match(cli.stdout, /config\.yml: storage\.backend: sqlite → files, version: 2 → 1/);
    assert.match(cli.stdout, /nothing was written/);
  });

  test('a second run on a migrated folder adds the 1.x records a stale client wrote since, and keeps a record changed since (not the frozen copy)', async () => {
    const root = fixtureProject();
    assert.equal((await migrate(root, {})).finalized, true);
    const decision = '01M80HHJN7TF8W1N7EW8PHV7MT';
    await (await openWorkspace(root, quiet)).reconsider({ decision_id: decision, new_context: 'Sessions must be revocable' });
    const straggler = {
      id: '01KC0000000000000000000001',
      timestamp: '2026-11-24T10:00:00.000Z',
      agent_id: 'stale',
      entry_type: 'finding',
      tags: [],
      scope: 'src/',
      summary: 'written by a 1.x client after the migration',
      detail: '',
    };
    fs.appendFileSync(tw(root, 'blackboard.jsonl'), JSON.stringify(straggler) + '\n');
    const report = await migrate(root, {});
    assert.equal(report.finalized, true, JSON.stringify(report, null, 2));
    assert.ok(report.writes.includes('records/posts/: 15 files (1 new, 14 already there)'), report.writes.join('\n'));
    assert.ok(
      report.notes.some(n => n.includes('changed after the folder was migrated; they are kept as they are (') && n.includes(`decisions/${decision}`)),
      report.notes.join('\n'),
    );
    const engine = await openWorkspace(root, quiet);
    assert.ok(
      (await engine.read({ limit: 1000 })).entries.some(e => e.id === straggler.id),
      'the straggler is in twining.db',
    );
    assert.equal((await engine.decisions({})).decisions.find(d => d.id === decision)?.status, 'provisional', 'the change made after the migration is kept');
  });

  test('a 1.x writer in another process while the folder is migrated: nothing it wrote is lost (a second run takes what it wrote after the switch)', async () => {
    const root = fixtureProject();
    // Like a person's session: a post refused because the folder changed layout under it is posted again after reopening the folder.
    const script = `const {openWorkspace}=require(${JSON.stringify(CORE_JS)});(async()=>{let ws=await openWorkspace(${JSON.stringify(root)},{warn(){}});for(let i=0;i<40;i++){try{const r=await ws.post({entry_type:'finding',summary:'concurrent '+i,agent_id:'writer'});console.log('ok '+r.id)}catch(e){console.log('refused '+e.message.split('\\n')[0]);ws=await openWorkspace(${JSON.stringify(root)},{warn(){}});i--}await new Promise(r=>setTimeout(r,15))}})().catch(e=>{console.error(e.message);process.exit(1)})`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errors = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (errors += d.toString()));
    const exited = new Promise<number | null>(resolve => child.on('exit', resolve));
    while (out.split('\n').filter(Boolean).length < 5) await sleep(5);
    assert.equal((await migrate(root, {})).finalized, true);
    assert.equal(await exited, 0, errors);
    const said = out.split('\n').filter(Boolean);
    const posted = said.filter(l => l.startsWith('ok ')).map(l => l.slice(3));
    assert.equal(posted.length, 40);
    for (const l of said.filter(l => l.startsWith('refused '))) assert.match(l, /SQLite layout .*nothing was written/);
    // A post that passed its layout check before the migration took the locks lands in the frozen 1.x file: a second run takes it.
    assert.equal((await migrate(root, {})).finalized, true);
    const ids = new Set((await (await openWorkspace(root, quiet)).read({ limit: 1000 })).entries.map(e => e.id));
    assert.deepEqual(
      posted.filter(id => !ids.has(id)),
      [],
      'every post the writer made is in twining.db',
    );
  });

  test('refusals name the file: export_records off on a sqlite folder, a newer format', async () => {
    const root = fixtureProject();
    fs.appendFileSync(tw(root, 'config.yml'), 'storage:\n  backend: sqlite\n  export_records: false\n');
    await assert.rejects(migrate(root, {}), /config\.yml says storage\.backend: sqlite with storage\.export_records: false.*nothing was migrated/);
    const newer = fixtureProject();
    fs.writeFileSync(tw(newer, 'config.yml'), 'version: 3\n');
    const before = snapshotTree(newer);
    await assert.rejects(migrate(newer, {}), /says version 3.*nothing was migrated/);
    await assert.rejects(migrate(newer, { reverse: true }), /says version 3.*nothing was migrated/);
    assert.deepEqual(changedFiles(before, snapshotTree(newer)), []);
  });
});
