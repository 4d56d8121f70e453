/**
 * What the two directions of `twining migrate` share (migrate/migrate-ops.ts says what they do): the
 * report, the folder checks and the wording of what was and was not written.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import * as yaml from 'js-yaml';
import { TwiningError } from '../errors';
import { isRecord, readTextIfExists } from '../storage/json-files';
import { detectFolderFormat } from '../storage/folder-format';
import type { ConfigEdit } from './migrate-config';
import type { Layout } from '../storage/layout';

export interface MigrateOptions {
  /** sqlite → files (twining-mcp's `--reverse`); default files → sqlite. */
  reverse?: boolean;
  /** Read and count, say what would be written, write nothing. */
  dry_run?: boolean;
}

export interface MigrateCounts {
  posts: number;
  decisions: number;
  entities: number;
  relations: number;
  handoffs: number;
  agents: number;
}

export interface MigrateReport {
  /** `files → sqlite` or `sqlite → files`. */
  direction: 'files → sqlite' | 'sqlite → files';
  dry_run: boolean;
  /** The `.twining/` folder. */
  folder: string;
  counts: MigrateCounts;
  /** What was (or, in a dry run, would be) written, one line each. */
  writes: string[];
  /** config.yml's change, e.g. `storage.backend: files → sqlite, version: 1 → 2`. */
  config_change: string;
  /** Where the original config.yml is kept (undefined: there was none, or a dry run). */
  config_backup?: string;
  /** Every record of the source found identical in the target (false in a dry run). */
  verified: boolean;
  /** config.yml changed: the folder now uses the other layout. */
  finalized: boolean;
  /** `kind/id` of records of the source not found in the target. */
  missing: string[];
  /** `kind/id` of records found in both but different. */
  mismatched: string[];
  notes: string[];
}

/** `.twining/` must exist and be of a format this version knows; returns config.yml's text and its storage keys. */
export async function checkFolder(dir: string): Promise<{ configText?: string; backend?: string; exportRecords?: boolean }> {
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new TwiningError('NOT_FOUND', `${dir} does not exist: there is nothing to migrate`);
  const format = await detectFolderFormat(dir);
  if (format.refusal) throw new TwiningError('INVALID_INPUT', format.refusal.replace('nothing was written', 'nothing was migrated'));
  const configText = await readTextIfExists(path.join(dir, 'config.yml'));
  let loaded: unknown;
  try {
    loaded = configText === undefined ? undefined : yaml.load(configText);
  } catch {
    loaded = undefined; // editConfigText names the file and the problem
  }
  const storage = isRecord(loaded) && isRecord(loaded.storage) ? loaded.storage : {};
  return {
    configText,
    backend: typeof storage.backend === 'string' ? storage.backend : undefined,
    exportRecords: typeof storage.export_records === 'boolean' ? storage.export_records : undefined,
  };
}

/** `storage.backend: files → sqlite, version: 1 → 2` for the report. */
export function describeConfigChange(edit: ConfigEdit, backend: string, version: number): string {
  const was = (v: string | number | undefined) => (v === undefined ? '(not set)' : String(v));
  const text = `storage.backend: ${was(edit.backendBefore)} → ${backend}, version: ${was(edit.versionBefore)} → ${version}`;
  return edit.dumped ? `${text} (config.yml is written anew: its layout could not be edited line by line, so its comments are only in the backup)` : text;
}

/** A file's path for the report: relative to `.twining/`, with `/`. */
export const shown = (dir: string, file: string) => path.relative(dir, file).split(path.sep).join('/');

/** "3 files" / "1 file". */
export const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

/** An error that stopped a migration half-way, with what was and was not written. */
export function stoppedError(error: unknown, what: string): TwiningError {
  const code = error instanceof TwiningError ? error.code : 'IO';
  const message = (error as Error).message ?? String(error);
  return new TwiningError(code, `${message}. ${what}`, error instanceof TwiningError ? error.details : undefined);
}

/** The 1.x files a writer locks (docs/format.md §Which lock for which write), in the engine's order, each with its content when missing. */
export function oneXLockTargets(layout: Layout): [string, string][] {
  return [
    [layout.decisionIndex, '[]'],
    [layout.handoffIndex, ''],
    [layout.blackboard, ''],
    [path.join(layout.graphDir, 'entities.json'), '[]'],
    [path.join(layout.graphDir, 'relations.json'), '[]'],
    [layout.registry, '[]'],
  ];
}
