/**
 * The blackboard archived on its own, as twining-mcp 1.9 does it (src/engine/blackboard.ts post
 * and src/engine/archiver.ts at commit 4846d7048cd84fe6771ff8c51aac1a29cc96d02b; docs/format.md §Dismiss and archive):
 * after an operation that posted (a post, a decision's copy, a handoff's status, ...), when the
 * blackboard holds `archive.max_blackboard_entries_before_archive` entries or more (config.yml,
 * default 500; 0 never), everything older than now moves to `archive/{date}-blackboard.jsonl`
 * except decision entries, and a finding says what went. twining-mcp 2.x's `archive.retain_recent`
 * (when config.yml sets it) keeps the newest N whatever their age.
 *
 * twining-mcp starts it without waiting; here the operation that crossed the threshold waits for it,
 * so that what it returns is what is on disk. A failure never fails that operation: it is reported
 * and the blackboard stays as it was (archive-ops.ts writes all or nothing).
 */
import type { FolderStore } from '../engine/folder-store';
import { archive, type ArchiveResult } from './archive-ops';
import { withGraph } from './graph-populate-ops';

/** Archives the blackboard when it has reached the configured size; undefined when it has not (or archiving is off). */
export async function archiveWhenDue(ctx: FolderStore): Promise<ArchiveResult | undefined> {
  if (ctx.readOnly) return undefined;
  const config = await ctx.config();
  const threshold = config.archive.max_blackboard_entries_before_archive;
  if (!threshold) return undefined;
  await ctx.blackboard.refresh();
  if (ctx.blackboard.entries.length < threshold) return undefined;
  try {
    // Its own finding goes through the graph steps like any post; the check after it finds the blackboard small.
    // 1.9's sweep on either layout (open needs and warnings go too): keeping them would leave a
    // blackboard over the threshold that every later post archives again for nothing.
    return await withGraph(ctx, () =>
      archive(ctx, { summarize: true, keep_open_needs_warnings: false, ...(config.archive.retain_recent ? { retain: config.archive.retain_recent } : {}) }),
    );
  } catch (error) {
    ctx.warn(`the blackboard reached ${threshold} entries but was not archived (it is unchanged): ${(error as Error).message}`);
    return undefined;
  }
}

/** Turns automatic archiving on for an engine's folder: checked after every operation that posted. */
export function archiveAutomatically(ctx: FolderStore): void {
  ctx.posting.after = () => archiveWhenDue(ctx).then(() => undefined);
}
