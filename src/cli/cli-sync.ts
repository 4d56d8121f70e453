/**
 * `twining sync [--remote NAME] [--status] [--dir <folder>] [--json]`: the record exchanged with
 * the repository's remote (src/core/sync/), printing what came in and what went out.
 */
import * as path from 'path';
import type { TwiningEngine, WorkspaceOptions } from '../core/engine/engine';
import { parseFlags, failure } from './command-flags';
import type { SyncOptions, SyncReport } from '../core/sync/sync-run';
import { quickSync } from '../core/sync/sync-quick';
import type { SyncCounts } from '../core/sync/sync-counts';

export const SYNC_HELP = [
  'twining sync [--remote NAME] [--status] [--dir <folder>] [--json]',
  '',
  "  Exchange the team's record with the repository's remote, on its own branch twining/record",
  '  (never your branches, index or HEAD): fetch, merge record by record with what this clone has,',
  '  push. After the first sync, VS Code and `twining mcp` sync this clone in the background.',
  '',
  '  --remote NAME'.padEnd(44) + "The remote (default: the last one used, else the branch's upstream remote, else origin)",
  '  --status'.padEnd(44) + 'Say whether this clone syncs, when it last did, what is pending and the last error; sync nothing',
  '  --dir <folder>'.padEnd(44) + 'Project folder holding .twining/ (default: current folder)',
  '  --json'.padEnd(44) + 'Print the report as JSON',
  '',
  'Exit status: 0 synced, 1 usage, 2 no repository or no such remote, 3 the remote could not be reached or its record was refused (nothing local lost).',
].join('\n');

function counts(c: SyncCounts): string {
  const parts = Object.entries(c)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${n === 1 ? kind.replace(/ies$/, 'y').replace(/s$/, '') : kind}`);
  return parts.length ? parts.join(', ') : 'nothing';
}

export function syncReportText(r: SyncReport): string {
  const out = counts(r.outgoing);
  const lines = [
    `twining sync: ${r.remote} (${r.ref}) at ${r.commit?.slice(0, 12) ?? 'nothing yet'}${r.attempts > 1 ? ` after ${r.attempts} tries (others synced meanwhile)` : ''}`,
    // No fetch: the remote took the push only because its record was still the one this clone last fetched.
    `  in:  ${counts(r.incoming)}${r.fetched ? '' : ' (the remote was as last fetched: no fetch needed)'}`,
    // A pushed commit with no record in it carries what the counts leave out: this clone's card, its session board, the indexes.
    `  out: ${r.pushed && out === 'nothing' ? "no record (this clone's card, session board or indexes)" : out}${r.pushed ? '' : ' (nothing to push)'}`,
  ];
  for (const e of r.incoming_entries.slice(0, 10)) lines.push(`  new ${e.entry_type ?? 'entry'} by ${e.agent_id ?? '?'}: ${e.summary ?? e.id}`);
  for (const c of r.claims_lost)
    lines.push(`  claim lost: ${c.agent_id} on ${c.target}: ${c.holder} holds it (another clone's claim reached ${r.remote} first)`);
  for (const n of r.notes.slice(0, 10)) lines.push(`  note: ${n}`);
  return lines.join('\n');
}

/** Opens the engine on a project folder: `openWorkspace`, from the CLI's bundle or, for dist/sync.js, from dist/core.js. */
export type OpenEngine = (root: string, options: WorkspaceOptions) => Promise<Pick<TwiningEngine, 'sync' | 'syncStatus'>>;

/**
 * The command. A sync that needs no engine (nothing came in, sync-quick.ts) runs without opening
 * it: `open` is called only for `--status` and for a sync that does need it.
 */
export async function syncCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream, open: OpenEngine): Promise<number> {
  let flags;
  try {
    flags = parseFlags('sync', argv, { json: {}, status: {}, dir: { value: true }, remote: { value: true } });
  } catch (error) {
    return failure('sync', error, err);
  }
  if (flags.help) {
    out.write(SYNC_HELP + '\n');
    return 0;
  }
  const { dir = '.', remote, json = false, status = false } = flags;
  try {
    const openEngine = () => open(path.resolve(dir), { warn: m => err.write(`twining: warning: ${m}\n`) });
    if (status) {
      const s = await (await openEngine()).syncStatus();
      out.write((json ? JSON.stringify(s, null, 2) : `twining sync: ${s.message}`) + '\n');
      return 0;
    }
    const next: SyncOptions = { remote };
    let report = await quickSync(path.resolve(dir), { remote }, next);
    if (!report) {
      report = await (await openEngine()).sync(next);
      if (next.fetchFirst) report.attempts += 1; // the quick sync's push, which the remote refused, was the first
    }
    out.write((json ? JSON.stringify(report, null, 2) : syncReportText(report)) + '\n');
    return 0;
  } catch (error) {
    return failure('sync', error, err);
  }
}
