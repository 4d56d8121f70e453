/**
 * The loaded files (docs/glossary.md): the folder's files as the store last read them into memory
 * (the blackboard, the handoff index, the JSON array files and the archive's ids), brought up to
 * date cheaply: the JSONL files are read on from where they stopped (jsonl.ts) and the JSON arrays
 * are parsed again only when their version stamp (version-stamp.ts) moves.
 */
import { promises as fs, type Stats } from 'fs';
import * as path from 'path';
import { JsonlFile, type RefreshResult } from './jsonl';
import { isRecord } from '../json-files';
import type { ArraySource, LineSource } from '../storage';
import { overlaps } from '../../scope';
import { ScopePositions } from './scope-positions';
import type { BlackboardEntry, HandoffIndexLine } from '../../records';
import { isResolved } from '../../rules/resolution';
import { MISSING } from '../version-stamp';

/** The blackboard, with the lists that operations need kept up to date as lines are appended. */
export class Blackboard {
  /** Where the entries are read from (storage/storage.ts: the blackboard file, or a 2.x folder's rows). */
  readonly file: LineSource<BlackboardEntry>;
  /** Built on the first look-up by id (verify, opening an entry), then kept up to date. */
  private byId?: Map<string, BlackboardEntry>;
  readonly warnings: BlackboardEntry[] = [];
  readonly findings: BlackboardEntry[] = [];
  readonly needs: BlackboardEntry[] = [];
  /** Needs, warnings and questions resolved (twining-mcp 2.x), in file order: kept out of `warnings` and `needs`, which are what is open. */
  readonly resolved: BlackboardEntry[] = [];
  /** Positions in `warnings`, `findings` and `needs` by scope: a scoped snapshot visits each distinct scope once. */
  private byScope = new Map<string, { warnings: number[]; findings: number[]; needs: number[] }>();
  /** Per agent_id, the timestamp of its latest entry: work counts for liveness. */
  private activity = new Map<string, string>();
  /** Warnings with a timestamp, oldest first: built on the first `warningsAfter`, then kept up to date. */
  private warningsByTime?: BlackboardEntry[];
  /** Increases whenever the content changes; views compare it to skip work. */
  version = 0;
  /**
   * Increases only when what a handoff's drift depends on may have changed: a warning appended
   * (a new warning in scope), or the file re-read (after a dismiss or archive, an entry of a
   * snapshot may be gone). Status posts, needs, answers and new findings leave drift as it was.
   */
  driftVersion = 0;

  constructor(source: LineSource<BlackboardEntry>) {
    this.file = source;
  }

  get entries(): readonly BlackboardEntry[] {
    return this.file.all;
  }

  get(id: string): BlackboardEntry | undefined {
    if (!this.byId) {
      this.byId = new Map();
      for (const entry of this.entries) if (typeof entry.id === 'string') this.byId.set(entry.id, entry);
    }
    return this.byId.get(id);
  }

  async refresh(): Promise<boolean> {
    return this.apply(await this.file.refresh());
  }

  /**
   * `text`, complete lines this process just appended under the blackboard's lock (`before` and
   * `after`: the file's stat around the append), taken in as a refresh would take them, without
   * reading the file (jsonl.ts takeAppended). False when they are left for the next refresh.
   */
  appendedHere(before: Stats, after: Stats, text: string): boolean {
    const result = this.file.takeAppended?.(before, after, text);
    return result ? this.apply(result) : false;
  }

  private apply(result: RefreshResult<BlackboardEntry>): boolean {
    if (!result.changed) return false;
    // The first read is where the counters start, not a change.
    const first = !this.loaded;
    this.loaded = true;
    if (result.reloaded) {
      this.byId = undefined;
      this.warningsByTime = undefined;
      this.warnings.length = this.findings.length = this.needs.length = this.resolved.length = 0;
      this.byScope.clear();
      this.activity.clear();
      if (!first) this.driftVersion++;
    }
    for (const entry of result.appended) this.index(entry, first);
    if (result.reloaded) this.positions = undefined;
    else this.positions?.addFrom(this.entries, this.entries.length - result.appended.length);
    if (!first) this.version++;
    return true;
  }

