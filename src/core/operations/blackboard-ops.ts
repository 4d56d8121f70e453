/** Blackboard operations: post, read, dismiss, one entry by id, and the append every writer uses. */
import type { FolderStore } from '../engine/folder-store';
import { touchAgentLocked } from './agent-touch';
import { Transaction, allOrNothing } from '../storage/transaction';
import { parseObject } from '../storage/files/jsonl';
import { dismissalEntry } from '../rules/why';
import type { InputOf } from '../schemas/schemas';
import { overlaps } from '../scope';
import type { BlackboardEntry } from '../records';
import { canonicalTimestamp } from '../timestamps';
import { notePosted } from './graph-populate-ops';

export type NewEntry = Omit<BlackboardEntry, 'id' | 'timestamp'>;

export async function post(ctx: FolderStore, input: InputOf<'post'>): Promise<{ id: string; timestamp: string }> {
  const args = ctx.validate('post', input);
  const entry = await appendEntry(ctx, {
    entry_type: args.entry_type,
    summary: args.summary,
    detail: args.detail ?? '',
    tags: args.tags ?? [],
    scope: args.scope ?? 'project',
    relates_to: args.relates_to,
    agent_id: args.agent_id ?? 'main',
  });
  return { id: entry.id, timestamp: entry.timestamp };
}

/** Appends one blackboard line under the blackboard lock. */
export async function appendEntry(ctx: FolderStore, fields: NewEntry): Promise<BlackboardEntry> {
  await ctx.ready();
  return ctx.lock([ctx.locks.blackboard], () => appendEntryLocked(ctx, fields));
}

/**
 * Appends one blackboard line, keys in twining-mcp's order (as a step of `tx` when given); the
 * caller holds the blackboard lock. `populate: false` leaves the graph alone, for an entry
 * twining-mcp never posts (so that the graph stays the one it would keep).
 */
export async function appendEntryLocked(ctx: FolderStore, fields: NewEntry, tx?: Transaction, populate = true): Promise<BlackboardEntry> {
  const entry: Record<string, unknown> = {
    entry_type: fields.entry_type,
    summary: fields.summary,
    detail: fields.detail,
    tags: fields.tags,
    scope: fields.scope,
  };
  if (fields.relates_to !== undefined) entry.relates_to = fields.relates_to;
  entry.agent_id = fields.agent_id;
  entry.id = ctx.id();
  entry.timestamp = ctx.timestamp();
  // One append; on the files layout the engine's copy takes the line in as written, so nothing is read back.
  const appended = await ctx.storage.appendEntries([entry], tx);
  if (appended && !appended.mended) ctx.blackboard.appendedHere(appended.before, appended.after, appended.text);
  // A twining-mcp 2.x folder: every post registers its agent (operations/agent-touch.ts).
  await touchAgentLocked(ctx, typeof fields.agent_id === 'string' ? fields.agent_id : undefined, tx);
  if (populate) notePosted(ctx, entry as BlackboardEntry);
  return entry as BlackboardEntry;
}

export async function read(ctx: FolderStore, input: InputOf<'read'> = {}): Promise<{ entries: BlackboardEntry[]; total_count: number }> {
  const args = ctx.validate('read', input);
  await ctx.blackboard.refresh();
  const types = args.entry_types?.length ? new Set<string>(args.entry_types) : undefined;
  const tags = args.tags?.length ? new Set(args.tags) : undefined;
  const since = args.since !== undefined ? canonicalTimestamp(args.since) : undefined;
  // Without a filter, the last N entries are a slice: O(limit), not O(blackboard).
  if (!types && !tags && !args.scope && !since) {
    const all = ctx.blackboard.entries;
    const n = args.limit ?? 50;
    return { entries: n > 0 ? all.slice(-n) : all.slice(), total_count: all.length };
  }
  // By scope (and type): the positions kept per scope, so the cost is what is returned, not the history.
  if (args.scope && !tags && !since) {
    const { entries, total } = ctx.blackboard.lastInScope(args.scope, types, args.limit ?? 50);
    return { entries, total_count: total };
  }
  const matching = ctx.blackboard.entries.filter(
    e =>
      (!types || types.has(e.entry_type)) &&
      (!tags || (Array.isArray(e.tags) && e.tags.some(t => tags.has(t)))) &&
      (!args.scope || (typeof e.scope === 'string' && overlaps(e.scope, args.scope))) &&
      (!since || (typeof e.timestamp === 'string' && e.timestamp >= since)),
  );
  const limit = args.limit ?? 50;
  return { entries: limit > 0 ? matching.slice(-limit) : matching, total_count: matching.length };
}

