/**
 * What the Agents, Delegations and Handoffs views share (the Context view draws its own tree): the
 * grouping by workspace folder when there are several, redrawing when their family's model says
 * its data changed (model/family-model.ts), keeping the last good data when a file cannot be read,
 * redrawing at the next liveness or expiry transition, and a slow tick for "expires in" texts
 * while a view is visible. Views draw: they neither filter announcements nor re-read files.
 */
import * as vscode from 'vscode';
import type { Liveness } from '../../core';
import type { TwiningFolder } from '../model/folders';
import type { FamilyModel } from '../model/family-model';
import type { TwiningSession } from '../session';
import { log, messageOf } from '../log';
import { makeNode, type FolderNode, type MessageNode, type Node } from './nodes';

// ---------------------------------------------------------------------------------------------
// Icons

export const LIVENESS_ICON: Record<Liveness, vscode.ThemeIcon> = {
  active: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('charts.green')),
  idle: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('charts.yellow')),
  gone: new vscode.ThemeIcon('circle-outline', new vscode.ThemeColor('disabledForeground')),
};

export const LIVENESS_ORDER: Record<Liveness, number> = { active: 0, idle: 1, gone: 2 };

// ---------------------------------------------------------------------------------------------
// Providers

const TICK_MS = 30_000;
const MAX_TIMER_MS = 6 * 3600_000;

/**
 * A tree of the present folders' data: the folder's items directly when there is one folder,
 * under one node per folder when there are several.
 */
