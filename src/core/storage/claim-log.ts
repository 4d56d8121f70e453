/**
 * The claims log, `.twining/claims/claims.jsonl`: one line per claim, renewal or release, each
 * the whole claim record as it is after that change; the last line of an id is the claim. Why a
 * log and not one JSON array (the first version) or one file per claim (storage/claims-file.ts says
 * why claims need one lock anyway): a claim is then one small append under the lock instead of
 * a rewrite of every claim, so claim and release cost the same at 10 claims and at 1,000 (see
 * bench/README.md, "Figures behind choices in the code"); readers keep up by
 * reading only the bytes appended since their last read (storage/files/jsonl.ts).
 *
 * The log is compacted under the same lock once its lines outnumber its claims by far: rewritten
 * atomically (a new file renamed over it, so a reader has the old log or the new one) with the
 * last line of each claim, ended claims older than a week dropped (rules/claims.ts `prune`), lines
 * that did not parse kept verbatim (as the blackboard keeps its). A writer killed mid-append
 * leaves a line without its `\n`; the next append starts on a new line, so the torn line stays one
 * unreadable line that every reader skips.
 */
import { Stats, promises as fs } from 'fs';
import { readBytes, readTextSync } from './read-file';
import { ioError, toJsonlLine, withoutBom, writeAtomic } from './json-files';
import { prune } from '../rules/claims';
import { type VersionStamp, identityOf, stampOf } from './version-stamp';

/** Compaction when the log has this many more lines than claims, and twice as many. */
const SLACK_LINES = 256;

/** The key of a line: a claim's id, or (not a claim: another writer's or a hand edit) its text. */
function keyOf(item: object): string {
  const id = (item as { id?: unknown }).id;
  return typeof id === 'string' ? id : `\0${JSON.stringify(item)}`;
}

/** The last item of each key, in the order keys first appeared. */
export function foldLog(items: readonly object[]): object[] {
  const byKey = new Map<string, object>();
  for (const item of items) byKey.set(keyOf(item), item);
  return [...byKey.values()];
}

/**
 * The claims in a log's text, for a reader without the engine (the hook's check from a new
 * process): parsed line by line, unreadable lines skipped, folded to the last line per claim.
 */
export function claimsInLogText(text: string): object[] {
  const items: object[] = [];
  for (const line of withoutBom(text).split('\n')) {
    if (line.length < 2) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) items.push(value);
    } catch {
      // A torn or hand-broken line: not a claim.
    }
  }
  return foldLog(items);
}

/** The claims of the log at `file`, read synchronously; none when it is missing or unreadable. */
export function readClaimLogSync(file: string): object[] {
  try {
    return claimsInLogText(readTextSync(file, 'log') ?? '');
  } catch {
    return [];
  }
}

/** What a reader knows of the file it read: its identity and size (to tell an append), and its version stamp (the same: unchanged). */
interface Seen {
  identity: string;
  size: number;
  stamp: VersionStamp;
}

const seenOf = (st: Stats): Seen => ({ identity: identityOf(st), size: st.size, stamp: stampOf(st) });

/** How many bytes before the end of what was read are compared again before reading on from there. */
const TAIL_CHECK = 256;

/**
 * One folder's claims log as this process last read or wrote it. Reads cost one stat when nothing
 * changed, and one read of the new bytes (with the bytes just before them, to tell an append from
 * a rewrite) when something was appended; a replaced, shorter or rewritten file is read whole.
 */
export class ClaimLog {
  private folded: object[] = [];
  private keys = new Map<string, number>();
  /** Lines that did not parse, verbatim (a compaction keeps them). */
  private unreadable: string[] = [];
  /** Lines read since the file was last read whole (a compaction is due when they far outnumber the claims). */
  private lines = 0;
  /** Bytes consumed: up to the last complete line. */
  private offset = 0;
  private seen: Seen | undefined;
  /** The bytes just before `offset`. */
  private tail = Buffer.alloc(0);
  private queue: Promise<unknown> = Promise.resolve();
  /** Increases whenever the claims changed in this process's view (read or written). */
  version = 0;

