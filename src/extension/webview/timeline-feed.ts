/**
 * What the timeline webview is sent for one folder. The feed holds the timeline's items
 * (webview/shared/timeline-window.ts) and answers the page's queries with the window it looks at: at
 * most one marker per lane and column, bars, counts and a density of the rest, never the history.
 * The engine reads the blackboard incrementally (storage/files/jsonl.ts keeps every parsed line and
 * appends new ones), so after a change the feed adds the entries past the last one it took, and
 * sends the page's window again: the history is neither re-read from disk nor sent. A rewritten
 * file (dismiss, archive, checkout) makes a new list, and then the items are built again.
 * The items are laid out lazily (webview/shared/timeline-lazy.ts): the newest piece before the page's
 * first question is answered (the columns it completes; the page keeps its older columns empty), the
 * rest a piece at a time between other work, and then the whole window is sent again.
 */
import type { AgentRecord, BlackboardEntry, DecisionIndexEntry, HandoffIndexLine, TwiningEngine } from '../../core';
import type { ChangeKind } from '../model/change-kinds';
import type { TwiningFolder } from '../model/folders';
import { mapBounded } from '../../core/storage/bounded';
import {
  byTime,
  decisionLookup,
  entryItem,
  handoffArrow,
  lanesOf,
  latestHandoffLines,
  recordLinks,
  type HandoffExtra,
  type TimelineArrow,
  type TimelineItem,
  type TimelineLane,
} from '../../webview/shared/timeline-layout';
import { TimelineIndex, type WindowQuery } from '../../webview/shared/timeline-window';
import type { FromWebview, ToWebview } from '../../webview/shared/timeline-messages';
import { packItems } from '../../webview/shared/timeline-packing';
import { LazyLayout } from '../../webview/shared/timeline-lazy';

/** Entries laid out before the first window is answered, and then per piece between other work (newest first). */
const FIRST_PIECE = 4096;
const PIECE = 8192;
/** The pieces after the first wait for the page's first frame, or this long. */
const REST_AFTER_MS = 1000;

/** At most this many superseded decisions are followed to their replacement (one record read each). */
const SUPERSESSION_LIMIT = 5000;

type Msg<T extends ToWebview['type']> = Extract<ToWebview, { type: T }>;

export class TimelineFeed {
  /** How many blackboard entries were taken, and the last of them (the same object while the file is only appended to). */
  private taken = 0;
  private lastTaken: BlackboardEntry | undefined;
  private index = new TimelineIndex();
  private lanes: TimelineLane[] = [];
  private agents: readonly AgentRecord[] = [];
  private arrows: TimelineArrow[] = [];
  private lookup = new Map<string, DecisionIndexEntry>();
  /** Decision items as last seen: entry id -> "record id|status". */
  private decisionItems = new Map<string, string>();
  private warnings = new Set<string>();
  private handoffExtras = new Map<string, HandoffExtra>();
  /** Superseded decision id -> the id of the decision that superseded it. */
  private replacements = new Map<string, string>();
  /** The page's last query, sent again after each change. */
  private query: (WindowQuery & { seq: number }) | undefined;
  private loaded = false;
  private loading: Promise<unknown> | undefined;
  /** The items not laid out yet (undefined: all are), and the pieces laying them out. */
  private lazy: LazyLayout | undefined;
  private laying: Promise<void> | undefined;
  /** A window was answered while laying out: the whole one is owed. */
  private owesWhole = false;
  /** The last full read: the engine's refresh, and all of it with the first piece of items laid out (the benchmark reports them). */
  readonly timings = { readMs: NaN, loadMs: NaN };
  /** Resolved when the page says it drew its first frame (the panel calls firstFrame). */
  private painted: Promise<void>;
  private paintedNow: () => void = () => {};
  /** How many windows were sent in part (after appends): the host test reads it. */
  partials = 0;

  constructor(
    readonly folder: TwiningFolder,
    private readonly user: () => string,
    /** Marks the steps of the first read (the panel's marks of the way to the first paint). */
    private readonly mark: (name: string) => void = () => {},
  ) {
    this.painted = new Promise(resolve => (this.paintedNow = resolve));
  }

