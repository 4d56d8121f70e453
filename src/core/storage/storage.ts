/**
 * The one storage interface the folder's kept views read through (engine/folder-store.ts makes
 * it), with two backends:
 *  - `files`: twining-mcp 1.x's files (docs/format.md), read incrementally as before: the JSONL
 *    files by the bytes appended, the JSON arrays and records by their stat;
 *  - `sqlite`: a twining-mcp 2.x folder (docs/twining-2.md), read from its rows in `twining.db`
 *    (or, without a database, its `records/` files), held once in memory (storage/sqlite/sqlite-records.ts)
 *    and kept current by the database's seq and data_version (storage/sqlite/sqlite-storage.ts).
 * A view asks its source what changed since it last looked; the same records give the same views
 * in either backend. The writes below go to each backend's own place: the 1.x files, or the rows
 * (and `records/` files) inside the running write's transaction (storage/sqlite/sqlite-folder.ts `change`).
 */
import { promises as fs, type Stats } from 'fs';
import * as path from 'path';
import { JsonlFile, RefreshResult } from './files/jsonl';
import { readJsonArray } from './json-files';
import { currentStamp, stampOf } from './version-stamp';
import type { Layout } from './layout';
import { appendLineSafely, appendLinesNow, readTextIfExists, toJsonText, toJsonlLine, writeAtomic } from './json-files';
import type { Transaction } from './transaction';
import type { DecisionRecord, HandoffRecord } from '../records';

/** A list of records read as lines are appended (the blackboard, the handoff index). */
export interface LineSource<T> {
  /** The records, oldest first. */
  readonly all: readonly T[];
  /** How far the source was read (the files backend: bytes; the sqlite backend: records). */
  readonly size: number;
  /**
   * Which reading from the start `all` holds: it moves when the list was read again from its start
   * (rewritten, replaced, gone), not when records were appended. Derived data extended as records
   * are appended is kept by it (engine/derived-data.ts).
   */
  readonly origin: string;
  /** Whether a refresh would find nothing new (the files backend: one stat). */
  isCurrent(): Promise<boolean>;
  refresh(): Promise<RefreshResult<T>>;
  /** Lines this process just appended, taken in without reading them back (the files backend: jsonl.ts); undefined: left for the next refresh. */
  takeAppended?(before: Stats, after: Stats, text: string): RefreshResult<T> | undefined;
}

/** A list read whole when its key changes (the registry, the decision index, the graph). */
export interface ArraySource {
  /** Changes whenever the list does ('missing' when there is none). */
  key(): Promise<string>;
  /** Every item, objects or not, each a value of its own (callers change them before writing them back). */
  read(): Promise<unknown[]>;
}

/** Records read one at a time by id (handoff and decision records). */
export interface RecordSource<T> {
  /** Changes whenever the record does; undefined when there is no such record. */
  key(id: string): Promise<string | undefined>;
  /** The record as it is now (a value of its own), undefined when missing; throws naming the file when unreadable. */
  read(id: string): Promise<T | undefined>;
  /** The key of a record this process just wrote as `record`. */
  written(id: string, record: T): Promise<string | undefined>;
}

export type ArrayKind = 'agents' | 'decisionIndex' | 'entities' | 'relations';
/** The lists written whole (each item an object with its id; agents by `agent_id`). */
export type WrittenArrayKind = 'agents' | 'entities' | 'relations';
export type LineKind = 'posts' | 'handoffs';

export interface Storage {
  readonly backend: 'files' | 'sqlite';
  /** The blackboard's entries or the handoff index's lines. */
  lines<T extends object>(kind: LineKind, warn: (m: string) => void): LineSource<T>;
  array(kind: ArrayKind): ArraySource;
  readonly handoffs: RecordSource<HandoffRecord>;
  readonly decisions: RecordSource<DecisionRecord>;
  /**
   * Appends blackboard entries (as a step of `tx` when given: undone if the transaction fails);
   * the caller holds the blackboard's lock (FolderStore.lock).
   */
  appendEntries(entries: readonly object[], tx?: Transaction): Promise<AppendedLines | undefined>;
  /** The blackboard as its 1.x file's text: one entry a line, oldest first (a 2.x folder: its rows' texts in seq order). */
  blackboardText(): Promise<string>;
  /**
   * Writes the blackboard as `lines` (each an entry's JSON text), as a step of `tx` when given:
   * entries left out are removed, changed ones rewritten in place; the caller holds its lock.
   */
  replaceEntries(lines: readonly string[], tx?: Transaction): Promise<void>;
  /** Writes the list of `kind` as `items` (as a step of `tx` when given); the caller holds its lock. */
  writeArray(kind: WrittenArrayKind, items: readonly unknown[], tx?: Transaction): Promise<void>;
  /** Writes a decision record, new or changed (as a step of `tx` when given); the caller holds the decision index's lock. */
  writeDecision(record: { id: string }, tx?: Transaction): Promise<void>;
  /**
   * Writes the decision index's items (as a step of `tx` when given). A 2.x folder keeps no index:
   * it is made from the decision rows (docs/twining-2.md), so there this writes nothing.
   */
  writeDecisionIndex(items: readonly unknown[], tx?: Transaction): Promise<void>;
  /** Writes a handoff record, new or changed (as a step of `tx` when given); the caller holds the handoff index's lock. */
  writeHandoff(id: string, record: HandoffRecord, tx?: Transaction): Promise<void>;
  /**
   * Appends lines to the handoff index, or with `whole` writes it as `lines` (as a step of `tx`
   * when given). A 2.x folder's index lines are its handoff rows' `index_data`, written with the
   * record (docs/twining-2.md): there this writes nothing.
   */
  writeHandoffIndex(lines: readonly string[], whole: boolean, tx?: Transaction): Promise<void>;
}

