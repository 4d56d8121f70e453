/**
 * The claims of every Twining folder, for the editor's surfaces (Explorer badges, the edit
 * notice, the status bar). Each folder's `claims/claims.json` and registry are watched (a claim
 * written by another process shows up at once), and the model looks again when the next live
 * claim would lapse by time, so a lapse is seen without anyone writing.
 */
import * as vscode from 'vscode';
import type { Folders, TwiningFolder } from './folders';
import type { ClaimView } from '../../core';
import { core } from './engine-loader';
import { inBackground, log } from '../log';

export interface FileClaim {
  folder: TwiningFolder;
  /** The path relative to the folder, "/"-separated. */
  relative: string;
  claim: ClaimView;
}

export class ClaimsModel implements vscode.Disposable {
  private readonly byFolder = new Map<string, ClaimView[]>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loading: Promise<void> = Promise.resolve();
  /** Fires after the claims changed (on disk, or by lapsing). */
  readonly onDidChange = this.emitter.event;

  constructor(private readonly folders: Folders) {
    this.disposables.push(
      folders.onDidChange(change => {
        if (change.kinds.has('presence') || change.kinds.has('trust') || change.kinds.has('registry')) inBackground('Claims: reading', this.reload());
      }),
    );
  }

  /** Starts watching (after activation) and reads every folder's claims. */
  start(): void {
    inBackground(
      'Claims: reading',
      this.folders.ready().then(() => this.reload()),
    );
  }

  /** Reads every folder's claims again; resolves when done. */
  reload(): Promise<void> {
    this.loading = this.loading.then(() => this.readAll()).catch(error => log.warn(`claims: ${(error as Error).message}`));
    return this.loading;
  }

  private async readAll(): Promise<void> {
    const folders = this.folders.withTwiningDir();
    for (const folder of folders) {
      if (!this.watchers.has(folder.key)) this.watchers.set(folder.key, this.watch(folder));
      const listed = await folder
        .run(engine => engine.claims({}))
        .catch((error: Error) => {
          log.warn(`${folder.name}: claims could not be read: ${error.message}`);
          return undefined;
        });
      this.byFolder.set(folder.key, listed?.claims ?? []);
    }
    for (const key of [...this.byFolder.keys()]) if (!folders.some(f => f.key === key)) this.byFolder.delete(key);
    this.scheduleLapse();
    this.emitter.fire();
  }

  private watch(folder: TwiningFolder): vscode.Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder.workspaceFolder, '.twining/claims/claims.json'));
    const changed = () => inBackground('Claims: reading', this.reload());
    return vscode.Disposable.from(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed));
  }

  /** Looks again when the earliest live claim expires (liveness lapses are caught by the registry watch and this). */
  private scheduleLapse(): void {
    if (this.timer) clearTimeout(this.timer);
    const now = this.folders.clock.now().getTime();
    let next = Infinity;
    for (const claims of this.byFolder.values()) for (const c of claims) if (c.state === 'live') next = Math.min(next, Date.parse(c.expires_at));
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => inBackground('Claims: reading', this.reload()), Math.min(Math.max(next - now + 50, 50), 60_000));
  }

  /** Every listed claim of a folder (live and lapsed). */
  claimsOf(folder: TwiningFolder): readonly ClaimView[] {
    return this.byFolder.get(folder.key) ?? [];
  }

  /**
   * The live claims on `uri`: a file's claims (its path, a folder above it, a glob matching it), or
   * for a folder the claims of it or a folder above it.
   */
  claimsOn(uri: vscode.Uri): FileClaim[] {
    const folder = this.folders.folderOf(uri);
    const relative = folder?.relativePath(uri);
    if (!folder || !relative || relative.startsWith('.twining')) return [];
    const { targetsOverlap } = core();
    return this.claimsOf(folder)
      .filter(c => c.state === 'live' && !c.target.startsWith('delegation:'))
      .filter(c => (c.target.endsWith('/') ? `${relative}/`.startsWith(c.target) : targetsOverlap(c.target, relative)))
      .map(claim => ({ folder, relative, claim }));
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.dispose();
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}