  /** The page drew its first frame: the rest of the items may be laid out now. */
  firstFrame(): void {
    this.paintedNow();
  }

  /** Reads the folder (the whole blackboard once) and says who is who and where the history starts. */
  reset(): Promise<Msg<'reset'>> {
    return this.folder.run(async engine => {
      const t0 = performance.now();
      await engine.refresh();
      this.timings.readMs = performance.now() - t0;
      this.mark('engine refreshed');
      // A 2.x folder read from records/ has no agents to show (NOT_FOUND says why): the timeline goes on without their lanes' names.
      const noAgents = (error: unknown) => {
        if ((error as { code?: unknown }).code === 'NOT_FOUND') return { agents: [] };
        throw error;
      };
      const [decisions, agents, handoffs] = await Promise.all([this.decisionIndex(engine), engine.agents({}).catch(noAgents), this.handoffLines(engine)]);
      this.mark('records listed');
      this.lookup = decisionLookup(decisions);
      this.agents = agents.agents;
      const entries = engine.blackboard.entries;
      this.taken = entries.length;
      this.lastTaken = entries[entries.length - 1];
      this.arrows = byTime(latestHandoffLines(handoffs).flatMap(l => handoffArrow(l, this.handoffExtras.get(l.id)) ?? []));
      this.index = new TimelineIndex();
      this.decisionItems.clear();
      this.warnings.clear();
      // Only the newest items now: the rest in pieces after the first window (timeline-lazy.ts).
      const lazy = new LazyLayout(
        entries,
        () => this.lookup,
        this.index,
        item => this.remember(item),
      );
      this.lazy = lazy;
      this.mark('entries counted');
      this.lanes = lanesOf(this.user(), this.agents, lazy.laneFirsts, this.arrows);
      this.layRest(lazy);
      this.loaded = true;
      this.timings.loadMs = performance.now() - t0;
      return this.hello(engine.now().getTime());
    });
  }

  /** The page's start (first load, shown again): what the feed holds, read once and kept up to date since. */
  async opened(): Promise<Msg<'reset'>> {
    this.query = undefined; // a new page: it holds no window yet
    if (!this.loaded) await this.load();
    return this.hello(this.folder.engine.now().getTime());
  }

  /** Reads the folder once (the panel starts it as soon as it opens, while the page loads). */
  load(): Promise<unknown> {
    return (this.loading ??= this.reset().catch(error => {
      this.loading = undefined;
      throw error;
    }));
  }

  private hello(now: number): Msg<'reset'> {
    return { type: 'reset', folder: this.folder.key, user: this.user(), now, first: this.first, total: this.total };
  }

  private get total(): number {
    return this.lazy ? this.lazy.total : this.index.size;
  }

  private get first(): number | undefined {
    return this.lazy ? this.lazy.first : this.index.first;
  }

  /**
   * Lays out the first piece now; the rest a piece at a time once the first window is answered
   * (layingRest), letting other work in between: until then the extension host stays free for the
   * messages of the page's start.
   */
  private layRest(lazy: LazyLayout): void {
    lazy.layOut(FIRST_PIECE);
    this.mark('first piece laid out');
    this.laying = undefined;
    // All of it in the first piece (a folder of fewer entries): nothing is left to lay out, and every answer is whole at once.
    if (lazy.done) this.lazy = undefined;
  }

  /** The pieces after the first (started once, by the first answer or by what needs every item); resolves when all are laid out. */
  private layingRest(): Promise<void> | undefined {
    const lazy = this.lazy;
    if (!lazy || this.laying) return this.laying;
    this.laying = (async () => {
      // Not before the page has drawn its first frame (or a second has passed): its report, and what the
      // person does first, are not kept waiting behind the pieces.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.painted, new Promise(resolve => (timer = setTimeout(resolve, REST_AFTER_MS)))]);
      clearTimeout(timer);
      while (this.lazy === lazy && !lazy.done) {
        await new Promise(resolve => setImmediate(resolve));
        if (this.lazy === lazy) lazy.layOut(PIECE);
      }
      if (this.lazy === lazy) this.lazy = undefined;
    })();
    return this.laying;
  }

