/**
 * The timeline's layout data, computed from the folder's records without I/O and without `vscode`
 * (unit-tested from the fixture's files; the webview imports the same filters): one lane per agent,
 * one item per blackboard entry (a span for warnings that still stand and for delegations until
 * they expire), one arrow per handoff from the source's lane to the target's, and the links between
 * records: a handoff that `continues` another, a decision that supersedes another.
 *
 * Times are milliseconds since the epoch; items are kept sorted by time, so the webview finds the
 * visible window with two binary searches and draws only that.
 */
import type { AgentRecord, BlackboardEntry, DecisionIndexEntry, HandoffIndexLine } from '../../core/records';

/** What a click opens: the same documents the views open. */
export interface RecordRef {
  type: 'entry' | 'decision' | 'handoff';
  id: string;
}

export interface TimelineItem {
  /** The blackboard entry's id (unique on the timeline). */
  id: string;
  lane: string;
  t: number;
  /** The end of a span: a delegation's expiry, the entry that resolved a warning. */
  end?: number;
  /** A warning still on the blackboard stands until now (dismissing removes it from the file). */
  standing?: true;
  /** The entry type (`status`, `warning`, `decision`, `delegation` for a delegation need, or a newer kind such as `claim`). */
  kind: string;
  summary: string;
  scope: string;
  open: RecordRef;
  /** A decision's status, from the decision index. */
  status?: string;
}

export interface TimelineArrow {
  /** The handoff's id. */
  id: string;
  from: string;
  /** The target agent's lane; undefined: addressed to any agent (drawn to the lane of whoever acknowledged it, if anyone). */
  to?: string;
  t: number;
  acknowledged: boolean;
  /** Who acknowledged it and when (from the record, when read). */
  ackBy?: string;
  ackAt?: number;
  /** The handoff this one continues. */
  continues?: string;
  summary: string;
  scope: string;
  resultStatus: string;
}

export interface TimelineLink {
  kind: 'supersedes' | 'continues';
  /** The newer record (decision or handoff id). */
  from: string;
  /** The older one it supersedes or continues. */
  to: string;
}

export interface TimelineLane {
  id: string;
  /** The user's own lane (drawn first). */
  isUser: boolean;
  role?: string;
}

export interface TimelineData {
  lanes: TimelineLane[];
  items: TimelineItem[];
  arrows: TimelineArrow[];
  links: TimelineLink[];
}

/** What a handoff record adds to its index line (read on demand: `continues` and who acknowledged). */
export interface HandoffExtra {
  continues?: string;
  acknowledged_by?: string;
  acknowledged_at?: string;
}

/** What a decision record adds to its index entry. */
export interface DecisionExtra {
  supersedes?: string;
}

export interface TimelineInput {
  entries: readonly BlackboardEntry[];
  handoffs: readonly HandoffIndexLine[];
  handoffRecords?: ReadonlyMap<string, HandoffExtra>;
  decisions: readonly DecisionIndexEntry[];
  decisionRecords?: ReadonlyMap<string, DecisionExtra>;
  agents: readonly AgentRecord[];
  user: string;
}

const time = (value: unknown): number => (typeof value === 'string' ? isoTime(value) : NaN);

/** The last day isoTime saw ("2026-11-22") and its first millisecond: entries come mostly in time order. */
let lastDay = '';
let lastDayStart = NaN;

const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : NaN;
};

/**
 * Date.parse(s), several times faster on the form every store writes (toISOString's,
 * "2026-11-22T02:33:00.000Z"): the day's start is parsed once per day and the time of day added
 * digit by digit; anything else (another form, an offset, a bad value) goes to Date.parse itself.
 * At 100,000 entries parsing the times is most of the first pass over the blackboard (timeline-lazy.ts).
 */
