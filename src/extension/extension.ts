/**
 * Twining for VS Code: activate/deactivate only. Activation wires things up and reads nothing;
 * folders are looked at in the background, and data is read when a view or command asks.
 */
import { loadStartedAt } from './loadTime';
import * as vscode from 'vscode';
import type { TwiningApi, TwiningDataChange } from './api';
import { testHooks, testHooksWanted } from './test-hooks';
import type { TwiningSession } from './session';
import { createClock, SECTION, userAgentId } from './settings';
import { Folders } from './model/folders';
import { showRecordRoute } from './views/record-message';
import { inBackground, initLog, log } from './log';
import { RecordDocuments, SCHEME } from './editor/record-documents';
import { AgentsProvider } from './views/agents-view';
import { DelegationsProvider } from './views/delegations-view';
import { HandoffsProvider } from './views/handoffs-view';
import type { Node } from './views/nodes';
import { registerCommands } from './commands/all-commands';
import { checkGitMerging } from './commands/git-merging-commands';
import { HandoffStatusBar } from './editor/status-bar';
import { SyncStatusBar } from './editor/sync-status';
import { registerTools } from './tools/lm-tools';
import { createChatHandler, registerChatParticipant } from './chat/participant';
import { ContextModel } from './model/context-model';
import { HandoffsModel } from './model/handoffs-model';
import { AgentsModel, DelegationsModel } from './model/agents-model';
import { SessionsModel } from './model/sessions-model';
import { ClaimsModel } from './model/claims-model';
import { ContextProvider } from './views/context-view';
import { ContextStatusBar } from './editor/context-status';
import { FileAnnotations } from './editor/file-annotations';
import { Inbox } from './editor/inbox';
import { registerMcpProvider } from './tools/mcp-provider';
import { ClaimsEditor } from './editor/claims-editor';
import { WalkthroughProgress } from './editor/walkthrough-progress';
import { keepEngineCurrent } from '../agents/setup/launcher';
import { registerPanelSerializers } from './webview/panel-serializers';

/** When this module finished loading (the bundle's own load time ends here). */
const moduleLoadedAt = performance.now();

export function activate(context: vscode.ExtensionContext): TwiningApi {
  const started = performance.now();
  const channel = initLog();
  context.subscriptions.push(channel);
  const clock = createClock();
  const folders = new Folders(clock, vscode.workspace.isTrusted);
  context.subscriptions.push(folders);
  // What bears on the active file (the Context view's idea), and the session every part gets.
  const fileContext = new ContextModel(folders);
  context.subscriptions.push(fileContext);
  const sessions = new SessionsModel(folders);
  context.subscriptions.push(sessions);
  const session: TwiningSession = {
    folders,
    clock,
    agentId: userAgentId,
    extensionUri: context.extensionUri,
    storageUri: context.storageUri,
    fileContext,
    sessions,
  };

  // One model per data family: the views, the status bar and the inbox draw from them.
  const handoffs = new HandoffsModel(folders, userAgentId);
  const agents = new AgentsModel(folders);
  const delegations = new DelegationsModel(folders);
  const claimsModel = new ClaimsModel(folders);
  context.subscriptions.push(handoffs, agents, delegations, claimsModel);

  const providers = {
    agents: new AgentsProvider(session, agents, claimsModel),
    delegations: new DelegationsProvider(session, delegations),
    handoffs: new HandoffsProvider(session, handoffs),
    context: new ContextProvider(session, fileContext, claimsModel),
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
    // Which record the views show, when a window on a linked worktree shows the primary's.
    if (id === 'twining.agents') context.subscriptions.push(showRecordRoute(view, folders));
  }

  const documents = new RecordDocuments(folders);
  context.subscriptions.push(documents, vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents));
  context.subscriptions.push(...registerCommands(session));
  context.subscriptions.push(...registerPanelSerializers(session));
  const statusBar = new HandoffStatusBar(handoffs);
  context.subscriptions.push(statusBar);
  const contextStatus = new ContextStatusBar(fileContext);
  const annotations = new FileAnnotations(folders, fileContext);
  context.subscriptions.push(contextStatus, annotations);
  const inbox = new Inbox(handoffs);
  context.subscriptions.push(inbox);
  const syncBar = new SyncStatusBar(folders);
  context.subscriptions.push(syncBar);
  // Claims: Explorer badges, the edit notice and the status bar (editor/claims-editor.ts).
  const claims = new ClaimsEditor(session, claimsModel);
  context.subscriptions.push(claims);
  context.subscriptions.push(...registerTools(session));
  const chatHandler = createChatHandler(session);
  const participant = registerChatParticipant(session, chatHandler);
  if (participant) context.subscriptions.push(participant);
  // Twining's MCP server for VS Code's agents, when twining.tools.provider asks for it.
  const mcp = registerMcpProvider(folders, versionOf(context.extension.packageJSON));
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
  claimsModel.start();
  // The walkthrough's steps complete by themselves (editor/walkthrough-progress.ts).
  const walkthrough = new WalkthroughProgress(folders, agents, handoffs);
  context.subscriptions.push(walkthrough);
  walkthrough.start();
  // The per-user file the projects' committed hook launcher reads (agents/setup/launcher.ts):
  // this installation, so that an update of the extension moves it along. Tests leave it alone.
  if (context.extensionMode !== vscode.ExtensionMode.Test) inBackground('recording the installation for agent hooks', keepEngineCurrent(__dirname));
  syncBar.start();
  inBackground(
    'listing the Twining folders',
    folders.ready().then(() =>
      log.info(
        `Your agent id is ${userAgentId()}; Twining folders: ${
          folders
            .withTwiningDir()
            .map(f => f.name)
            .join(', ') || 'none'
        }.`,
      ),
    ),
  );
  // git merging of .twining/: one suggestion where it is tracked without the driver, and drivers
  // kept on this version's CLI. Off the activation path: it runs git and loads the engine.
  const gitCheck = setTimeout(() => {
    inBackground(
      'git merging check',
      folders.ready().then(() => checkGitMerging(folders.withTwiningDir(), context.workspaceState, vscode.workspace.isTrusted)),
    );
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
  const parts = {
    folders,
    handoffs,
    clock,
    agentId: userAgentId,
    providers,
    statusBar,
    contextStatus,
    annotations,
    fileContext,
    inbox,
    chatHandler,
    claims,
    syncBar,
  };
  const testing = () => testHooks({ ...parts, mcpProvider: mcp?.provider, activationMs, bundleLoadMs });
  return {
    engines,
    onDidChange: changes.event,
    agentId: userAgentId,
    ...(testHooksWanted(context.extensionMode, vscode.ExtensionMode.Production) ? { testing: testing() } : {}),
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}

/** The extension's version from its package.json, for the MCP server's definition. */
function versionOf(packageJson: unknown): string {
  const version = (packageJson as { version?: unknown } | undefined)?.version;
  return typeof version === 'string' ? version : '0.0.0';
}
