/**
 * triage (twining-mcp 2.x's `twining_triage`, src/engine/triage.ts at commit
 * 1a3987bcaec9ab893007098c62feb311b335fe89 and its input in src/core/commands/triage.ts at commit
 * c6dbc077e20a3286ae947bfc1855e5ebfaa722f7): the review queue, by its rules.
 *  - open: provisional decisions; needs, questions and warnings not resolved (its resolution
 *    predicate, rules/resolution.ts `resolvedIdsOf`), delegations not expired; oldest first by
 *    (timestamp, id), never windowed. Paged with `open_after`: the `open_cursor` of a page names
 *    its last item (an opaque string; ours is base64url of `timestamp` and `id`).
 *  - recent: decisions made active and artifacts posted after max(now - window_ms, since), newest first.
 * Out-of-range numbers are brought into range rather than refused, as twining-mcp does.
 */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import type { DecisionIndexEntry } from '../records';
import { overlaps } from '../scope';
import { resolvedIdsOf } from '../rules/resolution';
import { delegationOf, isExpired } from '../rules/delegation-detail';
import { readDecisionRecord } from './decision-ops';

const DEFAULT_WINDOW_MS = 604_800_000;
const PREVIEW_CHARS = 200;

export interface TriageItem {
  kind: 'decision' | 'need' | 'question' | 'warning' | 'artifact';
  id: string;
  scope: string;
  summary: string;
  agent_id: string;
  timestamp: string;
  age_ms: number;
  detail_preview?: string;
  detail_truncated?: boolean;
  tags?: string[];
  reversible?: boolean;
  confidence?: string;
  status?: 'provisional' | 'active';
  urgency?: string;
  expires_at?: string;
}

type Counts<K extends string> = { total: number; irreversible: number; by_kind: Record<K, number> };

export interface TriageResult {
  generated_at: string;
  window_ms: number;
  section: 'all' | 'open' | 'recent';
  scope?: string;
  for_agent?: string;
  since?: string;
  counts: { open: Counts<'decision' | 'need' | 'question' | 'warning'>; recent: Counts<'decision' | 'artifact'> };
  open?: TriageItem[];
  /** Present when open items remain after this page: pass it back as open_after. */
  open_cursor?: string;
  recent?: TriageItem[];
}

const encodeCursor = (item: { timestamp: string; id: string }) => Buffer.from(JSON.stringify([item.timestamp, item.id])).toString('base64url');

function decodeCursor(cursor: string | undefined): [string, string] | undefined {
  if (!cursor) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') return [value[0], value[1]];
  } catch {
    // A malformed cursor is ignored, as twining-mcp ignores it.
  }
  return undefined;
}

const compareItems = (a: { timestamp: string; id: string }, b: { timestamp: string; id: string }) =>
  a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? -1 : 1) : a.id !== b.id ? (a.id < b.id ? -1 : 1) : 0;

function preview(source: unknown): Pick<TriageItem, 'detail_preview' | 'detail_truncated'> {
  const collapsed = typeof source === 'string' ? source.replace(/\s+/g, ' ').trim() : '';
  if (!collapsed) return {};
  return collapsed.length > PREVIEW_CHARS ? { detail_preview: collapsed.slice(0, PREVIEW_CHARS), detail_truncated: true } : { detail_preview: collapsed };
}

const count = (items: readonly TriageItem[], kind: TriageItem['kind']) => items.filter(i => i.kind === kind).length;
const irreversible = (items: readonly TriageItem[]) => items.filter(i => i.kind === 'decision' && i.reversible === false).length;

