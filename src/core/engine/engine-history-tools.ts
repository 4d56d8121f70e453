/**
 * The engine's methods for twining-mcp 1.9's tools beyond coordination: a decision's dependencies,
 * commits, catching up, archive, export and the knowledge graph. TwiningEngine (engine.ts) extends
 * this class, so they are engine methods like the others; each is a thin call into ops/.
 */
import type { FolderStore } from './folder-store';
import type { InputOf } from '../schemas/schemas';
import * as graphOps from '../operations/graph-ops';
import * as graph from '../operations/graph-populate-ops';
import * as traceOps from '../operations/trace-ops';
import * as changeOps from '../operations/change-ops';
import { archive } from '../operations/archive-ops';
import { exportMarkdown } from '../operations/export-ops';

export abstract class HistoryAndGraphTools {
  /** The folder's store, which every operation works on. */
  protected abstract readonly ctx: FolderStore;

  trace(input: InputOf<'trace'>) {
    return traceOps.trace(this.ctx, input);
  }
  link_commit(input: InputOf<'link_commit'>) {
    return traceOps.linkCommit(this.ctx, input);
  }
  commits(input: InputOf<'commits'>) {
    return traceOps.commits(this.ctx, input);
  }
  what_changed(input: InputOf<'what_changed'>) {
    return changeOps.whatChanged(this.ctx, input);
  }
  summarize(input: InputOf<'summarize'> = {}) {
    return changeOps.summarize(this.ctx, input);
  }
  recent(input: InputOf<'recent'> = {}) {
    return changeOps.recent(this.ctx, input);
  }
  archive(input: InputOf<'archive'> = {}) {
    return graph.withGraph(this.ctx, () => archive(this.ctx, input));
  }
  export(input: InputOf<'export'> = {}) {
    return exportMarkdown(this.ctx, input);
  }
  add_entity(input: InputOf<'add_entity'>) {
    return graphOps.addEntity(this.ctx, input);
  }
  add_relation(input: InputOf<'add_relation'>) {
    return graphOps.addRelation(this.ctx, input);
  }
  neighbors(input: InputOf<'neighbors'>) {
    return graphOps.neighbors(this.ctx, input);
  }
  graph_query(input: InputOf<'graph_query'>) {
    return graphOps.graphQuery(this.ctx, input);
  }
  prune_graph(input: InputOf<'prune_graph'> = {}) {
    return graphOps.pruneGraph(this.ctx, input);
  }
}