  /** Everything laid out now (before what needs the whole index: a filtered density, a keyboard move, an append). */
  private finishLayout(): void {
    if (!this.lazy) return;
    this.lazy.layOut();
    this.lazy = undefined;
  }

  /** After a first window answered in part: the whole window once every item is laid out (the panel posts it). */
  async rest(): Promise<Msg<'window'> | undefined> {
    if (!this.owesWhole) return undefined;
    await this.layingRest();
    this.owesWhole = false;
    // As the answer to the same question (the page shows it as such, not as an update after an append).
    return this.query && !this.lazy ? this.window(this.query) : undefined;
  }

  /** The window the page asks for (remembered, and sent again after each change). */
  async window(query: WindowQuery & { seq: number }, reason: 'query' | 'change' = 'query'): Promise<Msg<'window'>> {
    this.query = query;
    if (!this.loaded) await this.load();
    const now = this.folder.engine.now().getTime();
    // After appends only the columns from the first appended entry on are sent again.
    const from = this.index.takeChangedFrom();
    const density = this.lazy?.density(query.filter, now);
    if (!density) this.finishLayout();
    const w = this.index.window(query, now, reason === 'change' ? from : -Infinity, this.lazy?.pendingUpTo);
    // Answered while laying out: the whole window (and every kind of entry) follows, once the rest is laid out.
    if (this.lazy) {
      this.owesWhole = true;
      this.layingRest()?.catch(() => undefined);
    } else if (w.start > query.start) this.partials++;
    return {
      type: 'window',
      seq: query.seq,
      reason,
      partial: w.start > query.start,
      now,
      start: w.start,
      end: w.end,
      items: packItems(w.items),
      counts: Uint32Array.from(w.counts),
      bars: w.bars,
      total: this.total,
      lanes: this.lanes,
      kinds: this.index.kinds,
      density: density ?? this.index.density(query.filter, now),
    };
  }

  /** The keyboard's move (see TimelineIndex.step). */
  step(m: Extract<FromWebview, { type: 'step' }>): Msg<'stepped'> {
    this.finishLayout();
    let item: TimelineItem | undefined;
    for (const lane of m.lanes) if ((item = this.index.step(lane, m.from, m.dir, m.filter))) break;
    return { type: 'stepped', ...(item ? { item } : {}) };
  }

  /** The messages for one change of the folder's data (empty when nothing the timeline shows changed). */
  async changed(kinds: ReadonlySet<ChangeKind>): Promise<ToWebview[]> {
    if (!this.loaded) return [];
    const out: ToWebview[] = [];
    let dirty = false;
    if (kinds.has('presence') || kinds.has('trust') || kinds.has('settings') || kinds.has('registry')) {
      out.push(await this.reset());
      dirty = true;
    } else {
      if (kinds.has('decisions')) dirty = (await this.patchDecisions()) || dirty;
      if (kinds.has('blackboard')) {
        const appended = await this.appended();
        if (appended === undefined) out.push(await this.reset());
        dirty = dirty || appended !== false;
      }
    }
    if (kinds.has('handoffs') || kinds.has('handoffRecords') || kinds.has('decisions') || out.length) out.push(await this.relations());
    if (dirty && this.query) out.push(await this.window(this.query, 'change'));
    return out;
  }

