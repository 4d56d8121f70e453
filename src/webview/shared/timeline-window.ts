/**
 * The timeline's items held on the extension side, and what the page is sent of them: only the
 * window it looks at. The page asks for a time range, a number of columns and a filter; it gets
 * back at most one marker per lane and column (the entry that matters most there: a decision
 * before a warning before a delegation before a post, with the number of entries it stands for),
 * the spans that cross the range merged into bars, the count of entries the filter keeps and a
 * density of the whole history for the overview. So a reply is bounded by lanes × columns,
 * whether the folder holds a hundred entries or a hundred thousand, and a frame costs the same.
 *
 * Pure, no I/O and no `vscode`: timeline-feed.ts fills it from the engine (once, then with each
 * append) and answers the page's queries from it; unit-tested in test/unit/timeline-window.test.ts.
 */
import { byTime, firstAtOrAfter, itemVisible, type TimelineFilter, type TimelineItem } from './timeline-layout';

/** What the page asks for. */
export interface WindowQuery {
  start: number;
  end: number;
  /** How many columns the range is cut into (one marker per lane and column at most). */
  columns: number;
  filter: TimelineFilter;
  /** An entry that must be its column's marker (the one the keyboard is on). */
  focus?: string;
}

/** Spans of one kind on one lane that touch, merged; `standing`: runs on to now. */
export interface TimelineBar {
  lane: string;
  kind: string;
  t1: number;
  t2: number;
  standing?: true;
}

export interface TimelineWindow {
  /** Where the markers begin: the query's start, or the column of `from` (see `window`). */
  start: number;
  end: number;
  /** The markers, sorted by time, and how many entries each one stands for. */
  items: TimelineItem[];
  counts: number[];
  bars: TimelineBar[];
  /** Entries in the range that the filter keeps. */
  inWindow: number;
}

/** The whole history at a glance: entries the filter keeps per equal slice of [start, end]. */
export interface Density {
  start: number;
  end: number;
  counts: number[];
  /** Entries the filter keeps, in all. */
  shown: number;
}

/** Which entry is its column's marker when several fall in it. */
const PRIORITY: Record<string, number> = { decision: 4, warning: 3, delegation: 2, need: 2, claim: 2 };
const rank = (item: TimelineItem) => PRIORITY[item.kind] ?? 1;

function isSorted(list: readonly TimelineItem[]): boolean {
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1];
    const b = list[i];
    if (a.t > b.t || (a.t === b.t && a.id > b.id)) return false;
  }
  return true;
}

/** Adds sorted items to a sorted list (time, then id): at the end without a search, else by one merge from the back (a piece laid out lazily is older than what is held). */
function mergeInto(list: TimelineItem[], sorted: readonly TimelineItem[]): void {
  const last = list[list.length - 1];
  if (!last || !sorted.length || before(last, sorted[0])) {
    for (const i of sorted) list.push(i);
    return;
  }
  let a = list.length - 1;
  let b = sorted.length - 1;
  list.length += sorted.length;
  for (let w = list.length - 1; b >= 0; w--) list[w] = a >= 0 && before(sorted[b], list[a]) ? list[a--] : sorted[b--];
}

/** Time, then id, as byTime sorts. */
const before = (a: TimelineItem, b: TimelineItem) => a.t < b.t || (a.t === b.t && a.id < b.id);

export const DENSITY_SLICES = 240;

export class TimelineIndex {
  /** Every item, sorted by time then id. */
  private readonly items: TimelineItem[] = [];
  /** The items that are spans (delegations, warnings), sorted by time. */
  private readonly spans: TimelineItem[] = [];
  private readonly byId = new Map<string, TimelineItem>();
  private readonly kindSet = new Set<string>();
  /** Increases with every change (the density cache is keyed on it). */
  private version = 0;
  private densityCache: { key: string; value: Density } | undefined;
  private changedFrom = -Infinity;

  constructor(items: readonly TimelineItem[] = []) {
    this.add(items);
  }

  get size(): number {
    return this.items.length;
  }

  /** The time of the first entry, or undefined when there is none. */
  get first(): number | undefined {
    return this.items[0]?.t;
  }

  get kinds(): string[] {
    return [...this.kindSet];
  }

  get all(): readonly TimelineItem[] {
    return this.items;
  }

  get(id: string): TimelineItem | undefined {
    return this.byId.get(id);
  }

  /** Adds items (an append: usually after every item held, which costs no search). */
  add(added: readonly TimelineItem[]): void {
    if (!added.length) return;
    const sorted = isSorted(added) ? added : byTime([...added]);
    mergeInto(this.items, sorted);
    mergeInto(
      this.spans,
      sorted.filter(i => i.end !== undefined || i.standing),
    );
    for (const i of sorted) {
      this.byId.set(i.id, i);
      this.kindSet.add(i.kind);
    }
    this.version++;
    this.changedFrom = Math.min(this.changedFrom, sorted[0].t);
  }

  /**
   * The earliest time at which markers changed since the last call (Infinity: none; -Infinity:
   * any), and starts counting again: after appends, a window is unchanged before it.
   */
  takeChangedFrom(): number {
    const t = this.changedFrom;
    this.changedFrom = Infinity;
    return t;
  }

  /** A standing warning answered at `end` (an entry that relates to it). */
  resolve(id: string, end: number): boolean {
    const item = this.byId.get(id);
    if (!item || !item.standing) return false;
    item.end = Math.max(item.t, end);
    delete item.standing;
    this.version++;
    return true;
  }

  /** A changed item (a decision's record or status); true when it is held. */
  patch(id: string, change: Pick<TimelineItem, 'open' | 'status'>): boolean {
    const item = this.byId.get(id);
    if (!item) return false;
    item.open = change.open;
    if (change.status === undefined) delete item.status;
    else item.status = change.status;
    this.version++;
    this.changedFrom = -Infinity;
    return true;
  }

