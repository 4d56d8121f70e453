/**
 * What the timeline webview is sent for one folder: everything once, then only what changed. The
 * engine reads the blackboard incrementally (store/jsonl.ts keeps every parsed line and appends
 * new ones), so after a change the feed sends the entries past the last one it sent: the history
 * is neither re-read from disk nor sent again. A rewritten file (dismiss, archive, checkout) makes
 * a new list, and then everything is sent again.
 */
import type { BlackboardEntry, DecisionIndexEntry, HandoffIndexLine, TwiningEngine } from '../../core';
import type { ChangeKind } from '../model/change-kinds';
import type { TwiningFolder } from '../model/folders';
import { mapBounded } from '../../core/store/bounded';
import {
  byTime,
  decisionLookup,
  entryItem,
  handoffArrow,
  latestHandoffLines,
  recordLinks,
  type HandoffExtra,
  type TimelineItem,
} from '../present/timeline-layout';
import { buildTimeline } from '../present/timeline-layout';
import type { ToWebview } from './timeline-messages';
import { packItems } from '../present/timeline-packing';

/** At most this many superseded decisions are followed to their replacement (one record read each). */
const SUPERSESSION_LIMIT = 5000;

export class TimelineFeed {
  /** How many blackboard entries were sent, and the last of them (the same object while the file is only appended to). */
  private sent = 0;
  private lastSent: BlackboardEntry | undefined;
  private lookup = new Map<string, DecisionIndexEntry>();
  /** Decision items as sent: entry id -> "record id|status". */
  private decisionItems = new Map<string, string>();
  private warnings = new Set<string>();
  private handoffExtras = new Map<string, HandoffExtra>();
  /** Superseded decision id -> the id of the decision that superseded it. */
  private replacements = new Map<string, string>();

  constructor(
    readonly folder: TwiningFolder,
    private readonly user: () => string,
  ) {}

  /** Everything: items, lanes and the handoff arrows from their index lines (records come with `relations`). */
  reset(): Promise<Extract<ToWebview, { type: 'reset' }>> {
    return this.folder.run(async engine => {
      await engine.refresh();
      // A 2.x folder read from records/ has no agents to show (NOT_FOUND says why): the timeline goes on without their lanes' names.
      const noAgents = (error: unknown) => {
        if ((error as { code?: unknown }).code === 'NOT_FOUND') return { agents: [] };
        throw error;
      };
      const [decisions, agents, handoffs] = await Promise.all([this.decisionIndex(engine), engine.agents({}).catch(noAgents), this.handoffLines(engine)]);
      this.lookup = decisionLookup(decisions);
      const entries = engine.blackboard.entries;
      this.sent = entries.length;
      this.lastSent = entries[entries.length - 1];
      const data = buildTimeline({ entries, handoffs, handoffRecords: this.handoffExtras, decisions, agents: agents.agents, user: this.user() });
      this.decisionItems.clear();
      this.warnings.clear();
      for (const item of data.items) this.remember(item);
      return {
        type: 'reset',
        folder: this.folder.key,
        user: this.user(),
        now: engine.now().getTime(),
        data: { lanes: data.lanes, arrows: data.arrows, links: data.links },
        items: packItems(data.items),
        agents: agents.agents.map(a => ({ id: a.agent_id, ...(a.role ? { role: a.role } : {}) })),
      };
    });
  }

  /** The messages for one change of the folder's data (empty when nothing the timeline shows changed). */
  async changed(kinds: ReadonlySet<ChangeKind>): Promise<ToWebview[]> {
    if (kinds.has('presence') || kinds.has('trust') || kinds.has('settings') || kinds.has('registry')) return [await this.reset()];
    const out: ToWebview[] = [];
    if (kinds.has('decisions')) {
      const patches = await this.decisionPatches();
      if (patches.length) out.push({ type: 'decisions', patches });
    }
    if (kinds.has('blackboard')) {
      const delta = await this.appended();
      if (!delta) return [await this.reset()];
      if (delta.items.count || delta.resolved.length) out.push(delta);
    }
    if (kinds.has('handoffs') || kinds.has('handoffRecords') || kinds.has('decisions')) out.push(await this.relations());
    return out;
  }

