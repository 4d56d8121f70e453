/**
 * Keyword search: BM25 (MiniSearch's variant and parameters) over a record's terms, the summary
 * weighted 3, domain and tags 2, scope 1.5, the rest 1; each query word also matches as a prefix
 * (from two letters) and, from five letters on, with one typo in five letters, as MiniSearch
 * weighs such matches; a record matching more of the query's words ranks higher.
 *
 * MiniSearch's radix tree (its SearchableMap) holds the vocabulary and finds the prefix and fuzzy
 * matches of a word; words are numbered by term-table.ts, which splits text without a string per
 * word. The postings are typed arrays by term number rather than MiniSearch's own index: MiniSearch
 * scores every matching document into an object of its own, so a word found in 80k of 110k records
 * cost it hundreds of milliseconds, where a pass over typed arrays costs a few. Removal is exact
 * at once (document frequencies and the average length change as if the record had never been
 * added), so an index kept incrementally ranks as one built afresh.
 */
import SearchableMap from 'minisearch/SearchableMap';
import type { SearchText, TextIndex } from './text-index';
import { TermTable, terms } from './term-table';
import { grow } from './typed-arrays';

/** Field weights: a summary says what a record is about, its domain and tags classify it. */
const BOOST: Record<keyof SearchText, number> = { summary: 3, domain: 2, tags: 2, scope: 1.5, context: 1, rationale: 1, alternatives: 1, detail: 1 };
/** MiniSearch's BM25+ parameters and its weights of prefix and fuzzy matches. */
const K1 = 1.2;
const B = 0.7;
const D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** Shared by every term that has no arrays of its own yet. */
const NO_KEYS = new Int32Array(0);
const NO_TFS = new Float32Array(0);

/**
 * One term's postings: keys and weighted frequencies, in parallel arrays; `df` counts the live
 * ones. Most terms (numbers, names, ids) are in one record: their one posting is held in two
 * fields, and arrays are made at the second. A pair of arrays for each of 100k such terms kept the
 * garbage collector busy during the index build.
 */
class Postings {
  keys: Int32Array = NO_KEYS;
  tfs: Float32Array = NO_TFS;
  n = 0;
  df = 0;
  private firstKey = 0;
  private firstTf = 0;
  push(key: number, tf: number): void {
    if (this.keys === NO_KEYS) {
      if (this.n === 0) {
        this.firstKey = key;
        this.firstTf = tf;
        this.n = 1;
        this.df++;
        return;
      }
      this.keys = new Int32Array(4);
      this.tfs = new Float32Array(4);
      this.keys[0] = this.firstKey;
      this.tfs[0] = this.firstTf;
    } else if (this.n === this.keys.length) {
      this.keys = grow(this.keys, this.n * 2);
      this.tfs = grow(this.tfs, this.n * 2);
    }
    this.keys[this.n] = key;
    this.tfs[this.n++] = tf;
    this.df++;
  }
  /** The keys and frequencies as arrays (a term with one posting lends `one`'s). */
  arrays(one: { keys: Int32Array; tfs: Float32Array }): { keys: Int32Array; tfs: Float32Array; n: number } {
    if (this.keys !== NO_KEYS) return this;
    one.keys[0] = this.firstKey;
    one.tfs[0] = this.firstTf;
    return { keys: one.keys, tfs: one.tfs, n: this.n };
  }
  /** Drops the postings of removed documents. */
  compact(alive: Uint8Array): void {
    if (this.keys === NO_KEYS) {
      if (this.n === 1 && !alive[this.firstKey]) this.n = 0;
      return;
    }
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      if (!alive[this.keys[r]]) continue;
      this.keys[w] = this.keys[r];
      this.tfs[w++] = this.tfs[r];
    }
    this.n = w;
  }
}