/** Lines appended to the blackboard file outside a transaction: the text, and the file's stat around the append (json-files.ts appendLinesNow). */
export interface AppendedLines {
  text: string;
  before: Stats;
  after: Stats;
  /** A torn last line was ended first: more than `text` was written. */
  mended: boolean;
}

/** A JSON array file's source: its stat, then the whole file. */
export function fileArray(file: string, what: string): ArraySource {
  return {
    // A synchronous stat: asked before every call that uses the list (version-stamp.ts currentStamp).
    key: () => Promise.resolve().then(() => currentStamp(file)),
    read: () => readJsonArray(file, what),
  };
}

/** Record files under a folder (`file(id)`), keyed by their stat, read by `readRecord`. */
export function fileRecords<T>(file: (id: string) => string, readRecord: (file: string, id: string) => Promise<T | undefined>): RecordSource<T> {
  const key = async (id: string) => {
    const st = await fs.stat(file(id)).catch(() => undefined);
    return st && stampOf(st);
  };
  return { key, read: id => readRecord(file(id), id), written: key };
}

const ARRAY_FILES: Record<ArrayKind, [file: (layout: Layout) => string, what: string]> = {
  agents: [l => l.registry, 'The agent registry'],
  decisionIndex: [l => l.decisionIndex, 'The decision index'],
  entities: [l => path.join(l.graphDir, 'entities.json'), 'The graph entities file'],
  relations: [l => path.join(l.graphDir, 'relations.json'), 'The graph relations file'],
};

/** A file written whole: as a step of `tx` (undone if it fails), or alone. */
const replaceFile = (file: string, text: string, tx?: Transaction): Promise<void> => (tx ? tx.replace(file, text) : writeAtomic(file, text));

/** The `files` backend: twining-mcp 1.x's files under `layout.data`. */
export class FilesStorage implements Storage {
  readonly backend = 'files' as const;
  readonly handoffs: RecordSource<HandoffRecord>;
  readonly decisions: RecordSource<DecisionRecord>;

  constructor(
    private readonly layout: Layout,
    readHandoff: (file: string, id: string) => Promise<HandoffRecord | undefined>,
    readDecision: (file: string, id: string) => Promise<DecisionRecord | undefined>,
  ) {
    this.handoffs = fileRecords(id => layout.handoff(id), readHandoff);
    this.decisions = fileRecords(id => layout.decision(id), readDecision);
  }

  lines<T extends object>(kind: LineKind, warn: (m: string) => void): LineSource<T> {
    return new JsonlFile<T>(kind === 'posts' ? this.layout.blackboard : this.layout.handoffIndex, warn);
  }

  array(kind: ArrayKind): ArraySource {
    const l = this.layout;
    const [file, what] = ARRAY_FILES[kind];
    return fileArray(file(l), what);
  }

  async appendEntries(entries: readonly object[], tx?: Transaction): Promise<AppendedLines | undefined> {
    const text = entries.map(toJsonlLine).join('');
    if (tx) return void (await tx.append(this.layout.blackboard, text));
    return { text, ...appendLinesNow(this.layout.blackboard, text) };
  }

  async blackboardText(): Promise<string> {
    return (await readTextIfExists(this.layout.blackboard)) ?? '';
  }

  replaceEntries(lines: readonly string[], tx?: Transaction): Promise<void> {
    return replaceFile(this.layout.blackboard, lines.map(line => line + '\n').join(''), tx);
  }

  writeArray(kind: WrittenArrayKind, items: readonly unknown[], tx?: Transaction): Promise<void> {
    return replaceFile(ARRAY_FILES[kind][0](this.layout), toJsonText(items), tx);
  }

  writeDecision(record: { id: string }, tx?: Transaction): Promise<void> {
    return replaceFile(this.layout.decision(record.id), toJsonText(record), tx);
  }

  writeDecisionIndex(items: readonly unknown[], tx?: Transaction): Promise<void> {
    return replaceFile(this.layout.decisionIndex, toJsonText(items), tx);
  }

  writeHandoff(id: string, record: HandoffRecord, tx?: Transaction): Promise<void> {
    return replaceFile(this.layout.handoff(id), toJsonText(record), tx);
  }

  async writeHandoffIndex(lines: readonly string[], whole: boolean, tx?: Transaction): Promise<void> {
    const text = lines.map(line => line + '\n').join('');
    if (whole) await replaceFile(this.layout.handoffIndex, text, tx);
    else if (tx) await tx.append(this.layout.handoffIndex, text);
    else await appendLineSafely(this.layout.handoffIndex, text);
  }
}
