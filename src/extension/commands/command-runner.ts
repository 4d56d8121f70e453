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
import type { TwiningFolder } from '../model/folders';
import { chooseFolder } from '../model/folder-choice';
import type { TwiningSession } from '../session';
import { followUp, log, reportError } from '../log';
import { isNode, Node } from '../views/nodes';
import { COMMANDS, CommandId, commandWrites } from './command-table';

export type Invocation =
  { mode: 'args'; args: Record<string, unknown> } | { mode: 'node'; node: Node } | { mode: 'uri'; uri: vscode.Uri } | { mode: 'interactive' };

/** The user closed a prompt: the command ends quietly. */
export class Cancelled extends Error {
  constructor() {
    super('Cancelled');
  }
}

export function invocationOf(first: unknown): Invocation {
  if (isNode(first)) return { mode: 'node', node: first };
  if (first instanceof vscode.Uri) return { mode: 'uri', uri: first };
  if (first !== null && typeof first === 'object' && !Array.isArray(first)) return { mode: 'args', args: { ...(first as Record<string, unknown>) } };
  if (first !== undefined && first !== null) {
    throw new (core().TwiningError)(
      'INVALID_INPUT',
      `the argument must be an object with the operation's fields, not ${Array.isArray(first) ? 'an array' : typeof first}`,
    );
  }
  return { mode: 'interactive' };
}

/** `all`: every argument the command was called with (a menu may pass more than one, as the Source Control graph does). */
export type Handler = (invocation: Invocation, ctx: TwiningSession, all: readonly unknown[]) => unknown;

/** Registers a command with the shared argument handling, trust check and error reporting. */
export function registerCommand(id: CommandId, handler: Handler, ctx: TwiningSession): vscode.Disposable {
  const info = COMMANDS[id];
  return vscode.commands.registerCommand(id, async (first?: unknown, ...rest: unknown[]) => {
    let invocation: Invocation = { mode: 'interactive' };
    try {
      invocation = invocationOf(first);
      // Before any prompt: nobody answers five questions to be told the workspace is read-only.
      const refusal = commandWrites(id) ? ctx.folders.writeRefusal(info.title) : undefined;
      if (refusal) throw refusal;
      return await handler(invocation, ctx, [first, ...rest]);
    } catch (error) {
      if (error instanceof Cancelled) return undefined;
      if (ctx.folders.isReadOnlyError(error)) {
        log.warn(error.message);
        followUp(vscode.window.showWarningMessage(error.message, 'Manage Workspace Trust'), () => vscode.commands.executeCommand('workbench.trust.manage'));
      } else reportError(`Twining: ${info.title}`, error);
      // Argument-object calls get the failure back; clicks on tree items call Open Record with an
      // argument object: the notification is enough there.
      if (invocation.mode === 'args' && id !== 'twining.openRecord') throw error;
      return undefined;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Argument objects

/**
 * Takes the optional `folder` field out of an argument object and finds the workspace folder by
 * the one folder rule (model/folder-choice.ts). Initialize takes any folder (`twiningDir: 'any'`).
 */
export function folderFromArgs(ctx: TwiningSession, args: Record<string, unknown>, twiningDir: boolean | 'any' = true): Promise<TwiningFolder> {
  const spec = args.folder;
  delete args.folder;
  return chooseFolder(ctx.folders, { spec, twiningDir });
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