  constructor(
    readonly file: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** The claims (and other items) as last read: the last line of each. The array is the log's own. */
  get items(): readonly unknown[] {
    return this.folded;
  }

  /** Whether the last look found the file. */
  get found(): boolean {
    return this.seen !== undefined;
  }

  /** Whether the file is as last read (one stat). */
  async isCurrent(): Promise<boolean> {
    const st = await fs.stat(this.file).catch(() => undefined);
    return st ? sameAs(this.seen, seenOf(st)) : this.seen === undefined;
  }

  /** Reads what was appended since the last read (all of it when the file was replaced); true when something changed. Calls run one at a time. */
  refresh(): Promise<boolean> {
    const run = this.queue.then(() => this.read());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<boolean> {
    const st = await fs.stat(this.file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw ioError(error, this.file, 'the claims could not be read');
    });
    if (!st) {
      const had = this.seen !== undefined;
      this.reset();
      if (had) this.version++;
      return had;
    }
    if (!st.isFile()) throw ioError(Object.assign(new Error('not a regular file'), { code: 'EISDIR' }), this.file, 'the claims could not be read');
    const now = seenOf(st);
    if (sameAs(this.seen, now)) return false;
    if (this.seen && now.identity === this.seen.identity && now.size >= this.offset && this.offset > 0) {
      const from = this.offset - this.tail.length;
      const bytes = await readRange(this.file, from, now.size);
      if (bytes.subarray(0, this.tail.length).equals(this.tail)) {
        this.take(bytes, from, this.tail.length, now);
        return true;
      }
    }
    const whole = await readRange(this.file, 0, now.size);
    this.reset();
    this.take(whole, 0, whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf ? 3 : 0, now);
    return true;
  }

  /** Takes the complete lines of `bytes` (read from file position `from`) after its first `skip` bytes. */
  private take(bytes: Buffer, from: number, skip: number, now: Seen): void {
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end > skip) {
      for (const line of bytes.toString('utf8', skip, end).split('\n')) this.line(line);
      this.offset = from + end;
      this.tail = Buffer.from(bytes.subarray(Math.max(0, end - TAIL_CHECK), end));
    }
    this.seen = now;
    this.version++;
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    this.lines++;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return this.put(value);
    } catch {
      // below
    }
    this.warn(`${this.file}: a line is not a JSON object and was skipped (it is kept in the file): ${line.slice(0, 80)}`);
    this.unreadable.push(line);
  }

  private reset(): void {
    this.folded = [];
    this.keys = new Map();
    this.unreadable = [];
    this.lines = 0;
    this.offset = 0;
    this.seen = undefined;
    this.tail = Buffer.alloc(0);
  }

  private put(item: object): void {
    const key = keyOf(item);
    const at = this.keys.get(key);
    if (at === undefined) {
      this.keys.set(key, this.folded.length);
      this.folded.push(item);
    } else this.folded[at] = item;
  }

  /**
   * Appends `changed` (whole records) to the log. Only under the claims lock, right after
   * `refresh`: a torn last line left by a killed writer is ended first, and the log is compacted
   * when it has far more lines than claims.
   */
  async append(changed: readonly object[], now: Date): Promise<void> {
    if (changed.length === 0) return;
    const torn = (this.seen?.size ?? 0) > this.offset;
    const text = (torn ? '\n' : '') + changed.map(toJsonlLine).join('');
    const handle = await fs.open(this.file, 'a').catch(error => {
      throw ioError(error, this.file, 'nothing was appended');
    });
    try {
      await handle.write(text, null, 'utf8');
      const st = await handle.stat();
      // Under the lock nobody else appends: the file is what was read plus these lines (after a
      // torn line, which is read with the rest on the next refresh, so a compaction keeps it).
      const bytes = Buffer.from(text, 'utf8');
      if (torn) this.seen = undefined;
      else this.take(bytes, st.size - bytes.length, 0, seenOf(st));
    } catch (error) {
      throw ioError(error, this.file, 'the append may be incomplete; the next claim or release ends it on a new line');
    } finally {
      await handle.close().catch(() => undefined);
    }
    if (torn) await this.refresh();
    if (this.lines > 2 * this.folded.length + SLACK_LINES) await this.compact(now);
  }

  /** Rewrites the log with the last line of each claim still worth keeping (under the claims lock). */
  async compact(now: Date): Promise<void> {
    const kept = prune(this.folded, now) as object[];
    const text = kept.map(toJsonlLine).join('') + this.unreadable.map(line => `${line}\n`).join('');
    await writeAtomic(this.file, text);
    await this.refresh();
  }
}

function sameAs(a: Seen | undefined, b: Seen): boolean {
  return a !== undefined && a.stamp === b.stamp;
}

/** The bytes of `file` in [start, end) (fewer if it is shorter now). */
async function readRange(file: string, start: number, end: number): Promise<Buffer> {
  return (await readBytes(file, 'log', start, end)) ?? Buffer.alloc(0);
}
