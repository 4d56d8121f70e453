/**
 * The blackboard's three-way merge when each side is already in (time, id) order, as every
 * blackboard written by twining-mcp or by this project is (entries are appended with the time of
 * their writing; a merge writes them sorted): the three sides' bytes are walked together like the
 * merge step of a merge sort, one line of each at a time. The merge holds the three files' bytes
 * and the merged file as runs of them: no string per line, no map of every entry, no parsed
 * record of a line all three sides share, no sort. Per key it decides exactly as
 * record-collection.ts's `mergeEntries` does (the same rules, and its `settle` for a key whose
 * text differs between sides), so it gives the same result, which
 * test/unit/core/merge/sorted-merge.test.ts checks over random histories.
 *
 * It answers `undefined`, and the general merge runs instead, for anything outside that shape: a
 * side out of order or holding a key twice, a line that is not a record ending in
 * `,"id":"<26>","timestamp":"<24>"}` (merge-text.ts quickIdTime), a line ending in `\r`.
 */
import { isAscii } from 'buffer';
import { isObject, type JsonObject } from './json-values';
import { settle, type CollectionStats, type Entry, type Family } from './record-collection';

const NL = 0x0a;
const ID_AT = Buffer.from(',"id":"', 'latin1');
const TIME_AT = Buffer.from('","timestamp":"', 'latin1');
const END = Buffer.from('"}', 'latin1');
const TAIL = 74;

/** Whether `bytes` holds `pattern` at `at` (a few bytes: a loop in JavaScript beats a call into the runtime). */
function holds(bytes: Buffer, at: number, pattern: Buffer): boolean {
  for (let i = 0; i < pattern.length; i++) if (bytes[at + i] !== pattern[i]) return false;
  return true;
}

/** Compares the (time, id) of two lines by their tails' bytes (ASCII: byte order is string order). */
function compareKeys(a: Buffer, ta: number, b: Buffer, tb: number): number {
  for (let i = 48; i < 72; i++) if (a[ta + i] !== b[tb + i]) return a[ta + i] - b[tb + i];
  for (let i = 7; i < 33; i++) if (a[ta + i] !== b[tb + i]) return a[ta + i] - b[tb + i];
  return 0;
}

/** One side's bytes read a line at a time; `tail` is where the current line's `,"id":…}` starts. */
class Cursor {
  private pos = 0;
  start = 0;
  end = 0;
  tail = -1;
  done = false;
  private readonly ascii: boolean;

  constructor(readonly bytes: Buffer) {
    this.ascii = typeof isAscii !== 'function' || isAscii(bytes);
  }

  /** Moves to the next non-blank line; false when the side is out of shape (the general merge takes over). */
  next(): boolean {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const start = this.pos;
      let end = bytes.indexOf(NL, start);
      if (end < 0) end = bytes.length;
      this.pos = end + 1;
      if (end === start) continue;
      if (bytes[start] <= 32) {
        if (bytes.toString('utf8', start, end).trim() === '') continue;
        return false;
      }
      if (bytes[end - 1] === 0x0d || end - start < TAIL) return false;
      const t = end - TAIL;
      if (!holds(bytes, t, ID_AT) || !holds(bytes, t + 33, TIME_AT) || !holds(bytes, end - 2, END)) return false;
      if (!this.ascii && !isAscii(bytes.subarray(t, end))) return false;
      // Strictly after the previous line: in order, and no key twice.
      if (this.tail >= 0 && compareKeys(bytes, t, bytes, this.tail) <= 0) return false;
      this.start = start;
      this.end = end;
      this.tail = t;
      return true;
    }
    this.done = true;
    return true;
  }

  get time(): string {
    return this.bytes.toString('latin1', this.tail + 48, this.tail + 72);
  }

  get id(): string {
    return this.bytes.toString('latin1', this.tail + 7, this.tail + 33);
  }

  text(): string {
    return this.bytes.toString('utf8', this.start, this.end);
  }

  sameKey(other: Cursor): boolean {
    return compareKeys(this.bytes, this.tail, other.bytes, other.tail) === 0;
  }

  sameLine(other: Cursor): boolean {
    return this.end - this.start === other.end - other.start && this.bytes.compare(other.bytes, other.start, other.end, this.start, this.end) === 0;
  }
}

