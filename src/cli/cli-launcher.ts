/**
 * dist/cli.js, the `twining` command: a few lines that hand the command to the bundle that does
 * it, so that a command loads only the code it needs (Node compiles a whole file before it runs a
 * line of it, and the whole CLI is large): `merge` (git's merge driver, one process per file) to
 * dist/merge-driver.js, `hook` (run on every tool call of an agent) to dist/hook.js, `sync` to
 * dist/sync.js (which loads the engine only when the sync needs it), every other command to the
 * whole CLI, dist/cli-main.js (cli.ts), which is also what a module requiring dist/cli.js gets.
 */
import * as path from 'path';

const load = <T>(name: string): T => require(path.join(__dirname, name)) as T;
const exitWith = (code: number) => {
  process.exitCode = code;
};
// Each command answers every failure it knows with a message and an exit code; this is a bug.
const internalError = (error: unknown) => {
  process.stderr.write(`twining: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
};

const command = process.argv[2];
// Required rather than run (the launcher `twining setup` commits, agents/setup/launcher.ts, calls its main): the whole CLI.
if (require.main !== module) module.exports = load<typeof import('./cli')>('cli-main.js');
else if (command === 'merge') load<typeof import('./merge-driver-main')>('merge-driver.js').runFromArgv();
else if (command === 'hook') load<typeof import('../agents/hooks/hook-main')>('hook.js').runHook(process.argv.slice(3)).then(exitWith, internalError);
else if (command === 'sync') load<typeof import('./sync-main')>('sync.js').runSyncCommand(process.argv.slice(3)).then(exitWith, internalError);
else load<typeof import('./cli')>('cli-main.js').runCli();
