/**
 * SessionStart and `twining sync`: when this clone syncs (its first `twining sync` set
 * `twining.sync.enabled` in the local git config) and its last sync attempt is older than the
 * background interval (30 s, as sync/sync-scheduler.ts), the hook starts a detached process of
 * this bundle that syncs, and answers at once from the record as it is.
 *
 * Why a background sync and not a fetch inside the hook: the hook's answer is on the path of every
 * session start, and a remote can be slow or unreachable (a laptop offline, a VPN down), where
 * even a time-boxed fetch would add its whole time limit to every start. The detached sync never
 * delays the briefing; what it brings in reaches the session through the record itself (the next
 * PreToolUse reads decisions and warnings from the updated folder, and the next SessionStart's
 * briefing is built from it). Its failure (an unreachable remote) is written to the sync state
 * (`twining sync --status`) and to `.twining/sessions/sync-error.log`.
 *
 * Only files are read to decide (the local git config and `.git/twining/sync-state.json`): no git
 * process and no engine are started unless a sync is due.
 */
import { mkdirSync } from 'fs';
import { startDetachedHook } from './detached-hook';
import * as path from 'path';
import { readTextSync } from '../../core/storage/read-file';
import type { SyncOptions } from '../../core/sync/sync-run';

export const SYNC_FLAG = '--sync-in-background';

/** The background sync's default interval (sync/sync-state.ts DEFAULT_INTERVAL_MS). */
const INTERVAL_MS = 30_000;

/** Whether a sync is due: sync is on in the local config and the last attempt is older than the interval. */
export function syncDue(root: string, now: Date): boolean {
  // The primary work tree's git directory: a linked worktree's hooks are routed to the primary (core/git/record-location.ts).
  const gitDir = path.join(root, '.git');
  try {
    const config = readTextSync(path.join(gitDir, 'config'), 'index');
    if (config === undefined) return false;
    // git config's own form: a `[twining "sync"]` section holding `enabled = true` (written by `git config --local`).
    const section = /^\s*\[twining\s+"sync"\]([^[]*)/im.exec(config)?.[1] ?? '';
    if (!/^\s*enabled\s*=\s*true\s*$/im.test(section)) return false;
    const state = JSON.parse(readTextSync(path.join(gitDir, 'twining', 'sync-state.json'), 'index') ?? '{}') as { last_attempt_at?: unknown };
    const last = typeof state.last_attempt_at === 'string' ? Date.parse(state.last_attempt_at) : NaN;
    return !(now.getTime() - last < INTERVAL_MS);
  } catch {
    return false;
  }
}

/** Starts the detached sync when one is due; never waits for it. */
export function syncInBackground(root: string, twiningDir: string, now: Date): boolean {
  if (!syncDue(root, now)) return false;
  mkdirSync(path.join(twiningDir, 'sessions'), { recursive: true });
  startDetachedHook(twiningDir, 'sync-error.log', [SYNC_FLAG, root]);
  return true;
}

/**
 * The background process: one sync of the record at `root`, as `twining sync` runs it: without
 * the engine when the sync needs none (dist/sync.js beside this bundle, core/sync/sync-quick.ts),
 * else the engine's sync (dist/core.js), told what the quick one found.
 */
export async function syncNow(argv: string[]): Promise<number> {
  const [root] = argv;
  const options: SyncOptions = { reason: 'session start' };
  const next: SyncOptions = { ...options };
  const quick = require(path.join(__dirname, 'sync.js')) as Pick<typeof import('../../core/sync/sync-quick'), 'quickSync'>;
  if (await quick.quickSync(root, options, next)) return 0;
  const core = require(path.join(__dirname, 'core.js')) as typeof import('../../library');
  const engine = await core.openWorkspace(root, { warn: () => undefined, project: root });
  await engine.sync(next);
  return 0;
}
