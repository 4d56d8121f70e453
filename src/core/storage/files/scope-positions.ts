/**
 * Where each scope's blackboard entries are, by entry type: positions in the file's entry list,
 * kept up to date as lines are appended. A scoped read (twining_read with a scope) then visits
 * each distinct scope once and takes only what it returns, so it costs the same at 1k entries as
 * at 100k, where a filter over every entry grew with the history.
 */
import { overlaps } from '../../scope';
import type { BlackboardEntry } from '../../records';

export class ScopePositions {
  private readonly byScope = new Map<string, Map<string, number[]>>();

  constructor(entries: readonly BlackboardEntry[]) {
    this.addFrom(entries, 0);
  }

  /** Adds the entries from position `from` on (the lines just appended). */
  addFrom(entries: readonly BlackboardEntry[], from: number): void {
    for (let i = from; i < entries.length; i++) {
      const entry = entries[i];
      if (typeof entry.scope !== 'string') continue;
      let byType = this.byScope.get(entry.scope);
      if (!byType) this.byScope.set(entry.scope, (byType = new Map<string, number[]>()));
      const type = String(entry.entry_type);
      const at = byType.get(type);
      if (at) at.push(i);
      else byType.set(type, [i]);
    }
  }

  /** The last `limit` (all when 0) of `entries` whose scope overlaps `scope`, of `types` when given, in file order; and how many match in all. */
  last(
    entries: readonly BlackboardEntry[],
    scope: string,
    types: ReadonlySet<string> | undefined,
    limit: number,
  ): { entries: BlackboardEntry[]; total: number } {
    const lists: number[][] = [];
    let total = 0;
    for (const [s, byType] of this.byScope) {
      if (!overlaps(s, scope)) continue;
      for (const [type, at] of byType)
        if (!types || types.has(type)) {
          lists.push(at);
          total += at.length;
        }
    }
    // The last `limit` of each list hold the last `limit` of them all.
    const picked: number[] = [];
    for (const at of lists) for (let k = limit > 0 ? Math.max(0, at.length - limit) : 0; k < at.length; k++) picked.push(at[k]);
    picked.sort((a, b) => a - b);
    return { entries: (limit > 0 ? picked.slice(-limit) : picked).map(i => entries[i]), total };
  }
}