export function isoTime(s: string): number {
  if (s.length === 24 && s.charCodeAt(10) === 84 && s.charCodeAt(13) === 58 && s.charCodeAt(16) === 58 && s.charCodeAt(19) === 46 && s.charCodeAt(23) === 90) {
    const h = digit(s, 11) * 10 + digit(s, 12);
    const m = digit(s, 14) * 10 + digit(s, 15);
    const sec = digit(s, 17) * 10 + digit(s, 18);
    const ms = digit(s, 20) * 100 + digit(s, 21) * 10 + digit(s, 22);
    // NaN (a character not a digit) fails every test and falls through.
    if (h < 24 && m < 60 && sec < 60 && ms >= 0) {
      if (!s.startsWith(lastDay) || !lastDay) {
        const day = s.slice(0, 10);
        lastDayStart = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00.000Z`) : NaN;
        lastDay = day;
      }
      if (!Number.isNaN(lastDayStart)) return lastDayStart + h * 3600e3 + m * 60e3 + sec * 1000 + ms;
    }
  }
  return Date.parse(s);
}
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Key of a decision as its blackboard entry and its index entry both say it: scope and summary. */
const decisionKey = (scope: unknown, summary: unknown) => `${text(scope)}\u0000${text(summary)}`;

/** Index entries by (scope, summary), for the blackboard's decision entries to find their records. */
export function decisionLookup(decisions: readonly DecisionIndexEntry[]): Map<string, DecisionIndexEntry> {
  const byKey = new Map<string, DecisionIndexEntry>();
  // The latest decision with the same scope and summary wins (a decision re-taken later).
  for (const d of decisions) if (typeof d.id === 'string') byKey.set(decisionKey(d.scope, d.summary), d);
  return byKey;
}

/** Whether a blackboard entry is the announcement of a handoff (drawn as its arrow, not as a post). */
export function isHandoffNotice(entry: BlackboardEntry): boolean {
  return entry.entry_type === 'status' && Array.isArray(entry.tags) && entry.tags.includes('handoff');
}

/** A delegation need's expiry (its detail is the delegation JSON), or NaN. */
function delegationExpiry(entry: BlackboardEntry): number {
  if (entry.entry_type !== 'need' || typeof entry.detail !== 'string' || !entry.detail.startsWith('{')) return NaN;
  try {
    const detail = JSON.parse(entry.detail) as { type?: unknown; expires_at?: unknown };
    return detail.type === 'delegation' ? time(detail.expires_at) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The item of one blackboard entry, or undefined for what is not drawn as an item (a line without
 * id or time, a handoff notice). `decisions` links a decision entry to its record.
 */
export function entryItem(entry: BlackboardEntry, decisions: ReadonlyMap<string, DecisionIndexEntry>): TimelineItem | undefined {
  const t = time(entry.timestamp);
  if (typeof entry.id !== 'string' || Number.isNaN(t) || isHandoffNotice(entry)) return undefined;
  const item: TimelineItem = {
    id: entry.id,
    lane: text(entry.agent_id) || 'unknown',
    t,
    kind: text(entry.entry_type) || 'entry',
    summary: text(entry.summary),
    scope: text(entry.scope) || 'project',
    open: { type: 'entry', id: entry.id },
  };
  if (entry.entry_type === 'decision') {
    const record = decisions.get(decisionKey(entry.scope, entry.summary));
    if (record) {
      item.open = { type: 'decision', id: record.id };
      item.status = text(record.status);
    }
  } else if (entry.entry_type === 'warning') {
    item.standing = true;
  } else {
    const expiry = delegationExpiry(entry);
    if (!Number.isNaN(expiry)) {
      item.kind = 'delegation';
      item.end = Math.max(t, expiry);
    }
  }
  return item;
}

/**
 * A warning's span ends at the first later entry that relates to it (an answer, a finding, a
 * status that says it is fixed); without one, it stands until dismissed.
 */
export function resolveWarnings(items: TimelineItem[], entries: readonly BlackboardEntry[]): void {
  const warnings = new Map(items.filter(i => i.kind === 'warning').map(i => [i.id, i] as const));
  if (warnings.size === 0) return;
  for (const entry of entries) {
    if (!Array.isArray(entry.relates_to)) continue;
    const at = time(entry.timestamp);
    for (const id of entry.relates_to) {
      const w = warnings.get(id);
      if (!w || !(at >= w.t) || w.end !== undefined) continue;
      w.end = at;
      delete w.standing;
    }
  }
}

/** The arrow of one handoff (its index line, with what its record adds when read). */
export function handoffArrow(line: HandoffIndexLine, extra?: HandoffExtra): TimelineArrow | undefined {
  const t = time(line.created_at);
  if (typeof line.id !== 'string' || Number.isNaN(t)) return undefined;
  const arrow: TimelineArrow = {
    id: line.id,
    from: text(line.source_agent) || 'unknown',
    t,
    acknowledged: line.acknowledged === true || !!extra?.acknowledged_by,
    summary: text(line.summary),
    scope: text(line.scope) || 'project',
    resultStatus: text(line.result_status),
  };
  if (typeof line.target_agent === 'string' && line.target_agent) arrow.to = line.target_agent;
  if (extra?.acknowledged_by) {
    arrow.ackBy = extra.acknowledged_by;
    const at = time(extra.acknowledged_at);
    if (!Number.isNaN(at)) arrow.ackAt = at;
    arrow.to ??= extra.acknowledged_by;
  }
  if (extra?.continues) arrow.continues = extra.continues;
  return arrow;
}

/** The links: each handoff to the one it continues, each decision to the one it supersedes (both ends known). */
export function recordLinks(arrows: readonly TimelineArrow[], decisionRecords: ReadonlyMap<string, DecisionExtra> | undefined): TimelineLink[] {
  const links: TimelineLink[] = [];
  const handoffIds = new Set(arrows.map(a => a.id));
  for (const a of arrows) if (a.continues && handoffIds.has(a.continues)) links.push({ kind: 'continues', from: a.id, to: a.continues });
  for (const [id, extra] of decisionRecords ?? []) if (extra.supersedes) links.push({ kind: 'supersedes', from: id, to: extra.supersedes });
  return links;
}

/** Sorts by time, then id (ULIDs sort by creation), in place. */
export function byTime<T extends { t: number; id: string }>(list: T[]): T[] {
  return list.sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The lanes: the user first, then every agent in order of its first appearance on the timeline;
 * registered agents that never appear come last, in registry order.
 */
export function lanesOf(
  user: string,
  agents: readonly AgentRecord[],
  items: readonly Pick<TimelineItem, 'lane' | 't'>[],
  arrows: readonly TimelineArrow[],
): TimelineLane[] {
  const roles = new Map(agents.filter(a => typeof a.agent_id === 'string').map(a => [a.agent_id, a.role] as const));
  const seen = new Map<string, number>();
  const note = (id: string | undefined, t: number) => {
    if (!id) return;
    const known = seen.get(id);
    if (known === undefined || t < known) seen.set(id, t);
  };
  for (const i of items) note(i.lane, i.t);
  for (const a of arrows) {
    note(a.from, a.t);
    note(a.to, a.t);
  }
  const ordered = [...seen.entries()].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
  for (const id of roles.keys()) if (!seen.has(id)) ordered.push(id);
  const ids = [user, ...ordered.filter(id => id !== user)];
  return ids.map(id => ({ id, isUser: id === user, ...(roles.get(id) ? { role: roles.get(id) } : {}) }));
}

/** The whole timeline from the folder's records. */
export function buildTimeline(input: TimelineInput): TimelineData {
  const lookup = decisionLookup(input.decisions);
  const items: TimelineItem[] = [];
  for (const entry of input.entries) {
    const item = entryItem(entry, lookup);
    if (item) items.push(item);
  }
  resolveWarnings(items, input.entries);
  byTime(items);
  const arrows: TimelineArrow[] = [];
  for (const line of latestHandoffLines(input.handoffs)) {
    const arrow = handoffArrow(line, input.handoffRecords?.get(line.id));
    if (arrow) arrows.push(arrow);
  }
  byTime(arrows);
  return { lanes: lanesOf(input.user, input.agents, items, arrows), items, arrows, links: recordLinks(arrows, input.decisionRecords) };
}

/** One line per handoff id: the last line for it wins (an acknowledgement appends a new one). */
export function latestHandoffLines(lines: readonly HandoffIndexLine[]): HandoffIndexLine[] {
  const latest = new Map<string, HandoffIndexLine>();
  for (const line of lines) if (typeof line.id === 'string') latest.set(line.id, line);
  return [...latest.values()];
}

// Filters (shared with the webview) ------------------------------------------------------------

export interface TimelineFilter {
  /** A file or folder prefix: records whose scope overlaps it (docs/format.md §Scope overlap); empty: all. */
  scope?: string;
  /** Lanes to show; empty or undefined: all. */
  agents?: readonly string[];
  /** Kinds to hide (`handoff` hides the arrows). */
  hiddenKinds?: readonly string[];
}

/** True when either scope is a plain prefix of the other (docs/format.md §Scope overlap's overlap). */
export function scopesOverlap(a: string, b: string): boolean {
  return a.startsWith(b) || b.startsWith(a);
}

export function itemVisible(item: Pick<TimelineItem, 'lane' | 'kind' | 'scope'>, filter: TimelineFilter): boolean {
  if (filter.scope && !scopesOverlap(item.scope, filter.scope)) return false;
  if (filter.agents?.length && !filter.agents.includes(item.lane)) return false;
  return !filter.hiddenKinds?.includes(item.kind);
}

export function arrowVisible(arrow: TimelineArrow, filter: TimelineFilter): boolean {
  if (filter.hiddenKinds?.includes('handoff')) return false;
  if (filter.scope && !scopesOverlap(arrow.scope, filter.scope)) return false;
  return !filter.agents?.length || filter.agents.includes(arrow.from) || (!!arrow.to && filter.agents.includes(arrow.to));
}

/** The index of the first element of a time-sorted list at or after `t` (binary search). */
export function firstAtOrAfter(list: readonly { t: number }[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts items (already sorted or not) into a time-sorted list; appends at the end cost no search. */
export function mergeByTime(list: TimelineItem[], added: readonly TimelineItem[]): void {
  for (const item of added) {
    const last = list[list.length - 1];
    if (!last || last.t < item.t || (last.t === item.t && last.id < item.id)) list.push(item);
    else list.splice(firstAtOrAfter(list, item.t), 0, item);
  }
}
