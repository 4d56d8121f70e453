/**
 * Twining for VS Code: activate/deactivate only. Activation wires things up and reads nothing;
 * folders are looked at in the background, and data is read when a view or command asks.
 */
import { loadStartedAt } from './loadTime';
import * as vscode from 'vscode';
import type { Workspace } from '../core';
import type { TwiningApi } from './api';
import { createClock, SECTION, userAgentId } from './settings';
import { Folders, TwiningFolder } from './model/folders';
import { initLog, log } from './log';
import { RecordDocuments, SCHEME } from './views/record-documents';
import { AgentsProvider } from './views/agents-view';
import { DelegationsProvider } from './views/delegations-view';
import { HandoffsProvider } from './views/handoffs-view';
import type { Node, ViewContext } from './views/tree-base';
import { registerCommands } from './commands/all-commands';
import { HandoffStatusBar } from './views/status-bar';
import { registerTools } from './chat/lm-tools';
import { createChatHandler, registerChatParticipant } from './chat/participant';
import { coreLoadMs } from './model/engine-loader';

/** When this module finished loading (the bundle's own load time ends here). */
const moduleLoadedAt = performance.now();

export function activate(context: vscode.ExtensionContext): TwiningApi {
  const started = performance.now();
  const channel = initLog();
  context.subscriptions.push(channel);
  const clock = createClock();
  const folders = new Folders(clock, vscode.workspace.isTrusted);
  context.subscriptions.push(folders);
  const viewContext: ViewContext = { folders, agentId: userAgentId };

  const providers = {
    agents: new AgentsProvider(viewContext),
    delegations: new DelegationsProvider(viewContext),
    handoffs: new HandoffsProvider(viewContext),
  };
  const views: [string, AgentsProvider | DelegationsProvider | HandoffsProvider][] = [
    ['twining.agents', providers.agents],
    ['twining.delegations', providers.delegations],
    ['twining.handoffs', providers.handoffs],
  ];
  for (const [id, provider] of views) {
    const view = vscode.window.createTreeView<Node>(id, { treeDataProvider: provider, showCollapseAll: id !== 'twining.agents' });
    provider.attach(view);
    context.subscriptions.push(view, provider);
  }
  const refreshViews = () => views.forEach(([, provider]) => provider.refresh());

  const documents = new RecordDocuments(folders);
  context.subscriptions.push(documents, vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents));

  const afterWrite = (folder: TwiningFolder) => folders.refresh(folder);
  context.subscriptions.push(...registerCommands({ folders, documents, agentId: userAgentId, afterWrite, refreshViews }));

  const statusBar = new HandoffStatusBar(folders, userAgentId);
  context.subscriptions.push(statusBar);

  context.subscriptions.push(...registerTools({ folders, afterWrite }));
  const chatContext = { folders, agentId: userAgentId, afterWrite, extensionUri: context.extensionUri };
  const chatHandler = createChatHandler(chatContext);
  const participant = registerChatParticipant(chatContext, chatHandler);
  if (participant) context.subscriptions.push(participant);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(event => {
      if (!event.affectsConfiguration(`${SECTION}.agentId`)) return;
      log.info(`Your agent id is now ${userAgentId()}.`);
      providers.agents.refresh();
      providers.handoffs.refresh();
      statusBar.schedule();
    }),
  );

  // Everything that reads the disk happens after activation returns.
  folders.start();
  // The status bar count reads the handoff index: not during activation, and not in the middle of
  // the window's own start-up.
  statusBar.schedule(500);
  void folders.ready().then(() => log.info(`Your agent id is ${userAgentId()}; Twining folders: ${folders.present().map(f => f.name).join(', ') || 'none'}.`));

  const activationMs = performance.now() - started;
  const bundleLoadMs = moduleLoadedAt - loadStartedAt;
  log.info(
    `Activated in ${activationMs.toFixed(1)} ms (loading the bundle took ${bundleLoadMs.toFixed(1)} ms before that); ` +
      `${vscode.workspace.isTrusted ? 'trusted' : 'untrusted (read-only)'}` +
      `${clock.pinnedFrom ? `; clock pinned to start at ${clock.pinnedFrom} (TWINING_NOW)` : ''}.`,
  );

  return {
    get folders() {
      const map = new Map<string, Workspace>();
      for (const f of folders.present()) map.set(f.root, f.engine);
      return map;
    },
    model: folders,
    providers,
    statusBar,
    chatHandler,
    refresh: async () => {
      await folders.refreshAll();
      refreshViews();
      statusBar.schedule(0);
      await statusBar.idle();
    },
    whenIdle: async () => {
      await folders.whenIdle();
      await providers.handoffs.driftIdle();
      await statusBar.idle();
      await folders.whenIdle();
    },
    activationMs,
    bundleLoadMs,
    engineLoadMs: () => coreLoadMs,
    agentId: userAgentId,
    now: () => clock.now(),
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
