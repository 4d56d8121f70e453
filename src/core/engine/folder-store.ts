/**
 * What every operation works with: where the files are (layout), the cached views of them
 * (stores), the clock and ids, the locks, the configuration, and the rules of writing (validated
 * input, read-only refusal, the folder made before the first write). Operations (operations/) are
 * functions of this store; the engine (engine.ts) is their facade.
 */
import type { RecordRoute } from '../git/record-location';
import * as path from 'path';
import { monotonicFactory } from 'ulid';
import { Layout, assertWritesStayInside, ensureFolder } from '../storage/layout';
import { type LaterRelease, withLocks } from '../storage/lock';
import { readTextIfExists, sweepTemporaryFiles } from '../storage/json-files';
import { Config, parseConfig } from './config';
import { ArchiveIndex, Blackboard, HandoffIndex, JsonArrayFile } from '../storage/files/loaded-files';
import { HandoffRecords, readHandoffRecord } from '../storage/handoff-records';
import { FilesStorage, Storage } from '../storage/storage';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage';
import { readDecisionFile } from '../storage/files/decision-file';
import { FolderFormat, detectFolderFormat, formatStamps } from '../storage/folder-format';
import { SqliteFolder } from '../storage/sqlite/sqlite-folder';
import { isSqliteFolder } from '../storage/sqlite/sqlite-detect';
import { TwiningError } from '../errors';
import { isWritableDate } from '../timestamps';
import { OperationName, ParsedInputOf, parseInput } from '../schemas/schemas';
import { writes } from '../operations/operation-writes';
import { writeRefusal } from './write-trust';
import type { AgentRecord, BlackboardEntry, DecisionIndexEntry } from '../records';
import type { SearchIndex } from '../search/search-index';
import type { TextIndex } from '../search/text-index';
import { stampOf, stampOfFileSync, statNow } from '../storage/version-stamp';
import { DerivedData, type DerivedSource } from './derived-data';
import { ClaimLog } from '../storage/claim-log';
import { claimsFileOf } from '../storage/claims-file';
import { type GraphFiles, type GraphQueue, graphFiles } from '../storage/files/graph-files';
import type { WorkspaceOptions } from './workspace-options';
import { projectPath } from './project-path';

/** A lock target and the content it is created with when missing. */
export type LockTarget = readonly [file: string, emptyContent: string];

export class FolderStore {
  readonly layout: Layout;
  readonly blackboard: Blackboard;
  readonly handoffIndex: HandoffIndex;
  readonly registry: JsonArrayFile<AgentRecord>;
  readonly decisionIndex: JsonArrayFile<DecisionIndexEntry>;
  /** Archived blackboard entries (verify tells archived from dismissed). */
  readonly archive: ArchiveIndex;
  /** Handoff records read or written, by id, each with the stat it had then. */
  readonly handoffRecords: HandoffRecords;
  /**
   * Where every view above reads its records (storage/storage.ts): the `files` backend (1.x), or
   * the `sqlite` backend (a twining-mcp 2.x folder's rows).
   */
  readonly storage: Storage;
  readonly claimLog: ClaimLog; // claims/claims.jsonl as this engine last read or wrote it (storage/claim-log.ts)
  /** The knowledge graph's two files (storage/files/graph-files.ts), re-read by version stamp like the other array files. */
  readonly graph: GraphFiles;
  /** The graph's changes queued to be written together (operations/graph-ops.ts changeGraphSoon). */
  graphQueue?: GraphQueue;
  /** Entries appended by the operation running, whose graph steps follow it, then `after` (the auto-archive): operations/graph-populate-ops.ts. */
  readonly posting: { entries: BlackboardEntry[]; after?: () => Promise<void> } = { entries: [] };
  /** Everything worked out from the record and cached, by the version stamp of its source (engine/derived-data.ts). */
  readonly derived: DerivedData;
  /** The search index, made by the first search (operations/search-ops.ts) and kept current by each one after. */
  searchIndex?: SearchIndex;
  readonly textIndex?: () => TextIndex;
  readonly searchWorker: { script?: string; minRecords?: number } | false;
  readonly warn: (message: string) => void;
  readonly readOnly: boolean;
  readonly keepRecordsWarm: boolean;
  readonly batchGraph: boolean;
  /** Lock releases still under way (`releaseAfterAnswer`). */
  readonly releasing = new Set<Promise<void>>();
  private readonly later?: LaterRelease;
  readonly branch?: string;
  private readonly writeGate?: () => string | undefined;
  private readonly writeGateMs: number;
  /**
   * A twining-mcp 2.x folder (twining.db + records/, decided when the engine is made): its rows
   * held in memory, read and written through `storage`, each write one database transaction
   * (storage/sqlite/sqlite-folder.ts).
   */
  readonly sqlite?: SqliteFolder;
  /** Set once the handoff records without an index line have been looked for. */
  orphansChecked = false;
  /** When each agent last assembled a briefing with this engine (twining-mcp's assembly log). */
  readonly assembledAt = new Map<string, string>();
  /** Set once the decision records without an index entry have been looked for. */
  decisionOrphansChecked = false;
  /** Increases whenever config.yml is parsed again (it changed on disk). */
  configVersion = 0;
  private readonly clock: () => Date;
  private readonly nextId = monotonicFactory();
  private folderReady?: Promise<boolean>;
  /** Which record this is and why, when the engine was opened through routing (git/record-location.ts). */
  route?: RecordRoute;
  private configCache?: { key: string; config: Config };
  private formatCache?: { stamps: string; format: FolderFormat };

