/**
 * Keyword search: BM25 (MiniSearch's variant and parameters) over a record's terms, the summary
 * weighted 3, domain and tags 2, scope 1.5, the rest 1; each query word also matches as a prefix
 * (from two letters) and, from five letters on, with one typo in five letters, as MiniSearch
 * weighs such matches; a record matching more of the query's words ranks higher.
 *
 * MiniSearch's radix tree (its SearchableMap) holds the vocabulary and finds the prefix and fuzzy
 * matches of a word. The postings are typed arrays rather than MiniSearch's own index: MiniSearch
 * scores every matching document into an object of its own, so a word found in 80k of 110k records
 * cost it hundreds of milliseconds, where a pass over two arrays costs about one. Removal is exact
 * at once (document frequencies and the average length change as if the record had never been
 * added), so an index kept incrementally ranks as one built afresh.
 */
import MiniSearch from 'minisearch';
import SearchableMap from 'minisearch/SearchableMap';
import type { SearchText, TextIndex } from './text-index';

/** Field weights: a summary says what a record is about, its domain and tags classify it. */
const BOOST: Record<keyof SearchText, number> = { summary: 3, domain: 2, tags: 2, scope: 1.5, context: 1, rationale: 1, alternatives: 1, detail: 1 };
const FIELDS = Object.keys(BOOST) as (keyof SearchText)[];
/** MiniSearch's BM25+ parameters and its weights of prefix and fuzzy matches. */
const K1 = 1.2;
const B = 0.7;
const D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

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

/**
 * MiniSearch's split (`/[\n\r\p{Z}\p{P}]+/u`), in a loop over character codes while the text
 * is ASCII (twice as fast: indexing splits millions of words), by MiniSearch's own regex otherwise.
 */
function split(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return miniSearchSplit(text);
    if (!ASCII_SEPARATOR[c]) continue;
    if (i > start) out.push(text.slice(start, i));
    start = i + 1;
  }
  if (text.length > start) out.push(text.slice(start));
  return out;
}

/** The index terms of a text: split as MiniSearch splits, lower case, without empty tokens and stop words. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const t of split(text.toLowerCase())) if (t !== '' && !STOP_WORDS.has(t)) out.push(t);
  return out;
}

/** A record's weighted term frequencies (into `tf`, cleared first) and its length in terms. */
function weigh(text: SearchText, tf: Map<string, number>): number {
  tf.clear();
  let length = 0;
  for (const field of FIELDS) {
    const value = text[field];
    if (!value) continue;
    for (const t of terms(value)) {
      tf.set(t, (tf.get(t) ?? 0) + BOOST[field]);
      length++;
    }
  }
  return length;
}

/** One term's postings: keys and weighted frequencies, in parallel arrays; `df` counts the live ones. */
class Postings {
  keys: Int32Array = new Int32Array(4);
  tfs: Float32Array = new Float32Array(4);
  n = 0;
  df = 0;
  push(key: number, tf: number): void {
    if (this.n === this.keys.length) {
      this.keys = grow(this.keys, this.n * 2);
      this.tfs = grow(this.tfs, this.n * 2);
    }
    this.keys[this.n] = key;
    this.tfs[this.n++] = tf;
    this.df++;
  }
  /** Drops the postings of removed documents. */
  compact(alive: Uint8Array): void {
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      if (!alive[this.keys[r]]) continue;
      this.keys[w] = this.keys[r];
      this.tfs[w++] = this.tfs[r];
    }
    this.n = w;
  }
}

function grow<T extends Int32Array | Float32Array | Float64Array | Uint8Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(size, 16));
  bigger.set(array);
  return bigger;
}

export class KeywordIndex implements TextIndex {
  readonly semantic = false;
  /** Postings by term, and the same terms in MiniSearch's radix tree for prefix and fuzzy look-ups. */
  private readonly postings = new Map<string, Postings>();
  private readonly vocabulary = new SearchableMap<Postings>();
  private readonly tf = new Map<string, number>();
  private lengths: Float64Array = new Float64Array(1024);
  private alive: Uint8Array = new Uint8Array(1024);
  private count = 0;
  private totalLength = 0;
  // Per-query scratch space, by key: score, how many query words matched, and the query that last wrote them.
  private scores = new Float64Array(1024);
  private words = new Uint8Array(1024);
  private lastWord = new Int16Array(1024);
  private queryStamp = new Int32Array(1024);
  private verdict = new Uint8Array(1024);
  private queries = 0;

  private ensure(key: number): void {
    if (key < this.alive.length) return;
    const size = Math.max(key + 1, this.alive.length * 2);
    this.lengths = grow(this.lengths, size);
    this.alive = grow(this.alive, size);
    this.scores = new Float64Array(size);
    this.words = new Uint8Array(size);
    this.lastWord = new Int16Array(size);
    this.queryStamp = new Int32Array(size);
    this.verdict = new Uint8Array(size);
  }

