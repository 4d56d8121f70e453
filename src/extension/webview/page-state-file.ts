/**
 * A webview page's state, kept by the extension in a file of the workspace's storage folder
 * (ExtensionContext.storageUri) beside the copy the workbench keeps from the page's setState. The
 * workbench writes its copy lazily (when idle, and as the page goes, which a window reload can
 * outrun); this one is on disk a moment after each change. Each state is written whole to a
 * temporary file and renamed over the old one (a reader finds one state or the other, never half of
 * one); writes go one at a time, and a state that comes while one is written replaces the one waiting.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type * as vscode from 'vscode';
import { log, messageOf } from '../log';

export class PageStateFile<T> {
  private writes: Promise<void> = Promise.resolve();
  /** The state waiting for the write in progress to end (none: nothing waits). */
  private waiting: { state: T } | undefined;

  /** `file` undefined (no folder open, or a storage folder that is not a local file): nothing is kept. */
  private constructor(readonly file: string | undefined) {}

  /** The state named `name` in the workspace's storage folder. */
  static in<T>(storageUri: vscode.Uri | undefined, name: string): PageStateFile<T> {
    return new PageStateFile(storageUri?.scheme === 'file' ? path.join(storageUri.fsPath, `${name}.json`) : undefined);
  }

  keep(state: T): void {
    if (!this.file) return;
    const queued = this.waiting !== undefined;
    this.waiting = { state };
    if (!queued) this.writes = this.writes.then(() => this.write(this.file!));
  }

  /** The state last kept (undefined: none, or a file that cannot be read as one). */
  async read(): Promise<T | undefined> {
    if (!this.file) return undefined;
    await this.writes;
    try {
      return JSON.parse(await fs.readFile(this.file, 'utf8')) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`The kept state ${this.file} was not read: ${messageOf(error)}`);
      return undefined;
    }
  }

  private async write(file: string): Promise<void> {
    const { state } = this.waiting!;
    this.waiting = undefined;
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(temporary, JSON.stringify(state));
      await fs.rename(temporary, file);
    } catch (error) {
      log.warn(`The page's state was not kept in ${file} (the workbench's copy still is): ${messageOf(error)}`);
    }
  }
}