  constructor(
    readonly root: string,
    options: WorkspaceOptions = {},
  ) {
    const dir = path.join(root, '.twining');
    if (isSqliteFolder(dir)) {
      const sqlite = new SqliteFolder(dir, options.warn ?? (message => process.stderr.write(`twining: ${message}\n`)), options.readOnly ?? false);
      this.layout = new Layout(root, true);
      this.sqlite = sqlite;
    } else this.layout = new Layout(root);
    this.clock = options.now ?? (() => new Date());
    this.warn = options.warn ?? (message => process.stderr.write(`twining: ${message}\n`));
    this.readOnly = options.readOnly ?? false;
    this.keepRecordsWarm = options.keepRecordsWarm ?? false;
    this.batchGraph = options.batchGraph ?? false;
    if (options.releaseAfterAnswer)
      this.later = released => {
        this.releasing.add(released);
        const done = () => this.releasing.delete(released);
        released.then(done, done);
      };
    this.branch = options.branch;
    this.writeGate = options.writeGate;
    this.writeGateMs = options.writeGateMs ?? 5000;
    this.textIndex = options.textIndex;
    this.searchWorker = options.searchWorker ?? {};
    this.storage = this.sqlite ? new SqliteStorage(this.sqlite) : new FilesStorage(this.layout, readHandoffRecord, readDecisionFile);
    const storage = this.storage;
    this.blackboard = new Blackboard(storage.lines('posts', this.warn));
    this.handoffIndex = new HandoffIndex(storage.lines('handoffs', this.warn));
    this.registry = new JsonArrayFile<AgentRecord>(storage.array('agents'));
    this.decisionIndex = new JsonArrayFile<DecisionIndexEntry>(storage.array('decisionIndex'));
    this.archive = new ArchiveIndex(this.layout.archiveDir, this.warn);
    this.handoffRecords = new HandoffRecords(storage);
    this.claimLog = new ClaimLog(claimsFileOf(this.layout.dir), this.warn);
    this.graph = graphFiles(storage, kind => this.graphLock(kind));
    const stampOf = (source: DerivedSource) => (source === 'blackboard' ? this.blackboard.file.origin : source === 'decisions' ? this.decisionIndex.stamp : '');
    this.derived = new DerivedData(stampOf, () => this.decisionIndex.lastRead);
  }

  now(): Date {
    return this.clock();
  }

  timestamp(): string {
    return this.clock().toISOString();
  }

  /** A new ULID, monotonic within this process. */
  id(): string {
    return this.nextId(this.clock().getTime());
  }

  /** Validates an operation's input and the clock; a writing operation on a read-only store fails first. */
  validate<K extends OperationName>(op: K, input: unknown): ParsedInputOf<K> {
    if (writes(op)) this.assertWritable(op);
    const parsed = parseInput(op, input);
    this.checkClock(op);
    // From a linked worktree, an absolute scope names a file of that worktree: kept as the project path
    // the primary's agents use for the same file, so the two meet (the hooks do the same).
    // The same for a decision's files (decide, amend): `twining why` on the file finds it from either side.
    const fields = parsed as { scope?: unknown; affected_files?: unknown; add_affected_files?: unknown };
    if (this.route?.linked) {
      if (typeof fields.scope === 'string' && path.isAbsolute(fields.scope)) fields.scope = this.projectPath(fields.scope);
      for (const key of ['affected_files', 'add_affected_files'] as const) {
        const list = fields[key];
        if (Array.isArray(list)) fields[key] = (list as unknown[]).map(f => (typeof f === 'string' && path.isAbsolute(f) ? this.projectPath(f) : f));
      }
    }
    return parsed;
  }

  /** A path a caller gave, as a path of the project (project-path.ts): from a linked worktree, relative to it. */
  projectPath(given: string): string {
    return projectPath(given, this.root, this.route?.linked ? this.route.worktree : undefined);
  }

