/**
 * `twining sync` started as a new process (the CLI), without the engine: loading the engine (its
 * schemas, its stores, the whole record read in) costs a new process more than the sync itself.
 * The common case needs none of it: nothing came in since this clone's last sync and only what
 * was written here goes out. This runs the one sync (sync-run.ts) on the record folder the
 * engine would open (git/record-location.ts, as `openWorkspace` routes it) with a host that has
 * no engine (sync-host.ts): whenever the round needs the engine (the remote's changes to write
 * into the folder, a claim to settle against the remote's, a folder that is missing or in the
 * 2.x layout), it stops before its push and answers undefined, and the caller runs the engine's
 * sync, which then does all of it. What goes out and the remote's tree are the same either way:
 * both are made by the same code from the same files.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { resolveRecord } from '../git/record-location';
import { isSqliteFolder } from '../storage/sqlite/sqlite-detect';
import { EngineNeeded, SyncHost } from './sync-host';
import { SyncOptions, SyncReport, recordsToWrite, syncWith } from './sync-run';

/**
 * Syncs the record of the project folder `start` when that needs no engine; undefined when it does
 * (nothing pushed, nothing written to the folder). `next`, when given, receives what the engine's
 * sync should know: `fetchFirst` when the remote refused this sync's push (its record moved).
 */
export async function quickSync(start: string, options: SyncOptions = {}, next?: SyncOptions): Promise<SyncReport | undefined> {
  let dir: string;
  try {
    dir = resolveRecord(path.resolve(start)).dir;
  } catch {
    return undefined; // the engine says what is wrong with the folder
  }
  if (!(await fs.stat(dir).catch(() => undefined))?.isDirectory() || isSqliteFolder(dir)) return undefined;
  const host: SyncHost = {
    dir,
    layout: 'files',
    quick: true,
    timestamp: () => new Date().toISOString(),
    assertWritable: () => undefined, // a CLI process is trusted (only the extension opens a folder read-only)
    prepare: () => Promise.resolve(), // no graph upkeep is queued in a new process; the folder exists
    claimClock: () => Promise.reject(new EngineNeeded('claims to settle with the remote')),
    applyLocally: (read, merged) =>
      // A quick round with anything to write never reaches its push (sync-run.ts): here nothing differs.
      recordsToWrite(read, merged)
        ? Promise.reject(new Error(`the quick sync of ${dir} has records to write, which only the engine's sync does; nothing was written`))
        : Promise.resolve(),
  };
  try {
    return await syncWith(host, options);
  } catch (error) {
    if (error instanceof EngineNeeded) {
      if (next && error.remoteMoved) next.fetchFirst = true;
      return undefined;
    }
    throw error;
  }
}