  add(key: number, text: SearchText): void {
    this.ensure(key);
    if (this.alive[key]) throw new Error(`search index: document ${key} is already indexed`);
    const length = weigh(text, this.tf);
    for (const [term, weight] of this.tf) {
      let postings = this.postings.get(term);
      if (!postings) {
        postings = new Postings();
        this.postings.set(term, postings);
        this.vocabulary.set(term, postings);
      }
      postings.push(key, weight);
    }
    this.alive[key] = 1;
    this.lengths[key] = length;
    this.count++;
    this.totalLength += length;
  }

  remove(key: number, text: SearchText): void {
    if (!this.alive[key]) return;
    this.alive[key] = 0;
    this.count--;
    this.totalLength -= this.lengths[key];
    weigh(text, this.tf);
    for (const term of this.tf.keys()) {
      const postings = this.postings.get(term);
      if (!postings) continue;
      postings.df--;
      if (postings.df === 0) {
        this.postings.delete(term);
        this.vocabulary.delete(term);
      } else if (postings.df * 2 < postings.n) postings.compact(this.alive);
    }
  }

  /** The index terms a query word stands for, each with its weight (1 for the word itself). */
  private expand(word: string): Map<string, { postings: Postings; weight: number }> {
    const found = new Map<string, { postings: Postings; weight: number }>();
    const exact = this.postings.get(word);
    if (exact) found.set(word, { postings: exact, weight: 1 });
    if (word.length >= 2) {
      for (const [term, postings] of this.vocabulary.atPrefix(word)) {
        const distance = term.length - word.length;
        if (distance > 0) found.set(term, { postings, weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance) });
      }
    }
    if (word.length >= 5) {
      for (const [term, [postings, distance]] of this.vocabulary.fuzzyGet(word, Math.round(word.length * 0.2))) {
        if (distance > 0 && !found.has(term)) found.set(term, { postings, weight: (FUZZY_WEIGHT * word.length) / (word.length + distance) });
      }
    }
    return found;
  }

  search(query: string, accept: (key: number) => boolean, limit: number): { matches: { key: number; score: number }[]; total: number } {
    const q = ++this.queries;
    // At most 64 distinct words count (a query is at most 1,000 characters).
    const words = [...new Set(terms(query))].slice(0, 64);
    const touched: number[] = [];
    const avg = this.count ? this.totalLength / this.count : 1;
    const { alive, lengths, scores, verdict, queryStamp } = this;
    words.forEach((word, w) => {
      for (const { postings, weight } of this.expand(word).values()) {
        const idf = Math.log(1 + (this.count - postings.df + 0.5) / (postings.df + 0.5));
        const { keys, tfs, n } = postings;
        for (let i = 0; i < n; i++) {
          const key = keys[i];
          if (!alive[key]) continue;
          if (queryStamp[key] !== q) {
            // First seen in this query: is it let through, and its counters start at zero.
            queryStamp[key] = q;
            verdict[key] = accept(key) ? 1 : 0;
            scores[key] = 0;
            this.words[key] = 0;
            this.lastWord[key] = -1;
            if (verdict[key]) touched.push(key);
          }
          if (!verdict[key]) continue;
          const tf = tfs[i];
          scores[key] += weight * idf * (D + (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[key]) / avg)));
          if (this.lastWord[key] !== w) {
            this.lastWord[key] = w;
            this.words[key]++;
          }
        }
      }
    });
    // A record matching more of the query's words ranks higher (MiniSearch's "quality"); scores
    // are rounded where float sums in another order could differ in the last bits.
    const final = new Float64Array(touched.length);
    for (let i = 0; i < touched.length; i++) final[i] = Math.round(scores[touched[i]] * this.words[touched[i]] * 1e8) / 1e8;
    const cut = touched.length > limit ? kthLargest(final, limit) : -Infinity;
    const matches: { key: number; score: number }[] = [];
    for (let i = 0; i < touched.length; i++) if (final[i] >= cut) matches.push({ key: touched[i], score: final[i] });
    matches.sort((a, b) => b.score - a.score);
    return { matches, total: touched.length };
  }
}

/** The k-th largest value (1-based) of `values`, with a min-heap of k. */
function kthLargest(values: Float64Array, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (const v of values) {
    if (size < k) {
      let i = size++;
      heap[i] = v;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent] <= heap[i]) break;
        [heap[parent], heap[i]] = [heap[i], heap[parent]];
        i = parent;
      }
    } else if (v > heap[0]) {
      heap[0] = v;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < k && heap[l] < heap[m]) m = l;
        if (r < k && heap[r] < heap[m]) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
  }
  return heap[0];
}
