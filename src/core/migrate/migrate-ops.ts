/**
 * `twining migrate`: a folder converted between twining-mcp's two layouts, as twining-mcp's own
 * `twining-mcp migrate` converts it (daveangulo/twining-mcp, src/migrate/cli.ts at 166a69df,
 * forward.ts and config-edit.ts at 75b67af2, reverse.ts at dfd6adde, verify.ts at 49d10113;
 * src/storage/sync/record-export.ts at 0b79c990 and record-ingest.ts at 4b698631):
 *
 *  - forward (files → sqlite, migrate-forward.ts): every 1.x record exported to `records/` in
 *    twining-mcp's bytes and paths, `records/` ingested into twining.db, every 1.x record checked to
 *    be in both, identical, then config.yml set to `storage.backend: sqlite`, `version: 2`;
 *  - reverse (sqlite → files, migrate-reverse.ts): twining.db brought up to `records/` (the files
 *    win), the 1.x files written from it, checked, then config.yml set to `files`, `version: 1`.
 *
 * config.yml is backed up to `config.yml.pre-migrate.bak` (first wins); the side left behind is
 * frozen, not deleted. A dry run reads and counts through the same code and writes nothing.
 * Where this differs from twining-mcp, on purpose: the agents go with the records (into twining.db
 * forward, into agents/registry.json backward; twining-mcp leaves them behind); config.yml keeps
 * its comments and layout (twining-mcp dumps it anew); the 1.x folder stays on `files` while it is
 * migrated (a crash leaves no half-made records/ that twining-mcp 2.x would take for the truth);
 * the 1.x files are locked while they are read and the config changed, so no 1.x write falls
 * between; and a re-run on a migrated folder does not overwrite a record file that changed since
 * (twining-mcp's re-run puts the frozen 1.x version back over it).
 */
import { migrateForward } from './migrate-forward';
import { migrateReverse } from './migrate-reverse';
import type { MigrateOptions, MigrateReport } from './migrate-common';

export type { MigrateOptions, MigrateReport, MigrateCounts } from './migrate-common';

export function migrate(projectRoot: string, options: MigrateOptions = {}, warn: (m: string) => void = () => undefined): Promise<MigrateReport> {
  if (options.reverse) return migrateReverse(projectRoot, options.dry_run === true, warn);
  return migrateForward(projectRoot, options.dry_run === true, warn);
}
