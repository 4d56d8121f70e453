/**
 * Incremental reading of an append-mostly JSONL file (blackboard, handoff index).
 *
 * After the first read, a refresh parses only the bytes appended since the last one: it stats the
 * file, checks that the part already read is unchanged (same file identity, not shorter, and the
 * same bytes at its start and just before the old end), and reads from the old end. A file that
 * was replaced, shrank or whose already-read part changed (dismiss, archive, an acknowledgement
 * rewrite) is read again in full. The cost of a refresh after one append does not depend on the
 * size of the file.
 *
 * Lines that do not parse are skipped with a warning and remembered verbatim (rewrites re-read
 * the file under its lock and keep them). A last line without its `\n` is a write in progress and is left for the next refresh.
 */
import { Stats, promises as fs, statSync } from 'fs';
import { openRegular, withoutBom } from '../json-files';
import { MISSING, identityOf, stampOf } from '../version-stamp';

const HEAD_SAMPLE = 4096;
const TAIL_SAMPLE = 512;

export interface SkippedLine {
  /** 1-based line number in the file. */
  line: number;
  /** The line exactly as stored, without its `\n`. */
  raw: string;
}

export interface RefreshResult<T> {
  /** Whether anything changed since the previous refresh. */
  changed: boolean;
  /** Whether the file was read again from the start (then `appended` is every record). */
  reloaded: boolean;
  appended: T[];
}

