/**
 * The kinds of change in `.twining/` and which path means which. No `vscode` import (unit-tested).
 */

/** What a changed path means for the views. */
export type ChangeKind =
  | 'presence' // `.twining/` itself appeared or disappeared
  | 'blackboard' // blackboard.jsonl: delegations, handoff drift
  | 'handoffs' // handoffs/index.jsonl: the handoff list
  | 'handoffRecords' // handoffs/{id}.json: one handoff's details
  | 'registry' // agents/registry.json: agents, delegation suggestions
  | 'decisions' // decisions/**: handoff drift, snapshot labels
  | 'config' // config.yml: thresholds and timeouts, so everything
  | 'trust'; // the engine was re-created (workspace trust granted)

/**
 * Kinds whose files the engine caches with version counters: after a refresh the engine itself
 * says whether they changed, so a watcher event for them (our own write, already reported) is no
 * reason to reload a view.
 */
export const VERSIONED_KINDS: readonly ChangeKind[] = ['blackboard', 'handoffs', 'registry', 'decisions']; // the order of the engine's counters

/** The kind of change a path (relative to the workspace folder, `/`-separated) stands for. */
export function classifyPath(relative: string): ChangeKind | undefined {
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
    default:
      return undefined; // metrics.jsonl, graph/, embeddings/, archive/ (a rewrite of the blackboard comes with it)
  }
}
