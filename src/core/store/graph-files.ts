/**
 * The knowledge graph's two files, `graph/entities.json` and `graph/relations.json` (docs/format.md §Knowledge graph),
 * each an array file re-parsed when its version stamp moves, with the lock each is rewritten
 * under (operations/graph-ops.ts).
 */
import * as path from 'path';
import type { Layout } from './layout';
import { JsonArrayFile } from './loaded-files';
import type { GraphEntity, GraphRelation } from '../records';

export interface GraphFiles {
  entities: JsonArrayFile<GraphEntity>;
  relations: JsonArrayFile<GraphRelation>;
  /** [file, content when missing], as FolderStore.lock takes them. */
  entitiesLock: readonly [string, string];
  relationsLock: readonly [string, string];
}

export function graphFiles(layout: Layout, before?: () => Promise<void>): GraphFiles {
  const entities = path.join(layout.graphDir, 'entities.json');
  const relations = path.join(layout.graphDir, 'relations.json');
  return {
    entities: new JsonArrayFile<GraphEntity>(entities, 'The graph entities file', before),
    relations: new JsonArrayFile<GraphRelation>(relations, 'The graph relations file', before),
    entitiesLock: [entities, '[]'],
    relationsLock: [relations, '[]'],
  };
}

/** Changes queued by `changeGraphSoon`, not yet written (the store holds them: FolderStore.graphQueue). */
export interface GraphQueue {
  steps: { work: (entities: GraphEntity[], relations: GraphRelation[]) => void; failed: (error: Error) => void }[];
  timer?: NodeJS.Timeout;
  /** The last batch's write. */
  writing: Promise<void>;
}
