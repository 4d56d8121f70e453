/**
 * The CLI's git subcommands: `twining merge BASE OURS THEIRS PATH` (the merge driver git runs) and
 * `twining git-setup [--dir D] [--json]` (configures it). Kept apart from the operation
 * subcommands, whose flags derive from the operation schemas.
 */
import * as fs from 'fs';
import * as path from 'path';
import { runMergeDriver } from '../core/merge/merge-driver';
import { LOCAL_CONFIG_NOTE, driverCommand, gitSetup } from '../core/git/git-setup';
import { isTwiningError } from '../core/errors';
import { parseFlags, failure } from './command-flags';

export const GIT_COMMANDS = {
  merge: 'Merge driver for git: twining merge BASE OURS THEIRS PATH (git passes %O %A %B %P)',
  'git-setup': 'Make git merge .twining/ by record (.gitattributes + local git config)',
} as const;

export const isGitCommand = (name: string | undefined): name is keyof typeof GIT_COMMANDS => name !== undefined && name in GIT_COMMANDS;

/** This CLI's own bundle, with symlinks (node_modules/.bin) resolved, for the driver command. */
function ownCliPath(): string {
  const file = require.main?.filename ?? process.argv[1];
  return fs.realpathSync(path.resolve(file));
}

export async function runGitCommand(name: keyof typeof GIT_COMMANDS, args: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out.write(
      `twining ${name === 'merge' ? 'merge BASE OURS THEIRS PATH [MARKER_SIZE]' : 'git-setup [--dir <folder>] [--json]'}\n\n  ${GIT_COMMANDS[name]}\n${name === 'git-setup' ? `\n  ${LOCAL_CONFIG_NOTE}\n` : ''}`,
    );
    return 0;
  }
  if (name === 'merge') return runMergeDriver(args, err);
  let flags;
  try {
    flags = parseFlags('git-setup', args, { dir: { value: true }, json: {} });
  } catch (error) {
    return failure('git-setup', error, err);
  }
  const { dir = '.', json = false } = flags;
  try {
    const result = await gitSetup(path.resolve(dir), driverCommand(ownCliPath()));
    if (json) out.write(JSON.stringify(result, null, 2) + '\n');
    else {
      const lines = result.changed.length ? result.changed.map(c => `- ${c}`) : ['Already set up: nothing changed.'];
      const bare = result.bare
        ? [
            `This is a bare repository: its own record (${path.join(result.repository, '.twining')}) is outside every branch and git never merges it; the driver is for the .twining/ its worktrees check out.`,
          ]
        : [];
      out.write([`git merges of .twining/ in ${result.repository}:`, ...lines, ...bare, `Driver: ${result.driver}`, LOCAL_CONFIG_NOTE].join('\n') + '\n');
    }
    return 0;
  } catch (error) {
    err.write(`twining: git-setup: ${(error as Error).message}\n`);
    return isTwiningError(error, 'NOT_FOUND') ? 2 : 3;
  }
}
