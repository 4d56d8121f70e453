/**
 * Background sync for a long-lived engine (the extension's, `twining mcp`'s): once a clone has
 * synced (its local git config says `twining.sync.enabled`), it syncs every interval and soon
 * after a local write, one sync at a time, never prompting (sync-git.ts) and time-boxed. A clone
 * that has not synced is only looked at (one `git config` read per interval, never after a write:
 * looking runs git, and a process spawned from a long-lived engine holds up the calls it serves),
 * so a first `twining sync` in a terminal turns the background sync of a running window on at the
 * next interval, and writes sync soon after from then on.
 */
import type { SyncOptions, SyncReport } from './sync-run';
import type { SyncStatus } from './sync-state';

export interface Syncable {
  sync(options?: SyncOptions): Promise<SyncReport>;
  syncStatus(): Promise<SyncStatus>;
}

export interface SchedulerOptions {
  /** Between background syncs (default 30 s). */
  intervalMs?: number;
  /** After a local write, how soon (default 2 s: a burst of writes is one sync). */
  afterWriteMs?: number;
  /** Each network step's time limit (default 20 s). */
  networkTimeoutMs?: number;
  onReport?: (report: SyncReport) => void;
  onError?: (error: Error) => void;
  /** Whenever the state may have changed (a sync ran, failed, or sync was turned on). */
  onState?: (status: SyncStatus) => void;
}

export class SyncScheduler {
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  /** Whether the last look found sync on (undefined: not looked yet). */
  private enabled?: boolean;
  private readonly intervalMs: number;

  constructor(
    private readonly engine: Syncable,
    private readonly options: SchedulerOptions = {},
  ) {
    this.intervalMs = Math.max(1000, options.intervalMs ?? 30_000);
  }

  start(): this {
    this.schedule(Math.min(this.intervalMs, 1000));
    return this;
  }

  /** A local write happened: sync soon (when sync is on; while the last look found it off, the next interval looks again). */
  poke(): void {
    if (this.stopped || this.soon || this.enabled === false) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.run('write').catch(() => undefined);
    }, this.options.afterWriteMs ?? 2000);
    this.soon.unref?.();
  }

  /** Runs one background sync now (if sync is on); resolves when it is done. */
  async run(reason = 'background'): Promise<void> {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.once(reason).finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.run(reason).catch(() => undefined);
      }
    });
    return this.running;
  }

  private async once(reason: string): Promise<void> {
    let status = await this.engine.syncStatus().catch(() => undefined);
    this.enabled = status?.enabled;
    if (!status?.enabled) {
      if (status) this.options.onState?.(status);
      return;
    }
    try {
      const report = await this.engine.sync({ reason, networkTimeoutMs: this.options.networkTimeoutMs ?? 20_000 });
      this.options.onReport?.(report);
    } catch (error) {
      this.options.onError?.(error as Error);
    }
    status = await this.engine.syncStatus().catch(() => undefined);
    if (status) this.options.onState?.(status);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.run()
        .catch(() => undefined)
        .finally(() => this.schedule(this.intervalMs));
    }, ms);
    this.timer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.soon);
  }
}
