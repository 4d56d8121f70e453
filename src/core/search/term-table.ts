/**
 * The words of the search index, each kept once and numbered, and the splitting of a text into
 * those numbers as MiniSearch splits it (`/[\n\r\p{Z}\p{P}]+/u`, lower case).
 *
 * Indexing 100k records splits about five million words. Making a string of each word and
 * looking it up in a Map took most of the index build, so ASCII text (nearly all of it) is
 * scanned character by character: a word's hash is computed as it is read and looked up in an
 * open-addressing table of the known words, compared character by character; a string is made
 * only for a word never seen before. Text with other characters goes through MiniSearch's own
 * split, word by word into the same table.
 */
import MiniSearch from 'minisearch';
import { grow } from './typed-arrays';

/** Words too common to tell records apart; dropped from the index and from queries. */
const STOP_WORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it its of on or should that the their this to was we what when where which who why will with'.split(
    ' ',
  ),
);

const miniSearchSplit = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** What MiniSearch splits on (line breaks, Unicode separators and punctuation), among ASCII characters. */
const ASCII_SEPARATOR = new Uint8Array(128);
for (const c of '\n\r !"#%&\'()*,-./:;?@[\\]_{}') ASCII_SEPARATOR[c.charCodeAt(0)] = 1;

/** The index terms of a text: split as MiniSearch splits, lower case, without empty tokens and stop words. */
export function terms(text: string): string[] {
  return miniSearchSplit(text.toLowerCase()).filter(t => t !== '' && !STOP_WORDS.has(t));
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a over a term's UTF-16 code units (the scan computes the same as it reads). */
export function hashOf(term: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), FNV_PRIME);
  return h;
}

export class TermTable {
  /** Terms by number. */
  readonly names: string[] = [];
  private hashes = new Int32Array(1024);
  private stop = new Uint8Array(1024);
  /** Open addressing by hash: a term's number + 1, 0 for an empty slot. */
  private slots = new Int32Array(4096);
  /** The numbers found by the last `scan`. */
  scanned = new Int32Array(256);

  get size(): number {
    return this.names.length;
  }

  /** The number of `term` (lower case, one word), or -1 when it was never seen. */
  find(term: string): number {
    const h = hashOf(term);
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const n = this.slots[slot] - 1;
      if (n < 0) return -1;
      if (this.hashes[n] === h && this.names[n] === term) return n;
    }
  }

  /** The number of `term`, numbered now when new. */
  number(term: string): number {
    const n = this.find(term);
    return n >= 0 ? n : this.insert(term, hashOf(term));
  }

  /** Splits `text` into term numbers, into `scanned`; stop words are left out. Returns how many. */
  scan(text: string): number {
    let count = 0;
    let start = -1;
    let h = FNV_OFFSET;
    for (let i = 0; i <= text.length; i++) {
      let c = i < text.length ? text.charCodeAt(i) : 32;
      if (c >= 128) return this.scanSlowly(text);
      if (ASCII_SEPARATOR[c] === 1) {
        if (start >= 0) {
          const n = this.lookUp(text, start, i, h);
          if (this.stop[n] === 0) {
            if (count === this.scanned.length) this.scanned = grow(this.scanned, count * 2);
            this.scanned[count++] = n;
          }
          start = -1;
        }
        continue;
      }
      if (c >= 65 && c <= 90) c += 32;
      if (start < 0) {
        start = i;
        h = FNV_OFFSET;
      }
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    return count;
  }

  /** `scan` for text with characters beyond ASCII: MiniSearch's split, then each word's number. */
  private scanSlowly(text: string): number {
    const words = terms(text);
    if (words.length > this.scanned.length) this.scanned = grow(this.scanned, words.length);
    words.forEach((word, i) => (this.scanned[i] = this.number(word)));
    return words.length;
  }

  /** The number of the word `text[start, end)` read in lower case, whose hash is `h`. */
  private lookUp(text: string, start: number, end: number, h: number): number {
    const length = end - start;
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const n = this.slots[slot] - 1;
      if (n < 0) break;
      if (this.hashes[n] !== h) continue;
      const name = this.names[n];
      if (name.length !== length) continue;
      let same = true;
      for (let k = 0; k < length; k++) {
        let c = text.charCodeAt(start + k);
        if (c >= 65 && c <= 90) c += 32;
        if (name.charCodeAt(k) !== c) {
          same = false;
          break;
        }
      }
      if (same) return n;
    }
    return this.insert(text.slice(start, end).toLowerCase(), h);
  }

  private insert(term: string, h: number): number {
    const n = this.names.length;
    this.names.push(term);
    if (n === this.hashes.length) {
      this.hashes = grow(this.hashes, n * 2);
      this.stop = grow(this.stop, n * 2);
    }
    this.hashes[n] = h;
    this.stop[n] = STOP_WORDS.has(term) ? 1 : 0;
    if (this.names.length * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(n);
    return n;
  }

  private place(n: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[n] & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = n + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let n = 0; n < this.names.length; n++) this.place(n);
  }
}
