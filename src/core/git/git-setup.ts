/**
 * `twining git-setup`: makes git merge `.twining/` by record.
 *  1. `.twining/.gitattributes` names the files the `twining` merge driver handles. It is meant to
 *     be committed, so the whole team shares it.
 *  2. The repository's local git config defines the driver (`merge.twining.driver`). git never runs
 *     a command from committed files, so each clone runs the set-up once.
 *  3. The same lines, prefixed with the record's path, in `info/attributes` of git's common
 *     directory: every worktree of the repository reads that file whatever branch it has checked
 *     out (gitattributes(5), gitrepository-layout(5): `info/` is shared by all worktrees), so a
 *     merge in any worktree uses the driver even before the committed `.gitattributes` reaches its
 *     branch.
 * Run from any worktree, it sets up the shared record (record-location.ts: the primary worktree's
 * `.twining/`) and never writes a linked worktree's own checked-out copy. The local config is the
 * common directory's `config`, which every worktree reads (git-worktree(1), CONFIGURATION FILE).
 * Idempotent: only what is missing or different is written, and the result says what changed.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { git, repositoryRoot } from './git-run';
import { resolveRecord } from './record-location';
import { DRIVER_ARGS } from '../merge/merge-driver';
import { TwiningError } from '../errors';

export const DRIVER_NAME = 'twining';
export const ATTRIBUTES_HEADER = '# Twining: git merges these files record by record (`twining git-setup`).';
/** Paths inside `.twining/` with record rules (src/core/merge/merge-file.ts); config.yml keeps git's text merge. */
export const ATTRIBUTE_LINES = [
  'blackboard.jsonl',
  'archive/*.jsonl',
  'handoffs/index.jsonl',
  'handoffs/*.json',
  'decisions/*.json',
  'agents/registry.json',
  'graph/*.json',
  'claims/*.jsonl',
  'records/**/*.json',
].map(p => `${p} merge=${DRIVER_NAME}`);

/** Quotes one word for the POSIX shell git runs drivers with (also git for Windows' sh). */
const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The driver command line for a CLI bundle: `'node' '/…/dist/cli.js' merge %O %A %B %P %L`. Inside
 * VS Code the runtime is its Electron binary, which acts as Node with ELECTRON_RUN_AS_NODE=1.
 */
export function driverCommand(cliPath: string, runtime: string = process.execPath, electron = process.versions.electron !== undefined): string {
  return `${electron ? 'ELECTRON_RUN_AS_NODE=1 ' : ''}${shellQuote(runtime)} ${shellQuote(cliPath)} merge ${DRIVER_ARGS}`;
}

/** The cli.js a configured driver command runs, if it is one of ours. */
export function cliPathOf(command: string): string | undefined {
  return /'([^']*cli\.js)' merge %O %A %B/.exec(command)?.[1];
}

export interface GitMergeState {
  /** Top of the work tree, or undefined outside a git repository. */
  repository?: string;
  /** `merge.twining.driver` from the repository's config, if set. */
  driver?: string;
  /** `.twining/.gitattributes` has every line. */
  attributes: boolean;
  /** Some file under `.twining/` is tracked by git. */
  tracked: boolean;
}

export async function gitMergeState(start: string): Promise<GitMergeState> {
  const projectDir = recordRootOf(start);
  const repository = await repositoryRoot(projectDir);
  if (!repository) return { attributes: false, tracked: false };
  const [driver, tracked, attributes] = await Promise.all([
    git(projectDir, ['config', '--get', `merge.${DRIVER_NAME}.driver`]),
    git(projectDir, ['ls-files', '--', '.twining']),
    fs.readFile(path.join(projectDir, '.twining', '.gitattributes'), 'utf8').catch(() => ''),
  ]);
  const have = new Set(attributes.split(/\r?\n/).map(l => l.trim()));
  return {
    repository,
    driver: driver.code === 0 ? driver.stdout.trim() : undefined,
    attributes: ATTRIBUTE_LINES.every(l => have.has(l)),
    tracked: tracked.code === 0 && tracked.stdout.trim() !== '',
  };
}

/** The folder holding the record used from `start` (a linked worktree gives the primary's); `start` itself when it cannot be routed. */
function recordRootOf(start: string): string {
  try {
    return resolveRecord(start).projectRoot;
  } catch {
    return start;
  }
}

/** git's common directory (shared by every worktree) of the repository holding `dir`. */
async function commonDir(dir: string): Promise<string | undefined> {
  const r = await git(dir, ['rev-parse', '--git-common-dir']);
  return r.code === 0 && r.stdout.trim() ? path.resolve(dir, r.stdout.trim()) : undefined;
}

/** Adds the lines `info/attributes` lacks; returns what changed, or undefined when nothing did. */
async function writeSharedAttributes(file: string, lines: string[]): Promise<string | undefined> {
  const existing = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${file}: ${error.message}`);
  });
  const have = new Set((existing ?? '').split(/\r?\n/).map(l => l.trim()));
  const missing = lines.filter(l => !have.has(l));
  if (missing.length === 0) return undefined;
  const prefix = existing === undefined || existing === '' ? `${ATTRIBUTES_HEADER}\n` : existing.endsWith('\n') ? '' : '\n';
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${existing ?? ''}${prefix}${missing.join('\n')}\n`, 'utf8');
  return `${existing === undefined ? 'created' : 'added'} ${missing.length} line(s) in ${file}: every worktree of the repository merges .twining/ with the driver, on any branch`;
}

