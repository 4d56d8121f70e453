/**
 * Archiving the blackboard, by twining-mcp 1.9's rules (src/engine/archiver.ts at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b; docs/format.md §Dismiss and archive): every entry older than the cutoff
 * (default now; compared as strings) moves to `archive/{cutoff date}-blackboard.jsonl`, except
 * decision entries unless `keep_decisions` is false; the archive is appended before the
 * blackboard is rewritten, and a finding "Archive: {n} entries archived" says what went. From
 * twining-mcp 2.x, `retain` keeps the newest N entries whatever their age, and
 * `keep_open_needs_warnings` keeps needs, warnings and questions that are not resolved (resolved:
 * their status says so, or another entry names them in relates_to; twining-mcp's archiver.ts
 * `partitionArchivable` and resolution.ts, its #40 and D4), counted in `kept_open_count`; it
 * defaults to true on a twining.db folder, as in 2.x, and to false on a files folder, as in 1.9.
 * The automatic archive keeps 1.9's sweep (auto-archive-ops.ts). Unlike twining-mcp,
 * a line that does not parse stays on the blackboard rather than being lost.
 *
 * Archived entries stay findable: verify tells archived from dismissed (storage/files/loaded-files.ts
 * ArchiveIndex), and decisions are never archived (their records are separate files).
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import { allOrNothing } from '../storage/transaction';
import { parseObject } from '../storage/files/jsonl';
import { canonicalTimestamp } from '../timestamps';
import type { InputOf } from '../schemas/schemas';
import type { BlackboardEntry } from '../records';
import { appendEntryLocked } from './blackboard-ops';
import { RESOLVABLE_TYPES, resolvedIdsOf } from '../rules/resolution';

export interface ArchiveResult {
  archived_count: number;
  /** The archive file's path ("" when nothing was archived). */
  archive_file: string;
  summary?: string;
  /** The finding that records the archive. */
  summary_entry_id?: string;
  /** Needs, warnings and questions not resolved that stayed because of keep_open_needs_warnings (twining-mcp 2.x); only when it applied. */
  kept_open_count?: number;
}

export async function archive(ctx: FolderStore, input: InputOf<'archive'> = {}): Promise<ArchiveResult> {
  const args = ctx.validate('archive', input);
  const cutoff = args.before !== undefined ? canonicalTimestamp(args.before)! : ctx.timestamp();
  const keepDecisions = args.keep_decisions ?? true;
  const retain = args.retain ?? 0;
  const keepOpen = args.keep_open_needs_warnings ?? ctx.sqlite !== undefined;
  await ctx.ready();
  return ctx.lock([ctx.locks.blackboard], () =>
    allOrNothing(async tx => {
      const text = await ctx.storage.blackboardText();
      const lines = text.split('\n').filter(line => line.trim() !== '');
      const parsed = lines.map(line => parseObject<BlackboardEntry>(line.replace(/\r$/, '')));
      // The newest `retain` parsed entries stay, whatever their age.
      const retained = new Set<number>();
      for (let i = parsed.length - 1; i >= 0 && retained.size < retain; i--) if (parsed[i]) retained.add(i);
      const kept: string[] = [];
      const moved: BlackboardEntry[] = [];
      const movedLines: string[] = [];
      const resolved = keepOpen ? resolvedIdsOf(parsed.filter((e): e is BlackboardEntry => !!e)) : new Set<string>();
      let keptOpen = 0;
      // 1.9 answers without the count; 2.x's rule (keepOpen) reports it.
      const open = () => (keepOpen ? { kept_open_count: keptOpen } : {});
      parsed.forEach((entry, i) => {
        const old = !!entry && typeof entry.timestamp === 'string' && entry.timestamp < cutoff;
        if (!entry || !old || retained.has(i) || (keepDecisions && entry.entry_type === 'decision')) kept.push(lines[i]);
        else if (keepOpen && RESOLVABLE_TYPES.includes(entry.entry_type) && !resolved.has(entry.id)) {
          kept.push(lines[i]);
          keptOpen++;
        } else {
          moved.push(entry);
          movedLines.push(lines[i].replace(/\r$/, ''));
        }
      });
      if (!moved.length) return { archived_count: 0, archive_file: '', ...open() };
      await fs.mkdir(ctx.layout.archiveDir, { recursive: true });
      const archiveFile = path.join(ctx.layout.archiveDir, `${cutoff.slice(0, 10)}-blackboard.jsonl`);
      // The archive first: an entry is never only in neither file.
      await tx.append(archiveFile, movedLines.map(line => line + '\n').join(''));
      await ctx.storage.replaceEntries(kept, tx);
      if (args.summarize === false) return { archived_count: moved.length, archive_file: archiveFile, ...open() };
      const summary = archiveSummary(moved);
      const finding = await appendEntryLocked(
        ctx,
        {
          entry_type: 'finding',
          summary: `Archive: ${moved.length} entries archived`,
          detail: summary,
          tags: ['archive'],
          scope: 'project',
          agent_id: 'main',
        },
        tx,
      );
      return { archived_count: moved.length, archive_file: archiveFile, summary, summary_entry_id: finding.id, ...open() };
    }),
  );
}

/** "Archive summary: n entries archived." then, per type in order of first appearance, its count and three newest summaries; at most 2,000 characters. */
export function archiveSummary(archived: readonly BlackboardEntry[]): string {
  const groups = new Map<string, BlackboardEntry[]>();
  for (const e of archived) (groups.get(e.entry_type) ?? groups.set(e.entry_type, []).get(e.entry_type)!).push(e);
  const parts = [`Archive summary: ${archived.length} entries archived.`];
  for (const [type, entries] of groups) {
    const newest = entries
      .slice()
      .sort((a, b) => b.timestamp.localeCompare(a.timestamp))
      .slice(0, 3)
      .map(e => e.summary)
      .join('; ');
    parts.push(`${type}: ${entries.length} entries (${newest}).`);
  }
  const summary = parts.join(' ');
  return summary.length > 2000 ? summary.slice(0, 1997) + '...' : summary;
}
