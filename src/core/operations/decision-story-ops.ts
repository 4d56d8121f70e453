/**
 * A decision's whole story, for the document that opens for it: its record, what it superseded
 * (back to the first), what superseded it (up to the current one), and every handoff whose context
 * snapshot carried it. From the engine's loaded state (operations/decision-relations.ts).
 */
import type { FolderStore } from '../engine/folder-store';
import { checkUlid } from '../schemas/schemas';
import type { DecisionRecord, HandoffIndexLine } from '../records';
import { relationsOf } from './scope-context-ops';

export interface DecisionStory {
  record: DecisionRecord;
  /** The decisions it replaced, nearest first (each superseded by the one before it). */
  supersedes: { id: string; summary?: string; status?: string; missing?: true }[];
  /** The decisions that replaced it, nearest first. */
  superseded_by: { id: string; summary?: string; status?: string; missing?: true }[];
  /** Handoffs whose snapshot names it, oldest first. */
  handoffs: HandoffIndexLine[];
}

const CHAIN_LIMIT = 100;

/** The story of decision `id`, or undefined when it has no readable record. */
export async function decisionStory(ctx: FolderStore, id: string): Promise<DecisionStory | undefined> {
  checkUlid('decision id', id);
  const r = relationsOf(ctx);
  const record = await r.record(id);
  if (!record) return undefined;
  const link = async (other: string) => {
    const rec = await r.record(other);
    return rec ? { id: other, summary: String(rec.summary ?? ''), status: String(rec.status ?? '') } : { id: other, missing: true as const };
  };
  const seen = new Set([id]);
  const supersedes: DecisionStory['supersedes'] = [];
  for (let at: DecisionRecord | undefined = record; at && typeof at.supersedes === 'string' && !seen.has(at.supersedes) && supersedes.length < CHAIN_LIMIT;) {
    const previous: string = at.supersedes;
    seen.add(previous);
    supersedes.push(await link(previous));
    at = await r.record(previous);
  }
  const superseded_by: DecisionStory['superseded_by'] = [];
  for (let next = await r.replacementOf(id); next && !seen.has(next) && superseded_by.length < CHAIN_LIMIT; next = await r.replacementOf(next)) {
    seen.add(next);
    superseded_by.push(await link(next));
  }
  return { record, supersedes, superseded_by, handoffs: await r.handoffsNaming(id) };
}