  /**
   * Every timestamp is written in the 24-character form and compared as a string, so a clock that
   * gives an invalid date, or one outside 1970 to 9999, is refused before anything is written.
   */
  checkClock(op: string): void {
    const now: unknown = this.clock();
    if (isWritableDate(now)) return;
    const shown = now instanceof Date ? (Number.isNaN(now.getTime()) ? 'an invalid Date' : `year ${now.getUTCFullYear()}`) : String(now);
    throw new TwiningError(
      'INVALID_INPUT',
      `${op}: the clock gives ${shown}; timestamps must fall between 1970 and 9999 to be written as 2026-11-22T02:32:12.379Z; nothing was written`,
    );
  }

  /** The one write-trust rule (write-trust.ts), applied to every writing operation by `validate`. */
  assertWritable(op: string): void {
    const refusal = writeRefusal(this.readOnly, op);
    if (refusal) throw refusal;
  }

  /** Waits while the write gate holds writes back; fails naming its reason when it does not clear in time. */
  private async gate(): Promise<void> {
    if (!this.writeGate) return;
    const deadline = Date.now() + this.writeGateMs;
    for (let reason = this.writeGate(); reason !== undefined; reason = this.writeGate()) {
      if (Date.now() >= deadline)
        throw new TwiningError('LOCKED', `${reason}: nothing was written to ${this.layout.dir} while git works on it; try again when it has finished`);
      await new Promise(resolve => setTimeout(resolve, 100));
    }
  }

  /**
   * Makes sure the folder exists before the first write (with every entry when `complete`: init),
   * and clears what killed writers left.
   */
  async ready(complete = false): Promise<boolean> {
    await this.assertFormatWritable();
    // A 2.x folder's copy is complete; its own folder is twining-mcp's, left as it is.
    if (this.sqlite) return false;
    if (!this.folderReady) {
      const pending = this.gate()
        .then(() => ensureFolder(this.layout, { complete, warn: this.warn }))
        .then(async created => {
          const dirs = [this.layout.dir, path.dirname(this.layout.registry), path.dirname(this.layout.decisionIndex), this.layout.handoffsDir];
          const removed = (await Promise.all(dirs.map(dir => sweepTemporaryFiles(dir).catch(() => 0)))).reduce((a, b) => a + b, 0);
          if (removed) this.warn(`removed ${removed} temporary file(s) left by a writer that was killed`);
          return created;
        });
      // A failure is reported to the caller and tried again by the next write.
      pending.catch(() => {
        if (this.folderReady === pending) this.folderReady = undefined;
      });
      this.folderReady = pending;
    }
    return this.folderReady;
  }

  /**
   * Which of twining-mcp's layouts the folder is in (storage/folder-format.ts). A layout config.yml
   * names is kept while the files it was decided from keep their version stamps (storage/folder-format.ts
   * `formatStamps`: config.yml, `events/`, `records/RECORDS-FROZEN.md`, three synchronous stats), so
   * a write does not read and parse config.yml again; a folder whose config.yml names none (`auto`)
   * is looked at afresh each time, as its layout follows its content.
   */
  async folderFormat(): Promise<FolderFormat> {
    const stamps = formatStamps(this.layout.dir);
    const kept = this.formatCache;
    if (kept && kept.stamps === stamps) return { ...kept.format };
    const format = await detectFolderFormat(this.layout.dir);
    this.formatCache = format.reason === 'configured' ? { stamps, format: { ...format } } : undefined;
    return format;
  }

  /**
   * Refuses a write to a folder in a format we do not write: twining-mcp 2.x's SQLite layout
   * (1.x files written there would never be read by it), a `version` above 2, or format 3. A
   * missing or fresh folder is ours to write in the 1.x layout (docs/format.md) (init says `storage.backend:
   * files` so a twining-mcp 2.x opening it later keeps it so).
   */
  private async assertFormatWritable(): Promise<void> {
    const format = await this.folderFormat();
    if (format.refusal) throw new TwiningError('INVALID_INPUT', format.refusal);
    if (this.sqlite) {
      const refusal = this.sqlite.writeRefusal();
      if (refusal) throw new TwiningError('INVALID_INPUT', refusal);
      return;
    }
    if (format.backend === 'sqlite' && format.reason !== 'fresh') {
      const why = format.reason === 'configured' ? 'config.yml says storage.backend: sqlite' : 'it holds a twining.db or files under records/';
      throw new TwiningError(
        'INVALID_INPUT',
        `${this.layout.dir} is in twining-mcp 2.x's SQLite layout (${why}), which this version of Twining does not write; nothing was written (write through twining-mcp's tools, or run \`twining-mcp migrate --reverse\` to go back to the files layout)`,
      );
    }
  }

  /**
   * Says once per reading of config.yml what of the folder this version cannot do: a newer format
   * (not read), or a twining-mcp 2.x folder this runtime reads from records/ only (no node:sqlite:
   * no agents, no writes), or one that turned into a 2.x folder after this engine was made.
   */
  private async noticeFormat(): Promise<void> {
    const notice = await this.formatNotice().catch(() => undefined);
    if (notice) this.warn(notice);
  }