  /** Positions by scope and type, made by the first scoped read (storage/files/scope-positions.ts). */
  private positions?: ScopePositions;

  /** The last `limit` entries (all when 0) whose scope overlaps `scope`, of `types` when given, in file order, and how many match in all. */
  lastInScope(scope: string, types: ReadonlySet<string> | undefined, limit: number): { entries: BlackboardEntry[]; total: number } {
    this.positions ??= new ScopePositions(this.entries);
    return this.positions.last(this.entries, scope, types, limit);
  }

  private loaded = false;

  private index(entry: BlackboardEntry, first: boolean): void {
    if (this.byId && typeof entry.id === 'string') this.byId.set(entry.id, entry);
    if (typeof entry.agent_id === 'string' && typeof entry.timestamp === 'string') {
      const known = this.activity.get(entry.agent_id);
      if (known === undefined ? !Number.isNaN(Date.parse(entry.timestamp)) : later(entry.timestamp, known)) this.activity.set(entry.agent_id, entry.timestamp);
    }
    if (isResolved(entry) && (entry.entry_type === 'warning' || entry.entry_type === 'need' || entry.entry_type === 'question')) {
      this.resolved.push(entry);
    } else if (entry.entry_type === 'warning' || entry.entry_type === 'finding') {
      if (entry.entry_type === 'warning' && !first) this.driftVersion++;
      const list = entry.entry_type === 'warning' ? this.warnings : this.findings;
      if (typeof entry.scope === 'string') {
        const at = this.scopeSlot(entry.scope);
        (entry.entry_type === 'warning' ? at.warnings : at.findings).push(list.length);
      }
      list.push(entry);
      if (entry.entry_type === 'warning' && typeof entry.timestamp === 'string') {
        this.warningsByTime = extendSorted(this.warningsByTime, entry as BlackboardEntry & { timestamp: string }, compareTimestamps);
      }
    } else if (entry.entry_type === 'need') {
      if (typeof entry.scope === 'string') this.scopeSlot(entry.scope).needs.push(this.needs.length);
      this.needs.push(entry);
    }
  }

  private scopeSlot(scope: string): { warnings: number[]; findings: number[]; needs: number[] } {
    let at = this.byScope.get(scope);
    if (!at) this.byScope.set(scope, (at = { warnings: [], findings: [], needs: [] }));
    return at;
  }

  /** The timestamp of the latest entry written by `agentId` (posts, decisions, handoffs, delegations). */
  lastEntryBy(agentId: string): { ms: number; timestamp: string } | undefined {
    const timestamp = this.activity.get(agentId);
    return timestamp === undefined ? undefined : { ms: Date.parse(timestamp), timestamp };
  }

  /** Warnings whose timestamp is later than `timestamp`, oldest first, found by binary search. */
  warningsAfter(timestamp: string): BlackboardEntry[] {
    this.warningsByTime ??= byTime(this.warnings);
    return this.warningsByTime.slice(firstAfter(this.warningsByTime, timestamp));
  }

  /** Needs (delegations among them) whose scope overlaps `scope`, in file order. */
  needsInScope(scope: string): BlackboardEntry[] {
    const at: number[] = [];
    for (const [s, slot] of this.byScope) if (overlaps(s, scope)) for (const i of slot.needs) at.push(i);
    return at.sort((a, b) => a - b).map(i => this.needs[i]);
  }

  /**
   * How many of the warnings and findings `inScope(scope)` gives have an id (those a handoff's
   * snapshot takes in), without listing or sorting them.
   */
  countInScope(scope: string | undefined): { warnings: number; findings: number } {
    const withId = (list: readonly BlackboardEntry[], at?: readonly number[]) => {
      let n = 0;
      if (at) for (const i of at) n += typeof list[i].id === 'string' && list[i].id !== '' ? 1 : 0;
      else for (const e of list) n += typeof e.id === 'string' && e.id !== '' ? 1 : 0;
      return n;
    };
    if (!scope) return { warnings: withId(this.warnings), findings: withId(this.findings) };
    let warnings = 0;
    let findings = 0;
    for (const [s, at] of this.byScope) {
      if (!overlaps(s, scope)) continue;
      warnings += withId(this.warnings, at.warnings);
      findings += withId(this.findings, at.findings);
    }
    return { warnings, findings };
  }

