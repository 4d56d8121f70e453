/**
 * The claims family: the claims of every Twining folder, for the Agents and Context views and the
 * editor's surfaces (Explorer badges, the edit notice, the status bar). Like the other families it
 * hears of changes from the engine's refresh (the `claims` kind, from the folder's one watcher);
 * the registry, blackboard and configuration count too, since a holder's liveness decides whether
 * its claim still holds. Unlike them it keeps each folder's listed claims, read once per change,
 * because a FileDecorationProvider asks synchronously for every file the Explorer shows; and it
 * looks again when the next live claim would lapse by time, so a lapse is seen without anyone
 * writing. `onDidLoad` fires after a read that changed what is listed: draw from `claimsOf` and
 * `claimsOn` then.
 */
import * as vscode from 'vscode';
import type { Folders, TwiningFolder } from './folders';
import type { ClaimView } from '../../core';
import type { ChangeKind } from './change-kinds';
import { FamilyModel } from './family-model';
import { core } from './engine-loader';
import { inBackground, log } from '../log';

export interface FileClaim {
  folder: TwiningFolder;
  /** The path relative to the folder, "/"-separated. */
  relative: string;
  claim: ClaimView;
}

/** Longest wait between looks while a claim is live: a holder going silent lapses its claims without a write. */
const LOOK_AGAIN_MS = 60_000;

export class ClaimsModel extends FamilyModel {
  protected readonly shows = new Set<ChangeKind>(['claims', 'registry', 'blackboard', 'config', 'settings']);
  private readonly byFolder = new Map<string, { claims: ClaimView[]; signature: string }>();
  private readonly loaded = new vscode.EventEmitter<void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loading: Promise<void> = Promise.resolve();
  private started = false;
  /** Fires after the listed claims changed (written anywhere, or lapsed by time); they are current then. */
  readonly onDidLoad = this.loaded.event;

  constructor(folders: Folders) {
    super(folders);
    this.disposables.push(
      this.loaded,
      this.onDidChange(() => {
        if (this.started) inBackground('Claims: reading', this.reload());
      }),
    );
  }

  /** Reads every folder's claims once the folders are known (after activation). */
  start(): void {
    this.started = true;
    inBackground(
      'Claims: reading',
      this.folders.ready().then(() => this.reload()),
    );
  }

  /** Reads every folder's claims again; resolves when done. Reads run one after another. */
  reload(): Promise<void> {
    this.loading = this.loading.then(() => this.readAll()).catch(error => log.warn(`claims: ${(error as Error).message}`));
    return this.loading;
  }

  private async readAll(): Promise<void> {
    const folders = this.folders.withTwiningDir();
    let changed = false;
    for (const folder of folders) {
      // A claim another clone's sync brought names that clone (its tooltip says where its holder works): asked at the same time.
      const asked = folder.beside(engine => engine.origins()).catch(() => ({ records: {} }));
      const listed = await folder
        .run(engine => engine.claims({}))
        .catch((error: Error) => {
          log.warn(`${folder.name}: claims could not be read: ${error.message}`);
          return undefined;
        });
      const origins: { records: Record<string, string> } = await asked;
      if (!listed) continue; // the last good list stays
      const claims = listed.claims.map(c => (origins.records[c.id] ? { ...c, clone: origins.records[c.id] } : c));
      const signature = claims.map(c => `${c.id} ${c.state} ${c.renewed_at} ${c.expires_at} ${c.clone ?? ''}`).join('\n');
      if (this.byFolder.get(folder.key)?.signature === signature) continue;
      this.byFolder.set(folder.key, { claims, signature });
      changed = true;
    }
    for (const key of [...this.byFolder.keys()])
      if (!folders.some(f => f.key === key)) {
        this.byFolder.delete(key);
        changed = true;
      }
    this.scheduleLook();
    if (changed) this.loaded.fire();
  }

  /** Looks again when the earliest live claim expires, and at least once a minute while any is live. */
  private scheduleLook(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.folders.clock.now().getTime();
    let next = Infinity;
    for (const { claims } of this.byFolder.values()) for (const c of claims) if (c.state === 'live') next = Math.min(next, Date.parse(c.expires_at));
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => inBackground('Claims: reading', this.reload()), Math.min(Math.max(next - now + 50, 50), LOOK_AGAIN_MS));
  }

  /** Every listed claim of a folder (live and lapsed; released ones are not listed), oldest first. */
  claimsOf(folder: TwiningFolder): readonly ClaimView[] {
    return this.byFolder.get(folder.key)?.claims ?? [];
  }

  /**
   * The live claims on `uri`: a file's claims (its path, a folder above it, a glob matching it), or
   * for a folder the claims of it or a folder above it.
   */
  claimsOn(uri: vscode.Uri): FileClaim[] {
    const folder = this.folders.folderOf(uri);
    const relative = folder?.relativePath(uri);
    return folder && relative ? this.claimsOnPath(folder, relative) : [];
  }

  /** The same for a path relative to `folder` ("/"-separated). */
  claimsOnPath(folder: TwiningFolder, relative: string): FileClaim[] {
    const live = this.claimsOf(folder).filter(c => c.state === 'live' && !c.target.startsWith('delegation:'));
    if (live.length === 0 || relative.startsWith('.twining')) return [];
    const { targetsOverlap } = core();
    return live
      .filter(c => (c.target.endsWith('/') ? `${relative}/`.startsWith(c.target) : targetsOverlap(c.target, relative)))
      .map(claim => ({ folder, relative, claim }));
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    super.dispose();
  }
}
