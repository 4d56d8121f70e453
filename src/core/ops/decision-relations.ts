/**
 * What only decision records say, kept per engine without re-reading history: each record as last
 * read (valid while the decision index is unchanged: every writer, twining-mcp included, rewrites
 * the index with a record), which decision superseded which (a record's `supersedes` is written
 * once, when it is created), and which handoffs' snapshots name a decision (a snapshot is written
 * once, with its handoff). The last two are built on first use and then extended with only the
 * decisions and handoffs added since.
 */
import type { EngineContext } from '../engine-context';
import { readDecisionRecord } from './decision-ops';
import type { DecisionRecord, HandoffIndexLine } from '../records';

export class DecisionRelations {
  private recordsVersion = -1;
  private records = new Map<string, DecisionRecord | undefined>();
  /** Superseded id -> id of the decision that superseded it. */
  private supersededBy = new Map<string, string>();
  private seenDecisions = new Set<string>();
  /** Decision id -> handoff index lines whose snapshot names it. */
  private handoffsOf = new Map<string, HandoffIndexLine[]>();
  private seenHandoffs = new Set<string>();

  constructor(private readonly ctx: EngineContext) {}

  /** A decision record (undefined when missing or unreadable), read once per version of the index. */
  async record(id: string): Promise<DecisionRecord | undefined> {
    await this.ctx.decisionIndex.get();
    const version = this.ctx.decisionIndex.version;
    if (version !== this.recordsVersion) {
      this.recordsVersion = version;
      this.records = new Map();
    }
    if (this.records.has(id)) return this.records.get(id);
    const record = await readDecisionRecord(this.ctx, id).catch(() => undefined);
    this.records.set(id, record);
    return record;
  }

  /** The id of the decision that superseded `id`, if any (records of decisions added since the last call are read). */
  async replacementOf(id: string): Promise<string | undefined> {
    // A decision is superseded once: a replacement already known (often one in the same scope) is the answer.
    const known = this.supersededBy.get(id);
    if (known) return known;
    const index = await this.ctx.decisionIndex.get();
    for (const entry of index) {
      if (typeof entry.id !== 'string' || this.seenDecisions.has(entry.id)) continue;
      this.seenDecisions.add(entry.id);
      const record = await this.record(entry.id);
      if (record && typeof record.supersedes === 'string') this.supersededBy.set(record.supersedes, record.id);
    }
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