export class JsonlFile<T extends object, Parsed extends object = T> {
  private skipped: SkippedLine[] = [];
  private records: T[] = [];
  private offset = 0;
  private identity = '';
  /** The version stamp (version-stamp.ts) of the file as last read: the same stamp, nothing to read. */
  private stamp = '';
  /** Reads from the start so far, and the stamp of the file at the last: see `origin`. */
  private starts = 0;
  private startStamp = '';
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);
  private lineNumber = 0;

  /**
   * `keep` turns each parsed line into what is held in memory (the archive keeps only ids and
   * summaries); a line it returns undefined for is dropped without a warning.
   */
  constructor(
    readonly file: string,
    private readonly warn: (message: string) => void,
    private readonly keep: (value: Parsed) => T | undefined = value => value as unknown as T,
    /** Runs before each read (a 2.x folder: its records brought up to date, storage/sqlite/sqlite-folder.ts). */
    private readonly before?: () => Promise<void>,
  ) {}

  /** Parsed records in file order. */
  get all(): readonly T[] {
    return this.records;
  }

  /** Lines that did not parse as JSON objects (writers that rewrite the file keep them). */
  get skippedLines(): readonly SkippedLine[] {
    return this.skipped;
  }

  /** Number of bytes consumed (up to the last complete line). */
  get size(): number {
    return this.offset;
  }

  /**
   * Which reading from the start `all` holds: it moves when the file was read again from its start
   * (rewritten, replaced, gone), not when lines were appended. What is derived from the records
   * and extended as they are appended is kept by it (engine/derived-data.ts).
   */
  get origin(): string {
    return `${this.starts}:${this.startStamp}`;
  }

  /** Whether the file is as last read (one stat): a refresh would find nothing new. */
  isCurrent(): Promise<boolean> {
    return Promise.resolve(this.unchanged());
  }

  /**
   * The same look, synchronous (version-stamp.ts currentStamp: asked before every call, it costs a
   * stat, not a trip through the thread pool). Through a link the stat is of the file it leads to,
   * as the opened file's was, so a link that now leads elsewhere has another stamp and is read.
   */
  private unchanged(): boolean {
    let stat: Stats | undefined;
    try {
      stat = statSync(this.file, { throwIfNoEntry: false });
    } catch {
      return false; // looked at again by the read, which says why
    }
    if (!stat) return this.offset === 0 && this.records.length === 0 && this.skipped.length === 0;
    return stampOf(stat) === this.stamp && stat.size === this.offset;
  }

  private queue: Promise<unknown> = Promise.resolve();

  /**
   * Brings the records up to date. Concurrent calls run one after another (two reads from the same
   * offset at once would both append the same lines); each caller gets what its own read found,
   * and a read that finds nothing new costs one stat.
   */
  refresh(): Promise<RefreshResult<T>> {
    this.reading++;
    const next = this.queue
      .then(async () => {
        await this.before?.();
        // Nothing written since the last read (most calls): no file is opened.
        if (this.unchanged()) return { changed: false, reloaded: false, appended: [] };
        return this.read();
      })
      .finally(() => this.reading--);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Refreshes queued or running: lines appended meanwhile are left for them to read. */
  private reading = 0;

  /**
   * Takes in `text`, complete lines this process has just appended under the file's lock, without
   * reading them back: when, before the append, the file was exactly as last read (its version
   * stamp and size) and no refresh is under way, the lines are parsed from `text` and the file's
   * stamp after the append (`after`) becomes the one last read. Returns what a refresh would have
   * reported, or undefined when the lines are left to be read (then nothing changed here).
   */
  takeAppended(before: Stats, after: Stats, text: string): RefreshResult<T> | undefined {
    const bytes = Buffer.from(text, 'utf8');
    const fits = this.reading === 0 && this.offset > 0 && stampOf(before) === this.stamp && before.size === this.offset;
    if (!fits || after.size !== before.size + bytes.length || identityOf(after) !== this.identity || bytes[bytes.length - 1] !== 0x0a) return undefined;
    const start = this.offset;
    const appended = this.take(bytes, start);
    this.head = this.head.length < HEAD_SAMPLE ? Buffer.concat([this.head, bytes]).subarray(0, Math.min(HEAD_SAMPLE, this.offset)) : this.head;
    this.tail = Buffer.concat([this.tail, bytes]).subarray(-Math.min(TAIL_SAMPLE, this.offset));
    this.stamp = stampOf(after);
    return { changed: true, reloaded: false, appended };
  }

  private async read(): Promise<RefreshResult<T>> {
    const handle = await openRegular(this.file);
    if (!handle) {
      const changed = this.offset > 0 || this.records.length > 0 || this.skipped.length > 0;
      this.reset();
      return { changed, reloaded: changed, appended: [] };
    }
    try {
      const stat = await handle.stat();
      const identity = identityOf(stat);
      const stamp = stampOf(stat);
      if (stamp === this.stamp && stat.size === this.offset) {
        return { changed: false, reloaded: false, appended: [] };
      }
      if (identity === this.identity && stat.size >= this.offset && this.offset > 0 && (await this.prefixUnchanged(handle))) {
        const appended = await this.readFrom(handle, this.offset, stat.size);
        this.stamp = stamp;
        return { changed: appended.length > 0 || stat.size !== this.offset, reloaded: false, appended };
      }
      this.reset();
      this.identity = identity;
      this.startStamp = stamp;
      const appended = await this.readFrom(handle, 0, stat.size);
      this.stamp = stamp;
      return { changed: true, reloaded: true, appended };
    } finally {
      await handle.close();
    }
  }

  private reset(): void {
    this.skipped = [];
    this.records = [];
    this.offset = 0;
    this.identity = '';
    this.stamp = '';
    this.starts++;
    this.startStamp = MISSING;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
    this.lineNumber = 0;
  }

  private async prefixUnchanged(handle: fs.FileHandle): Promise<boolean> {
    const head = Buffer.alloc(this.head.length);
    await handle.read(head, 0, head.length, 0);
    if (!head.equals(this.head)) return false;
    const tail = Buffer.alloc(this.tail.length);
    await handle.read(tail, 0, tail.length, this.offset - tail.length);
    return tail.equals(this.tail);
  }

  /** Reads [start, end), parses complete lines, and advances the offset past the last `\n`. */
  private async readFrom(handle: fs.FileHandle, start: number, end: number): Promise<T[]> {
    if (end <= start) return [];
    const buffer = Buffer.alloc(end - start);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const lastNewline = buffer.lastIndexOf(0x0a, filled - 1);
    if (lastNewline < 0) return [];
    const complete = buffer.subarray(0, lastNewline + 1);
    const appended = this.take(complete, start);
    await this.sample(handle, start, complete);
    return appended;
  }

  /** Parses `complete` (whole lines, read from `start`) into the records, and advances the offset past them. */
  private take(complete: Buffer, start: number): T[] {
    const appended: T[] = [];
    // A byte-order mark at the start of the file would hide the first record.
    const text = complete.toString('utf8');
    const parts = (start === 0 ? withoutBom(text) : text).split('\n');
    parts.pop(); // the empty string after the final `\n`
    for (const raw of parts) {
      this.lineNumber++;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') continue;
      const parsed = parseObject<Parsed>(line);
      if (parsed === undefined) {
        this.warn(`${this.file}: line ${this.lineNumber} is not a JSON object and was skipped (it is kept in the file)`);
        this.skipped.push({ line: this.lineNumber, raw: line });
        continue;
      }
      const value = this.keep(parsed);
      if (value === undefined) continue;
      this.records.push(value);
      appended.push(value);
    }
    this.offset = start + complete.length;
    return appended;
  }

  private async sample(handle: fs.FileHandle, start: number, complete: Buffer): Promise<void> {
    const headLength = Math.min(HEAD_SAMPLE, this.offset);
    if (this.head.length < headLength) {
      if (start === 0) this.head = Buffer.from(complete.subarray(0, headLength));
      else {
        this.head = Buffer.alloc(headLength);
        await handle.read(this.head, 0, headLength, 0);
      }
    }
    const tailLength = Math.min(TAIL_SAMPLE, this.offset);
    if (complete.length >= tailLength) this.tail = Buffer.from(complete.subarray(complete.length - tailLength));
    else {
      this.tail = Buffer.alloc(tailLength);
      await handle.read(this.tail, 0, tailLength, this.offset - tailLength);
    }
  }
}

/** One JSONL line as a JSON object, or undefined (a trailing `\r` is JSON whitespace, so CRLF lines parse too). */
export function parseObject<T>(line: string): T | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Serialises lines back for a whole-file rewrite: every line, each followed by `\n`. */
export function joinLines(lines: readonly { raw: string }[]): string {
  return lines.map(line => line.raw + '\n').join('');
}