const before = (a: Cursor, b: Cursor) => compareKeys(a.bytes, a.tail, b.bytes, b.tail) < 0;

/** The line as a record whose id and timestamp are the ones read off its tail, or undefined. */
function parsed(line: string, family: Family, time: string, id: string): JsonObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isObject(value) && family.keyOf(value) === id && family.timeOf(value) === time ? value : undefined;
}

/** The merged file as parts: runs of a side's consecutive lines (with their newlines), and lines made anew. */
class Parts {
  readonly list: Uint8Array[] = [];
  private bytes: Buffer | undefined;
  private start = 0;
  private end = 0;
  count = 0;

  line(c: Cursor): void {
    this.count++;
    if (this.bytes === c.bytes && c.start === this.end + 1) this.end = c.end;
    else {
      this.flush();
      this.bytes = c.bytes;
      this.start = c.start;
      this.end = c.end;
    }
  }

  made(raw: string): void {
    this.count++;
    this.flush();
    this.list.push(Buffer.from(`${raw}\n`, 'utf8'));
  }

  flush(): void {
    if (!this.bytes) return;
    const { bytes, start, end } = this;
    this.list.push(end < bytes.length ? bytes.subarray(start, end + 1) : Buffer.concat([bytes.subarray(start, end), Buffer.from('\n')]));
    this.bytes = undefined;
  }
}

/**
 * The merged file as byte parts and the counts, or undefined when a side is not in the shape this
 * walk needs. `notes` receives the same notes as the general merge's (for keys changed on both sides).
 */
export function mergeSortedBytes(
  bytes: { base: Buffer; ours: Buffer; theirs: Buffer },
  family: Family,
  notes: string[],
): { parts: Uint8Array[]; stats: CollectionStats } | undefined {
  const sides = [new Cursor(bytes.base), new Cursor(bytes.ours), new Cursor(bytes.theirs)];
  for (const c of sides) if (!c.next()) return undefined;
  const stats: CollectionStats = { addedByOurs: 0, addedByTheirs: 0, removed: 0, combined: 0, result: 0 };
  const out = new Parts();
  const here: (Cursor | undefined)[] = [undefined, undefined, undefined];
  for (;;) {
    let least: Cursor | undefined;
    for (const c of sides) if (!c.done && (!least || before(c, least))) least = c;
    if (!least) break;
    // Which sides hold this key, and whether with the same bytes.
    let seen = 0;
    let same = true;
    let first: Cursor | undefined;
    for (let bit = 0; bit < 3; bit++) {
      const c = sides[bit];
      here[bit] = !c.done && (c === least || c.sameKey(least)) ? c : undefined;
      if (!here[bit]) continue;
      if (first && !c.sameLine(first)) same = false;
      first ??= c;
      seen |= 1 << bit;
    }
    if (seen === 7 && same) {
      // Kept by everyone (nearly every line): nothing to parse or decide.
      out.line(first!);
      for (const c of sides) if (!c.next()) return undefined;
      continue;
    }
    // A line not on every side is parsed (as the general merge parses it): it must be a record with that key.
    const { time, id } = least;
    const texts = here.map(c => (c ? c.text() : ''));
    const values = texts.map(t => (t ? parsed(t, family, time, id) : undefined));
    if (texts.some((t, bit) => t && !values[bit])) return undefined;
    if (same) {
      if (seen === 7 || !(seen & 1)) {
        out.line(first!);
        if (seen === 2) stats.addedByOurs++;
        if (seen === 4) stats.addedByTheirs++;
      } else stats.removed++;
    } else {
      // Different texts for one key: the general merge's own rules, on the distinct texts.
      const list: Entry[] = [];
      for (let bit = 0; bit < 3; bit++) {
        if (!here[bit]) continue;
        const known = list.find(e => e.raw === texts[bit]);
        if (known) known.seen |= 1 << bit;
        else list.push({ raw: texts[bit], seen: 1 << bit, value: values[bit], key: id, id, time });
      }
      const kept = settle(id, list, family, notes, stats);
      if (kept) {
        const from = here.find(c => c && texts[sides.indexOf(c)] === kept.raw);
        if (from) out.line(from);
        else out.made(kept.raw);
      }
    }
    for (const c of here) if (c && !c.next()) return undefined;
  }
  out.flush();
  stats.result = out.count;
  return { parts: out.list, stats };
}
