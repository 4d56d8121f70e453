/**
 * The extension's session, which every part gets: the views, the commands, the language model
 * tools and the chat participant. Built once in activate().
 */
import type * as vscode from 'vscode';
import type { Folders } from './model/folders';
import type { Clock } from './settings';
import type { ContextModel } from './model/context-model';
import type { SessionsModel } from './model/sessions-model';

export interface TwiningSession {
  /** The workspace folders, their engines, trust and change announcements. */
  readonly folders: Folders;
  /** The engine clock (TWINING_NOW can pin it for tests and demos). */
  readonly clock: Clock;
  /** The user's agent id (read when needed: the setting can change). */
  agentId(): string;
  readonly extensionUri: vscode.Uri;
  /** The workspace's storage folder for this extension (ExtensionContext.storageUri; none without a folder open). */
  readonly storageUri: vscode.Uri | undefined;
  /** What bears on each file, and which scope the Context view shows. */
  readonly fileContext: ContextModel;
  /** The hooked agent sessions of each folder (the session board). */
  readonly sessions: SessionsModel;
}
