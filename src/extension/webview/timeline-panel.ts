/**
 * Twining: Open Timeline. One webview panel per window showing one workspace folder's team over
 * time (the layout data comes from webview/shared/timeline-layout.ts through timeline-feed.ts; the page is
 * src/webview/pages/timeline-view.ts). The page holds only the window it shows: it asks for it, the
 * feed answers from the items it keeps (read once, then kept current from the engine's change
 * events, also while the page is hidden) and sends the window again after each change. Clicks
 * open the same documents the views open.
 */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { documentUri, showDocument } from '../editor/record-documents';
import { inBackground, log, messageOf } from '../log';
import { TimelineFeed } from './timeline-feed';
import { onFolderChange } from './folder-changes';
import { escapeHtml, webviewHtml, webviewOptions } from './webview-html';
import { PageStateFile } from './page-state-file';
import { newerState, type FromWebview, type TimelineMark, type TimelineState, type ToWebview } from '../../webview/shared/timeline-messages';

export const TIMELINE_VIEW_TYPE = 'twining.timeline';
/** The name of the file in the workspace's storage that keeps the page's state (page-state-file.ts). */
const PAGE_STATE_FILE = 'timeline-state';

/** The last first-paint the page reported (benchmarks and host tests read it through the test hooks). */
export interface PaintReport {
  items: number;
  ms: number;
  drawMs: number;
  reason: string;
  at: number;
  /** The extension's part of a first paint: reading the folder (the engine's refresh), and that with the items laid out. */
  readMs?: number;
  loadMs?: number;
  /** With the panel's first paint: the extension's and the page's marks of the way there, in time order (see TimelineMark). */
  marks?: TimelineMark[];
}

/** Now as a wall-clock time with the precision of performance.now() (the page's marks use the same clock). */
const wall = () => performance.timeOrigin + performance.now();

export class TimelinePanel implements vscode.Disposable {
  private static current: TimelinePanel | undefined;
  private feed: TimelineFeed | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Messages are sent in order: a delta never overtakes the reset it follows. */
  private queue: Promise<unknown> = Promise.resolve();
  readonly paints: PaintReport[] = [];
  /** Whether the page is loaded and listening (a hidden panel's page is gone until it is shown again). */
  private ready = false;
  /** Whether the page still waits for the arrows and links (sent after its first window). */
  private relationsDue = false;
  /** The way to the first paint (a few array pushes; dropped with it): the benchmark reads them with the paint. */
  private startMarks: TimelineMark[] | undefined;
  /** The page's state as the extension keeps it (page-state-file.ts), for a reload that outruns the workbench's copy. */
  private readonly stateFile: PageStateFile<TimelineState>;

  /** Opens the timeline (or shows the open one) for `folder`, or the first folder with `.twining/`. */
  static async show(ctx: TwiningSession, folder?: TwiningFolder): Promise<TimelinePanel> {
    const asked = wall();
    await ctx.folders.ready();
    const target = folder ?? ctx.folders.withTwiningDir()[0];
    if (TimelinePanel.current) {
      TimelinePanel.current.panel.reveal();
      if (target && TimelinePanel.current.feed?.folder.key !== target.key) TimelinePanel.current.use(target);
      return TimelinePanel.current;
    }
    const created = wall();
    const panel = vscode.window.createWebviewPanel(TIMELINE_VIEW_TYPE, 'Twining Timeline', vscode.ViewColumn.Active, webviewOptions(ctx.extensionUri));
    return (TimelinePanel.current = new TimelinePanel(panel, ctx, target, [
      ['command', asked],
      ['panel asked', created],
      ['panel created', wall()],
    ]));
  }

  /**
   * Brings back a panel VS Code restored after a reload (the serializer), with the page's saved
   * state: the workbench's copy, or the extension's where that is newer (the page is given it).
   */
  static async revive(panel: vscode.WebviewPanel, ctx: TwiningSession, state: TimelineState | undefined): Promise<TimelinePanel> {
    panel.webview.options = webviewOptions(ctx.extensionUri);
    const restored = newerState(state, await PageStateFile.in<TimelineState>(ctx.storageUri, PAGE_STATE_FILE).read());
    const folder = ctx.folders.all().find(f => f.key === restored?.folder);
    TimelinePanel.current?.dispose();
    return (TimelinePanel.current = new TimelinePanel(panel, ctx, folder, [], restored !== state ? restored : undefined));
  }

