/**
 * What `activate()` returns to other extensions: the engine of each workspace folder that has
 * `.twining/`, the user's agent id, and one event per change of the data. Test hooks (the views'
 * providers, the status bar, idle tracking) are not part of it: see test-hooks.ts.
 */
import type * as vscode from 'vscode';
import type { TwiningEngine } from '../core';
import type { TestHooks } from './test-hooks';

export interface TwiningDataChange {
  /** The workspace folder path whose data changed; undefined: every folder (folders added, trust granted, settings). */
  folder?: string;
  /** The kinds of change (`registry`, `blackboard`, `handoffs`, `handoffRecords`, `decisions`, `config`, `presence`, `trust`, `settings`). */
  kinds: string[];
}

export interface TwiningApi {
  /** The engines of the workspace folders that have `.twining/`, by folder path. */
  engines(): ReadonlyMap<string, TwiningEngine>;
  /** Fires once per change of the data, whoever wrote it (this extension, twining-mcp, git…). */
  readonly onDidChange: vscode.Event<TwiningDataChange>;
  /** The user's agent id (setting twining.agentId, else derived from the OS user name). */
  agentId(): string;
  /** Present only when the extension runs under tests or benchmarks. */
  readonly testing?: TestHooks;
}
