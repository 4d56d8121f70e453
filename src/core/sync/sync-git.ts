/**
 * git for `twining sync`. Sync uses git's own plumbing (fetch, for-each-ref, ls-tree, cat-file,
 * fast-import, commit-tree, push, update-ref): git is the well-kept library for
 * objects, packs, transports and credentials, and every clone already has it.
 *
 * Every call runs without a terminal prompt, ever: a background sync has nobody to answer one,
 * and a prompt would hang it. GIT_TERMINAL_PROMPT=0 (git's own prompt), GIT_ASKPASS and
 * SSH_ASKPASS emptied (an editor's askpass helper would pop a dialog), GCM_INTERACTIVE=never (Git
 * Credential Manager), and ssh in BatchMode. Credentials a helper already has still work. Each
 * call has a time limit, after which git is killed and the error says so.
 */
import { launchGit } from './git-launcher';

export interface GitOutput {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitCall {
  /** Standard input. */
  input?: Buffer | string;
  /** Extra environment (GIT_INDEX_FILE, GIT_AUTHOR_*). */
  env?: Record<string, string>;
  /** Killed after this long (default 60 s). */
  timeoutMs?: number;
}

/** The environment of every sync git call: the caller's, with every way of prompting shut. */
export function noPromptEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  env.GIT_TERMINAL_PROMPT = '0';
  env.GCM_INTERACTIVE = 'never';
  env.GIT_ASKPASS = '';
  env.SSH_ASKPASS = '';
  env.SSH_ASKPASS_REQUIRE = 'never';
  // VS Code's git extension points git at its own askpass through these; a sync must not use it.
  delete env.VSCODE_GIT_ASKPASS_NODE;
  delete env.VSCODE_GIT_ASKPASS_MAIN;
  delete env.VSCODE_GIT_ASKPASS_HANDLE;
  delete env.VSCODE_GIT_IPC_HANDLE;
  // ssh never asks for a password or a host key: it fails instead (BatchMode).
  if (!env.GIT_SSH_COMMAND) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes -o ConnectTimeout=10';
  // Never the user's locale: messages are matched (rejected push, missing remote ref).
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  return env;
}

/** Runs `git args` in `cwd`; resolves with its exit code and output (never rejects for a non-zero exit). */
export function runGit(cwd: string, args: readonly string[], call: GitCall = {}): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const child = launchGit(args, cwd, noPromptEnv(call.env));
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    const limit = call.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limit);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (err += chunk));
    child.on('error', error => {
      clearTimeout(timer);
      reject(new Error(`cannot run git (${error.message}); is git installed and on PATH?`));
    });
    child.on('close', code => {
      clearTimeout(timer);
      if (timedOut) err += `\n(git ${args[0]} took longer than ${Math.round(limit / 1000)} s and was stopped)`;
      resolve({ code: timedOut ? -1 : (code ?? -1), stdout: Buffer.concat(out), stderr: err.trim() });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(call.input ?? '');
  });
}

/** Runs git and returns its standard output as text, or throws naming the command and git's message. */
export async function gitText(cwd: string, args: readonly string[], call: GitCall = {}): Promise<string> {
  const r = await runGit(cwd, args, call);
  if (r.code !== 0) throw new Error(`git ${args.slice(0, 2).join(' ')} failed: ${r.stderr || `exit ${r.code}`}`);
  return r.stdout.toString('utf8');
}

/** The text of one `git config --get` (local configuration), or undefined when unset. */
export async function configGet(cwd: string, key: string): Promise<string | undefined> {
  const r = await runGit(cwd, ['config', '--get', key]);
  return r.code === 0 ? r.stdout.toString('utf8').trim() : undefined;
}
