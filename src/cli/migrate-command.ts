/**
 * `twining migrate [--reverse] [--dry-run] [--dir <folder>] [--json]`: the folder converted
 * between twining-mcp's two layouts (src/core/migrate/migrate-ops.ts), with twining-mcp's own options
 * and exit statuses (its src/migrate/cli.ts: 0 done, 1 verification failed; usage 1 here as for
 * every twining command) and a report in its shape: the counts, what was or would be written, the
 * config change, then what to commit.
 */
import * as path from 'path';
import { migrate } from '../core/migrate/migrate-ops';
import type { MigrateReport } from '../core/migrate/migrate-common';
import { parseFlags, failure } from './command-flags';

export const MIGRATE_HELP = [
  'twining migrate [--reverse] [--dry-run] [--dir <folder>] [--json]',
  '',
  "  Convert .twining/ between twining-mcp's two layouts, as `twining-mcp migrate` does:",
  '  files → sqlite: every record exported to .twining/records/ (one file per record, committed),',
  '  put into .twining/twining.db (agents included), checked, then config.yml says',
  '  storage.backend: sqlite and version: 2. The 1.x files stay, frozen.',
  '  --reverse: sqlite → files: the 1.x files written from twining.db (brought up to records/',
  '  first), checked, then config.yml says files and version 1; twining.db and records/ stay, frozen.',
  '  config.yml is backed up to config.yml.pre-migrate.bak (the first backup is kept).',
  '  Needs node:sqlite (Node 22.13 or later); --dry-run works without it.',
  '',
  '  --reverse'.padEnd(44) + 'sqlite → files',
  '  --dry-run'.padEnd(44) + 'Say what would be written (counts, files, config change); write nothing',
  '  --dir <folder>'.padEnd(44) + 'Project folder holding .twining/ (default: current folder)',
  '  --json'.padEnd(44) + 'Print the report as JSON',
  '',
  'Exit status: 0 migrated (or dry run), 1 verification failed (config.yml unchanged) or refused, 2 nothing to migrate, 3 a file could not be read or written.',
].join('\n');

export function migrateReportText(r: MigrateReport): string {
  const c = r.counts;
  const lines = [
    `twining migrate: ${r.direction}${r.dry_run ? ' (dry run)' : ''} in ${r.folder}`,
    `  posts: ${c.posts}  decisions: ${c.decisions}  entities: ${c.entities}  relations: ${c.relations}  handoffs: ${c.handoffs}  agents: ${c.agents}`,
    `  ${r.dry_run ? 'would write' : 'writes'}:`,
    ...r.writes.map(w => `    ${w}`),
    ...r.notes.map(n => `  note: ${n}`),
  ];
  if (r.dry_run) {
    lines.push('  dry run: nothing was written. Run it again without --dry-run to migrate.');
    return lines.join('\n');
  }
  if (!r.verified) {
    lines.push('  VERIFICATION FAILED: config.yml was not changed.');
    for (const m of r.missing.slice(0, 20)) lines.push(`    missing: ${m}`);
    for (const m of r.mismatched.slice(0, 20)) lines.push(`    differs: ${m}`);
    const more = Math.max(0, r.missing.length - 20) + Math.max(0, r.mismatched.length - 20);
    if (more > 0) lines.push(`    … and ${more} more`);
    return lines.join('\n');
  }
  lines.push(`  verified: every record is in the new layout, identical. config.yml: ${r.config_change}`);
  if (r.config_backup) lines.push(`  the previous config.yml is kept in ${r.config_backup}`);
  if (r.direction === 'files → sqlite')
    lines.push(
      '  Next (nothing was committed for you):',
      '    git add .twining/records .twining/config.yml .twining/.gitignore',
      '    git commit -m "Move .twining to the sqlite layout"',
      '  Teammates need twining-mcp 2.x (or this Twining) before they pull it; restart running sessions.',
    );
  else lines.push('  Restart running Twining and twining-mcp sessions so that they read the 1.x files.');
  return lines.join('\n');
}

export async function migrateCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  let flags;
  try {
    flags = parseFlags('migrate', argv, { reverse: {}, 'dry-run': {}, json: {}, dir: { value: true } });
  } catch (error) {
    return failure('migrate', error, err);
  }
  if (flags.help) {
    out.write(MIGRATE_HELP + '\n');
    return 0;
  }
  const { dir = '.', reverse = false, 'dry-run': dryRun = false, json = false } = flags;
  try {
    const report = await migrate(path.resolve(dir), { reverse, dry_run: dryRun }, m => err.write(`twining: warning: ${m}\n`));
    out.write((json ? JSON.stringify(report, null, 2) : migrateReportText(report)) + '\n');
    return report.dry_run || report.finalized ? 0 : 1;
  } catch (error) {
    return failure('migrate', error, err);
  }
}
