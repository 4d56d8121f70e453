/**
 * What a handoff's context snapshot holds, item by item, as it stands now: each decision with its
 * current status, each warning and finding with whether it is still on the blackboard, and a
 * summary (the current one, else the one stored with the snapshot). The one place the Handoffs
 * view, the handoff document and Create Handoff's preview resolve a snapshot. No `vscode` import.
 */
import type { TwiningEngine } from '../../core';
import { strings } from './format';

export interface SnapshotItem {
  item: 'decision' | 'warning' | 'finding';
  id: string;
  summary?: string;
  scope?: string;
  /** Of an entry: who posted it. */
  agentId?: string;
  /** Of a decision: its status now, or "missing". Of an entry: "current", or "removed". */
  status: string;
}

/** Resolves a snapshot (a stored `context_snapshot` of any shape, or a preview). */
export async function resolveSnapshot(engine: TwiningEngine, snapshot: unknown): Promise<SnapshotItem[]> {
  const s = (snapshot && typeof snapshot === 'object' ? snapshot : {}) as Record<string, unknown>;
  const summaries = strings(s.summaries);
  // Stored summaries are positional: the first 5 decisions, 3 warnings and 3 findings.
  const stored = (prefix: string) => summaries.filter(t => t.startsWith(prefix)).map(t => t.slice(prefix.length));
  const items: SnapshotItem[] = [];
  const decisionIds = strings(s.decision_ids);
  if (decisionIds.length) {
    const index = new Map((await engine.decisions({})).decisions.map(d => [d.id, d]));
    const fallback = stored('Decision: ');
    decisionIds.forEach((id, i) => {
      const d = index.get(id);
      items.push({ item: 'decision', id, summary: d?.summary ?? fallback[i], scope: d?.scope, status: d?.status ?? 'missing' });
    });
  }
  for (const [item, key, prefix] of [
    ['warning', 'warning_ids', 'Warning: '],
    ['finding', 'finding_ids', 'Finding: '],
  ] as const) {
    const fallback = stored(prefix);
    for (const [i, id] of strings(s[key]).entries()) {
      const entry = await engine.getEntry(id);
      items.push({ item, id, summary: entry?.summary ?? fallback[i], scope: entry?.scope, agentId: entry?.agent_id, status: entry ? 'current' : 'removed' });
    }
  }
  return items;
}
