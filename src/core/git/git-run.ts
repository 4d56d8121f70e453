/** Runs git for the set-up and state checks: stdout as text, or a clear error naming the command. */
import { execFile } from 'child_process';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function git(cwd: string, args: string[]): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (error, stdout, stderr) => {
      if (error && typeof (error as NodeJS.ErrnoException).code === 'string') {
        reject(new Error(`cannot run git (${(error as Error).message}); is git installed and on PATH?`));
        return;
      }
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The top of the work tree holding `dir`, or undefined when `dir` is not inside a git work tree. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']).catch(() => undefined);
  return r && r.code === 0 ? r.stdout.trim() : undefined;
}
