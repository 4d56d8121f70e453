/**
 * The knowledge graph's two files, `graph/entities.json` and `graph/relations.json` (docs/format.md §Knowledge graph),
 * each an array list re-read when its source changes (store/storage.ts), with the lock each is rewritten
 * under (operations/graph-ops.ts).
 */
import * as path from 'path';
import type { Layout } from './layout';
import type { Storage } from './storage';
import { JsonArrayFile } from './loaded-files';
import type { GraphEntity, GraphRelation } from '../records';

export interface GraphFiles {
  entities: JsonArrayFile<GraphEntity>;
  relations: JsonArrayFile<GraphRelation>;
  /** [file, content when missing], as FolderStore.lock takes them. */
  entitiesLock: readonly [string, string];
  relationsLock: readonly [string, string];
}

/**
 * The graph files of a store: read through `storage` (a file, or a 2.x folder's rows); the locks
 * are asked for by a write only (a 2.x folder's write copy, `layout.data`, is made then).
 */
export function graphFiles(layout: Layout, storage: Storage): GraphFiles {
  return {
    entities: new JsonArrayFile<GraphEntity>(storage.array('entities')),
    relations: new JsonArrayFile<GraphRelation>(storage.array('relations')),
    get entitiesLock(): readonly [string, string] {
      return [path.join(layout.graphDir, 'entities.json'), '[]'];
    },
    get relationsLock(): readonly [string, string] {
      return [path.join(layout.graphDir, 'relations.json'), '[]'];
    },
  };
}

/** Changes queued by `changeGraphSoon`, not yet written (the store holds them: FolderStore.graphQueue). */
export interface GraphQueue {
  steps: { work: (entities: GraphEntity[], relations: GraphRelation[]) => void; failed: (error: Error) => void }[];
  timer?: NodeJS.Timeout;
  /** The last batch's write. */
  writing: Promise<void>;
}
