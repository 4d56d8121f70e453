/**
 * Writes that go straight into a twining-mcp 2.x folder (storage/storage.ts, the `sqlite` backend's
 * writes; storage/sqlite/sqlite-folder.ts `change`): posts, registrations, the graph's entities and
 * relations, decisions and handoffs are stored as rows of twining.db and record files under records/, inside one database
 * transaction, with no 1.x copy of the records laid out anywhere: nothing is written in the user's
 * cache, their home or the temporary folder. What they wrote is what twining-mcp 2.x reads: the
 * rows, and records/ files that agree with them. Needs node:sqlite (scripts/test.js runs it under Node 24).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../../src/core';
import { FolderStore } from '../../../../../src/core/engine/folder-store';
import { appendEntry, appendEntryLocked } from '../../../../../src/core/operations/blackboard-ops';
import { CLI_JS, fixtureProject, tempProject, tw, withEnv } from '../../../../support/tmp';
import { assertAgree, hasSqlite, mcpRecordPath, openMcpDb, twoXFrom1x } from '../../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: () => undefined };

/** Every path under `dir`, relative to it. */
function tree(dir: string): string[] {
  return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).sort() : [];
}

/** The home, XDG cache and temporary folders pointed at empty folders of their own while `work` runs. */
async function elsewhere(work: (env: NodeJS.ProcessEnv) => Promise<void>): Promise<Record<'home' | 'cache' | 'tmp', string[]>> {
  const base = tempProject('elsewhere');
  const dirs = { home: path.join(base, 'home'), cache: path.join(base, 'xdg-cache'), tmp: path.join(base, 'tmp') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d);
  await withEnv({ HOME: dirs.home, XDG_CACHE_HOME: dirs.cache, TMPDIR: dirs.tmp }, work);
  return { home: tree(dirs.home), cache: tree(dirs.cache), tmp: tree(dirs.tmp) };
}

