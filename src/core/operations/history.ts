/** twining-mcp 1.9's history tools: a decision's dependencies and commits, catching up, the archive and the export. */
import { operation } from './operation';
import * as traceOps from './trace-ops';
import * as changeOps from './change-ops';
import { archive } from './archive-ops';
import { exportMarkdown } from './export-ops';
import * as graph from './graph-populate-ops';

export const historyOperations = {
  trace: operation('trace', (store, input) => traceOps.trace(store, input)),
  link_commit: operation('link_commit', (store, input) => traceOps.linkCommit(store, input)),
  commits: operation('commits', (store, input) => traceOps.commits(store, input)),
  what_changed: operation('what_changed', (store, input) => changeOps.whatChanged(store, input)),
  summarize: operation('summarize', (store, input) => changeOps.summarize(store, input)),
  recent: operation('recent', (store, input) => changeOps.recent(store, input)),
  archive: operation('archive', (store, input) => graph.withGraph(store, () => archive(store, input))),
  export: operation('export', (store, input) => exportMarkdown(store, input)),
};
