/**
 * Open Timeline and Show Graph: the two webview panels (src/extension/webview/). Both take an
 * argument object too: `{ folder }` for the timeline, `{ id, folder }` (a decision id) for the graph.
 */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import { core } from '../model/engine-loader';
import { SCHEME } from '../editor/record-documents';
import { TimelinePanel } from '../webview/timeline-panel';
import { GraphPanel } from '../webview/graph-panel';
import { Invocation, folderFromArgs } from './command-runner';
import { decisionTarget } from './lifecycle-commands';

export async function openTimeline(inv: Invocation, ctx: TwiningSession): Promise<void> {
  const folder = inv.mode === 'args' ? await folderFromArgs(ctx, inv.args) : inv.mode === 'node' ? inv.node.folder : undefined;
  await TimelinePanel.show(ctx, folder);
}

/** The decision document a `twining:` URI shows, if it is one. */
function decisionOfDocument(ctx: TwiningSession, uri: vscode.Uri | undefined) {
  if (uri?.scheme !== SCHEME) return undefined;
  const query = new URLSearchParams(uri.query);
  const folder = ctx.folders.all().find(f => f.key === query.get('folder'));
  const id = query.get('id');
  return query.get('kind') === 'decision' && folder && id ? { folder, id } : undefined;
}

export async function showGraph(inv: Invocation, ctx: TwiningSession): Promise<void> {
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    const given = inv.args.id ?? inv.args.decision_id;
    const id = typeof given === 'string' ? given : '';
    core().checkUlid('id', id);
    GraphPanel.show(ctx, folder, id);
    return;
  }
  const fromDocument = decisionOfDocument(
    ctx,
    inv.mode === 'uri' ? inv.uri : inv.mode === 'interactive' ? vscode.window.activeTextEditor?.document.uri : undefined,
  );
  if (fromDocument) {
    GraphPanel.show(ctx, fromDocument.folder, fromDocument.id);
    return;
  }
  const target = await decisionTarget(inv, ctx, 'Show Graph', () => true);
  if (target) GraphPanel.show(ctx, target.folder, target.decision.id);
}