export abstract class FolderTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  protected readonly emitter = new vscode.EventEmitter<Node | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  protected readonly disposables: vscode.Disposable[] = [this.emitter];
  private readonly folderNodes = new Map<string, FolderNode>();
  private readonly lastGood = new Map<string, Node[]>();
  private readonly transitions = new Map<string, number>();
  private transitionTimer: NodeJS.Timeout | undefined;
  private tickTimer: NodeJS.Timeout | undefined;
  private view: vscode.TreeView<Node> | undefined;
  /** Number of root redraws so far (tests and benchmarks read it). */
  redraws = 0;

  /** What this view lists, for messages ("agents"). */
  protected abstract readonly what: string;
  /** Whether "expires in"/"ago" texts need the slow tick while visible. */
  protected readonly ticks: boolean = false;

  constructor(
    protected readonly session: TwiningSession,
    model: FamilyModel,
  ) {
    this.disposables.push(model.onDidChange(change => this.redraw(change.folder)));
  }

  /** Connects the TreeView, so the slow tick runs only while the view is visible. */
  attach(view: vscode.TreeView<Node>): void {
    this.view = view;
    this.disposables.push(view.onDidChangeVisibility(() => this.updateTick()));
    this.updateTick();
  }

  /** Redraws one folder's part of the tree (or all of it). */
  redraw(folder?: TwiningFolder): void {
    if (folder && this.session.folders.withTwiningDir().length > 1) {
      const node = this.folderNodes.get(folder.key);
      if (node) {
        this.emitter.fire(node);
        return;
      }
    }
    this.emitter.fire();
  }

  async getChildren(element?: Node): Promise<Node[]> {
    if (!element) {
      await this.session.folders.ready();
      const present = this.session.folders.withTwiningDir();
      for (const key of [...this.transitions.keys()]) if (!present.some(f => f.key === key)) this.transitions.delete(key);
      if (present.length === 0) return [];
      if (present.length === 1) return this.rootOf(present[0]);
      return present.map(folder => this.folderNode(folder));
    }
    if (element.kind === 'folder') return this.rootOf(element.folder);
    try {
      return await this.childrenOf(element);
    } catch (error) {
      log.warn(`${element.folder.name}: ${this.what}: ${messageOf(error)}`);
      return [messageNode(element.folder, `${element.kind}-error`, `Could not read: ${messageOf(error)}`)];
    }
  }

  private folderNode(folder: TwiningFolder): FolderNode {
    let node = this.folderNodes.get(folder.key);
    if (!node || node.folder !== folder) {
      node = makeNode<FolderNode>({ kind: 'folder', folder });
      this.folderNodes.set(folder.key, node);
    }
    return node;
  }

  /** The top-level items of one folder; on failure, the last good items under a warning. */
  private async rootOf(folder: TwiningFolder): Promise<Node[]> {
    this.redraws++;
    try {
      const { items, nextTransition } = await this.load(folder);
      this.lastGood.set(folder.key, items);
      this.setTransition(folder, nextTransition);
      return items;
    } catch (error) {
      log.warn(`${folder.name}: could not read ${this.what}: ${messageOf(error)}`);
      const last = this.lastGood.get(folder.key);
      return [
        messageNode(
          folder,
          'load-error',
          `Could not read ${this.what}: ${messageOf(error)}`,
          last ? 'Showing the last data that could be read; it updates when the file is fixed.' : 'It updates when the file is fixed.',
        ),
        ...(last ?? []),
      ];
    }
  }

  /** Loads one folder's top-level items and says when they next change by time alone. */
  protected abstract load(folder: TwiningFolder): Promise<{ items: Node[]; nextTransition?: number }>;
  protected abstract childrenOf(element: Node): Node[] | Promise<Node[]>;
  protected abstract itemOf(element: Node): vscode.TreeItem;
  protected tooltipOf(_element: Node): vscode.MarkdownString | string | undefined {
    return undefined;
  }

  getTreeItem(element: Node): vscode.TreeItem {
    switch (element.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(element.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `${element.folder.key}#folder`;
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.resourceUri = element.folder.workspaceFolder.uri;
        item.description = element.folder.isReadOnly ? 'read-only' : undefined;
        item.contextValue = 'twining.folder';
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(element.text, vscode.TreeItemCollapsibleState.None);
        item.id = `${element.folder.key}#message:${element.id}`;
        item.iconPath =
          element.severity === 'warning' ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon('info');
        item.tooltip = element.detail ? `${element.text}\n\n${element.detail}` : element.text;
        item.description = element.detail;
        item.contextValue = 'twining.message';
        return item;
      }
      default:
        return this.itemOf(element);
    }
  }

  /** Tooltips are built on hover, so their relative times are current. */
  resolveTreeItem(item: vscode.TreeItem, element: Node): vscode.TreeItem {
    if (item.tooltip === undefined) item.tooltip = this.tooltipOf(element);
    return item;
  }

  // -------------------------------------------------------------------------------------------
  // Time

  private setTransition(folder: TwiningFolder, at: number | undefined): void {
    if (at === undefined) this.transitions.delete(folder.key);
    else this.transitions.set(folder.key, at);
    if (this.transitionTimer) clearTimeout(this.transitionTimer);
    this.transitionTimer = undefined;
    if (this.transitions.size === 0) return;
    const next = Math.min(...this.transitions.values());
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, next - this.session.clock.now().getTime()) + 20);
    this.transitionTimer = setTimeout(() => {
      this.transitionTimer = undefined;
      this.transitions.clear();
      this.redraw();
    }, delay);
  }

  private updateTick(): void {
    const visible = this.ticks && this.view?.visible === true;
    if (visible && !this.tickTimer) this.tickTimer = setInterval(() => this.redraw(), TICK_MS);
    if (!visible && this.tickTimer) {
      clearInterval(this.tickTimer);
      this.tickTimer = undefined;
    }
  }

  dispose(): void {
    if (this.transitionTimer) clearTimeout(this.transitionTimer);
    if (this.tickTimer) clearInterval(this.tickTimer);
    for (const d of this.disposables) d.dispose();
  }
}

export function messageNode(folder: TwiningFolder, id: string, text: string, detail?: string, severity: 'warning' | 'info' = 'warning'): MessageNode {
  return makeNode<MessageNode>({ kind: 'message', folder, id, text, detail, severity });
}

/** The earliest of some instants after `now`, or undefined. */
export function earliest(times: Iterable<number | undefined>, now: number): number | undefined {
  let best: number | undefined;
  for (const t of times) if (t !== undefined && Number.isFinite(t) && t > now && (best === undefined || t < best)) best = t;
  return best;
}
