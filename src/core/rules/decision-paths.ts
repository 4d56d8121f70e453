/**
 * Which decisions bear on a scope (rules/assembly.ts's decisionInScope: its scope or an affected
 * file a prefix of the scope either way, or the scope one of its symbols), found through the paths
 * they name instead of by asking each: a briefing for a file at 10,000 decisions looked at every
 * one (about 4 ms). The paths are kept in order, so those the scope starts with are looked up one
 * prefix at a time, and those that start with the scope are one range. Pure; the positions come
 * back in the index's order, the same set decisionInScope accepts.
 */
import type { Placed } from './assembly';

export interface DecisionPaths {
  /** Every scope and affected file named, sorted (code unit order: those sharing a prefix are side by side). */
  keys: string[];
  /** Positions in the index naming each key. */
  byKey: Map<string, number[]>;
  /** Positions naming each symbol. */
  bySymbol: Map<string, number[]>;
}

function add(map: Map<string, number[]>, key: string, at: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [at]);
  else if (list[list.length - 1] !== at) list.push(at);
}

export function decisionPaths(index: readonly Placed[]): DecisionPaths {
  const byKey = new Map<string, number[]>();
  const bySymbol = new Map<string, number[]>();
  index.forEach((d, at) => {
    if (typeof d.scope === 'string') add(byKey, d.scope, at);
    if (Array.isArray(d.affected_files)) for (const f of d.affected_files as unknown[]) if (typeof f === 'string') add(byKey, f, at);
    if (Array.isArray(d.affected_symbols)) for (const s of d.affected_symbols as unknown[]) if (typeof s === 'string') add(bySymbol, s, at);
  });
  const keys = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { keys, byKey, bySymbol };
}

/** The first position in `keys` not before `scope`. */
function lowerBound(keys: readonly string[], scope: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] < scope) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Positions of the decisions that may bear on `scope` (every one that does), in index order. */
export function decisionsTouching(paths: DecisionPaths, scope: string): number[] {
  const found = new Set<number>();
  const take = (list: readonly number[] | undefined) => {
    if (list) for (const at of list) found.add(at);
  };
  // Paths the scope starts with: each of its prefixes, the empty one and itself included.
  for (let n = 0; n <= scope.length; n++) take(paths.byKey.get(scope.slice(0, n)));
  // Paths that start with the scope: one run of the sorted keys.
  for (let i = lowerBound(paths.keys, scope); i < paths.keys.length && paths.keys[i].startsWith(scope); i++) take(paths.byKey.get(paths.keys[i]));
  take(paths.bySymbol.get(scope));
  return [...found].sort((a, b) => a - b);
}
