/**
 * dist/merge-driver.js: `twining merge`, git's merge driver, on its own. git starts one process per
 * file to merge, so dist/cli.js hands `merge` to this small bundle before loading anything else
 * (see the banner in esbuild.js): about a tenth of the CLI's start-up time and memory.
 */
import { runMergeDriver } from '../core/merge/merge-driver';

/** Runs with the CLI's arguments: `cli.js merge BASE OURS THEIRS PATH [MARKER_SIZE]`. */
export function runFromArgv(): void {
  try {
    process.exitCode = runMergeDriver(process.argv.slice(3), process.stderr);
  } catch (error) {
    process.stderr.write(`twining merge: ${(error as Error).stack ?? (error as Error).message}\n`);
    process.exitCode = 2;
  }
}
