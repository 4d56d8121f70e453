/**
 * `twining hooks-setup [--dir <folder>] [--remove] [--dry-run] [--on-stop block|remind|off]`:
 * installs (or removes) Twining's agent hooks for VS Code's agents and Claude Code in a project
 * (agents/setup/hooks-config.ts), merged into the files that are there, and prints each change as a diff.
 */
import * as path from 'path';
import { applyHooks, lineDiff, planHooks } from '../agents/setup/hooks-config';
import { currentRuntime } from '../agents/setup/client-config';

const USAGE = 'twining hooks-setup [--dir <folder>] [--remove] [--dry-run] [--on-stop block|remind|off]';

export async function hooksSetup(argv: string[], hookScript: string, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  let dir = '.';
  let remove = false;
  let dryRun = false;
  const extra: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--help' || flag === '-h') {
      out.write(
        `${USAGE}\n\n  Writes .github/hooks/twining.json (VS Code's agents) and merges Twining's hooks into .claude/settings.json (Claude Code).\n  Running it again changes nothing; --remove takes Twining's hooks out again and keeps everything else.\n`,
      );
      return 0;
    } else if (flag === '--dir') dir = value() ?? '.';
    else if (flag === '--remove') remove = true;
    else if (flag === '--dry-run') dryRun = true;
    else if (flag === '--on-stop') {
      const mode = value();
      if (mode !== 'block' && mode !== 'remind' && mode !== 'off') {
        err.write(`twining: hooks-setup: --on-stop must be block, remind or off\n`);
        return 1;
      }
      if (mode !== 'block') extra.push('--on-stop', mode);
    } else {
      err.write(`twining: hooks-setup: unknown option ${argv[i]}; usage: ${USAGE}\n`);
      return 1;
    }
  }
  const root = path.resolve(dir);
  try {
    const runtime = currentRuntime();
    const plan = await planHooks(root, remove ? undefined : { execPath: runtime.execPath, hookScript, electron: runtime.electron, extra });
    const changing = plan.filter(p => p.before !== p.after);
    if (changing.length === 0) {
      out.write(remove ? 'No Twining hooks to remove.\n' : "Twining's hooks are already set up; nothing changed.\n");
      return 0;
    }
    for (const p of changing) {
      const what = p.after === undefined ? 'delete' : p.before === undefined ? 'create' : 'change';
      out.write(
        `${dryRun ? 'Would ' + what : what === 'delete' ? 'Deleted' : what === 'create' ? 'Created' : 'Changed'} ${path.relative(root, p.file)}:\n${lineDiff(p.before, p.after)}\n\n`,
      );
    }
    if (!dryRun) await applyHooks(plan);
    return 0;
  } catch (error) {
    err.write(`twining: hooks-setup: ${(error as Error).message}\n`);
    return 3;
  }
}
