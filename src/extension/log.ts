/**
 * The "Twining" log output channel and the one place where failures become notifications: each
 * failure is logged, and shown once (the same message is not repeated while it is still fresh).
 */
import * as vscode from 'vscode';
import type { TwiningError } from '../core';

/** Errors from the engine (checked by shape: the core is loaded lazily, see model/engine-loader.ts). */
function isTwiningError(error: unknown): error is TwiningError {
  return error instanceof Error && error.name === 'TwiningError' && typeof (error as { code?: unknown }).code === 'string';
}

let channel: vscode.LogOutputChannel | undefined;

export function initLog(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel('Twining', { log: true });
  return channel;
}

export const log = {
  info: (message: string) => channel?.info(message),
  warn: (message: string) => channel?.warn(message),
  error: (message: string) => channel?.error(message),
  debug: (message: string) => channel?.debug(message),
  show: () => channel?.show(true),
};

/** A message for people: the engine's messages already name what was wrong. */
export function messageOf(error: unknown): string {
  if (isTwiningError(error)) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * What a notification's button does, once chosen: failures are reported like any other, never
 * left as unhandled rejections.
 */
export function followUp<T>(shown: Thenable<T | undefined>, action: (choice: T) => unknown, what = 'Twining'): void {
  Promise.resolve(shown)
    .then(choice => (choice === undefined ? undefined : action(choice)))
    .catch(error => reportError(what, error));
}

/**
 * Work started and not awaited (a notification, a context key, a background look): a failure is
 * logged instead of left as an unhandled rejection. The one way this extension drops a promise:
 * the linter refuses a bare or `void` one (no-floating-promises without ignoreVoid).
 */
export function inBackground(what: string, work: PromiseLike<unknown>): void {
  Promise.resolve(work).catch((error: unknown) => reportError(what, error, { notify: false }));
}

/** An information message with no buttons. */
export function inform(message: string): void {
  inBackground('showing a message', vscode.window.showInformationMessage(message));
}

/** Sets a `when`-clause context key. */
export function setContext(key: string, value: unknown): void {
  inBackground(`setting ${key}`, vscode.commands.executeCommand('setContext', key, value));
}

const recentlyShown = new Map<string, number>();
const REPEAT_AFTER_MS = 10_000;

/**
 * Logs a failure and shows ONE error notification for it. `what` says what was being done
 * ("Create Handoff"). Never throws.
 */
export function reportError(what: string, error: unknown, options: { notify?: boolean } = {}): void {
  const message = `${what}: ${messageOf(error)}`;
  log.error(message);
  if (error instanceof Error && !isTwiningError(error) && error.stack) log.debug(error.stack);
  if (options.notify === false) return;
  const now = Date.now();
  const last = recentlyShown.get(message);
  if (last !== undefined && now - last < REPEAT_AFTER_MS) return;
  recentlyShown.set(message, now);
  if (recentlyShown.size > 50) recentlyShown.delete(recentlyShown.keys().next().value as string);
  vscode.window.showErrorMessage(message, 'Show Log').then(
    choice => {
      if (choice === 'Show Log') log.show();
    },
    () => undefined,
  );
}
