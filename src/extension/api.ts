/** What `activate()` returns: for tests, benchmarks and other extensions. */
import type * as vscode from 'vscode';
import type { Workspace } from '../core';
import type { Folders } from './model/folders';
import type { AgentsProvider } from './views/agents-view';
import type { DelegationsProvider } from './views/delegations-view';
import type { HandoffsProvider } from './views/handoffs-view';
import type { HandoffStatusBar } from './views/status-bar';

export interface TwiningApi {
  /** Engines of the workspace folders that have `.twining/`, by folder path. */
  readonly folders: ReadonlyMap<string, Workspace>;
  /** The folder model (every workspace folder, present or not). */
  readonly model: Folders;
  /** The views' data providers (call getChildren / getTreeItem / resolveTreeItem). */
  readonly providers: { agents: AgentsProvider; delegations: DelegationsProvider; handoffs: HandoffsProvider };
  readonly statusBar: HandoffStatusBar;
  /** The `@twining` chat participant's handler (also usable where the chat UI is not). */
  readonly chatHandler: vscode.ChatRequestHandler;
  /** Re-reads every folder (incrementally) and re-renders the views. */
  refresh(): Promise<void>;
  /** Resolves when pending watcher refreshes, drift checks and status bar counts are done. */
  whenIdle(): Promise<void>;
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
}
