/**
 * The test-only entry: what the host tests and the activation benchmark look at inside the
 * extension, built from the objects activate() created (`testHooks`). It is part of the exported
 * API only in development and test runs (not for users of the API, who get api.ts).
 */
import type * as vscode from 'vscode';
import type { TwiningEngine } from '../core';
import type { Folders } from './model/folders';
import type { AgentsProvider } from './views/agents-view';
import type { DelegationsProvider } from './views/delegations-view';
import type { HandoffsProvider } from './views/handoffs-view';
import type { HandoffStatusBar } from './editor/status-bar';
import type { SearchSession } from './commands/search-command';
import type { ContextProvider } from './views/context-view';
import type { ContextStatusBar } from './editor/context-status';
import type { FileAnnotations } from './editor/file-annotations';
import type { ClaimsEditor } from './editor/claims-editor';
import type { ContextModel } from './model/context-model';
import type { Inbox } from './editor/inbox';
import type { SyncStatusBar } from './editor/sync-status';
import type { HandoffsModel } from './model/handoffs-model';
import type { TwiningMcpProvider } from './tools/mcp-provider';
import type { Clock } from './settings';
import { coreLoadMs } from './model/engine-loader';
import { currentSearch } from './commands/search-command';
import { answerPromptsWith, type PromptAnswerer } from './commands/prompt-script';
import { TimelinePanel } from './webview/timeline-panel';

export interface TestHooks {
  /** Engines of the workspace folders that have `.twining/`, by folder path. */
  readonly folders: ReadonlyMap<string, TwiningEngine>;
  /** The folder model (every workspace folder, with or without `.twining/`). */
  readonly model: Folders;
  /** The views' data providers (call getChildren / getTreeItem / resolveTreeItem). */
  readonly providers: { agents: AgentsProvider; delegations: DelegationsProvider; handoffs: HandoffsProvider; context: ContextProvider };
  readonly statusBar: HandoffStatusBar;
  /** The Context view's model, the active file's status bar item, and the diagnostics and CodeLens. */
  readonly contextStatus: ContextStatusBar;
  readonly annotations: FileAnnotations;
  /** Claims in the editor: its model, the Explorer decorations and the edit notices shown. */
  readonly claims: ClaimsEditor;
  readonly fileContext: ContextModel;
  /** The inbox (its `shown` lists the notifications it showed). */
  readonly inbox: Inbox;
  /** Background sync and its status bar item (its `shown` lists the notifications it showed). */
  readonly syncBar: SyncStatusBar;
  /** The `@twining` chat participant's handler (also usable where the chat UI is not). */
  readonly chatHandler: vscode.ChatRequestHandler;
  /** The Twining: Search quick pick now open, if any. */
  searchPick(): SearchSession | undefined;
  /** The MCP server definition provider (undefined where the host has no MCP API). */
  readonly mcpProvider: TwiningMcpProvider | undefined;
  /** The first paints and updates the open timeline's page reported (newest last), if a timeline is open. */
  timelinePaints():
    { items: number; ms: number; drawMs: number; reason: string; at: number; readMs?: number; loadMs?: number; marks?: [string, number][] }[] | undefined;
  /** Re-reads every folder (incrementally); the views redraw for what changed. */
  refresh(): Promise<void>;
  /** Resolves when pending watcher refreshes, drift checks and status bar counts are done. */
  whenIdle(): Promise<void>;
  /** Work done so far in all folders: engine refreshes that read, verifications, view redraws by view, and handoff index queries. */
  work(): { refreshes: number; verifications: number; redraws: { agents: number; delegations: number; handoffs: number }; handoffQueries: number };
  /** Time spent in activate(), in ms. */
  readonly activationMs: number;
  /** Time the extension bundle took to load (evaluate) before activate() ran, in ms. */
  readonly bundleLoadMs: number;
  /** How long loading the engine (dist/core.js, on first use, after activation) took; undefined before. */
  engineLoadMs(): number | undefined;
  /** The user's agent id (setting twining.agentId, else derived). */
  agentId(): string;
  /** The engine clock (TWINING_NOW-pinned in tests). */
  now(): Date;
  /** Answers the commands' prompts from a script (undefined: VS Code's own prompts again). */
  answerPrompts(script: PromptAnswerer | undefined): void;
}

/** Test hooks are exported in development and test runs, and when a test or benchmark launcher says so. */
export function testHooksWanted(mode: vscode.ExtensionMode, production: vscode.ExtensionMode, env: NodeJS.ProcessEnv = process.env): boolean {
  return mode !== production || env.TWINING_TEST_RUN !== undefined || env.TWINING_BENCH_ACTIVATION_OUT !== undefined;
}

/** What activate() created that the hooks look at. */
export interface ActivatedParts {
  folders: Folders;
  handoffs: HandoffsModel;
  clock: Clock;
  agentId: () => string;
  providers: TestHooks['providers'];
  statusBar: HandoffStatusBar;
  contextStatus: ContextStatusBar;
  annotations: FileAnnotations;
  fileContext: ContextModel;
  inbox: Inbox;
  syncBar: SyncStatusBar;
  claims: ClaimsEditor;
  chatHandler: vscode.ChatRequestHandler;
  mcpProvider: TwiningMcpProvider | undefined;
  activationMs: number;
  bundleLoadMs: number;
}

/** The test hooks over the objects activate() created. */
export function testHooks(parts: ActivatedParts): TestHooks {
  const { folders, providers, statusBar, contextStatus, annotations, inbox, claims } = parts;
  return {
    get folders() {
      return new Map(folders.withTwiningDir().map(f => [f.root, f.engine] as const));
    },
    model: folders,
    providers,
    statusBar,
    contextStatus,
    annotations,
    claims,
    answerPrompts: answerPromptsWith,
    timelinePaints: () => TimelinePanel.open?.paints,
    fileContext: parts.fileContext,
    inbox,
    syncBar: parts.syncBar,
    chatHandler: parts.chatHandler,
    searchPick: currentSearch,
    mcpProvider: parts.mcpProvider,
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
        redraws: { agents: providers.agents.redraws, delegations: providers.delegations.redraws, handoffs: providers.handoffs.redraws },
        handoffQueries: parts.handoffs.queries,
      };
    },
    activationMs: parts.activationMs,
    bundleLoadMs: parts.bundleLoadMs,
    engineLoadMs: () => coreLoadMs,
    agentId: parts.agentId,
    now: () => parts.clock.now(),
  };
}
