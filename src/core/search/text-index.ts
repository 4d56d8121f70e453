/**
 * The ranking behind `search`, behind one small interface so that another ranker can take its
 * place: documents are added and removed by a numeric key, and a query gives keys with scores.
 *
 * The one implementation is keyword search through MiniSearch (BM25 with per-field boosts,
 * prefix and fuzzy matching). Semantic (embedding) search would be a second implementation of
 * `TextIndex` with `semantic: true` (twining-mcp reports `fallback_mode: false` then); it needs an
 * embedding model, which cannot be downloaded where this was written, so none is offered.
 */
import MiniSearch from 'minisearch';

/** The text of one record, by field; a field a record does not have is left out. */
export interface SearchText {
  summary: string;
  context?: string;
  rationale?: string;
  alternatives?: string;
  domain?: string;
  scope?: string;
  detail?: string;
  tags?: string;
}

export interface TextIndex {
  /** True for a meaning-based ranker, false for keyword matching. */
  readonly semantic: boolean;
  add(key: number, text: SearchText): void;
  /** Removes a document; `text` is what it was added with. */
  remove(key: number, text: SearchText): void;
  /** Matching keys, best first, among those `accept` lets through. */
  search(query: string, accept: (key: number) => boolean): { key: number; score: number }[];
}

const FIELDS: (keyof SearchText)[] = ['summary', 'context', 'rationale', 'alternatives', 'domain', 'scope', 'detail', 'tags'];

/** Field weights: a summary says what a record is about, its domain and tags classify it. */
const BOOST: Partial<Record<keyof SearchText, number>> = { summary: 3, domain: 2, tags: 2, scope: 1.5 };

/** Words too common to tell records apart; dropped from the index and from queries. */
const STOP_WORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it its of on or should that the their this to was we what when where which who why will with'.split(
    ' ',
  ),
);

const defaultTokenize = MiniSearch.getDefault('tokenize') as (text: string, field?: string) => string[];

const processTerm = (term: string): string | null => {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) ? null : t;
};

/**
 * Every field, empty when the record has none: MiniSearch averages field lengths over the
 * documents that have the field as they are added, so a missing field would make scores depend on
 * the order records were indexed in (appended one by one or built at once).
 */
function documentOf(key: number, text: SearchText): SearchText & { key: number } {
  const doc: SearchText & { key: number } = { key, summary: '' };
  for (const field of FIELDS) doc[field] = text[field] ?? '';
  return doc;
}

/** Keyword search with MiniSearch: BM25, every term also as a prefix, terms of 5+ letters with one typo. */
export class KeywordIndex implements TextIndex {
  readonly semantic = false;
  private readonly index = new MiniSearch<SearchText & { key: number }>({
    idField: 'key',
    fields: FIELDS,
    storeFields: [],
    processTerm,
    // MiniSearch's own split, without the empty tokens it gives for empty text or leading punctuation.
    tokenize: (text, field) => defaultTokenize(text, field).filter(t => t !== ''),
  });

  add(key: number, text: SearchText): void {
    this.index.add(documentOf(key, text));
  }

  /**
   * Removed at once with its text, rather than discarded: a discarded document still counts in
   * its terms' document frequencies until MiniSearch vacuums, and the scores would differ from
   * those of an index built afresh.
   */
  remove(key: number, text: SearchText): void {
    if (this.index.has(key)) this.index.remove(documentOf(key, text));
  }

  search(query: string, accept: (key: number) => boolean): { key: number; score: number }[] {
    return this.index
      .search(query, {
        boost: BOOST,
        prefix: term => term.length >= 2,
        fuzzy: term => (term.length >= 5 ? 0.2 : false),
        filter: result => accept(result.id as number),
      })
      .map(r => ({ key: r.id as number, score: r.score }));
  }
}
