/**
 * The serializers that bring the timeline and graph panels back after a window reload: VS Code
 * keeps each panel's `setState` and, on the next start, activates the extension for
 * `onWebviewPanel:<viewType>` (package.json) and hands the panel and that state to these.
 */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import { TIMELINE_VIEW_TYPE, TimelinePanel } from './timeline-panel';
import { GRAPH_VIEW_TYPE, GraphPanel } from './graph-panel';
import type { TimelineState } from '../../webview/shared/timeline-messages';

const asObject = <T>(state: unknown): T | undefined => (state && typeof state === 'object' ? (state as T) : undefined);

export function registerPanelSerializers(ctx: TwiningSession): vscode.Disposable[] {
  return [
    vscode.window.registerWebviewPanelSerializer(TIMELINE_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        await ctx.folders.ready();
        await TimelinePanel.revive(panel, ctx, asObject<TimelineState>(state));
      },
    }),
    vscode.window.registerWebviewPanelSerializer(GRAPH_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        await ctx.folders.ready();
        GraphPanel.revive(panel, ctx, asObject<{ folder?: string; decisionId?: string }>(state));
      },
    }),
  ];
}
