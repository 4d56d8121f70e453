/**
 * A process that holds twining.db open must never open its files itself outside SQLite: SQLite's
 * locks are POSIX advisory locks, which belong to the process, and closing ANY descriptor of a
 * locked file drops every one of them (docs/twining-2.md §Locks held by a process). In WAL mode
 * the lock that matters lies on twining.db-shm: lost, another process (twining-mcp, a hook, the
 * CLI) takes itself for the last connection when it closes, and deletes the log and shared memory
 * under the open connection, whose next writes go to a deleted file. The looks at whether a
 * folder is 2.x (a second engine, the sync status, a migration's dry run) happen in processes that
 * hold the database (the extension host, `twining mcp`): this test holds that they open none of its
 * files outside SQLite (they fail it before sqlite-db.ts answered a held database from a stat) and
 * that the connection stays whole (it fails when the test itself reads twining.db-shm where those
 * looks are). Needs node:sqlite (run under Node 24 by
 * scripts/test.js).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { spawnSync } from 'child_process';
import { createRequire } from 'module';
import { migrate, openWorkspace } from '../../../../../src/core';
import { CLI_JS, tempProject, tw } from '../../../../support/tmp';
import { hasSqlite, openMcpDb, twoXFrom1x } from '../../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;
const quiet = { warn: () => undefined };

async function sqliteFolder(): Promise<string> {
  const one = tempProject();
  await (await openWorkspace(one, quiet)).init();
  const two = tempProject('two-x-project');
  twoXFrom1x(tw(one), tw(two));
  return two;
}

/** Another process opens the database, writes, and closes it: as a hook, the CLI or twining-mcp does. */
function otherProcessWrites(root: string): void {
  const input = { entry_type: 'finding', summary: 'From another process', scope: 'project', agent_id: 'other' };
  const r = spawnSync(process.execPath, [CLI_JS, 'post', '--dir', root, '--json', '--input', JSON.stringify(input)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

describe('twining.db held open by this process', { skip }, () => {
  test('a second engine, the sync status and a migration dry run here do not drop its locks: another process closing the database leaves its log, and the next write is kept', async () => {
    const root = await sqliteFolder();
    const engine = await openWorkspace(root, quiet);
    await engine.post({ entry_type: 'finding', summary: 'Before the looks', scope: 'project', agent_id: 'a' });
    const wal = fs.statSync(tw(root, 'twining.db-wal')).ino;

    // Each of these looks at whether the folder is 2.x while this process holds the database, and
    // none opens the database's files outside SQLite (sqlite.org's "How To Corrupt" §2.2 warns even of
    // reading the database file itself): the header of a database open here is not read again.
    const opened: string[] = [];
    // The module object itself (an import is a read-only view of it): what every bundled reader calls.
    const realFs = createRequire(__filename)('fs') as {
      openSync: typeof fs.openSync;
      promises: { open: typeof fs.promises.open; copyFile: typeof fs.promises.copyFile };
    };
    const [openSync, open, copyFile] = [realFs.openSync, realFs.promises.open, realFs.promises.copyFile];
    const note = (file: unknown) => {
      if (String(file).includes('twining.db')) opened.push(String(file));
    };
    realFs.openSync = (...args: Parameters<typeof fs.openSync>) => (note(args[0]), openSync(...args));
    realFs.promises.open = (...args: Parameters<typeof fs.promises.open>) => (note(args[0]), open(...args));
    realFs.promises.copyFile = (...args: Parameters<typeof fs.promises.copyFile>) => (note(args[0]), copyFile(...args));
    try {
      await openWorkspace(root, quiet);
      await engine.syncStatus();
      await migrate(root, { reverse: true, dry_run: true });
    } finally {
      [realFs.openSync, realFs.promises.open, realFs.promises.copyFile] = [openSync, open, copyFile];
    }
    assert.deepEqual(opened, [], 'no file of the open database was opened outside SQLite');

    otherProcessWrites(root);
    assert.ok(fs.existsSync(tw(root, 'twining.db-wal')), 'the write-ahead log is still there');
    assert.equal(fs.statSync(tw(root, 'twining.db-wal')).ino, wal, 'and is the same file');

    await engine.post({ entry_type: 'finding', summary: 'After the looks', scope: 'project', agent_id: 'a' });
    const db = openMcpDb(tw(root));
    try {
      const summaries = db
        .prepare('SELECT data FROM blackboard')
        .all()
        .map(r => (JSON.parse(String(r.data)) as { summary: string }).summary);
      assert.ok(summaries.includes('After the looks'), `the write after the looks is in the database: ${summaries.join(', ')}`);
    } finally {
      db.close();
    }
  });
});