  /** The entries appended since the last message, or undefined when the file was rewritten. */
  private appended(): Promise<Extract<ToWebview, { type: 'append' }> | undefined> {
    return this.folder.run(engine => {
      const entries = engine.blackboard.entries;
      if (entries.length < this.sent || (this.sent > 0 && entries[this.sent - 1] !== this.lastSent)) return undefined;
      const added = entries.slice(this.sent);
      this.sent = entries.length;
      this.lastSent = entries[entries.length - 1];
      const items: TimelineItem[] = [];
      const resolved: { id: string; end: number }[] = [];
      for (const entry of added) {
        const item = entryItem(entry, this.lookup);
        if (item) {
          items.push(item);
          this.remember(item);
        }
        const at = Date.parse(String(entry.timestamp));
        if (Array.isArray(entry.relates_to)) for (const id of entry.relates_to) if (this.warnings.delete(id)) resolved.push({ id, end: at });
      }
      return { type: 'append', now: engine.now().getTime(), items: packItems(byTime(items)), resolved };
    });
  }

  /** Decision items whose record or status changed since they were sent. */
  private decisionPatches(): Promise<Extract<ToWebview, { type: 'decisions' }>['patches']> {
    return this.folder.run(async engine => {
      this.lookup = decisionLookup(await this.decisionIndex(engine));
      const patches: Extract<ToWebview, { type: 'decisions' }>['patches'] = [];
      const entries = engine.blackboard.entries;
      for (let i = 0; i < this.sent && i < entries.length; i++) {
        const entry = entries[i];
        if (entry.entry_type !== 'decision' || !this.decisionItems.has(entry.id)) continue;
        const item = entryItem(entry, this.lookup);
        if (!item) continue;
        const key = `${item.open.id}|${item.status ?? ''}`;
        if (this.decisionItems.get(item.id) === key) continue;
        this.decisionItems.set(item.id, key);
        patches.push({ id: item.id, open: item.open, ...(item.status ? { status: item.status } : {}) });
      }
      return patches;
    });
  }

  /**
   * The handoff arrows with what their records add (read once per handoff, again when its
   * acknowledgement arrives), and the continues and supersedes links.
   */
  relations(): Promise<Extract<ToWebview, { type: 'relations' }>> {
    return this.folder.run(async engine => {
      const lines = latestHandoffLines(await this.handoffLines(engine));
      const stale = lines.filter(l => !this.handoffExtras.has(l.id) || (l.acknowledged === true && !this.handoffExtras.get(l.id)?.acknowledged_by));
      await mapBounded(stale, async line => {
        const record = await engine.getHandoff(line.id).catch(() => undefined);
        this.handoffExtras.set(line.id, {
          ...(typeof record?.continues === 'string' ? { continues: record.continues } : {}),
          ...(typeof record?.acknowledged_by === 'string' ? { acknowledged_by: record.acknowledged_by, acknowledged_at: record.acknowledged_at } : {}),
        });
      });
      const arrows = byTime(lines.map(l => handoffArrow(l, this.handoffExtras.get(l.id))).filter(a => a !== undefined));
      const superseded = (await this.decisionIndex(engine)).filter(d => d.status === 'superseded' && !this.replacements.has(d.id)).slice(0, SUPERSESSION_LIMIT);
      await mapBounded(superseded, async d => {
        const story = await engine.decisionStory(d.id).catch(() => undefined);
        const next = story?.superseded_by[0]?.id;
        if (next) this.replacements.set(d.id, next);
      });
      const decisionRecords = new Map([...this.replacements].map(([old, next]) => [next, { supersedes: old }] as const));
      return { type: 'relations', arrows, links: recordLinks(arrows, decisionRecords) };
    });
  }

  private remember(item: TimelineItem): void {
    if (item.kind === 'decision') this.decisionItems.set(item.id, `${item.open.id}|${item.status ?? ''}`);
    if (item.kind === 'warning' && item.end === undefined) this.warnings.add(item.id);
  }

  private async decisionIndex(engine: TwiningEngine): Promise<DecisionIndexEntry[]> {
    return (await engine.decisions({})).decisions;
  }

  private async handoffLines(engine: TwiningEngine): Promise<HandoffIndexLine[]> {
    return (await engine.handoffs({ limit: 100000 })).handoffs;
  }
}
