/**
 * Twining for VS Code: activate/deactivate only. Activation wires things up and reads nothing;
 * folders are looked at in the background, and data is read when a view or command asks.
 */
import { loadStartedAt } from './loadTime';
import * as vscode from 'vscode';
import type { TwiningApi, TwiningDataChange } from './api';
import { TestHooks, testHooksWanted } from './test-hooks';
import type { TwiningContext } from './twining-context';
import { createClock, SECTION, userAgentId } from './settings';
import { Folders } from './model/folders';
import { initLog, log } from './log';
import { RecordDocuments, SCHEME } from './editor/record-documents';
import { AgentsProvider } from './views/agents-view';
import { DelegationsProvider } from './views/delegations-view';
import { HandoffsProvider } from './views/handoffs-view';
import type { Node } from './views/nodes';
import { registerCommands } from './commands/all-commands';
import { currentSearch } from './commands/search-command';
import { checkGitMerging } from './commands/git-merging-commands';
import { HandoffStatusBar } from './editor/status-bar';
import { registerTools } from './tools/lm-tools';
import { createChatHandler, registerChatParticipant } from './chat/participant';
import { coreLoadMs } from './model/engine-loader';
import { ContextModel } from './model/context-model';
import { ContextProvider } from './views/context-view';
import { ContextStatusBar } from './editor/context-status';
import { FileAnnotations } from './editor/file-annotations';
import { Inbox } from './editor/inbox';
import { registerMcpProvider } from './tools/mcp-provider';
import { registerPanelSerializers } from './webview/panel-serializers';
import { TimelinePanel } from './webview/timeline-panel';

/** When this module finished loading (the bundle's own load time ends here). */
const moduleLoadedAt = performance.now();

