/**
 * What only decision records say, cached per engine without re-reading history: each record as last
 * read (the engine's one cache of them, decision-record-cache.ts), which decision superseded which (a record's `supersedes` is written
 * once, when it is created), and which handoffs' snapshots name a decision (a snapshot is written
 * once, with its handoff). The last two are built on first use and then extended with only the
 * decisions and handoffs added since.
 */
import type { FolderStore } from '../engine/folder-store';
import { cachedRecordOf, decisionsById } from './decision-record-cache';
import { mapBounded } from '../storage/bounded';
import type { DecisionRecord, HandoffIndexLine } from '../records';

export class DecisionRelations {
  /** Superseded id -> id of the decision that superseded it. */
  private supersededBy = new Map<string, string>();
  private seenDecisions = new Set<string>();
  /** The decision index's stamp whose every record has been looked at for `supersedes`. */
  private scannedStamp = '';
  /** Decision id -> handoff index lines whose snapshot names it. */
  private handoffsOf = new Map<string, HandoffIndexLine[]>();
  private seenHandoffs = new Set<string>();

  constructor(private readonly ctx: FolderStore) {}

  /**
   * A decision record (undefined when missing or unreadable). Kept while its index entry is the
   * same (a writer changes both together: status, commits), so a decision written elsewhere in
   * the project does not make every record be read again.
   */
  async record(id: string): Promise<DecisionRecord | undefined> {
    return (await this.recordsOf([id]))[0];
  }

  /** The records of `ids`, in order, as `record` gives each: the index is looked at once for all. */
  async recordsOf(ids: readonly string[]): Promise<(DecisionRecord | undefined)[]> {
    await this.ctx.decisionIndex.get();
    const entries = decisionsById(this.ctx);
    return mapBounded(ids, id => cachedRecordOf(this.ctx, id, entries.get(id)));
  }

  /** The id of the decision known to have superseded `id` (from records read so far; reads nothing). */
  knownReplacementOf(id: string): string | undefined {
    return this.supersededBy.get(id);
  }

  /**
   * The id of the decision that superseded `id`, if any: the records of decisions not looked at
   * yet are read (all of them the first time, a few at a time; afterwards only new ones).
   */
  async replacementOf(id: string): Promise<string | undefined> {
    // A decision is superseded once: a replacement already known (often one in the same scope) is the answer.
    const known = this.supersededBy.get(id);
    if (known) return known;
    const index = await this.ctx.decisionIndex.get();
    if (this.scannedStamp === this.ctx.decisionIndex.stamp) return undefined;
    const unseen = index.map(entry => entry.id).filter((x): x is string => typeof x === 'string' && !this.seenDecisions.has(x));
    for (const record of await this.recordsOf(unseen)) if (record) this.noteRecord(record);
    for (const x of unseen) this.seenDecisions.add(x);
    this.scannedStamp = this.ctx.decisionIndex.stamp;
    return this.supersededBy.get(id);
  }

  /** Remembers a supersession seen in a record read for another reason (saves the scan above). */
  noteRecord(record: DecisionRecord): void {
    if (typeof record.supersedes === 'string') this.supersededBy.set(record.supersedes, record.id);
  }

  /** The handoffs whose context snapshot names decision `id`, oldest first. */
  async handoffsNaming(id: string): Promise<HandoffIndexLine[]> {
    await this.ctx.handoffIndex.refresh();
    for (const line of this.ctx.handoffIndex.sorted()) {
      if (this.seenHandoffs.has(line.id)) continue;
      const record = await this.ctx.handoffRecords.get(line.id).catch(() => undefined);
      // A record not written yet (the index line comes after it) or unreadable is looked at again next time.
      if (!record) continue;
      this.seenHandoffs.add(line.id);
      const ids = Array.isArray(record.context_snapshot?.decision_ids) ? record.context_snapshot.decision_ids : [];
      for (const decisionId of new Set(ids)) {
        if (typeof decisionId !== 'string') continue;
        let list = this.handoffsOf.get(decisionId);
        if (!list) this.handoffsOf.set(decisionId, (list = []));
        list.push(line);
      }
    }
    // Index lines are replaced when a handoff is acknowledged: give the current line of each.
    const listed = this.handoffsOf.get(id) ?? [];
    if (listed.length === 0) return [];
    const wanted = new Set(listed.map(l => l.id));
    const current = new Map<string, HandoffIndexLine>();
    for (const l of this.ctx.handoffIndex.sorted()) if (wanted.has(l.id)) current.set(l.id, l);
    return listed.map(l => current.get(l.id) ?? l);
  }
}
