/**
 * Drift in words: one text per drift item, a count and a one-line summary of a `verify` result.
 * The one place the views, documents, commands and the CLI take drift wording from. No value
 * import: the extension bundles it without loading the engine.
 */
import type { VerifyResult } from '../records';

export interface DriftItemText {
  /** What the item is about: a decision's or entry's summary (its id when unknown). */
  label: string;
  /** What happened, briefly: "decision now superseded", "entry dismissed", "new warning · src/". */
  change: string;
  /** Both in one sentence. */
  sentence: string;
  /** A codicon name. */
  icon: 'shield' | 'law' | 'trash' | 'warning';
  /** The record to open, when there is one. */
  target?: { type: 'decision' | 'entry'; id: string };
  id?: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Every drift item of a verify result, in one order: digest, decisions, removed entries, new decisions, new warnings. */
export function driftItems(v: VerifyResult): DriftItemText[] {
  const items: DriftItemText[] = [];
  if (!v.intact) {
    items.push({
      label: 'The stored snapshot was changed after the handoff was written',
      change: 'digest mismatch',
      sentence: 'The stored snapshot no longer matches its digest (it was edited after the handoff was written)',
      icon: 'shield',
    });
  }
  for (const d of v.drift.decisions_no_longer_active) {
    const label = d.summary ?? d.id;
    const target = d.now === 'missing' ? undefined : { type: 'decision' as const, id: d.id };
    items.push({ label, change: `decision now ${d.now}`, sentence: `Decision now ${d.now}: ${label}`, icon: 'law', target, id: d.id });
  }
  for (const e of v.drift.entries_removed) {
    const label = e.summary ?? e.id;
    items.push({ label, change: `entry ${e.now}`, sentence: `Entry ${e.now}: ${label}`, icon: 'trash', id: e.id });
  }
  for (const d of v.drift.new_decisions) {
    const target = { type: 'decision' as const, id: d.id };
    items.push({
      label: d.summary,
      change: `new decision · ${d.scope}`,
      sentence: `New decision in scope: ${d.summary} (${d.scope})`,
      icon: 'law',
      target,
      id: d.id,
    });
  }
  for (const w of v.drift.new_warnings) {
    const target = { type: 'entry' as const, id: w.id };
    items.push({
      label: w.summary,
      change: `new warning · ${w.scope}`,
      sentence: `New warning in scope: ${w.summary} (${w.scope})`,
      icon: 'warning',
      target,
      id: w.id,
    });
  }
  return items;
}

/** How many things drifted (a snapshot edited by hand counts as one). */
export function driftCount(v: VerifyResult | undefined): number {
  if (!v) return 0;
  const d = v.drift;
  return d.decisions_no_longer_active.length + d.entries_removed.length + d.new_decisions.length + d.new_warnings.length + (v.intact ? 0 : 1);
}

const resolved = (items: readonly { now: string }[]) => items.filter(e => e.now === 'resolved').length;
const removed = (items: readonly { now: string }[]) => items.length - resolved(items);

/** "2 decisions no longer active, 1 new warning"; empty when nothing drifted. */
export function driftSummary(v: VerifyResult): string {
  const d = v.drift;
  return [
    d.decisions_no_longer_active.length ? `${plural(d.decisions_no_longer_active.length, 'decision')} no longer active` : '',
    removed(d.entries_removed) ? `${plural(removed(d.entries_removed), 'entry', 'entries')} removed` : '',
    resolved(d.entries_removed) ? `${plural(resolved(d.entries_removed), 'entry', 'entries')} resolved` : '',
    d.new_decisions.length ? plural(d.new_decisions.length, 'new decision') : '',
    d.new_warnings.length ? plural(d.new_warnings.length, 'new warning') : '',
    v.intact ? '' : 'snapshot edited',
  ]
    .filter(Boolean)
    .join(', ');
}

/** The sentence for a result without drift. */
export const NO_DRIFT =
  'No drift: every attached decision is still active, no attached entry was removed, and nothing new was decided or warned about in scope.';