export async function triage(ctx: FolderStore, input: InputOf<'triage'> = {}): Promise<TriageResult> {
  const args = ctx.validate('triage', input);
  const now = ctx.now();
  const nowMs = now.getTime();
  const windowMs = typeof args.window_ms === 'number' && args.window_ms > 0 ? args.window_ms : DEFAULT_WINDOW_MS;
  const limit = Math.min(200, Math.max(1, typeof args.limit === 'number' && Number.isFinite(args.limit) ? Math.floor(args.limit) : 25));
  const section = args.section ?? 'all';
  const scope = args.scope || undefined;
  const forAgent = args.for_agent || undefined;
  const sinceMs = args.since ? Date.parse(args.since) : undefined;
  const cutoffMs = Math.max(nowMs - windowMs, sinceMs ?? -Infinity);
  const after = decodeCursor(args.open_after);

  await ctx.blackboard.refresh();
  const index = (await ctx.decisionIndex.get()) as readonly DecisionIndexEntry[];
  const board = ctx.blackboard.entries;
  const resolved = resolvedIdsOf(board);
  const inScope = (s: unknown) => !scope || (typeof s === 'string' && overlaps(s, scope));

  const open: TriageItem[] = [];
  const recent: TriageItem[] = [];
  for (const d of index) {
    if (typeof d.id !== 'string' || !inScope(d.scope)) continue;
    const isOpen = d.status === 'provisional';
    if (!isOpen && !(d.status === 'active' && Date.parse(d.timestamp) > cutoffMs)) continue;
    const record = await readDecisionRecord(ctx, d.id).catch(() => undefined);
    if (!record) continue;
    const item: TriageItem = {
      kind: 'decision',
      id: d.id,
      scope: String(record.scope),
      summary: String(record.summary),
      agent_id: String(record.agent_id),
      timestamp: String(record.timestamp),
      age_ms: nowMs - Date.parse(String(record.timestamp)),
      ...preview(record.rationale),
      reversible: record.reversible,
      confidence: record.confidence,
      status: isOpen ? 'provisional' : 'active',
    };
    (isOpen ? open : recent).push(item);
  }
  for (const e of board) {
    if (typeof e.id !== 'string' || !inScope(e.scope) || (forAgent !== undefined && e.agent_id === forAgent)) continue;
    const base = () => ({
      id: e.id,
      scope: String(e.scope),
      summary: String(e.summary),
      agent_id: String(e.agent_id),
      timestamp: String(e.timestamp),
      age_ms: nowMs - Date.parse(String(e.timestamp)),
      tags: Array.isArray(e.tags) ? e.tags : [],
    });
    if (e.entry_type === 'need' || e.entry_type === 'question' || e.entry_type === 'warning') {
      if (resolved.has(e.id)) continue;
      const delegation = delegationOf(e);
      if (delegation) {
        if (isExpired(delegation, now)) continue;
        open.push({ kind: 'need', ...base(), urgency: delegation.urgency, expires_at: delegation.expires_at });
      } else open.push({ kind: e.entry_type, ...base(), ...preview(e.detail) });
    } else if (e.entry_type === 'artifact' && Date.parse(String(e.timestamp)) > cutoffMs) {
      recent.push({ kind: 'artifact', ...base(), ...preview(e.detail) });
    }
  }
  open.sort(compareItems);
  recent.sort((a, b) => compareItems(b, a));

  const result: TriageResult = {
    generated_at: now.toISOString(),
    window_ms: windowMs,
    section,
    counts: {
      open: {
        total: open.length,
        irreversible: irreversible(open),
        by_kind: { decision: count(open, 'decision'), need: count(open, 'need'), question: count(open, 'question'), warning: count(open, 'warning') },
      },
      recent: {
        total: recent.length,
        irreversible: irreversible(recent),
        by_kind: { decision: count(recent, 'decision'), artifact: count(recent, 'artifact') },
      },
    },
  };
  if (scope !== undefined) result.scope = scope;
  if (forAgent !== undefined) result.for_agent = forAgent;
  if (args.since !== undefined) result.since = args.since;
  if (section !== 'recent') {
    const rest = after ? open.filter(i => compareItems(i, { timestamp: after[0], id: after[1] }) > 0) : open;
    result.open = rest.slice(0, limit);
    if (rest.length > limit) result.open_cursor = encodeCursor(result.open[result.open.length - 1]);
  }
  if (section !== 'open') result.recent = recent.slice(0, limit);
  return result;
}
