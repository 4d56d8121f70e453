/**
 * The inbox's rules, pure (no `vscode` import, timers passed in): which handoffs are new arrivals
 * for the user, and how arrivals are gathered so that a burst gives one notification.
 */
import { oneLine } from '../present/format';

export interface ArrivalLine {
  id: string;
  summary: string;
  source_agent: string;
}

/**
 * The handoffs in `current` (unacknowledged, addressed to the user) that are new: not seen at the
 * last look and not written by this extension itself. Returns them and the ids to remember.
 * Ids that left the list (acknowledged) are forgotten, so the known set stays small.
 */
export function newArrivals<T extends ArrivalLine>(
  known: ReadonlySet<string>,
  current: readonly T[],
  own: ReadonlySet<string>,
): { arrivals: T[]; known: Set<string> } {
  const arrivals = current.filter(l => !known.has(l.id) && !own.has(l.id));
  return { arrivals, known: new Set(current.map(l => l.id)) };
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: handle => clearTimeout(handle as NodeJS.Timeout),
  now: () => Date.now(),
};

/**
 * Gathers arrivals: the first starts a window; each further one within `quietMs` extends it, but
 * never beyond `maxWaitMs` after the first; then `flush` gets them all at once (each id once).
 */
export class ArrivalBatcher<T extends { id: string }> {
  private pending = new Map<string, T>();
  private timer: unknown;
  private firstAt = 0;

  constructor(
    private readonly flush: (items: T[]) => void,
    private readonly timers: Timers = realTimers,
    readonly quietMs = 1500,
    readonly maxWaitMs = 6000,
  ) {}

  add(items: readonly T[]): void {
    if (items.length === 0) return;
    if (this.pending.size === 0) this.firstAt = this.timers.now();
    for (const item of items) this.pending.set(item.id, item);
    if (this.timer !== undefined) this.timers.clear(this.timer);
    const wait = Math.max(0, Math.min(this.quietMs, this.firstAt + this.maxWaitMs - this.timers.now()));
    this.timer = this.timers.set(() => this.fire(), wait);
  }

  /** Whether arrivals are waiting to be shown. */
  get waiting(): boolean {
    return this.pending.size > 0;
  }

  private fire(): void {
    this.timer = undefined;
    const items = [...this.pending.values()];
    this.pending.clear();
    if (items.length) this.flush(items);
  }

  dispose(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}

/** The notification's text for arrivals: one handoff in full, several counted with their senders. */
export function arrivalMessage(items: readonly ArrivalLine[]): string {
  if (items.length === 1) {
    const h = items[0];
    return `Handoff for you from ${h.source_agent}: ${oneLine(h.summary, 140)}`;
  }
  const senders = [...new Set(items.map(i => i.source_agent))];
  const from = senders.length <= 3 ? senders.join(', ') : `${senders.slice(0, 3).join(', ')} and ${senders.length - 3} more`;
  return `${items.length} handoffs for you, from ${from}.`;
}
