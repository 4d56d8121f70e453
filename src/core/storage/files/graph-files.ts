/**
 * The knowledge graph's two files, `graph/entities.json` and `graph/relations.json` (docs/format.md §Knowledge graph),
 * each an array list re-read when its source changes (storage/storage.ts), with the lock each is rewritten
 * under (operations/graph-ops.ts).
 */
import type { Storage } from '../storage';
import { JsonArrayFile } from './loaded-files';
import type { GraphEntity, GraphRelation } from '../../records';

export interface GraphFiles {
  entities: JsonArrayFile<GraphEntity>;
  relations: JsonArrayFile<GraphRelation>;
  /** [file, content when missing], as FolderStore.lock takes them. */
  entitiesLock: readonly [string, string];
  relationsLock: readonly [string, string];
}

/** The graph files of a store: read through `storage` (a file, or a 2.x folder's rows), locked as `lockOf` says. */
export function graphFiles(storage: Storage, lockOf: (kind: 'entities' | 'relations') => readonly [string, string]): GraphFiles {
  return {
    entities: new JsonArrayFile<GraphEntity>(storage.array('entities')),
    relations: new JsonArrayFile<GraphRelation>(storage.array('relations')),
    get entitiesLock(): readonly [string, string] {
      return lockOf('entities');
    },
    get relationsLock(): readonly [string, string] {
      return lockOf('relations');
    },
  };
}

/** One queued change to the graph: `work` changes both arrays in place and never throws; `failed` hears that its batch was not written. */
export interface GraphStep {
  work: (entities: GraphEntity[], relations: GraphRelation[]) => void;
  failed: (error: Error) => void;
}

/**
 * The graph as this process will write it (operations/graph-ops.ts readGraph): both arrays with the
 * queued steps applied, `base` the files' text they were made from (or last written as), and how
 * many of the queued steps they have had.
 */
export interface GraphView {
  entities: GraphEntity[];
  relations: GraphRelation[];
  base: { entities: string; relations: string };
  applied: number;
}

/** Changes queued by `changeGraphSoon`, not yet written (the store holds them: FolderStore.graphQueue). */
export interface GraphQueue {
  /** Not yet written, oldest first. */
  steps: GraphStep[];
  timer?: NodeJS.Timeout;
  /** The last batch's write. */
  writing: Promise<void>;
  /** While steps are queued or being written: what readers are given. */
  view?: GraphView;
  /** Writes begun and ended: a read of the files that a write overlapped is done again. */
  writes: number;
  written: number;
}
