/**
 * How every command is invoked. A command receives one of:
 * - an argument object with the fields of its core operation (plus an optional `folder`, a path or
 *   URI, to pick the workspace folder): it runs without any prompt and returns the core result,
 *   and failures reject the returned promise (after the notification);
 * - a tree element (from a view's menus): it uses that element's data;
 * - a URI (explorer or editor menus): it uses that file as the scope;
 * - nothing (palette, keybinding): it asks for what it needs.
 */
import * as vscode from 'vscode';
import { core } from '../model/engine-loader';

/** An INVALID_INPUT / NOT_FOUND error like the engine's (same class, from the lazily loaded core). */
function inputError(code: 'INVALID_INPUT' | 'NOT_FOUND', message: string): Error {
  return new (core().TwiningError)(code, message);
}
import type { Folders, TwiningFolder } from '../model/folders';
import type { RecordDocuments } from '../views/record-documents';
import { followUp, log, reportError } from '../log';
import { isNode, Node } from '../views/tree-base';
import { COMMANDS, CommandId } from './command-table';

export type Invocation =
  | { mode: 'args'; args: Record<string, unknown> }
  | { mode: 'node'; node: Node }
  | { mode: 'uri'; uri: vscode.Uri }
  | { mode: 'interactive' };

export interface CommandContext {
  folders: Folders;
  documents: RecordDocuments;
  agentId(): string;
  /** Re-reads the folder after a write so the views update at once (the watcher follows later). */
  afterWrite(folder: TwiningFolder): Promise<void>;
  /** Re-renders every view (Refresh). */
  refreshViews(): void;
}

/** The user closed a prompt: the command ends quietly. */
export class Cancelled extends Error {
  constructor() {
    super('Cancelled');
  }
}

class Untrusted extends Error {}

export function invocationOf(first: unknown): Invocation {
  if (isNode(first)) return { mode: 'node', node: first };
  if (first instanceof vscode.Uri) return { mode: 'uri', uri: first };
  if (first !== null && typeof first === 'object' && !Array.isArray(first)) return { mode: 'args', args: { ...(first as Record<string, unknown>) } };
  if (first !== undefined && first !== null) {
    throw inputError('INVALID_INPUT', `the argument must be an object with the operation's fields, not ${Array.isArray(first) ? 'an array' : typeof first}`);
  }
  return { mode: 'interactive' };
}

export type Handler = (invocation: Invocation, ctx: CommandContext) => Promise<unknown>;

/** Registers a command with the shared argument handling, trust check and error reporting. */
export function registerCommand(id: CommandId, handler: Handler, ctx: CommandContext): vscode.Disposable {
  const info = COMMANDS[id];
  return vscode.commands.registerCommand(id, async (first?: unknown) => {
    let invocation: Invocation = { mode: 'interactive' };
    try {
      invocation = invocationOf(first);
      if (info.writes && !ctx.folders.isTrusted) throw new Untrusted(info.title);
      return await handler(invocation, ctx);
    } catch (error) {
      if (error instanceof Cancelled) return undefined;
      if (error instanceof Untrusted) {
        const message = `Twining is read-only in an untrusted workspace: "${info.title}" would write to .twining/. Trust the workspace to use it.`;
        log.warn(message);
        followUp(vscode.window.showWarningMessage(message, 'Manage Workspace Trust'), () => vscode.commands.executeCommand('workbench.trust.manage'));
        if (invocation.mode === 'args') throw inputError('INVALID_INPUT', message);
        return undefined;
      }
      reportError(`Twining: ${info.title}`, error);
      // Clicks on tree items call Open Record with an argument object: the notification is enough.
      if (invocation.mode === 'args' && id !== 'twining.openRecord') throw error;
      return undefined;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Argument objects

/**
 * Takes the optional `folder` field out of an argument object and finds the workspace folder:
 * the named one; else the active editor's folder if it has `.twining/`; else the only folder
 * that has one. `needPresent: false` accepts folders without `.twining/` (Initialize).
 */
export async function folderFromArgs(ctx: CommandContext, args: Record<string, unknown>, needPresent = true): Promise<TwiningFolder> {
  await ctx.folders.ready();
  const spec = args.folder;
  delete args.folder;
  if (spec !== undefined) {
    let folder: TwiningFolder | undefined;
    if (spec instanceof vscode.Uri) folder = ctx.folders.folderOf(spec);
    else if (typeof spec === 'string') folder = ctx.folders.folderOf(spec) ?? ctx.folders.all().find(f => f.name === spec);
    else throw inputError('INVALID_INPUT', 'folder: must be a path, a URI or the name of a workspace folder');
    if (!folder) throw inputError('NOT_FOUND', `folder: "${String(spec)}" is not in a workspace folder`);
    if (needPresent && !folder.present) throw inputError('NOT_FOUND', `folder: ${folder.name} has no .twining/ folder (run "Twining: Initialize" first)`);
    return folder;
  }
  const candidates = needPresent ? ctx.folders.present() : ctx.folders.all();
  const active = ctx.folders.activeFolder();
  if (active && candidates.includes(active)) return active;
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    throw inputError('NOT_FOUND', needPresent ? 'No workspace folder has a .twining/ folder (run "Twining: Initialize" first)' : 'No workspace folder is open');
  }
  throw inputError('INVALID_INPUT', `folder: required when several workspace folders have .twining/ (${candidates.map(f => f.name).join(', ')})`);
}

/** Fills a field with a default when the caller left it out. */
export function withDefault(args: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  if (args[field] === undefined && value !== undefined) args[field] = value;
  return args;
}

/** Feedback that does not interrupt: a status bar message for argument-object calls. */
export function quietly(message: string): void {
  vscode.window.setStatusBarMessage(`$(check) Twining: ${message}`, 4000);
}
