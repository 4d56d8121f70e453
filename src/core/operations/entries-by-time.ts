/**
 * "What was written since T", from what the engine already holds, at the cost of what it returns:
 * the blackboard's positions ordered by timestamp, kept up to date as lines are appended (entries
 * come in time order, so an append is a push; an earlier time from a skewed clock is inserted
 * where it belongs), and the decision index ordered by timestamp once per version of the index.
 * A since-query is one binary search and the entries from there. Timestamps compare as strings,
 * as every filter by time here does (they are written in one 24-character form).
 *
 * Kept beside the engine's files, not in them (store/ owns the files): by the blackboard's list of
 * entries, which stays the same array while the file is only appended to and is a new one when
 * the file was read again (dismiss, archive, another process's rewrite).
 */
import type { FolderStore } from '../engine/folder-store';
import type { BlackboardEntry, DecisionIndexEntry } from '../records';

/** The first index in `times` (sorted) whose value is `>= t`. */
function lowerBound(times: readonly string[], t: string): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in `times` (sorted) whose value is `> t`. */
function upperBound(times: readonly string[], t: string): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class EntriesByTime {
  private list: readonly BlackboardEntry[] | undefined;
  private taken = 0;
  private last: BlackboardEntry | undefined;
  /** Timestamps in order, and the position in the file of the entry with each. */
  private times: string[] = [];
  private positions: number[] = [];

  /** Takes the entries appended since the last look (all of them for a new list). */
  update(entries: readonly BlackboardEntry[]): void {
    if (entries !== this.list || entries.length < this.taken || (this.taken > 0 && entries[this.taken - 1] !== this.last)) {
      this.list = entries;
      this.taken = 0;
      const timed: number[] = [];
      for (let i = 0; i < entries.length; i++) if (typeof entries[i].timestamp === 'string') timed.push(i);
      const at = (i: number) => entries[i].timestamp;
      let sorted = true;
      for (let k = 1; k < timed.length && sorted; k++) sorted = at(timed[k - 1]) <= at(timed[k]);
      if (!sorted) timed.sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : a - b));
      this.positions = timed;
      this.times = timed.map(at);
    } else {
      for (let i = this.taken; i < entries.length; i++) {
        const t = entries[i].timestamp;
        if (typeof t !== 'string') continue;
        if (!this.times.length || this.times[this.times.length - 1] <= t) {
          this.times.push(t);
          this.positions.push(i);
        } else {
          const k = upperBound(this.times, t);
          this.times.splice(k, 0, t);
          this.positions.splice(k, 0, i);
        }
      }
    }
    this.taken = entries.length;
    this.last = entries[entries.length - 1];
  }

  /** Positions of the entries whose timestamp is `>= since`, in file order. */
  since(since: string): number[] {
    return this.positions.slice(lowerBound(this.times, since)).sort((a, b) => a - b);
  }
}

/** The blackboard entries (as last refreshed) whose timestamp is `>= since`, in file order. */
export function entriesSince(ctx: FolderStore, since: string): BlackboardEntry[] {
  const byTime = ctx.derived.of('entries by time', () => new EntriesByTime());
  const entries = ctx.blackboard.entries;
  byTime.update(entries);
  return byTime.since(since).map(i => entries[i]);
}

/** The decision index's entries whose timestamp is `>= since`, in index order (ordered once per version of the index). */
export async function decisionsSince(ctx: FolderStore, since: string): Promise<DecisionIndexEntry[]> {
  await ctx.decisionIndex.get();
  const byTime = ctx.derived.fromDecisions('decisions by time', items => {
    const timed = items.map((d, at) => ({ d, at })).filter(x => typeof x.d.timestamp === 'string');
    timed.sort((a, b) => (a.d.timestamp < b.d.timestamp ? -1 : a.d.timestamp > b.d.timestamp ? 1 : a.at - b.at));
    return { timed, times: timed.map(x => x.d.timestamp) };
  });
  return byTime.timed
    .slice(lowerBound(byTime.times, since))
    .sort((a, b) => a.at - b.at)
    .map(x => x.d);
}