describe('writes stored directly in a 2.x folder', { skip }, () => {
  test('posts, registrations, graph changes, decisions and handoffs write rows and records/ only: nothing in the cache, the home or the temporary folder', async () => {
    const two = tempProject('demo-project');
    twoXFrom1x(tw(fixtureProject()), tw(two), { withDb: true });
    const dir = tw(two);
    let decided = { id: '' };
    let handed = { id: '' };
    const seen = await elsewhere(async env => {
      // One-shot processes (the CLI), as a hook or a terminal runs them.
      for (const args of [
        ['post', '--entry-type', 'finding', '--summary', 'Stored as a row', '--scope', 'src/auth/', '--agent-id', 'cli-agent'],
        ['register', '--agent-id', 'reviewer-1', '--capabilities', 'review,tests'],
      ]) {
        const r = spawnSync(process.execPath, [CLI_JS, ...args], { cwd: two, env, encoding: 'utf8' });
        assert.equal(r.status, 0, `twining ${args.join(' ')}: ${r.stderr}`);
      }
      // An engine of this process (a window, the MCP server).
      const engine = await openWorkspace(two, quiet);
      try {
        await engine.run('add_entity', { name: 'TokenCache', type: 'class', properties: { file: 'src/auth/cache.ts' } });
        await engine.run('add_relation', { source: 'TokenCache', target: 'TokenCache', type: 'related_to' });
        await engine.post({ entry_type: 'warning', summary: 'Posted by the engine', scope: 'src/', agent_id: 'engine-agent' });
        decided = await engine.decide({
          domain: 'auth',
          scope: 'src/auth/',
          summary: 'Cache tokens per tenant',
          context: 'Tenants share a process',
          rationale: 'No leaks between tenants',
          agent_id: 'engine-agent',
        });
        await engine.reconsider({ decision_id: decided.id, new_context: 'Tenants get processes of their own' });
        handed = await engine.handoff({ source_agent: 'engine-agent', summary: 'Token cache handed over', results: [], scope: 'src/auth/' });
        await engine.acknowledge({ handoff_id: handed.id, agent_id: 'reviewer-1' });
      } finally {
        engine.close();
      }
    });
    assert.deepEqual(seen, { home: [], cache: [], tmp: [] }, 'no copy of the records, no cache slot, no manifest anywhere');
    assert.deepEqual(
      fs.readdirSync(dir).filter(n => n.startsWith('twining.db-twining-write-')),
      [],
      'no journal is left behind',
    );

    // What twining-mcp 2.x reads: the rows, each with its columns, and the record files beside them.
    const db = openMcpDb(dir);
    try {
      const posts = db.prepare('SELECT entry_type, scope, timestamp, data FROM blackboard ORDER BY seq').all();
      const mine = posts.map(r => JSON.parse(r.data)).filter(p => p.summary === 'Stored as a row' || p.summary === 'Posted by the engine');
      assert.deepEqual(
        mine.map(p => [p.summary, p.agent_id]),
        [
          ['Stored as a row', 'cli-agent'],
          ['Posted by the engine', 'engine-agent'],
        ],
        'both posts are rows, in the order written, after every earlier one',
      );
      assert.deepEqual(JSON.parse(posts.at(-1)!.data).summary, 'Handoff created: Token cache handed over', "the handoff's status entry is the last row");
      for (const p of mine) {
        const row = posts.find(r => JSON.parse(r.data).id === p.id)!;
        assert.deepEqual([row.entry_type, row.scope, row.timestamp], [p.entry_type, p.scope, p.timestamp], 'the columns twining-mcp queries');
        assert.deepEqual(JSON.parse(fs.readFileSync(mcpRecordPath(dir, 'posts', p), 'utf8')), p, 'its record file under records/posts/<month>/');
      }
      const agents = new Map(
        db
          .prepare('SELECT agent_id, data FROM agents')
          .all()
          .map(r => [r.agent_id, JSON.parse(r.data)]),
      );
      assert.deepEqual(agents.get('reviewer-1')?.capabilities, ['review', 'tests'], 'the registration is a row');
      for (const id of ['cli-agent', 'engine-agent']) assert.ok(agents.get(id)?.last_active, `the posting agent ${id} is registered, as twining-mcp 2.x does`);
      const entity = db.prepare("SELECT id, name, type, data FROM entities WHERE name = 'TokenCache'").get();
      assert.ok(entity, 'the entity is a row');
      assert.equal(JSON.parse(entity.data).properties.file, 'src/auth/cache.ts');
      const relation = db.prepare('SELECT source, target, data FROM relations WHERE source = ?').get(entity.id);
      assert.ok(relation && relation.target === entity.id, 'the relation is a row with its ends');
      assert.ok(fs.existsSync(mcpRecordPath(dir, 'entities', JSON.parse(entity.data))), 'the entity has its record file');
      assert.ok(fs.existsSync(mcpRecordPath(dir, 'relations', JSON.parse(relation.data))), 'the relation has its record file');
      const decision = db.prepare('SELECT status, data FROM decisions WHERE id = ?').get(decided.id);
      assert.deepEqual([decision?.status, JSON.parse(decision!.data).status], ['provisional', 'provisional'], 'the decision row, reconsidered in place');
      const handoff = db.prepare('SELECT data, index_data FROM handoffs WHERE id = ?').get(handed.id);
      assert.equal(JSON.parse(handoff!.data).acknowledged_by, 'reviewer-1', 'the handoff row, acknowledged');
      assert.equal(JSON.parse(handoff!.index_data).acknowledged, true, 'its index_data says so, as twining-mcp keeps it');
    } finally {
      db.close();
    }
    assertAgree(dir);

    // And they are read back by a new open, as by twining-mcp.
    const again = await openWorkspace(two, quiet);
    const wanted = ['Stored as a row', 'Posted by the engine', 'Reconsideration flagged: Cache tokens per tenant', 'Handoff created: Token cache handed over'];
    try {
      assert.deepEqual(
        (await again.read({ limit: 10 })).entries.map(e => e.summary).filter(summary => wanted.includes(summary)),
        wanted,
      );
    } finally {
      again.close();
    }
  });

  test('a write that fails stores nothing: the rows, the record files and what the engine shows are as before', async () => {
    const two = tempProject('demo-project');
    twoXFrom1x(tw(fixtureProject()), tw(two), { withDb: true });
    const dir = tw(two);
    const ctx = new FolderStore(two, quiet);
    try {
      const count = async () => (await ctx.blackboard.refresh(), ctx.blackboard.entries.length);
      const before = await count();
      const files = tree(path.join(dir, 'records'));
      // A step after the post fails inside the same write: the post is undone with it.
      await assert.rejects(
        ctx.lock([ctx.locks.blackboard], async () => {
          await appendEntryLocked(ctx, { entry_type: 'finding', summary: 'Never stored', detail: '', tags: [], scope: 'project', agent_id: 'a' });
          throw new Error('the next step failed');
        }),
        /the next step failed/,
      );
      assert.equal(await count(), before, 'the engine does not show it');
      assert.deepEqual(tree(path.join(dir, 'records')), files, 'no record file was written');
      const db = openMcpDb(dir);
      try {
        assert.equal(db.prepare("SELECT count(*) AS n FROM blackboard WHERE data LIKE '%Never stored%'").get()?.n, 0, 'no row');
      } finally {
        db.close();
      }
      // The next write takes the seq the failed one did not keep, and is read.
      await appendEntry(ctx, { entry_type: 'finding', summary: 'Stored after', detail: '', tags: [], scope: 'project', agent_id: 'a' });
      await ctx.blackboard.refresh();
      assert.equal(ctx.blackboard.entries.at(-1)?.summary, 'Stored after');
      assert.equal(await count(), before + 1);
    } finally {
      ctx.sqlite?.close();
    }
    assertAgree(dir);
  });
});