  /** The open panel, if any (test hooks). */
  static get open(): TimelinePanel | undefined {
    return TimelinePanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly ctx: TwiningSession,
    folder: TwiningFolder | undefined,
    marks: TimelineMark[] = [],
    /** The state the page starts from where it is newer than the one the workbench gives it back (revive). */
    state?: TimelineState,
  ) {
    this.startMarks = marks;
    this.stateFile = PageStateFile.in<TimelineState>(ctx.storageUri, PAGE_STATE_FILE);
    panel.iconPath = vscode.Uri.joinPath(ctx.extensionUri, 'media', 'twining.svg');
    const given = state ? ` data-state="${escapeHtml(JSON.stringify(state))}"` : '';
    panel.webview.html = webviewHtml(panel.webview, ctx.extensionUri, {
      title: 'Twining Timeline',
      script: 'timeline',
      body: `<div id="app"${given} aria-busy="true">Loading the timeline…</div>`,
    });
    this.mark('html set');
    if (folder) this.use(folder);
    // The page's start is posted now, not when the page says it is ready: VS Code keeps the messages
    // posted to a webview whose page is still loading and hands them over once it has loaded (its
    // webview host page, pre/index.html, queues them), so the page's first question leaves as soon as
    // its script has run, without the round trip of saying so. Its 'ready' gets the start once more
    // (a page that was loaded again, after a reload or a hide, or lost what was queued, needs it).
    this.ready = true;
    this.sendAll();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: FromWebview) => this.received(message)),
      onFolderChange(
        ctx.folders,
        () => this.feed?.folder,
        // Also while the page is hidden: the feed keeps its items current, and only what a shown page needs is posted.
        kinds => this.enqueue(async () => (this.feed ? this.feed.changed(kinds) : [])),
      ),
      // Hidden, the page is unloaded (no retainContextWhenHidden: it keeps its state with setState and
      // asks for everything again when shown).
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.sendActiveFile()),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Shows `folder` (a new feed: everything is sent again). */
  private use(folder: TwiningFolder): void {
    this.feed = new TimelineFeed(
      folder,
      () => this.ctx.agentId(),
      name => this.mark(name),
    );
    // The folder is read while the page loads: the page's first question finds it ready.
    inBackground(
      'Timeline: reading the folder',
      this.feed.load().then(() => this.mark('folder read')),
    );
    this.panel.title = this.ctx.folders.all().length > 1 ? `Twining Timeline: ${folder.name}` : 'Twining Timeline';
    if (this.ready) this.sendAll();
  }

  private mark(name: string): void {
    this.startMarks?.push([name, wall()]);
  }

  private received(message: FromWebview): void {
    // The page's state (after each change) is no step of the way to a paint.
    if (message.type !== 'painted' && message.type !== 'state') this.mark(`${message.type} in`);
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.sendAll();
        break;
      case 'query': {
        const { type: _type, ...query } = message;
        this.enqueue(async () => (this.feed ? [await this.feed.window(query)] : []));
        // While the items are laid out lazily, the first answer holds the newest columns: the whole window follows.
        if (this.feed) {
          const feed = this.feed;
          this.enqueue(async () => {
            const rest = await feed.rest();
            return rest ? [rest] : [];
          });
        }
        // The records behind the arrows and links come after the first paint.
        if (this.relationsDue && this.feed) {
          const feed = this.feed;
          this.relationsDue = false;
          this.enqueue(async () => [await feed.relations()]);
        }
        break;
      }
      case 'step':
        this.enqueue(() => Promise.resolve(this.feed ? [this.feed.step(message)] : []));
        break;
      case 'open':
        inBackground('Timeline: opening a record', this.open(message.ref.type, message.ref.id));
        break;
      case 'state':
        this.stateFile.keep(message.state);
        break;
      case 'showGraph':
        void vscode.commands.executeCommand('twining.showGraph', { id: message.decisionId, folder: this.feed?.folder.root });
        break;
      case 'painted': {
        if (message.reason === 'first paint') this.feed?.firstFrame();
        const first = message.reason === 'first paint' && this.startMarks && message.marks;
        if (first) this.mark('painted in');
        this.paints.push({
          items: message.items,
          ms: message.ms,
          drawMs: message.drawMs,
          reason: message.reason,
          at: Date.now(),
          ...(message.reason === 'first paint' && this.feed ? this.feed.timings : {}),
          ...(first ? { marks: [...this.startMarks!, ...message.marks!].sort((a, b) => a[1] - b[1]) } : {}),
        });
        if (first) this.startMarks = undefined;
        if (this.paints.length > 100) this.paints.shift();
        log.info(`Timeline: ${message.reason} painted ${message.items} entries in ${message.ms.toFixed(1)} ms.`);
        break;
      }
    }
  }

  private sendAll(): void {
    const feed = this.feed;
    if (!feed) {
      void this.post({ type: 'empty', message: 'No workspace folder has a .twining/ folder yet.' });
      return;
    }
    // Who is who and where the history starts; the page then asks for the window it shows.
    this.enqueue(async () => [await feed.opened()]);
    this.sendActiveFile();
    this.relationsDue = true;
  }

  private sendActiveFile(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const path = uri && this.feed ? this.feed.folder.relativePath(uri) : undefined;
    this.enqueue(() => Promise.resolve<ToWebview[]>([{ type: 'activeFile', ...(path ? { path } : {}) }]));
  }

  private enqueue(work: () => Promise<ToWebview[]>): void {
    this.queue = this.queue
      .then(work)
      .then(messages => {
        // Posted in order without waiting for each to arrive (VS Code delivers them in the order posted):
        // the next piece of work (the answer to the page's question) need not wait for the round trip.
        for (const m of messages) {
          if (!this.ready) continue;
          this.mark(`${m.type} posted`);
          this.post(m).then(undefined, error => log.warn(`Timeline: a message to the page was not delivered: ${messageOf(error)}`));
        }
      })
      .catch(error => {
        log.warn(`Timeline: ${messageOf(error)}`);
        void this.post({ type: 'empty', message: `The timeline could not be read: ${messageOf(error)}` });
      });
  }

  private post(message: ToWebview): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  private async open(type: 'entry' | 'decision' | 'handoff', id: string): Promise<void> {
    const folder = this.feed?.folder;
    if (!folder) return;
    try {
      await showDocument(documentUri(folder, type, id));
    } catch (error) {
      void vscode.window.showErrorMessage(`Twining: could not open the ${type} ${id}: ${messageOf(error)}`);
    }
  }

  dispose(): void {
    if (TimelinePanel.current === this) TimelinePanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}
