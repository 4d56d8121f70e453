/**
 * What the editor shows about files: the core's `scopeContext` per (folder, file), kept until the
 * engine's data changes (a repeated ask after an editor switch costs a map look-up), and which
 * scope the Context view shows: the active editor's file, a pinned one, or the whole project.
 * One instance feeds the Context view, the status bar item, the diagnostics and the CodeLens.
 */
import * as vscode from 'vscode';
import { inBackground, setContext } from '../log';
import type { ScopeContext } from '../../core';
import type { FolderChange, Folders, TwiningFolder } from './folders';
import type { ChangeKind } from './change-kinds';

export type ContextMode = 'editor' | 'pinned' | 'project';

/** What the Context view shows: a file (or folder) of a workspace folder, or a whole folder. */
export interface ContextTarget {
  mode: ContextMode;
  folder: TwiningFolder;
  /** Workspace-relative, `/`-separated; undefined for the whole project. */
  scope?: string;
}

const RELEVANT: readonly ChangeKind[] = ['blackboard', 'decisions', 'handoffs', 'config', 'presence', 'trust'];
/** Open delegations expire by time alone: a cached context is at most this old. */
const MAX_AGE_MS = 30_000;

/** The workspace-relative path of a file the context can be shown for (not inside `.twining/`). */
export function scopeOfUri(folders: Folders, uri: vscode.Uri | undefined): { folder: TwiningFolder; scope: string } | undefined {
  if (!uri || uri.scheme !== 'file') return undefined;
  const folder = folders.folderOf(uri);
  if (!folder?.hasTwiningDir) return undefined;
  const scope = folder.relativePath(uri);
  if (!scope || scope === '.twining' || scope.startsWith('.twining/')) return undefined;
  return { folder, scope };
}

export class ContextModel implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when the target changed or the data behind the contexts did. */
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private cache = new Map<string, { at: number; value: Promise<ScopeContext> }>();
  private targetValue: ContextTarget | undefined;
  private lastFile: { folder: TwiningFolder; scope: string } | undefined;

  constructor(private readonly folders: Folders) {
    this.disposables.push(
      folders.onDidChange(change => this.onFolderChange(change)),
      vscode.window.onDidChangeActiveTextEditor(editor => this.followEditor(editor)),
    );
    setContext('twining.context.mode', 'editor');
    inBackground(
      'Context view: following the active editor',
      folders.ready().then(() => this.followEditor(vscode.window.activeTextEditor)),
    );
  }

  /** The Context view's target (undefined: no file open yet and nothing pinned). */
  get target(): ContextTarget | undefined {
    return this.targetValue;
  }

  /** The active editor's file, when the context can be shown for it. */
  activeFile(): { folder: TwiningFolder; scope: string } | undefined {
    return scopeOfUri(this.folders, vscode.window.activeTextEditor?.document.uri);
  }

  /** The context of a scope in a folder (undefined scope: the whole project), from the loaded state. */
  get(folder: TwiningFolder, scope: string | undefined): Promise<ScopeContext> {
    const key = `${folder.key}\n${scope ?? ''}`;
    const now = Date.now();
    const cached = this.cache.get(key);
    if (cached && now - cached.at < MAX_AGE_MS) return cached.value;
    const value = folder.run(engine => engine.scopeContext(scope));
    // A failure is not kept: the next ask tries again.
    value.catch(() => this.cache.get(key)?.value === value && this.cache.delete(key));
    if (this.cache.size > 200) this.cache.clear();
    this.cache.set(key, { at: now, value });
    return value;
  }

  /** Shows the active editor's file (and follows it from now on). */
  follow(): void {
    const file = this.activeFile() ?? this.lastFile;
    this.setTarget(file ? { mode: 'editor', ...file } : undefined);
  }

  /** Keeps the current scope whatever the editor shows. */
  pin(target?: { folder: TwiningFolder; scope?: string }): void {
    const at = target ?? this.targetValue ?? this.activeFile();
    if (!at) return;
    this.setTarget({ mode: at.scope ? 'pinned' : 'project', folder: at.folder, scope: at.scope });
  }

  /** Shows everything in a folder (the active editor's, or the first with `.twining/`). */
  wholeProject(folder?: TwiningFolder): void {
    const f = folder ?? this.targetValue?.folder ?? this.activeFile()?.folder ?? this.folders.withTwiningDir()[0];
    if (f) this.setTarget({ mode: 'project', folder: f });
  }

  private followEditor(editor: vscode.TextEditor | undefined): void {
    const file = scopeOfUri(this.folders, editor?.document.uri);
    if (file) this.lastFile = file;
    // Another kind of editor (a record document, output, settings) keeps the file shown so far.
    if (this.targetValue && this.targetValue.mode !== 'editor') {
      this.emitter.fire(); // the status bar follows the active file even when the view is pinned
      return;
    }
    if (!file) {
      if (!this.targetValue) this.emitter.fire();
      return;
    }
    this.setTarget({ mode: 'editor', ...file });
  }

  private setTarget(target: ContextTarget | undefined): void {
    this.assign(target);
    setContext('twining.context.mode', target?.mode ?? 'editor');
    this.emitter.fire();
  }

  /** The view's welcome ("Open a file…") is shown only while there is no target, not while a file's context loads. */
  private assign(target: ContextTarget | undefined): void {
    this.targetValue = target;
    setContext('twining.context.hasTarget', target !== undefined);
  }

  private onFolderChange(change: FolderChange): void {
    if (![...change.kinds].some(k => RELEVANT.includes(k))) return;
    if (change.folder) {
      const prefix = `${change.folder.key}\n`;
      for (const key of [...this.cache.keys()]) if (key.startsWith(prefix)) this.cache.delete(key);
    } else this.cache.clear();
    if (change.kinds.has('presence') || change.kinds.has('trust')) {
      // Engines may have been re-created and folders may have gained or lost `.twining/`.
      if (this.targetValue && !this.targetValue.folder.hasTwiningDir) this.assign(undefined);
      if (!this.targetValue) {
        this.followEditor(vscode.window.activeTextEditor);
        return;
      }
    }
    this.emitter.fire();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
