/**
 * The timeline's items laid out newest first, in pieces, so that the first window is answered
 * before the whole history is laid out (issue 29: the first frame at 100,000 entries).
 *
 * One cheap pass over the entries (a time and a few type checks each, no item built) gives what
 * every window needs from the whole history: how many items there are, the first one's time, each
 * lane's first appearance, the overview's density, and the spans (warnings and delegations, built
 * in full, with the entries that resolve the warnings), since a span from long ago can cross any
 * window. The other items are then laid out from the end of the blackboard back, a piece at a time,
 * into the same TimelineIndex; `pendingUpTo` says how far back the index is complete: a window
 * whose columns start after it gets the same markers as from the full layout (the unit tests check
 * it against buildTimeline). Pure, no I/O; timeline-feed.ts drives it.
 */
import type { BlackboardEntry, DecisionIndexEntry } from '../../core/records';
import { entryItem, isoTime, type TimelineFilter, type TimelineItem } from './timeline-layout';
import { DENSITY_SLICES, type Density, type TimelineIndex } from './timeline-window';

export class LazyLayout {
  /** Each entry's time (NaN: not an item), by position in the blackboard. */
  private readonly times: Float64Array;
  /** The latest time among the entries before each position (prefix maximum), to say what is laid out. */
  private readonly prefixMax: Float64Array;
  /** Entries [0, cursor) are not laid out yet. */
  private cursor: number;
  /** Per warning id: the times of the entries that relate to it, in blackboard order. */
  private readonly relations = new Map<string, number[]>();
  /** Items in all (the page's total), the first item's time and the latest. */
  readonly total: number;
  readonly first: number | undefined;
  private readonly last: number;
  /** Each lane at its first appearance (what lanesOf needs of the items). */
  readonly laneFirsts: { lane: string; t: number }[] = [];

  constructor(
    private readonly entries: readonly BlackboardEntry[],
    private readonly lookup: () => ReadonlyMap<string, DecisionIndexEntry>,
    private readonly index: TimelineIndex,
    /** Called with each item laid out (the feed remembers decisions and standing warnings). */
    private readonly laid: (item: TimelineItem) => void,
  ) {
    const n = entries.length;
    this.times = new Float64Array(n);
    this.prefixMax = new Float64Array(n);
    const spanIndexes: number[] = [];
    const lanes = new Map<string, number>();
    let total = 0;
    let first = Infinity;
    let last = -Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const e = entries[i];
      const t = typeof e.timestamp === 'string' && typeof e.id === 'string' ? isoTime(e.timestamp) : NaN;
      // The same test as entryItem's: a line without id or time, or a handoff notice, is no item.
      const item = !Number.isNaN(t) && !(e.entry_type === 'status' && Array.isArray(e.tags) && e.tags.includes('handoff'));
      this.times[i] = item ? t : NaN;
      if (Array.isArray(e.relates_to)) {
        const at = typeof e.timestamp === 'string' ? isoTime(e.timestamp) : NaN;
        for (const id of e.relates_to) if (typeof id === 'string') (this.relations.get(id) ?? this.relations.set(id, []).get(id)!).push(at);
      }
      if (item) {
        total++;
        if (t < first) first = t;
        if (t > last) last = t;
        if (t > max) max = t;
        const lane = (typeof e.agent_id === 'string' && e.agent_id) || 'unknown';
        const seen = lanes.get(lane);
        if (seen === undefined || t < seen) lanes.set(lane, t);
        if (e.entry_type === 'warning' || e.entry_type === 'need') spanIndexes.push(i);
      }
      this.prefixMax[i] = max;
    }
    this.total = total;
    this.first = total ? first : undefined;
    this.last = last;
    for (const [lane, t] of lanes) this.laneFirsts.push({ lane, t });
    this.cursor = n;
    // The spans now (a delegation need becomes one only when its detail says so).
    const spans: TimelineItem[] = [];
    this.spanAt = new Set(spanIndexes);
    for (const i of spanIndexes) {
      const item = this.item(i);
      if (item && (item.end !== undefined || item.standing)) spans.push(item);
      else this.spanAt.delete(i);
    }
    this.index.add(spans);
    for (const item of spans) this.laid(item);
  }

  /** Positions whose items were laid out with the spans. */
  private readonly spanAt: Set<number>;

  private item(i: number): TimelineItem | undefined {
    const item = entryItem(this.entries[i], this.lookup());
    if (item?.kind === 'warning') {
      // As resolveWarnings: the first entry in blackboard order at or after the warning that relates to it.
      const at = this.relations.get(item.id)?.find(t => t >= item.t);
      if (at !== undefined) {
        item.end = at;
        delete item.standing;
      }
    }
    return item;
  }

  /** True when every item is laid out. */
  get done(): boolean {
    return this.cursor === 0;
  }

  /** Every item later than this is laid out (-Infinity: all of them). */
  get pendingUpTo(): number {
    return this.cursor === 0 ? -Infinity : this.prefixMax[this.cursor - 1];
  }

  /** Lays out up to `count` more entries, going back from the newest; returns how many are left. */
  layOut(count = Infinity): number {
    const stop = Math.max(0, this.cursor - count);
    const items: TimelineItem[] = [];
    for (let i = this.cursor - 1; i >= stop; i--) {
      if (Number.isNaN(this.times[i]) || this.spanAt.has(i)) continue;
      const item = this.item(i);
      if (item) items.push(item);
    }
    this.cursor = stop;
    items.reverse();
    this.index.add(items);
    for (const item of items) this.laid(item);
    return stop;
  }

  /** The overview's density (see TimelineIndex.density), from the times alone; undefined when a filter needs the items. */
  density(filter: TimelineFilter, now: number, slices = DENSITY_SLICES): Density | undefined {
    if (filter.scope || filter.agents?.length || filter.hiddenKinds?.length) return undefined;
    const start = this.first ?? now;
    const end = Math.max(now, this.total ? this.last : now, start + 1);
    const counts = new Array<number>(slices).fill(0);
    for (const t of this.times) if (!Number.isNaN(t)) counts[Math.min(slices - 1, Math.floor(((t - start) / (end - start)) * slices))]++;
    return { start, end, counts, shown: this.total };
  }
}