  /** What `noticeFormat` says about the folder's layout, or undefined when everything is read and written. */
  async formatNotice(): Promise<string | undefined> {
    const format = await this.folderFormat();
    if (format.refusal) return format.refusal.replace(/; nothing was written/, '');
    if (this.sqlite) {
      const refusal = this.sqlite.writeRefusal();
      if (refusal)
        return `${refusal.replace(/; nothing was written.*$/, '')}: its records are read from records/, its agents (kept only in twining.db) are not shown, and nothing is written to it`;
      await this.sqlite.sync();
      return this.sqlite.agentsUnavailable();
    }
    if (format.backend === 'sqlite' && format.reason !== 'fresh')
      return `${this.layout.dir} turned into twining-mcp 2.x's SQLite layout (twining.db and records/) after it was opened: open it again (reload the window, or start the command again) to read and write it there`;
    return undefined;
  }

  /** Looks at the folder again on the next write (init: fill in what is missing now). */
  forgetReady(): void {
    this.folderReady = undefined;
  }

  /**
   * The lock targets, in the order they are taken: decision index, handoff index, blackboard, registry.
   * A 2.x folder's stand for its records of that kind (`recordsLock`): no file is locked for them.
   */
  get locks(): { decisionIndex: LockTarget; handoffIndex: LockTarget; blackboard: LockTarget; registry: LockTarget } {
    if (this.sqlite)
      return {
        decisionIndex: this.recordsLock('decisions'),
        handoffIndex: this.recordsLock('handoffs'),
        blackboard: this.recordsLock('blackboard'),
        registry: this.recordsLock('agents'),
      };
    return {
      decisionIndex: [this.layout.decisionIndex, '[]'],
      handoffIndex: [this.layout.handoffIndex, ''],
      blackboard: [this.layout.blackboard, ''],
      registry: [this.layout.registry, '[]'],
    };
  }

  /**
   * A 2.x folder's records of one kind as a lock target: their write is one database write
   * transaction (storage/sqlite/sqlite-folder.ts), which excludes every other writer, twining-mcp included.
   */
  private recordsLock(kind: string): LockTarget {
    return [`${path.join(this.layout.dir, 'twining.db')}#${kind}`, ''];
  }

  private isRecordsLock(file: string): boolean {
    return this.sqlite !== undefined && file.startsWith(`${path.join(this.layout.dir, 'twining.db')}#`);
  }

  /**
   * Holds the locks of these files (in the order of `locks`) while `work` runs. On a 2.x folder,
   * `work` on its records runs inside one database write transaction, each step storing its records
   * through `storage`.
   */
  async lock<T>(files: readonly LockTarget[], work: () => Promise<T>): Promise<T> {
    await this.gate();
    const records = files.some(([file]) => this.isRecordsLock(file));
    const own = files.filter(([file]) => !this.isRecordsLock(file));
    // The files written under these locks live in the locked files' folders: none may lead out of .twining/.
    await Promise.all(own.map(([file]) => assertWritesStayInside(this.layout.dir, file)));
    const locked = () =>
      own.length
        ? withLocks(own, work, (locked, error) => this.warn(`the lock on ${locked} was broken by another process while held: ${error.message}`), this.later)
        : work();
    return records ? this.sqlite!.write(locked) : locked();
  }

  /** The graph's lock targets (storage/files/graph-files.ts): a 2.x folder's stand for its rows. */
  private graphLock(kind: 'entities' | 'relations'): LockTarget {
    return this.sqlite ? this.recordsLock(kind) : [path.join(this.layout.graphDir, `${kind}.json`), '[]'];
  }

  /** Whether config.yml is as last read (one stat). */
  configIsCurrent(): boolean {
    return this.configCache?.key === stampOfFileSync(this.layout.config);
  }

  /** The configuration, re-read whenever config.yml changes (one synchronous stat when it has not: storage/version-stamp.ts currentStamp). */
  async config(): Promise<Config> {
    const st = statNow(this.layout.config);
    const key = stampOf(st);
    if (this.configCache?.key !== key) {
      // A config.yml that cannot be read (a directory, a FIFO, no permission) means the defaults, with a warning.
      const text = st
        ? await readTextIfExists(this.layout.config).catch((error: Error) => {
            this.warn(`${error.message.replace(/; Twining neither reads nor writes it.*$/, '')}; using the default configuration`);
            return undefined;
          })
        : undefined;
      // The first read is where the counter starts, not a change.
      if (this.configCache) this.configVersion++;
      this.configCache = { key, config: parseConfig(text, path.basename(this.root), this.warn) };
      if (st) await this.noticeFormat();
    }
    return this.configCache.config;
  }
}
