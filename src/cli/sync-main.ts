/**
 * `twining sync` as a process of its own (dist/sync.js, which dist/cli.js hands `sync` to before
 * the rest of the CLI loads): the sync without the engine when it needs none (sync-quick.ts),
 * else the engine from dist/core.js beside this bundle. The hooks' background sync loads it for
 * the same quick sync.
 */
import * as path from 'path';
import { syncCommand } from './cli-sync';

// The hooks' background sync (agents/hooks/background-sync.ts) runs the quick sync from this bundle too.
export { quickSync } from '../core/sync/sync-quick';

export function runSyncCommand(argv: string[]): Promise<number> {
  return syncCommand(argv, process.stdout, process.stderr, (root, options) =>
    (require(path.join(__dirname, 'core.js')) as typeof import('../library')).openWorkspace(root, options),
  );
}
