/**
 * Two read-only reports on the `.twining/` folder itself, under twining-mcp's names:
 *
 *  - `migrate_status` (twining-mcp's twining_migrate_status, src/core/commands/migrate.ts at
 *    52ba50d6): which format is on disk and where a migration stands. twining-mcp's `migration`,
 *    `next_command` and `rolled_back` keep its meaning (its migration to format 3, the event log);
 *    `storage` and `layout_migration` say the same of the move between the two layouts this
 *    version reads and writes (`twining migrate`, ops/migrate-ops.ts).
 *  - `exchange_status` (twining-mcp's twining_exchange_status, src/core/commands/exchange.ts at
 *    28402bb3, its shape from src/exchange/status.ts at aef83fab): what this clone's exchange with
 *    others is uncertain about, read from `twining sync`'s state (sync-state.ts), which says
 *    plainly when there is none.
 *
 * test/fixtures/twining-2/surface-2.16.json holds the shapes, and its README the files read.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import { detectFolderFormat } from '../storage/folder-format';
import { configBackupFile } from '../migrate/migrate-config';
import { readSyncState, type SyncGap } from '../sync/exchange-state';

/** twining-mcp's states of a migration (src/core/commands/migrate.ts). */
export type MigrationState = 'not_started' | 'incomplete' | 'complete' | 'rolled_back';

export interface MigrateStatusResult {
  /** The format on disk: 1 (1.x files), 2 (twining-mcp 2.x's twining.db and records/) or 3 (its event log). */
  format: 1 | 2 | 3;
  /** The migration to format 3 (twining-mcp's `migrate --to 3`), as twining-mcp reports it. */
  migration: MigrationState;
  /** The command an operator would run next, or null when nothing is pending. */
  next_command: string | null;
  /** True while the folder is rolled back from format 3. */
  rolled_back: boolean;
  /** The layout this version reads and writes, and why (config.yml, or twining-mcp 2.x's rules without it). */
  storage: { backend: 'files' | 'sqlite'; reason: string; configured?: string; version?: number; database: boolean; records: boolean };
  /** The move between the two layouts (`twining migrate`, `twining migrate --reverse`). */
  layout_migration: { state: 'none' | 'forward_complete' | 'forward_incomplete' | 'reversed'; config_backup: boolean; pre_reverse_backup: boolean };
  /** What Twining for VS Code can do with the folder. */
  note: string;
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );
const hasEntries = (dir: string) =>
  fs.readdir(dir).then(
    names => names.length > 0,
    () => false,
  );

export async function migrateStatus(ctx: FolderStore, input: InputOf<'migrate_status'> = {}): Promise<MigrateStatusResult> {
  ctx.validate('migrate_status', input);
  const dir = ctx.layout.dir;
  const format = await detectFolderFormat(dir);
  const [database, records, frozen, events, backup, preReverse] = await Promise.all([
    exists(path.join(dir, 'twining.db')),
    hasEntries(path.join(dir, 'records')),
    exists(path.join(dir, 'records', 'RECORDS-FROZEN.md')),
    exists(path.join(dir, 'events')),
    exists(configBackupFile(path.join(dir, 'config.yml'))),
    exists(path.join(dir, 'pre-reverse-backup')),
  ]);
  // twining-mcp's format 3: records/ frozen and the truth in events/; config.yml's version moves to 3 last,
  // so markers without it are a run that stopped ("the interrupted run left config.version unchanged").
  const v3 = frozen || events;
  const migration: MigrationState = !v3 ? 'not_started' : (format.version ?? 0) >= 3 ? 'complete' : 'incomplete';
  const next_command = migration === 'incomplete' ? 'twining-mcp migrate --to 3   (resume: the interrupted run left config.version unchanged)' : null;
  const storageState: MigrateStatusResult['layout_migration']['state'] =
    format.backend === 'sqlite' && backup
      ? 'forward_complete'
      : format.backend === 'files' && preReverse
        ? 'reversed'
        : format.backend === 'files' && records && format.configured === 'files'
          ? 'forward_incomplete'
          : 'none';
  const note = v3
    ? 'The folder is in twining-mcp format 3, which this version of Twining neither reads nor writes; use twining-mcp on it.'
    : storageState === 'forward_incomplete'
      ? 'records/ holds files while config.yml says files: a twining migrate that stopped part-way (run it again to finish), or records/ brought by git from a migrated clone.'
      : `The ${format.backend === 'sqlite' ? 'twining.db and records/' : '1.x files'} layout; Twining reads and writes it. twining migrate${format.backend === 'sqlite' ? ' --reverse' : ''} moves it to the other layout.`;
  return {
    format: v3 ? 3 : format.backend === 'sqlite' ? 2 : 1,
    migration,
    next_command:
      next_command ?? (storageState === 'forward_incomplete' ? 'twining migrate   (finish: records/ are written, config.yml still says files)' : null),
    rolled_back: false,
    storage: {
      backend: format.backend,
      reason: format.reason,
      ...(format.configured !== undefined ? { configured: format.configured } : {}),
      ...(format.version !== undefined ? { version: format.version } : {}),
      database,
      records,
    },
    layout_migration: { state: storageState, config_backup: backup, pre_reverse_backup: preReverse },
    note,
  };
}

