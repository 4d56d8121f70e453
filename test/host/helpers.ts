// Small helpers for extension host tests (test/host/*.test.ts). Bundled into each test file.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'twining.twining-vscode';

/** The name of the current run (`single`, `multi`, `untrusted`, ...; see scripts/run-host-tests.js). */
export function runName(): string {
  return process.env.TWINING_TEST_RUN || 'default';
}

/** True when the current run is one of `names`. Use as `(isRun('multi') ? describe : describe.skip)(...)`. */
export function isRun(...names: string[]): boolean {
  return names.includes(runName());
}

/** `describe` in the given runs, `describe.skip` in the others. */
export function describeIn(runs: string[], title: string, fn: (this: Mocha.Suite) => void): Mocha.Suite | void {
  return (isRun(...runs) ? describe : describe.skip)(`${title} [${runs.join(', ')}]`, fn);
}

/** True when the workspace was left untrusted (restricted mode) by the launcher. */
export function expectUntrusted(): boolean {
  return process.env.TWINING_TEST_TRUSTED === '0';
}

/**
 * "development" (the extension is the extension under development: VS Code activates it even in
 * an untrusted workspace) or "installed" (an ordinary installed extension: VS Code applies
 * `capabilities.untrustedWorkspaces` of package.json to it).
 */
export function extensionMode(): 'development' | 'installed' {
  return process.env.TWINING_TEST_EXTENSION_MODE === 'installed' ? 'installed' : 'development';
}

/** The extension's package.json (from the repository the launcher names). */
export function manifest(): any {
  const dir = process.env.TWINING_TEST_EXTENSION_PATH || path.resolve(__dirname, '..', '..');
  return readJson(path.join(dir, 'package.json'));
}

/** Whether VS Code loads the extension in this run (false: untrusted + installed + not supported). */
export function extensionExpectedLoaded(): boolean {
  if (!expectUntrusted() || extensionMode() === 'development') return true;
  const supported = manifest()?.capabilities?.untrustedWorkspaces?.supported;
  return supported === true || supported === 'limited';
}

/** The workspace the launcher prepared (folder, or `.code-workspace` file in the multi-root run). */
export function workspacePath(): string | undefined {
  return process.env.TWINING_TEST_WORKSPACE;
}

/** The first workspace folder's path. */
export function firstFolder(): string {
  const folders = vscode.workspace.workspaceFolders;
  if (!folders || folders.length === 0) throw new Error('no workspace folder open');
  return folders[0].uri.fsPath;
}

/** The `.twining` folder of a workspace folder (the first one by default). */
export function twiningDir(folder: string = firstFolder()): string {
  return path.join(folder, '.twining');
}

/** Activates the extension and returns its exports. */
export async function activateExtension<T = unknown>(): Promise<T> {
  const ext = vscode.extensions.getExtension<T>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext.isActive ? ext.exports : ext.activate();
}

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(check: () => T | Promise<T>, { timeoutMs = 10000, intervalMs = 100, what = 'condition' } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}` : ''}`,
      );
    }
    await new Promise(resolve => setTimeout(resolve, intervalMs));
  }
}

/** Opens a workspace file (relative to the first folder) in an editor. */
export async function openFile(relative: string, folder: string = firstFolder()): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, relative)));
  return vscode.window.showTextDocument(doc);
}

/** Reads a JSON file. */
export function readJson<T = unknown>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}
