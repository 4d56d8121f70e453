/**
 * The ranking behind `search`, behind one small interface so that another ranker can take its
 * place: documents are added and removed by a numeric key, and a query gives keys with scores.
 *
 * The one implementation is keyword search (keyword-index.ts). Semantic (embedding) search would be a second implementation of
 * `TextIndex` with `semantic: true` (twining-mcp reports `fallback_mode: false` then); it needs an
 * embedding model, which cannot be downloaded where this was written, so none is offered.
 */
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
  /**
   * The best matches among the documents `accept` lets through, best first: at least the best
   * `limit` and every one scoring the same as the last of those (the caller breaks ties), and
   * how many matched in all. Scores equal up to float rounding must come out equal.
   */
  search(query: string, accept: (key: number) => boolean, limit: number): { matches: { key: number; score: number }[]; total: number };
}
