/** The knowledge graph's tools: entities and relations added, neighbours, queries and pruning. */
import { operation } from './operation';
import * as graphOps from './graph-ops';

export const graphOperations = {
  add_entity: operation('add_entity', (store, input) => graphOps.addEntity(store, input)),
  add_relation: operation('add_relation', (store, input) => graphOps.addRelation(store, input)),
  neighbors: operation('neighbors', (store, input) => graphOps.neighbors(store, input)),
  graph_query: operation('graph_query', (store, input) => graphOps.graphQuery(store, input)),
  prune_graph: operation('prune_graph', (store, input) => graphOps.pruneGraph(store, input)),
};