  /**
   * The markers, bars and count of one window (see the file's comment); `now` ends standing spans.
   * With `from`, only the markers of the columns from the one holding `from` on (`start` then says
   * where they begin: the markers before it are as they were).
   */
  window(q: WindowQuery, now: number, from = -Infinity, heldAfter = -Infinity): TimelineWindow {
    const columns = Math.max(1, Math.min(10000, Math.floor(q.columns)));
    const width = Math.max(1, q.end - q.start) / columns;
    let column = from > q.start ? Math.floor((from - q.start) / width) : 0;
    // Held in part (timeline-lazy.ts): only the columns that start after `heldAfter` are complete.
    if (heldAfter >= q.start) column = Math.max(column, Math.floor((heldAfter - q.start) / width) + 1);
    const begin = q.start + column * width;
    const items: TimelineItem[] = [];
    const counts: number[] = [];
    // Per lane: the column of its last marker and that marker's index in `items`.
    const last = new Map<string, { column: number; at: number }>();
    let inWindow = 0;
    for (let i = firstAtOrAfter(this.items, begin), n = this.items.length; i < n; i++) {
      const item = this.items[i];
      if (item.t > q.end) break;
      if (!itemVisible(item, q.filter)) continue;
      inWindow++;
      const column = Math.min(columns - 1, Math.floor((item.t - q.start) / width));
      const mine = last.get(item.lane);
      if (mine && mine.column === column) {
        counts[mine.at]++;
        const held = items[mine.at];
        if (held.id !== q.focus && (item.id === q.focus || rank(item) > rank(held))) items[mine.at] = item;
      } else {
        last.set(item.lane, { column, at: items.length });
        items.push(item);
        counts.push(1);
      }
    }
    // A marker replaced by a later one of its column may now be out of order: sort both together.
    const order = items.map((_, i) => i).sort((a, b) => items[a].t - items[b].t || (items[a].id < items[b].id ? -1 : items[a].id > items[b].id ? 1 : 0));
    return {
      start: begin,
      end: q.end,
      items: order.map(i => items[i]),
      counts: order.map(i => counts[i]),
      bars: this.bars(q, width, now),
      inWindow,
    };
  }

  /** The spans crossing the window, those of one kind on one lane merged when less than a column apart. */
  private bars(q: WindowQuery, width: number, now: number): TimelineBar[] {
    const bars: TimelineBar[] = [];
    const open = new Map<string, TimelineBar>();
    for (const s of this.spans) {
      if (s.t > q.end) break;
      const stop = s.end ?? now;
      if (stop < q.start || !itemVisible(s, q.filter)) continue;
      const key = `${s.lane}\u0000${s.kind}`;
      const bar = open.get(key);
      if (bar && s.t <= bar.t2 + width) {
        if (stop >= bar.t2) {
          bar.t2 = stop;
          if (s.standing) bar.standing = true;
        }
        continue;
      }
      const next: TimelineBar = { lane: s.lane, kind: s.kind, t1: s.t, t2: stop, ...(s.standing ? { standing: true as const } : {}) };
      open.set(key, next);
      bars.push(next);
    }
    return bars;
  }

  /** How many entries the filter keeps, in all and per slice of the whole history (cached until the next change). */
  density(filter: TimelineFilter, now: number, slices = DENSITY_SLICES): Density {
    const key = `${this.version}\u0000${slices}\u0000${JSON.stringify(filter)}`;
    if (this.densityCache?.key === key) return this.densityCache.value;
    const start = this.first ?? now;
    const end = Math.max(now, this.items[this.items.length - 1]?.t ?? now, start + 1);
    const counts = new Array<number>(slices).fill(0);
    const plain = !filter.scope && !filter.agents?.length && !filter.hiddenKinds?.length;
    let shown = 0;
    for (const item of this.items) {
      if (!plain && !itemVisible(item, filter)) continue;
      shown++;
      counts[Math.min(slices - 1, Math.floor(((item.t - start) / (end - start)) * slices))]++;
    }
    const value = { start, end, counts, shown };
    this.densityCache = { key, value };
    return value;
  }

  /**
   * The keyboard's move from an entry: the next or previous entry the filter keeps on `lane`
   * (`from` is where the move starts, an entry's time and id), or the one nearest in time to
   * `from.t` (moving to another lane). Every entry is reachable, also where markers stand for many.
   */
  step(lane: string, from: { t: number; id?: string }, dir: 'next' | 'prev' | 'near', filter: TimelineFilter): TimelineItem | undefined {
    const list = this.items;
    const wanted = (i: number) => list[i].lane === lane && itemVisible(list[i], filter);
    let at = firstAtOrAfter(list, from.t);
    if (from.id) for (let i = at; i < list.length && list[i].t === from.t; i++) if (list[i].id === from.id) at = i;
    const held = from.id !== undefined && list[at]?.id === from.id;
    if (dir === 'next') {
      for (let i = held ? at + 1 : at; i < list.length; i++) if (wanted(i)) return list[i];
      return undefined;
    }
    if (dir === 'prev') {
      for (let i = at - 1; i >= 0; i--) if (wanted(i)) return list[i];
      return undefined;
    }
    let after: TimelineItem | undefined;
    let before: TimelineItem | undefined;
    for (let i = at; i < list.length && !after; i++) if (wanted(i)) after = list[i];
    for (let i = at - 1; i >= 0 && !before; i--) if (wanted(i)) before = list[i];
    if (!after || !before) return after ?? before;
    return after.t - from.t <= from.t - before.t ? after : before;
  }
}
