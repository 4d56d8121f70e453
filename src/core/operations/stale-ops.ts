/**
 * archive_stale and unarchive (twining-mcp 2.x's `twining_archive_stale` and `twining_unarchive`,
 * src/tools/housekeeping-tools.ts at commit 161515b718c6a2896e2580419460c5be3b6e1525, and
 * src/engine/tombstones.ts at commit 71ed32c15b9546559a2bcffa1073ef90e40709d8), on the 1.x layout:
 *  - a decision in the index becomes `archived`, its record keeping every field and gaining
 *    `archived_from` (the status before, unless it was already archived); unarchive restores that
 *    status (active when unknown) and drops `archived_from`;
 *  - a blackboard entry is removed from the blackboard and its whole line, with
 *    `dismissed: {dismissed_at, dismissed_by: "archive_stale", reason}`, appended to
 *    `archive/{date}-blackboard.jsonl` (a dismissal tombstone: the only copy left);
 *  - a finding tagged housekeeping records what went (or came back) and why.
 * All of it is one transaction under the decision index and blackboard locks: whole or nothing.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import { isRecord } from '../storage/json-files';
import { parseObject } from '../storage/files/jsonl';
import { isUlid, type InputOf } from '../schemas/schemas';
import type { DecisionIndexEntry, DecisionRecord } from '../records';
import { readDecisionRecord, setDecisionStatus } from './decision-ops';
import { transition } from './decision-lifecycle-ops';
import { appendEntryLocked } from './blackboard-ops';

export interface ArchiveStaleResult {
  archived_decisions: string[];
  archived_entries: string[];
  not_found: string[];
  total_archived: number;
  /** Said when the batch is large for the number of live decisions (twining-mcp's sanity signal). */
  warning?: string;
  /** The finding that records the archive. */
  finding_id?: string;
}

export async function archiveStale(ctx: FolderStore, input: InputOf<'archive_stale'>): Promise<ArchiveStaleResult> {
  const args = ctx.validate('archive_stale', input);
  return transition(ctx, async (raw, tx) => {
    const index = raw.filter(isRecord) as unknown as DecisionIndexEntry[];
    const statusById = new Map(index.map(d => [d.id, d.status]));
    const live = index.filter(d => d.status === 'active' || d.status === 'provisional').length;
    const archived_decisions: string[] = [];
    const archived_entries: string[] = [];
    const not_found: string[] = [];
    const entryIds = new Set<string>();
    for (const id of [...new Set(args.ids)]) {
      if (!statusById.has(id) || !isUlid(id)) {
        entryIds.add(id);
        continue;
      }
      const prior = statusById.get(id);
      const extra: Partial<DecisionRecord> = prior && prior !== 'archived' ? { archived_from: prior } : {};
      if (await setDecisionStatus(ctx, raw, id, 'archived', tx, extra)) archived_decisions.push(id);
      else not_found.push(id);
    }
    if (entryIds.size) {
      const text = await ctx.storage.blackboardText();
      const kept: string[] = [];
      const tombstones: string[] = [];
      const at = ctx.timestamp();
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const entry = parseObject<Record<string, unknown>>(line);
        if (entry && typeof entry.id === 'string' && entryIds.has(entry.id)) {
          if (!archived_entries.includes(entry.id)) archived_entries.push(entry.id);
          const dismissed = { dismissed_at: at, dismissed_by: 'archive_stale', reason: args.reason || 'archived as stale via twining_archive_stale' };
          tombstones.push(JSON.stringify({ ...entry, dismissed }) + '\n');
        } else kept.push(line);
      }
      for (const id of entryIds) if (!archived_entries.includes(id)) not_found.push(id);
      if (tombstones.length) {
        await fs.mkdir(ctx.layout.archiveDir, { recursive: true });
        // The tombstones first: an entry is never in neither file.
        await tx.append(path.join(ctx.layout.archiveDir, `${at.slice(0, 10)}-blackboard.jsonl`), tombstones.join(''));
        await ctx.storage.replaceEntries(kept, tx);
      }
    }
    const total = archived_decisions.length + archived_entries.length;
    const threshold = Math.max(20, Math.ceil(live * 0.05));
    const result: ArchiveStaleResult = { archived_decisions, archived_entries, not_found, total_archived: total };
    if (args.ids.length > threshold) {
      result.warning =
        `Archiving ${args.ids.length} items, more than ${threshold} (5% of ${live} live decisions). Staleness signals are heuristics: check a sample ` +
        'before trusting a batch this large. Archived decisions are restorable with unarchive; blackboard entries are removed (kept in archive/).';
    }
    if (total) {
      const perItem = Object.entries(args.reasons ?? {})
        .filter(([id]) => archived_decisions.includes(id) || archived_entries.includes(id))
        .map(([id, why]) => `  ${id}: ${why}`);
      const detail = [
        args.reason ? `Reason: ${args.reason}` : '',
        archived_decisions.length ? `Decisions: ${archived_decisions.join(', ')}` : '',
        archived_entries.length ? `Blackboard entries: ${archived_entries.join(', ')}` : '',
        perItem.length ? `Per-item reasons:\n${perItem.join('\n')}` : '',
      ].filter(Boolean);
      const finding = await appendEntryLocked(
        ctx,
        {
          entry_type: 'finding',
          summary: `Archived ${total} stale items via housekeeping`,
          detail: detail.join('\n'),
          tags: ['housekeeping', 'stale-archive'],
          scope: 'project',
          agent_id: 'main',
        },
        tx,
      );
      result.finding_id = finding.id;
    }
    return result;
  });
}

export interface UnarchiveResult {
  restored: string[];
  not_archived: string[];
  not_found: string[];
  /** The status each restored decision went back to. */
  restored_to: Record<string, string>;
  finding_id?: string;
}

export async function unarchive(ctx: FolderStore, input: InputOf<'unarchive'>): Promise<UnarchiveResult> {
  const args = ctx.validate('unarchive', input);
  return transition(ctx, async (raw, tx) => {
    const result: UnarchiveResult = { restored: [], not_archived: [], not_found: [], restored_to: {} };
    for (const id of [...new Set(args.ids)]) {
      const decision = isUlid(id) ? await readDecisionRecord(ctx, id) : undefined;
      if (!decision) result.not_found.push(id);
      else if (decision.status !== 'archived') result.not_archived.push(id);
      else {
        const to = typeof decision.archived_from === 'string' && decision.archived_from !== 'archived' ? decision.archived_from : 'active';
        await setDecisionStatus(ctx, raw, id, to, tx, { archived_from: undefined });
        result.restored.push(id);
        result.restored_to[id] = to;
      }
    }
    if (result.restored.length) {
      const finding = await appendEntryLocked(
        ctx,
        {
          entry_type: 'finding',
          summary: `Unarchived ${result.restored.length} decision(s), restored to their pre-archive status`,
          detail: [args.reason ? `Reason: ${args.reason}` : '', `Decisions: ${result.restored.join(', ')}`].filter(Boolean).join('\n'),
          tags: ['housekeeping', 'unarchive'],
          scope: 'project',
          agent_id: 'main',
        },
        tx,
      );
      result.finding_id = finding.id;
    }
    return result;
  });
}