export function activate(context: vscode.ExtensionContext): TwiningApi {
  const started = performance.now();
  const channel = initLog();
  context.subscriptions.push(channel);
  const clock = createClock();
  const folders = new Folders(clock, vscode.workspace.isTrusted);
  context.subscriptions.push(folders);
  // The one context every part gets.
  const fileContext = new ContextModel(folders);
  context.subscriptions.push(fileContext);
  const ctx: TwiningContext = { folders, clock, agentId: userAgentId, extensionUri: context.extensionUri, fileContext };

  const providers = {
    agents: new AgentsProvider(ctx),
    delegations: new DelegationsProvider(ctx),
    handoffs: new HandoffsProvider(ctx),
    context: new ContextProvider(ctx, fileContext),
  };
  const views: [string, AgentsProvider | DelegationsProvider | HandoffsProvider | ContextProvider][] = [
    ['twining.context', providers.context],
    ['twining.agents', providers.agents],
    ['twining.delegations', providers.delegations],
    ['twining.handoffs', providers.handoffs],
  ];
  for (const [id, provider] of views) {
    const view = vscode.window.createTreeView<Node>(id, { treeDataProvider: provider, showCollapseAll: id !== 'twining.agents' && id !== 'twining.context' });
    provider.attach(view);
    context.subscriptions.push(view, provider);
  }

  const documents = new RecordDocuments(folders);
  context.subscriptions.push(documents, vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents));
  context.subscriptions.push(...registerCommands(ctx));
  context.subscriptions.push(...registerPanelSerializers(ctx));
  const statusBar = new HandoffStatusBar(folders, userAgentId);
  context.subscriptions.push(statusBar);
  const contextStatus = new ContextStatusBar(fileContext);
  const annotations = new FileAnnotations(folders, fileContext);
  context.subscriptions.push(contextStatus, annotations);
  const inbox = new Inbox(folders, userAgentId);
  context.subscriptions.push(inbox);
  context.subscriptions.push(...registerTools(ctx));
  const chatHandler = createChatHandler(ctx);
  const participant = registerChatParticipant(ctx, chatHandler);
  if (participant) context.subscriptions.push(participant);
  // Twining's MCP server for VS Code's agents, when twining.tools.provider asks for it.
  const mcp = registerMcpProvider(folders, String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0'));
  if (mcp) context.subscriptions.push(...mcp.disposables);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(event => {
      if (!event.affectsConfiguration(`${SECTION}.agentId`)) return;
      log.info(`Your agent id is now ${userAgentId()}.`);
      folders.settingsChanged();
    }),
  );

  // Everything that reads the disk happens after activation returns.
  folders.start();
  // The status bar count reads the handoff index: not during activation, and not in the middle of
  // the window's own start-up.
  statusBar.schedule(500);
  // The inbox's first look learns what is already there (the status bar counts it); later arrivals notify.
  inbox.start(600);
  void folders.ready().then(() =>
    log.info(
      `Your agent id is ${userAgentId()}; Twining folders: ${
        folders
          .withTwiningDir()
          .map(f => f.name)
          .join(', ') || 'none'
      }.`,
    ),
  );
  // git merging of .twining/: one suggestion where it is tracked without the driver, and drivers
  // kept on this version's CLI. Off the activation path: it runs git and loads the engine.
  const gitCheck = setTimeout(() => {
    void folders
      .ready()
      .then(() => checkGitMerging(folders.withTwiningDir(), context.workspaceState, vscode.workspace.isTrusted))
      .catch(error => log.warn(`git merging check: ${(error as Error).message}`));
  }, 2000);
  context.subscriptions.push({ dispose: () => clearTimeout(gitCheck) });

  const activationMs = performance.now() - started;
  const bundleLoadMs = moduleLoadedAt - loadStartedAt;
  log.info(
    `Activated in ${activationMs.toFixed(1)} ms (loading the bundle took ${bundleLoadMs.toFixed(1)} ms before that); ` +
      `${vscode.workspace.isTrusted ? 'trusted' : 'untrusted (read-only)'}` +
      `${clock.pinnedFrom ? `; clock pinned to start at ${clock.pinnedFrom} (TWINING_NOW)` : ''}.`,
  );

  const engines = () => new Map(folders.withTwiningDir().map(f => [f.root, f.engine] as const));
  const changes = new vscode.EventEmitter<TwiningDataChange>();
  context.subscriptions.push(
    changes,
    folders.onDidChange(change => changes.fire({ folder: change.folder?.root, kinds: [...change.kinds] })),
  );
  const testing: TestHooks = {
    get folders() {
      return engines();
    },
    model: folders,
    providers,
    statusBar,
    contextStatus,
    annotations,
    fileContext,
    inbox,
    chatHandler,
    searchPick: currentSearch,
    mcpProvider: mcp?.provider,
    timelinePaints: () => TimelinePanel.open?.paints,
    refresh: async () => {
      await folders.refreshAll();
      statusBar.schedule(0);
      await statusBar.idle();
    },
    whenIdle: async () => {
      await folders.whenIdle();
      await providers.handoffs.driftIdle();
      await statusBar.idle();
      await contextStatus.idle();
      await annotations.idle();
      await folders.whenIdle();
      await inbox.idle();
    },
    work: () => {
      const all = folders.withTwiningDir().map(f => f.engine.work);
      const sum = (key: 'refreshes' | 'verifications') => all.reduce((n, w) => n + w[key], 0);
      return {
        refreshes: sum('refreshes'),
        verifications: sum('verifications'),
        reloads: { agents: providers.agents.loads, delegations: providers.delegations.loads, handoffs: providers.handoffs.loads },
      };
    },
    activationMs,
    bundleLoadMs,
    engineLoadMs: () => coreLoadMs,
    agentId: userAgentId,
    now: () => clock.now(),
  };
  return {
    engines,
    onDidChange: changes.event,
    agentId: userAgentId,
    ...(testHooksWanted(context.extensionMode, vscode.ExtensionMode.Production) ? { testing } : {}),
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
