/**
 * Twining: Show Graph. A webview panel with the graph behind one decision (laid out by
 * webview/shared/decision-graph.ts, drawn by src/webview/pages/graph-view.ts): its supersession chain and any
 * override, the files and symbols it affects, the handoffs that carried it, and its neighbours in
 * `.twining/graph/` when the folder has one. It follows the folder's changes and comes back after
 * a reload (the serializer below).
 */
import * as path from 'path';
import { promises as fs } from 'fs';
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { documentUri, showDocument } from '../editor/record-documents';
import { decisionGraph, type GraphOpen, type KnowledgeGraph } from '../../webview/shared/decision-graph';
import { inBackground, log, messageOf } from '../log';
import { onFolderChange } from './folder-changes';
import { webviewHtml, webviewOptions } from './webview-html';

export const GRAPH_VIEW_TYPE = 'twining.graph';

type GraphMessage = { type: 'ready' } | { type: 'open'; open: GraphOpen };

export class GraphPanel implements vscode.Disposable {
  private static current: GraphPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  static show(ctx: TwiningSession, folder: TwiningFolder, decisionId: string): GraphPanel {
    if (GraphPanel.current) {
      GraphPanel.current.target = { folder, decisionId };
      GraphPanel.current.panel.reveal();
      inBackground('Show Graph', GraphPanel.current.send());
      return GraphPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(GRAPH_VIEW_TYPE, 'Decision Graph', vscode.ViewColumn.Beside, webviewOptions(ctx.extensionUri));
    return (GraphPanel.current = new GraphPanel(panel, ctx, { folder, decisionId }));
  }

  static revive(panel: vscode.WebviewPanel, ctx: TwiningSession, state: { folder?: string; decisionId?: string } | undefined): void {
    panel.webview.options = webviewOptions(ctx.extensionUri);
    const folder = ctx.folders.all().find(f => f.key === state?.folder);
    GraphPanel.current?.dispose();
    GraphPanel.current = new GraphPanel(panel, ctx, folder && state?.decisionId ? { folder, decisionId: state.decisionId } : undefined);
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly ctx: TwiningSession,
    private target: { folder: TwiningFolder; decisionId: string } | undefined,
  ) {
    panel.iconPath = vscode.Uri.joinPath(ctx.extensionUri, 'media', 'twining.svg');
    panel.webview.html = webviewHtml(panel.webview, ctx.extensionUri, {
      title: 'Decision Graph',
      script: 'graph',
      body: '<div id="app" aria-busy="true">Loading the graph…</div>',
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: GraphMessage) => (m.type === 'ready' ? void this.send() : void this.open(m.open))),
      onFolderChange(
        ctx.folders,
        () => this.target?.folder,
        kinds => {
          if (kinds.has('decisions') || kinds.has('handoffs') || kinds.has('presence')) inBackground('Show Graph', this.send());
        },
      ),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  private async send(): Promise<void> {
    const target = this.target;
    if (!target) {
      void this.panel.webview.postMessage({ type: 'empty', message: 'This graph’s decision is no longer available. Open a decision and run Show Graph.' });
      return;
    }
    try {
      const story = await target.folder.run(engine => engine.decisionStory(target.decisionId));
      if (!story) {
        void this.panel.webview.postMessage({ type: 'empty', message: `The decision ${target.decisionId} has no readable record.` });
        return;
      }
      const index = await target.folder.run(engine => engine.decisions({}));
      const summaries = new Map(index.decisions.filter(d => typeof d.id === 'string').map(d => [d.id, String(d.summary ?? d.id)] as const));
      const graph = decisionGraph(story, await readKnowledgeGraph(target.folder.dir), summaries);
      this.panel.title = `Graph: ${truncate(graph.title, 40)}`;
      void this.panel.webview.postMessage({ type: 'graph', graph, state: { folder: target.folder.key, decisionId: target.decisionId } });
    } catch (error) {
      log.warn(`Show Graph: ${messageOf(error)}`);
      void this.panel.webview.postMessage({ type: 'empty', message: `Could not read the decision: ${messageOf(error)}` });
    }
  }

  private async open(open: GraphOpen): Promise<void> {
    const folder = this.target?.folder;
    if (!folder) return;
    if (open.type === 'file') {
      const file = path.join(folder.root, open.path);
      if (!file.startsWith(folder.root)) return;
      await vscode.window
        .showTextDocument(vscode.Uri.file(file), { preview: true })
        .then(undefined, error => vscode.window.showErrorMessage(`Twining: ${messageOf(error)}`));
    } else if (open.type === 'decision' && open.id !== this.target?.decisionId) {
      this.target = { folder, decisionId: open.id };
      await this.send();
      await showDocument(documentUri(folder, 'decision', open.id));
    } else await showDocument(documentUri(folder, open.type, open.id));
  }

  dispose(): void {
    if (GraphPanel.current === this) GraphPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

/** `.twining/graph/`'s entities and relations, or undefined when the folder has none (or they do not parse). */
async function readKnowledgeGraph(dir: string): Promise<KnowledgeGraph | undefined> {
  const read = async (name: string) => JSON.parse(await fs.readFile(path.join(dir, 'graph', name), 'utf8')) as unknown;
  try {
    const [entities, relations] = await Promise.all([read('entities.json'), read('relations.json')]);
    if (!Array.isArray(entities) || !Array.isArray(relations)) return undefined;
    return {
      entities: (entities as Partial<Record<'id' | 'name' | 'type' | 'properties', unknown>>[]).filter(
        (e): e is { id: string; name: string; type: string; properties?: Record<string, unknown> } =>
          !!e &&
          typeof e.id === 'string' &&
          typeof e.name === 'string' &&
          (e.properties === undefined || (typeof e.properties === 'object' && e.properties !== null)),
      ),
      relations: (relations as Partial<Record<'source' | 'target' | 'type', unknown>>[]).filter(
        (r): r is { source: string; target: string; type: string } => !!r && typeof r.source === 'string' && typeof r.target === 'string',
      ),
    };
  } catch {
    return undefined;
  }
}

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