  /** Warnings and findings whose scope overlaps `scope`, in file order (all of them without a scope). */
  inScope(scope: string | undefined): { warnings: BlackboardEntry[]; findings: BlackboardEntry[] } {
    if (!scope) return { warnings: this.warnings.slice(), findings: this.findings.slice() };
    const w: number[] = [];
    const f: number[] = [];
    for (const [s, at] of this.byScope) {
      if (!overlaps(s, scope)) continue;
      for (const i of at.warnings) w.push(i);
      for (const i of at.findings) f.push(i);
    }
    w.sort((a, b) => a - b);
    f.sort((a, b) => a - b);
    return { warnings: w.map(i => this.warnings[i]), findings: f.map(i => this.findings[i]) };
  }
}

export class HandoffIndex {
  readonly file: LineSource<HandoffIndexLine>;
  version = 0;
  /**
   * One line per handoff id (the last line for it wins), oldest first by (created_at, id): built
   * on first use, then extended as lines are appended in time order, which is how handoffs come.
   */
  private byTime?: HandoffIndexLine[];
  private ids?: Set<string>;

  constructor(source: LineSource<HandoffIndexLine>) {
    this.file = source;
  }
  get lines(): readonly HandoffIndexLine[] {
    return this.file.all;
  }
  private loaded = false;

  async refresh(): Promise<boolean> {
    const result = await this.file.refresh();
    if (!result.changed) return false;
    // The first read is where the counter starts, not a change.
    if (this.loaded) this.version++;
    this.loaded = true;
    if (result.reloaded) this.byTime = undefined;
    for (const line of result.appended) {
      if (!this.byTime || !this.ids || typeof line.id !== 'string') continue;
      // A repeated id replaces a line already in the list: sorted again when next asked.
      this.byTime = this.ids.has(line.id) ? undefined : extendSorted(this.byTime, line, compareHandoffLines);
      this.ids.add(line.id);
    }
    return true;
  }

  /** The handoffs, one line each, oldest first (read from the end for newest first). */
  sorted(): readonly HandoffIndexLine[] {
    if (!this.byTime) {
      const latest = new Map<string, HandoffIndexLine>();
      for (const line of this.lines) if (typeof line.id === 'string') latest.set(line.id, line);
      this.byTime = [...latest.values()].sort(compareHandoffLines);
      this.ids = new Set(latest.keys());
    }
    return this.byTime;
  }
}

/** Handoff order by creation time, then id (twining-mcp's listing order, reversed). */
function compareHandoffLines(a: HandoffIndexLine, b: HandoffIndexLine): number {
  const ta = typeof a.created_at === 'string' ? a.created_at : '';
  const tb = typeof b.created_at === 'string' ? b.created_at : '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * A JSON array file (registry, decision index), re-parsed only when its stat changes (or, from
 * another source (storage/storage.ts), when its key does). `get()` gives the object items; `raw`
 * keeps every item for rewrites.
 */
export class JsonArrayFile<T> {
  private key = '';
  private loaded = false;
  private value: T[] = [];
  raw: unknown[] = [];
  version = 0;
  /** `source`: where the list is read (storage/storage.ts: a file, or a 2.x folder's rows). */
  constructor(private readonly source: ArraySource) {}

  /** Which parse `get()` gives: the file's version stamp (version-stamp.ts) when read, and a count of parses (`fresh` parses again). */
  get stamp(): string {
    return `${this.parses}:${this.key}`;
  }
  private parses = 0;

  /** The object items as last read by `get()` (no stat). */
  get lastRead(): readonly T[] {
    return this.value;
  }

  /** Whether the file is as last read (one stat). */
  async isCurrent(): Promise<boolean> {
    return (await this.source.key().catch(() => '')) === this.key;
  }

  async get(): Promise<T[]> {
    const key = await this.source.key();
    if (key !== this.key) {
      this.raw = key === MISSING ? [] : await this.source.read();
      this.value = this.raw.filter(isRecord) as T[];
      this.key = key;
      this.parses++;
      // The first read is where the counter starts, not a change.
      if (this.loaded) this.version++;
      this.loaded = true;
    }
    return this.value;
  }

