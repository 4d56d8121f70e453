/**
 * Catching up, as twining-mcp 1.9 answers it (src/engine/context-assembler.ts summarize and
 * whatChanged, src/storage/blackboard-store.ts recent, at commit
 * 4846d7048cd84fe6771ff8c51aac1a29cc96d02b): what changed since a time, a scope in counts, and
 * the latest entries. All read the loaded blackboard and decision index; only overridden decisions
 * are read from their records (for the reason).
 */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import { overlaps } from '../scope';
import { canonicalTimestamp } from '../timestamps';
import { mapBounded } from '../storage/bounded';
import type { BlackboardEntry } from '../records';
import { isResolved } from '../rules/resolution';
import { indexOrphanDecisions, readDecisionRecord } from './decision-ops';
import { decisionsSince, entriesSince } from './entries-by-time';

export interface WhatChanged {
  new_decisions: { id: string; summary: string }[];
  new_entries: { id: string; entry_type: string; summary: string }[];
  overridden_decisions: { id: string; summary: string; reason: string }[];
  reconsidered_decisions: { id: string; summary: string }[];
}

const scoped = (scope: string | undefined) => (item: { scope?: unknown }) => !scope || (typeof item.scope === 'string' && overlaps(item.scope, scope));

export async function whatChanged(ctx: FolderStore, input: InputOf<'what_changed'>): Promise<WhatChanged> {
  const args = ctx.validate('what_changed', input);
  const since = canonicalTimestamp(args.since)!;
  await Promise.all([ctx.blackboard.refresh(), indexOrphanDecisions(ctx)]);
  const inScope = scoped(args.scope);
  // From the entries and decisions cached in time order: the cost is what changed, not the history (entries-by-time.ts).
  const new_entries = entriesSince(ctx, since)
    .filter(inScope)
    .map(e => ({ id: e.id, entry_type: e.entry_type, summary: e.summary }));
  const window = await decisionsSince(ctx, since);
  const recent = window.filter(inScope);
  // twining-mcp dates an override by the decision's own timestamp (the record keeps no override time),
  // which the index holds too: only the records of overrides in the window are read, for their reason.
  const overridden = (
    await mapBounded(
      window.filter(d => d.status === 'overridden'),
      d => readDecisionRecord(ctx, d.id).catch(() => undefined),
    )
  ).filter(d => d !== undefined && d.timestamp >= since && inScope(d));
  return {
    new_decisions: recent.filter(d => d.status === 'active' || d.status === 'provisional').map(d => ({ id: d.id, summary: d.summary })),
    new_entries,
    overridden_decisions: overridden.map(d => ({
      id: d!.id,
      summary: d!.summary,
      reason: typeof d!.override_reason === 'string' ? d!.override_reason : 'No reason provided',
    })),
    reconsidered_decisions: recent.filter(d => d.status === 'provisional').map(d => ({ id: d.id, summary: d.summary })),
  };
}

export interface Summary {
  scope: string;
  active_decisions: number;
  provisional_decisions: number;
  open_needs: number;
  active_warnings: number;
  unanswered_questions: number;
  recent_activity_summary: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n !== 1 ? 's' : ''}`;

export async function summarize(ctx: FolderStore, input: InputOf<'summarize'> = {}): Promise<Summary> {
  const args = ctx.validate('summarize', input);
  const scope = args.scope || 'project';
  await Promise.all([ctx.blackboard.refresh(), indexOrphanDecisions(ctx)]);
  // "project" means everything here, not the literal scope "project" (context-assembler.ts summarize).
  const inScope = scoped(scope === 'project' ? undefined : scope);
  const decisions = (await ctx.decisionIndex.get()).filter(inScope);
  const entries = ctx.blackboard.entries.filter(inScope);
  const open = entries.filter(e => !isResolved(e));
  const count = (items: readonly BlackboardEntry[], type: string) => items.filter(e => e.entry_type === type).length;
  const dayAgo = new Date(ctx.now().getTime() - 24 * 3600 * 1000).toISOString();
  const lastDay = entries.filter(e => typeof e.timestamp === 'string' && e.timestamp >= dayAgo);
  const decidedLastDay = decisions.filter(d => typeof d.timestamp === 'string' && d.timestamp >= dayAgo).length;
  return {
    scope,
    active_decisions: decisions.filter(d => d.status === 'active').length,
    provisional_decisions: decisions.filter(d => d.status === 'provisional').length,
    // A need, warning or question resolved (twining-mcp 2.x's status) is no longer open.
    open_needs: count(open, 'need'),
    active_warnings: count(open, 'warning'),
    unanswered_questions: count(open, 'question'),
    recent_activity_summary: `In the last 24 hours: ${plural(decidedLastDay, 'decision')} made, ${plural(count(lastDay, 'finding'), 'finding')} posted, ${plural(count(lastDay, 'warning'), 'warning')} raised.`,
  };
}

/** The last `n` entries (default 20) of the blackboard, optionally of some types, newest first. */
export async function recent(ctx: FolderStore, input: InputOf<'recent'> = {}): Promise<{ entries: BlackboardEntry[] }> {
  const args = ctx.validate('recent', input);
  await ctx.blackboard.refresh();
  const n = args.n ?? 20;
  const types = args.entry_types?.length ? new Set<string>(args.entry_types) : undefined;
  const all = ctx.blackboard.entries;
  const found: BlackboardEntry[] = [];
  // From the end: O(n) without a type filter, however long the blackboard.
  for (let i = all.length - 1; i >= 0 && found.length < n; i--) if (!types || types.has(all[i].entry_type)) found.push(all[i]);
  return { entries: found };
}
