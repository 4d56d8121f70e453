/**
 * Real git repositories in temporary folders for the merge suites: running git and the bundled CLI,
 * committing a branch, and reading back every file of a `.twining/` folder. Not a test file.
 */
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import assert from 'node:assert/strict';
import { CLI_JS, FIXTURE, tempProject } from './tmp';

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

export function run(cwd: string, cmd: string, args: string[], allowFailure = false): Run {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
  });
  if (r.error) throw r.error;
  const out = { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  if (!allowFailure && out.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${out.status}:\n${out.stdout}\n${out.stderr}`);
  return out;
}

export const git = (cwd: string, ...args: string[]) => run(cwd, 'git', args).stdout.trim();
export const gitMay = (cwd: string, ...args: string[]) => run(cwd, 'git', args, true);
export const cli = (cwd: string, ...args: string[]) => run(cwd, process.execPath, [CLI_JS, ...args], true);

/** A new repository `…/repo` with one commit-less `main` branch and a committer identity. */
export function newRepo(): string {
  const root = tempProject('repo');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.email', 'merge-test@example.com');
  git(root, 'config', 'user.name', 'Merge Test');
  git(root, 'config', 'commit.gpgsign', 'false');
  return root;
}

let fixtureTemplate: string | undefined;

/**
 * A repository whose first commit on `main` is the reference folder, with the driver set up by the
 * bundled CLI. Made once per test process, then copied (work tree and .git alike): a copied
 * repository is the same repository, and git-setup and the commit cost a CLI and six git processes.
 */
export function fixtureRepo(): string {
  if (!fixtureTemplate) {
    const template = newRepo();
    fs.cpSync(FIXTURE, path.join(template, '.twining'), { recursive: true });
    const setup = cli(template, 'git-setup');
    if (setup.status !== 0) throw new Error(`git-setup failed: ${setup.stderr}`);
    commitAll(template, 'base');
    fixtureTemplate = template;
  }
  const repo = tempProject('repo');
  fs.cpSync(fixtureTemplate, repo, { recursive: true });
  return repo;
}

export function commitAll(cwd: string, message: string): void {
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '--no-verify', '-m', message);
}

/** Paths git left conflicted. */
export const conflicted = (cwd: string) => git(cwd, 'diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean);

export interface FolderContent {
  /** Relative path → parsed content (JSON value, or the array of JSONL lines). */
  files: Map<string, unknown>;
  /** Problems: files or lines that do not parse. */
  problems: string[];
}

/** Parses every `.json` and `.jsonl` file under `<project>/.twining`. */
export function readFolder(project: string): FolderContent {
  const files = new Map<string, unknown>();
  const problems: string[] = [];
  const base = path.join(project, '.twining');
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      const rel = path.relative(base, full).split(path.sep).join('/');
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.json')) {
        try {
          files.set(rel, JSON.parse(fs.readFileSync(full, 'utf8')));
        } catch (error) {
          problems.push(`${rel}: ${(error as Error).message}`);
        }
      } else if (e.name.endsWith('.jsonl')) {
        const out: unknown[] = [];
        fs.readFileSync(full, 'utf8')
          .split('\n')
          .forEach((l, i) => {
            if (l === '') return;
            try {
              out.push(JSON.parse(l));
            } catch {
              problems.push(`${rel}:${i + 1}: ${l.slice(0, 80)}`);
            }
          });
        files.set(rel, out);
      }
    }
  };
  walk(base);
  return { files, problems };
}

export const idsOf = (items: unknown) => new Set((items as { id: string }[]).map(i => i.id));

/** A committer of its own for a test repository (no global git identity, no signing). */
export function configureCommitter(repo: string): void {
  git(repo, 'config', 'user.email', 'sync-test@example.com');
  git(repo, 'config', 'user.name', 'Sync Test');
  git(repo, 'config', 'commit.gpgsign', 'false');
}

/** `twining ARGS` in `cwd` that must succeed: its standard output. */
export function cliOk(cwd: string, ...args: string[]): string {
  const r = cli(cwd, ...args);
  assert.equal(r.status, 0, `twining ${args.join(' ')} in ${cwd}: ${r.stderr}`);
  return r.stdout;
}

export interface SyncTeam {
  remote: string;
  a: string;
  b: string;
}

/**
 * Two machines' clones as `twining sync` sees them: a bare remote under `top` with one commit on
 * main (the file `code` names), clone `a` that pushed it and clone `b` of the remote, each with a
 * committer and an empty .twining/.
 */
export function syncTeam(top: string, code: { path: string; text: string }): SyncTeam {
  const remote = path.join(top, 'remote.git');
  git(top, 'init', '-q', '--bare', '-b', 'main', remote);
  const a = path.join(top, 'a');
  git(top, 'init', '-q', '-b', 'main', a);
  configureCommitter(a);
  fs.mkdirSync(path.dirname(path.join(a, code.path)), { recursive: true });
  fs.writeFileSync(path.join(a, code.path), code.text);
  git(a, 'add', '-A');
  git(a, 'commit', '-q', '-m', 'code');
  git(a, 'remote', 'add', 'origin', remote);
  git(a, 'push', '-q', '-u', 'origin', 'main');
  const b = path.join(top, 'b');
  git(top, 'clone', '-q', remote, b);
  configureCommitter(b);
  for (const clone of [a, b]) cliOk(clone, 'init');
  return { remote, a, b };
}