  /** Reads the file afresh, ignoring the cache (under a lock, before a rewrite): every item, and the objects among them. */
  async fresh(): Promise<{ raw: unknown[]; items: T[] }> {
    this.key = '';
    const items = await this.get();
    return { raw: this.raw, items };
  }
}

/** What the archive keeps of an archived blackboard entry. */
export interface ArchivedEntry {
  id: string;
  summary?: string;
}

/**
 * Archived blackboard entries by id, from every `archive/*.jsonl` (twining-mcp's auto-archive
 * moves entries there once the blackboard holds 500). Each file is read incrementally, like the
 * blackboard, and only ids and summaries are held, so a look-up costs a directory listing and a
 * stat per file however long the history grows.
 */
export class ArchiveIndex {
  private files = new Map<string, JsonlFile<ArchivedEntry, Record<string, unknown>>>();
  private byId = new Map<string, ArchivedEntry>();

  constructor(
    private readonly dir: string,
    private readonly warn: (m: string) => void,
  ) {}

  /** The archived entries among `ids`. */
  async find(ids: Iterable<string>): Promise<Map<string, ArchivedEntry>> {
    await this.refresh();
    const found = new Map<string, ArchivedEntry>();
    for (const id of ids) {
      const entry = this.byId.get(id);
      if (entry) found.set(id, entry);
    }
    return found;
  }

  private async refresh(): Promise<void> {
    const names = (await fs.readdir(this.dir).catch(() => [] as string[])).filter(n => n.endsWith('.jsonl')).sort();
    let rebuild = false;
    for (const name of [...this.files.keys()]) {
      if (names.includes(name)) continue;
      this.files.delete(name);
      rebuild = true;
    }
    for (const name of names) {
      let file = this.files.get(name);
      const isNew = !file;
      if (!file) {
        file = new JsonlFile<ArchivedEntry, Record<string, unknown>>(path.join(this.dir, name), this.warn, keepIdAndSummary);
        this.files.set(name, file);
      }
      const result = await file.refresh();
      if (result.reloaded && !isNew) rebuild = true;
      else for (const entry of result.appended) this.byId.set(entry.id, entry);
    }
    if (!rebuild) return;
    // A file went away or was rewritten: collect again, in name order.
    this.byId = new Map();
    for (const name of names) for (const entry of this.files.get(name)!.all) this.byId.set(entry.id, entry);
  }
}

function keepIdAndSummary(value: Record<string, unknown>): ArchivedEntry | undefined {
  if (typeof value.id !== 'string') return undefined;
  return typeof value.summary === 'string' ? { id: value.id, summary: value.summary } : { id: value.id };
}

const compareTimestamps = (a: { timestamp: string }, b: { timestamp: string }) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0);

/** The items with a string timestamp, sorted by it (stable: file order among equal times). */
export function byTime<T extends { timestamp?: unknown }>(items: readonly T[]): (T & { timestamp: string })[] {
  return items.filter((item): item is T & { timestamp: string } => typeof item.timestamp === 'string').sort(compareTimestamps);
}

/**
 * Keeps a sorted list current as items are appended: an item that sorts last is pushed; any other
 * drops the list (undefined), to be sorted again when next asked. Appends mostly come in order.
 */
function extendSorted<T>(sorted: T[] | undefined, item: T, compare: (a: T, b: T) => number): T[] | undefined {
  if (!sorted) return undefined;
  if (sorted.length && compare(sorted[sorted.length - 1], item) > 0) return undefined;
  sorted.push(item);
  return sorted;
}

/** The position of the first item later than `timestamp` in a list sorted by `byTime`. */
export function firstAfter(sorted: readonly { timestamp: string }[], timestamp: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].timestamp <= timestamp) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `toISOString()` form: such timestamps compare as strings, without parsing (the common case). */
const isCanonical = (t: string) => t.length === 24 && t.charCodeAt(23) === 90 /* Z */ && t.charCodeAt(10) === 84; /* T */

/** Whether timestamp `a` is later than `b` (a valid one); `a` unparseable is never later. */
function later(a: string, b: string): boolean {
  if (isCanonical(a) && isCanonical(b)) return a > b;
  const ms = Date.parse(a);
  return !Number.isNaN(ms) && ms > Date.parse(b);
}
