/**
 * What a caller chooses when it opens an engine (engine.ts openWorkspace): the clock, where
 * warnings go, read-only, the write gate, the search seams, and how a long-lived engine (the
 * extension's, `twining mcp`'s) keeps work warm, batches the graph's upkeep and releases locks.
 * The store (folder-store.ts) is made with them.
 */
import type { TextIndex } from '../search/text-index';

export interface WorkspaceOptions {
  /** The clock; every timestamp, liveness and expiry is computed from it. */
  now?: () => Date;
  /** Where warnings go (skipped corrupt lines, broken locks). Default: stderr. */
  warn?: (message: string) => void;
  /** Never write, not even repairs (an untrusted workspace). Writing operations then fail. */
  readOnly?: boolean;
  /**
   * Asked before every write (repairs included): a reason to hold writes back, such as git being in
   * the middle of a checkout or merge (see core/git/git-busy.ts). Writes wait up to `writeGateMs`
   * (default 5 s) for it to clear, then fail with the reason, having written nothing.
   */
  writeGate?: () => string | undefined;
  writeGateMs?: number;
  /**
   * The ranker behind `search` (default: keyword search, search/text-index.ts). The seam for a
   * semantic (embedding) index, which none is offered for here.
   */
  textIndex?: () => TextIndex;
  /**
   * The worker thread that reads decision records for the search index (search/record-reader.ts):
   * `script` defaults to record-worker.js beside the running bundle, and fewer than `minRecords`
   * (default 1,000) new decisions are read on this thread; false: never a worker.
   */
  searchWorker?: { script?: string; minRecords?: number } | false;
  /**
   * A long-lived engine (the extension's, the MCP server's): after a briefing, the decision records
   * are read in the background so the next briefing of any scope reads none
   * (operations/decision-record-cache.ts). Off for one-shot processes, which then exit at once.
   */
  keepRecordsWarm?: boolean;
  /**
   * A server answering one call after another (`twining mcp`): the knowledge graph's upkeep after
   * the operations (operations/graph-populate-ops.ts) is written a moment after the operation
   * answers, the steps of several operations in one write of the graph files
   * (operations/graph-ops.ts changeGraphSoon); a read of the graph meanwhile is given them applied
   * in memory, and a change to it writes them first.
   */
  batchGraph?: boolean;
  /**
   * A server answering one call after another (`twining mcp`): a write answers as soon as its work
   * is done, and its locks are released just after (storage/lock.ts LaterRelease); `settled()` waits
   * for them.
   */
  releaseAfterAnswer?: boolean;
  /** The branch of the linked worktree the writer works in (core/git/record-location.ts): a handoff notes it in `provenance`. */
  branch?: string;
}