export class KeywordIndex implements TextIndex {
  readonly semantic = false;
  /** Every word seen, numbered; postings by term number; the terms with postings in MiniSearch's radix tree for prefix and fuzzy look-ups. */
  private readonly table = new TermTable();
  private postings: (Postings | undefined)[] = [];
  /** Lent to a term with a single posting while a query reads it. */
  private readonly one = { keys: new Int32Array(1), tfs: new Float32Array(1) };
  private readonly vocabulary = new SearchableMap<Postings>();
  /**
   * Terms given postings since the radix tree was last brought up to date; it takes them, sorted,
   * before a query looks in it. Set one by one as records were indexed, its nodes cost the index
   * build more than twice as much as all at once in order.
   */
  private pending: number[] = [];
  /** A record's weighted term frequencies while it is added or removed, by term number, and the terms it has. */
  private tf = new Float64Array(1024);
  private docTerms = new Int32Array(256);
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
  /** The keys a query touched, in the order first seen (a typed array: a JS array grown by push in this loop cost V8 twenty times the loop). */
  private touched = new Int32Array(1024);
  private queries = 0;
  private norm = new Float64Array(0);
  private normAvg = NaN;

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
    this.touched = new Int32Array(size);
  }

  /** How many distinct terms and how many terms in all the record last weighed has. */
  private distinct = 0;
  private length = 0;

  /**
   * Weighs a record's terms into `tf` and lists them in `docTerms`, counting them into `distinct`
   * and `length`. The fields are named one by one, in `BOOST`'s order: reading them by a name held
   * in a variable, from texts of several shapes, cost more than splitting them.
   */
  private weigh(text: SearchText): void {
    this.distinct = 0;
    this.length = 0;
    this.weighField(text.summary, BOOST.summary);
    this.weighField(text.domain, BOOST.domain);
    this.weighField(text.tags, BOOST.tags);
    this.weighField(text.scope, BOOST.scope);
    this.weighField(text.context, BOOST.context);
    this.weighField(text.rationale, BOOST.rationale);
    this.weighField(text.alternatives, BOOST.alternatives);
    this.weighField(text.detail, BOOST.detail);
  }

  private weighField(value: string | undefined, boost: number): void {
    if (!value) return;
    const count = this.table.scan(value);
    if (this.table.size > this.tf.length) this.tf = grow(this.tf, this.table.size * 2);
    const { tf, table } = this;
    const found = table.scanned;
    let distinct = this.distinct;
    for (let i = 0; i < count; i++) {
      const n = found[i];
      if (tf[n] === 0) {
        if (distinct === this.docTerms.length) this.docTerms = grow(this.docTerms, distinct * 2);
        this.docTerms[distinct++] = n;
      }
      tf[n] += boost;
    }
    this.distinct = distinct;
    this.length += count;
  }

  add(key: number, text: SearchText): void {
    this.ensure(key);
    if (this.alive[key]) throw new Error(`search index: document ${key} is already indexed`);
    this.weigh(text);
    const { distinct, length } = this;
    for (let i = 0; i < distinct; i++) {
      const n = this.docTerms[i];
      let postings = this.postings[n];
      if (!postings) {
        postings = new Postings();
        this.postings[n] = postings;
        this.pending.push(n);
      }
      postings.push(key, this.tf[n]);
      this.tf[n] = 0;
    }
    this.alive[key] = 1;
    this.lengths[key] = length;
    // The norms cached for the last average have none for this key (even when the average is the same).
    this.normAvg = NaN;
    this.count++;
    this.totalLength += length;
  }

  remove(key: number, text: SearchText): void {
    if (!this.alive[key]) return;
    this.alive[key] = 0;
    this.count--;
    this.totalLength -= this.lengths[key];
    this.weigh(text);
    const { distinct } = this;
    for (let i = 0; i < distinct; i++) {
      const n = this.docTerms[i];
      this.tf[n] = 0;
      const postings = this.postings[n];
      if (!postings) continue;
      postings.df--;
      if (postings.df === 0) {
        this.postings[n] = undefined;
        this.vocabulary.delete(this.table.names[n]);
      } else if (postings.df * 2 < postings.n) postings.compact(this.alive);
    }
  }

  /** The index terms a query word stands for, each with its weight (1 for the word itself). */
  private expand(word: string): Map<string, { postings: Postings; weight: number }> {
    this.flush();
    const found = new Map<string, { postings: Postings; weight: number }>();
    const number = this.table.find(word);
    const exact = number >= 0 ? this.postings[number] : undefined;
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

  /** Puts the pending terms that still have postings into the radix tree, in order. */
  private flush(): void {
    if (this.pending.length === 0) return;
    const { names } = this.table;
    const pending = this.pending;
    this.pending = [];
    pending.sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0));
    for (const n of pending) {
      const postings = this.postings[n];
      if (postings) this.vocabulary.set(names[n], postings);
    }
  }

  /** `K1 * (1 - B + B * length / avg)` by key, the part of BM25's denominator a document fixes; made again when the average changes. */
  private norms(avg: number): Float64Array {
    if (this.normAvg !== avg || this.norm.length !== this.lengths.length) {
      const { lengths } = this;
      const norm = this.norm.length === lengths.length ? this.norm : new Float64Array(lengths.length);
      for (let key = 0; key < lengths.length; key++) norm[key] = K1 * (1 - B + (B * lengths[key]) / avg);
      this.norm = norm;
      this.normAvg = avg;
    }
    return this.norm;
  }

  search(query: string, accept: (key: number) => boolean, limit: number): { matches: { key: number; score: number }[]; total: number } {
    const q = ++this.queries;
    // At most 64 distinct words count (a query is at most 1,000 characters).
    const words = [...new Set(terms(query))].slice(0, 64);
    let count = 0;
    const norm = this.norms(this.count ? this.totalLength / this.count : 1);
    const { alive, scores, verdict, queryStamp, lastWord, touched } = this;
    const wordCount = this.words;
    for (let w = 0; w < words.length; w++) {
      for (const { postings, weight } of this.expand(words[w]).values()) {
        const idf = Math.log(1 + (this.count - postings.df + 0.5) / (postings.df + 0.5));
        const factor = weight * idf;
        const { keys, tfs, n } = postings.arrays(this.one);
        for (let i = 0; i < n; i++) {
          const key = keys[i];
          if (queryStamp[key] !== q) {
            // First seen in this query: is it let through, and its counters start at zero.
            queryStamp[key] = q;
            const ok = alive[key] === 1 && accept(key);
            verdict[key] = ok ? 1 : 0;
            if (!ok) continue;
            scores[key] = 0;
            wordCount[key] = 0;
            lastWord[key] = -1;
            touched[count++] = key;
          } else if (verdict[key] === 0) continue;
          const tf = tfs[i];
          scores[key] += factor * (D + (tf * (K1 + 1)) / (tf + norm[key]));
          if (lastWord[key] !== w) {
            lastWord[key] = w;
            wordCount[key]++;
          }
        }
      }
    }
    // A record matching more of the query's words ranks higher (MiniSearch's "quality"); scores
    // are rounded where float sums in another order could differ in the last bits.
    for (let i = 0; i < count; i++) {
      const key = touched[i];
      scores[key] = Math.round(scores[key] * wordCount[key] * 1e8) / 1e8;
    }
    const cut = count > limit ? kthLargest(scores, touched, count, limit) : -Infinity;
    const matches: { key: number; score: number }[] = [];
    for (let i = 0; i < count; i++) if (scores[touched[i]] >= cut) matches.push({ key: touched[i], score: scores[touched[i]] });
    matches.sort((a, b) => b.score - a.score);
    return { matches, total: count };
  }
}

/** The k-th largest (1-based) of `values` at the first `count` of `keys`, with a min-heap of k. */
function kthLargest(values: Float64Array, keys: Int32Array, count: number, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let j = 0; j < count; j++) {
    const v = values[keys[j]];
    if (size < k) {
      let i = size++;
      heap[i] = v;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent] <= heap[i]) break;
        const swap = heap[parent];
        heap[parent] = heap[i];
        heap[i] = swap;
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
        const swap = heap[m];
        heap[m] = heap[i];
        heap[i] = swap;
        i = m;
      }
    }
  }
  return heap[0];
}