/** twining-mcp's exchange_status result (src/exchange/status.ts), with `sync` saying where it came from. */
export interface ExchangeStatusResult {
  generated_at: string;
  /** Ours: whether `twining sync` is set up for this clone, in words. */
  sync: { state: 'not_set_up' | 'set_up'; message: string; transport?: string; last_exchange_at?: string };
  store: { twining_dir: string; events_held: number; admitted: number; projected: number; checkout: string };
  outbox: {
    depth: number;
    oldest_pending_age_ms: number | null;
    oldest_pending_id: string | null;
    retries: number;
    uncertain: string[] | number;
    by_transport: { transport: string; queued: number; transferred: number; uncertain: number; attempts: number }[];
  };
  inbound: { received: number; pending_parents: { id: string; waiting_on: string[] }[] | number };
  rejected: { count: number; by_reason: Record<string, number> };
  quarantined: { count: number; retryable: number; by_reason: Record<string, number> };
  ingest_attempts: { count: number; retries: number; by_disposition: Record<string, number>; by_reason: Record<string, number> };
  cursors: { principal: string; transport: string; position: string; last_admitted?: string }[];
  cursor_forks: unknown[];
  transports: unknown[];
  gaps: (SyncGap | { kind: string; detail: string; count: number })[];
  revoked_credentials: { event_id: string; principal: string }[];
  migration: { state: MigrationState | 'unknown'; note: string };
}

export async function exchangeStatus(ctx: FolderStore, input: InputOf<'exchange_status'> = {}): Promise<ExchangeStatusResult> {
  const args = ctx.validate('exchange_status', input);
  const sync = await readSyncState(ctx.layout.dir);
  const migration = await migrateStatus(ctx);
  const nowMs = ctx.now().getTime();
  const sorted = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
  const result: ExchangeStatusResult = {
    generated_at: ctx.timestamp(),
    sync: sync.set_up
      ? {
          state: 'set_up',
          message: `sync exchanges through ${sync.transport}`,
          transport: sync.transport,
          ...(sync.last_exchange_at ? { last_exchange_at: sync.last_exchange_at } : {}),
        }
      : { state: 'not_set_up', message: sync.message },
    store: { twining_dir: path.join(ctx.root, '.twining'), events_held: 0, admitted: 0, projected: 0, checkout: sync.set_up ? 'in_sync' : 'not_set_up' },
    outbox: { depth: 0, oldest_pending_age_ms: null, oldest_pending_id: null, retries: 0, uncertain: [], by_transport: [] },
    inbound: { received: 0, pending_parents: [] },
    rejected: { count: 0, by_reason: {} },
    quarantined: { count: 0, retryable: 0, by_reason: {} },
    ingest_attempts: { count: 0, retries: 0, by_disposition: {}, by_reason: {} },
    cursors: [],
    cursor_forks: [],
    transports: [],
    gaps: [],
    revoked_credentials: [],
    migration: { state: migration.migration, note: migration.note },
  };
  if (sync.set_up) {
    const pending = sync.outbound.pending_ids;
    const oldestAt = sync.outbound.oldest_pending_at ? Date.parse(sync.outbound.oldest_pending_at) : NaN;
    result.outbox = {
      depth: pending.length,
      oldest_pending_age_ms: Number.isNaN(oldestAt) ? null : Math.max(0, nowMs - oldestAt),
      oldest_pending_id: pending[0] ?? null,
      retries: sync.outbound.retries,
      uncertain: [...new Set(sync.outbound.uncertain_ids)].sort(),
      by_transport: [
        { transport: sync.transport, queued: pending.length, transferred: 0, uncertain: sync.outbound.uncertain_ids.length, attempts: sync.outbound.retries },
      ],
    };
    result.inbound = { received: sync.inbound.received, pending_parents: sync.inbound.waiting };
    const rejected = Object.values(sync.rejected).reduce((a, b) => a + b, 0);
    result.rejected = { count: rejected, by_reason: sorted(sync.rejected) };
    result.gaps = sync.gaps;
  }
  if (args.include_ids === false) {
    // twining-mcp's compact form: counts in place of ids.
    result.gaps = (result.gaps as SyncGap[]).map(({ kind, detail, ids }) => ({ kind, detail, count: ids.length }));
    result.outbox.uncertain = (result.outbox.uncertain as string[]).length;
    result.inbound.pending_parents = (result.inbound.pending_parents as unknown[]).length;
  }
  return result;
}
