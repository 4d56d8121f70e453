/**
 * resolve (twining-mcp 2.x's `twining_resolve`): the record-keeping way to close a need, warning
 * or question. Written as twining-mcp's files backend writes it (src/storage/blackboard-store.ts
 * `resolve`, commit 0b79c990a41b2359874184538547d3ca6e27c56d): under the blackboard lock the file is
 * read, each matching line not yet resolved is rewritten as the compact JSON of the entry with
 * `status`, `resolved_at` and the given `resolved_by` and `resolution_note`, every other line is
 * kept byte for byte (lines that do not parse too; blank lines are dropped, as it drops them),
 * and the whole file is replaced through a temporary file. The first resolve wins; an id already
 * resolved counts as resolved and changes nothing. Unlike dismiss, nothing is removed.
 */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import { resolvedEntry } from '../rules/resolution';
import { touchAgentLocked } from './agent-touch';
import { rewriteBlackboard } from './blackboard-ops';

export interface ResolveResult {
  /** Ids found on the blackboard: resolved now, or already resolved before. */
  resolved: string[];
  /** Ids not on the blackboard (never posted, dismissed or archived). */
  not_found: string[];
}

export async function resolve(ctx: FolderStore, input: InputOf<'resolve'>): Promise<ResolveResult> {
  const args = ctx.validate('resolve', input);
  await ctx.ready();
  const wanted = new Set(args.ids);
  // One time for every entry resolved, taken inside the lock (at the first match).
  let at: string | undefined;
  const resolved: string[] = [];
  return rewriteBlackboard(
    ctx,
    (line, entry) => {
      if (!entry || typeof entry.id !== 'string' || !wanted.has(entry.id)) return line;
      if (!resolved.includes(entry.id)) resolved.push(entry.id);
      at ??= ctx.timestamp();
      const next = resolvedEntry(entry, { at, by: args.agent_id, note: args.note || undefined });
      return next === entry ? line : JSON.stringify(next);
    },
    async tx => {
      // A twining-mcp 2.x folder: resolving registers the resolver, as its BlackboardEngine.resolve does.
      await touchAgentLocked(ctx, args.agent_id, tx);
      return { resolved, not_found: args.ids.filter(id => !resolved.includes(id)) };
    },
  );
}