/** One blackboard entry by id (current file only), for views that open an entry. */
export async function getEntry(ctx: FolderStore, id: string): Promise<BlackboardEntry | undefined> {
  await ctx.blackboard.refresh();
  return ctx.blackboard.get(id);
}

/**
 * Removes the entries with the given ids (docs/format.md §Dismiss and archive): the file is read inside the lock and
 * written whole through a temporary file, keeping every line that does not parse. Unlike
 * twining-mcp, which drops the reason, a `status` entry records who dismissed what and why.
 */
export async function dismiss(ctx: FolderStore, input: InputOf<'dismiss'>): Promise<{ dismissed: string[]; not_found: string[]; status_entry_id?: string }> {
  const args = ctx.validate('dismiss', input);
  await ctx.ready();
  const wanted = new Set(args.ids);
  const removed: BlackboardEntry[] = [];
  // The rewrite is undone if the status entry cannot be appended: a dismissal is whole or nothing.
  return rewriteBlackboard(
    ctx,
    (line, entry) => {
      if (!entry || typeof entry.id !== 'string' || !wanted.has(entry.id)) return line;
      removed.push(entry as BlackboardEntry);
      return undefined;
    },
    async tx => {
      const dismissed = [...new Set(removed.map(e => e.id))];
      const not_found = args.ids.filter(id => !dismissed.includes(id));
      if (!dismissed.length) return { dismissed, not_found };
      const note = dismissalEntry(removed, args.reason || undefined);
      const entry = await appendEntryLocked(
        ctx,
        {
          entry_type: 'status',
          summary: note.summary,
          detail: note.detail,
          tags: ['dismissed'],
          scope: note.scope,
          relates_to: dismissed,
          agent_id: args.agent_id ?? 'main',
        },
        tx,
        // twining-mcp posts nothing on a dismissal: its graph is left as twining-mcp's would be.
        false,
      );
      return { dismissed, not_found, status_entry_id: entry.id };
    },
  );
}

/**
 * The frame of an operation that rewrites the blackboard file line by line (dismiss, resolve):
 * under the blackboard lock and as one all-or-nothing transaction, the file is read and each
 * non-blank line given to `perLine` with its object (undefined where the line does not parse),
 * which returns the line to write in its place (the same line keeps it byte for byte) or undefined
 * to drop it. Blank lines are dropped, as twining-mcp drops them. When any line changed, the file
 * is replaced whole through a temporary file (as a step of the transaction); then `after` runs in
 * the same lock and transaction (what it appends is undone with the rewrite if it fails).
 */
export async function rewriteBlackboard<R>(
  ctx: FolderStore,
  perLine: (line: string, entry: Record<string, unknown> | undefined) => string | undefined,
  after: (tx: Transaction) => Promise<R>,
): Promise<R> {
  return ctx.lock([ctx.locks.blackboard], () =>
    allOrNothing(async tx => {
      const text = await ctx.storage.blackboardText();
      const out: string[] = [];
      let changed = false;
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const next = perLine(line, parseObject<Record<string, unknown>>(line));
        if (next !== undefined) out.push(next);
        if (next !== line) changed = true;
      }
      if (changed) await ctx.storage.replaceEntries(out, tx);
      return after(tx);
    }),
  );
}