  /** Takes the entries appended since the last look: true when some were, false when none, undefined when the file was rewritten. */
  private appended(): Promise<boolean | undefined> {
    return this.folder.run(engine => {
      const entries = engine.blackboard.entries;
      if (entries.length < this.taken || (this.taken > 0 && entries[this.taken - 1] !== this.lastTaken)) return undefined;
      if (entries.length === this.taken) return false;
      this.finishLayout();
      const added = entries.slice(this.taken);
      this.taken = entries.length;
      this.lastTaken = entries[entries.length - 1];
      const items: TimelineItem[] = [];
      for (const entry of added) {
        const item = entryItem(entry, this.lookup);
        if (item) items.push(item);
      }
      this.index.add(items);
      for (const item of items) this.remember(item);
      for (const entry of added) {
        if (!Array.isArray(entry.relates_to)) continue;
        const at = Date.parse(String(entry.timestamp));
        for (const id of entry.relates_to) if (this.warnings.delete(id)) this.index.resolve(id, at);
      }
      const known = new Set(this.lanes.map(l => l.id));
      if (items.some(i => !known.has(i.lane))) this.lanes = lanesOf(this.user(), this.agents, this.index.all, this.arrows);
      return true;
    });
  }

  /** Decision items whose record or status changed since they were seen; true when any did. */
  private patchDecisions(): Promise<boolean> {
    return this.folder.run(async engine => {
      this.lookup = decisionLookup(await this.decisionIndex(engine));
      let changed = false;
      for (const [id, before] of this.decisionItems) {
        const item = this.index.get(id);
        if (!item) continue;
        const entry = { entry_type: 'decision', id, scope: item.scope, summary: item.summary, timestamp: new Date(item.t).toISOString() };
        const fresh = entryItem(entry as BlackboardEntry, this.lookup);
        if (!fresh) continue;
        const key = `${fresh.open.id}|${fresh.status ?? ''}`;
        if (key === before) continue;
        this.decisionItems.set(id, key);
        this.index.patch(id, { open: fresh.open, status: fresh.status });
        changed = true;
      }
      return changed;
    });
  }

  /**
   * The handoff arrows with what their records add (read once per handoff, again when its
   * acknowledgement arrives), the continues and supersedes links, and where the linked decisions are.
   */
  relations(): Promise<Msg<'relations'>> {
    return this.folder.run(async engine => {
      // The linked decisions are looked up among all items: wait for the pieces (they let other work in).
      await this.layingRest();
      const lines = latestHandoffLines(await this.handoffLines(engine));
      const stale = lines.filter(l => !this.handoffExtras.has(l.id) || (l.acknowledged === true && !this.handoffExtras.get(l.id)?.acknowledged_by));
      await mapBounded(stale, async line => {
        const record = await engine.getHandoff(line.id).catch(() => undefined);
        this.handoffExtras.set(line.id, {
          ...(typeof record?.continues === 'string' ? { continues: record.continues } : {}),
          ...(typeof record?.acknowledged_by === 'string' ? { acknowledged_by: record.acknowledged_by, acknowledged_at: record.acknowledged_at } : {}),
        });
      });
      this.arrows = byTime(lines.map(l => handoffArrow(l, this.handoffExtras.get(l.id))).filter(a => a !== undefined));
      const known = new Set(this.lanes.map(l => l.id));
      if (this.arrows.some(a => !known.has(a.from) || (a.to !== undefined && !known.has(a.to)))) {
        this.lanes = lanesOf(this.user(), this.agents, this.index.all, this.arrows);
      }
      const superseded = (await this.decisionIndex(engine)).filter(d => d.status === 'superseded' && !this.replacements.has(d.id)).slice(0, SUPERSESSION_LIMIT);
      await mapBounded(superseded, async d => {
        const story = await engine.decisionStory(d.id).catch(() => undefined);
        const next = story?.superseded_by[0]?.id;
        if (next) this.replacements.set(d.id, next);
      });
      const decisionRecords = new Map([...this.replacements].map(([old, next]) => [next, { supersedes: old }] as const));
      const links = recordLinks(this.arrows, decisionRecords);
      const ends = new Set(links.filter(l => l.kind === 'supersedes').flatMap(l => [l.from, l.to]));
      const decisions: Msg<'relations'>['decisions'] = [];
      if (ends.size) for (const i of this.index.all) if (i.open.type === 'decision' && ends.has(i.open.id)) decisions.push([i.open.id, i.t, i.lane]);
      return { type: 'relations', arrows: this.arrows, links, decisions };
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