export interface GitSetupResult {
  repository: string;
  attributesFile: string;
  /** git's common directory's `info/attributes`, read by every worktree. */
  sharedAttributesFile?: string;
  /** What this run changed, one sentence each; empty when everything was already in place. */
  changed: string[];
  /** The driver command now configured. */
  driver: string;
  /** A bare repository: its own record is outside every branch; the driver serves its worktrees' checked-out `.twining/`. */
  bare?: boolean;
}

/** Whether `dir` is (inside) a bare repository: it has no work tree of its own. */
async function isBare(dir: string): Promise<boolean> {
  const r = await git(dir, ['rev-parse', '--is-bare-repository']).catch(() => undefined);
  return r !== undefined && r.code === 0 && r.stdout.trim() === 'true';
}

/**
 * A bare repository's record lives in the repository itself (record-location.ts), outside every
 * branch: git never merges it. The `.twining/` folders its worktrees may check out (a branch that
 * has one committed) are merged by their worktrees, which all read the repository's config and
 * `info/attributes`: the driver goes there, for `.twining/` at the top of any worktree.
 */
async function gitSetupBare(bare: string, command: string): Promise<GitSetupResult> {
  const changed: string[] = [];
  const common = (await commonDir(bare)) ?? bare;
  const sharedAttributesFile = path.join(common, 'info', 'attributes');
  const added = await writeSharedAttributes(
    sharedAttributesFile,
    ATTRIBUTE_LINES.map(l => `.twining/${l}`),
  );
  if (added) changed.push(added);
  changed.push(...(await configureDriver(bare, command, changed)));
  return { repository: bare, attributesFile: sharedAttributesFile, sharedAttributesFile, changed, driver: command, bare: true };
}

/** Sets the driver in the repository's local config (shared by every worktree); returns what changed. */
async function configureDriver(dir: string, command: string, before: readonly string[]): Promise<string[]> {
  const changed: string[] = [];
  for (const [key, value] of [
    [`merge.${DRIVER_NAME}.name`, 'Twining: merge .twining/ records by id'],
    [`merge.${DRIVER_NAME}.driver`, command],
  ]) {
    const now = await git(dir, ['config', '--local', '--get', key]);
    if (now.code === 0 && now.stdout.trim() === value) continue;
    const set = await git(dir, ['config', '--local', key, value]);
    const done = [...before, ...changed];
    if (set.code !== 0) throw new Error(`git config ${key} failed: ${set.stderr.trim()}; ${done.length ? done.join('; ') : 'nothing was changed'}`);
    changed.push(now.code === 0 ? `set ${key} (was: ${now.stdout.trim()})` : `set ${key} in the repository's local git config`);
  }
  return changed;
}

export async function gitSetup(start: string, command: string): Promise<GitSetupResult> {
  const projectDir = recordRootOf(start);
  const repository = await repositoryRoot(projectDir);
  if (!repository && (await isBare(projectDir))) return gitSetupBare(projectDir, command);
  if (!repository) throw new TwiningError('NOT_FOUND', `${projectDir} is not inside a git repository; nothing was changed`);
  const folder = path.join(projectDir, '.twining');
  if (!(await fs.stat(folder).catch(() => undefined))?.isDirectory()) {
    throw new TwiningError('NOT_FOUND', `${folder} does not exist; run \`twining init\` first. Nothing was changed`);
  }
  const changed: string[] = [];
  const attributesFile = path.join(folder, '.gitattributes');
  const existing = await fs.readFile(attributesFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const have = new Set((existing ?? '').split(/\r?\n/).map(l => l.trim()));
  const missing = ATTRIBUTE_LINES.filter(l => !have.has(l));
  if (missing.length > 0) {
    const prefix = existing === undefined || existing === '' ? `${ATTRIBUTES_HEADER}\n` : existing.endsWith('\n') ? '' : '\n';
    await fs.writeFile(attributesFile, `${existing ?? ''}${prefix}${missing.join('\n')}\n`, 'utf8');
    changed.push(
      `${existing === undefined ? 'created' : 'added'} ${missing.length} line(s) in ${path.relative(repository, attributesFile)}: commit it so the whole team merges .twining/ the same way`,
    );
  }
  const common = await commonDir(projectDir);
  const sharedAttributesFile = common ? path.join(common, 'info', 'attributes') : undefined;
  if (sharedAttributesFile) {
    const rel = path
      .relative(await fs.realpath(repository), await fs.realpath(folder))
      .split(path.sep)
      .join('/');
    const added = await writeSharedAttributes(
      sharedAttributesFile,
      ATTRIBUTE_LINES.map(l => `${rel}/${l}`),
    );
    if (added) changed.push(added);
  }
  changed.push(...(await configureDriver(projectDir, command, changed)));
  return { repository, attributesFile, ...(sharedAttributesFile && { sharedAttributesFile }), changed, driver: command };
}

export const LOCAL_CONFIG_NOTE =
  "git runs merge drivers only from a repository's own configuration, never from committed files: everyone who clones the repository runs `twining git-setup` once (the .gitattributes lines travel with the commits).";

/**
 * Whether a configured driver should be pointed at `current`: when it runs a cli.js that no longer
 * exists, or another installed version of this extension's. A command someone wrote themselves
 * (a global `twining`, a wrapper) is left alone.
 */
export function driverNeedsUpdate(configured: string | undefined, current: string, exists: (file: string) => boolean): boolean {
  if (configured === undefined || configured === current) return false;
  const cli = cliPathOf(configured);
  if (!cli) return false;
  const installedCopy = /[/\\]twining\.twining-vscode-[^/\\]+[/\\]dist[/\\]cli\.js$/;
  return !exists(cli) || (installedCopy.test(cli) && installedCopy.test(cliPathOf(current) ?? ''));
}
