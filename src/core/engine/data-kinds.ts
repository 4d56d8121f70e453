/**
 * The kinds of data in `.twining/`, by name, and which path holds which. The engine keeps a
 * version counter per kind (`TwiningEngine.versions()`); callers compare two snapshots of the
 * counters with `changedKinds` instead of re-reading to find out. No import: the extension
 * bundles this file without loading the engine.
 */

export const DATA_KINDS = ['registry', 'blackboard', 'handoffs', 'handoffRecords', 'decisions', 'config', 'sessions', 'claims'] as const;

/**
 * - registry: agents/registry.json (agents, delegation suggestions)
 * - blackboard: blackboard.jsonl (entries, delegations, liveness, drift)
 * - handoffs: handoffs/index.jsonl (the handoff list)
 * - handoffRecords: handoffs/{id}.json (one handoff's details)
 * - decisions: decisions/** (drift, snapshot labels)
 * - config: config.yml (thresholds and timeouts)
 * - sessions: sessions/session-*.json (hooked agent sessions: the session board; local, not shared)
 * - claims: claims/claims.jsonl (who holds which file, folder, glob or delegation)
 */
export type DataKind = (typeof DATA_KINDS)[number];

/** A counter per kind, plus `drift`: one that increases whenever what every handoff's `verify` looks at changes. */
export type Versions = Readonly<Record<DataKind | 'drift', number>>;

/** The kinds whose counters differ between two snapshots (every kind when there is no earlier one). */
export function changedKinds(before: Versions | undefined, after: Versions): DataKind[] {
  return DATA_KINDS.filter(kind => before === undefined || before[kind] !== after[kind]);
}

/** The kind of data a path (relative to the project folder, `/`-separated) holds; `presence` is `.twining/` itself. */
export function kindOfPath(relative: string): DataKind | 'presence' | undefined {
  if (relative === '.twining') return 'presence';
  if (!relative.startsWith('.twining/')) return undefined;
  const rest = relative.slice('.twining/'.length);
  const parts = rest.split('/');
  if (parts.some(p => p.endsWith('.lock'))) return undefined;
  if (parts[parts.length - 1].endsWith('.tmp')) return undefined;
  switch (parts[0]) {
    case 'blackboard.jsonl':
      return parts.length === 1 ? 'blackboard' : undefined;
    case 'config.yml':
      return parts.length === 1 ? 'config' : undefined;
    case 'agents':
      return parts.length === 1 || rest === 'agents/registry.json' ? 'registry' : undefined;
    case 'handoffs':
      return parts.length === 1 || rest === 'handoffs/index.jsonl' ? 'handoffs' : 'handoffRecords';
    case 'decisions':
      return 'decisions';
    case 'sessions':
      return parts.length === 2 && parts[1].startsWith('session-') && parts[1].endsWith('.json') ? 'sessions' : undefined;
    case 'claims':
      return parts.length === 1 || rest === 'claims/claims.jsonl' ? 'claims' : undefined;
    default:
      return undefined; // metrics.jsonl, graph/, embeddings/, archive/ (a rewrite of the blackboard comes with it)
  }
}

/** The handoff id of `.twining/handoffs/{id}.json` (relative, `/`-separated), else undefined. */
export function handoffIdOfPath(relative: string): string | undefined {
  const m = /^\.twining\/handoffs\/([0-9A-HJKMNP-TV-Z]{26})\.json$/.exec(relative);
  return m ? m[1] : undefined;
}
