/**
 * Sync in the editor (core/sync/): for each trusted folder with `.twining/` in a clone that has
 * synced once (`twining sync` or *Twining: Sync*), a background sync every
 * `twining.sync.intervalSeconds` (default 30) and soon after a write; the views follow what comes
 * in through the file watcher like any other write. The status bar item says when the folder last
 * synced, what is pending and any error with its fix; a warning that another clone posted is
 * shown as a notification, without any action by the user.
 */
import * as vscode from 'vscode';
import type { SyncReport, SyncScheduler, SyncStatus } from '../../core';
import type { Folders, TwiningFolder } from '../model/folders';
import { core } from '../model/engine-loader';
import { followUp, inBackground, log } from '../log';
import { SECTION } from '../settings';

type Scheduler = SyncScheduler;

interface FolderSync {
  folder: TwiningFolder;
  scheduler: Scheduler;
  status?: SyncStatus;
  lastReport?: SyncReport;
}

/** The running sync status bar (the Sync command tells it about a sync it ran). */
export function currentSync(): SyncStatusBar | undefined {
  return SyncStatusBar.current;
}

export class SyncStatusBar implements vscode.Disposable {
  static current: SyncStatusBar | undefined;
  private readonly item: vscode.StatusBarItem;
  private readonly syncs = new Map<string, FolderSync>();
  private readonly disposables: vscode.Disposable[] = [];
  private ticker?: NodeJS.Timeout;
  /** Notifications shown (tests read them). */
  readonly shown: string[] = [];

  constructor(private readonly folders: Folders) {
    this.item = vscode.window.createStatusBarItem('twining.sync', vscode.StatusBarAlignment.Left, 49);
    this.item.name = 'Twining: Sync';
    this.item.command = 'twining.sync';
    this.disposables.push(
      this.item,
      folders.onDidChange(change => {
        if (change.folder) this.syncs.get(change.folder.root)?.scheduler.poke();
      }),
      vscode.workspace.onDidChangeConfiguration(event => {
        if (event.affectsConfiguration(`${SECTION}.sync`)) this.restart();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.restart()),
    );
    SyncStatusBar.current = this;
  }

  /** Starts a scheduler for each folder with `.twining/` (after the folders were looked at). */
  start(): void {
    inBackground(
      'starting background sync',
      this.folders.ready().then(() => this.restart()),
    );
    this.ticker = setInterval(() => this.draw(), 30_000);
  }

  private restart(): void {
    for (const s of this.syncs.values()) s.scheduler.stop();
    this.syncs.clear();
    if (!this.folders.isTrusted) return this.draw();
    const seconds = vscode.workspace.getConfiguration(SECTION).get<number>('sync.intervalSeconds') ?? 30;
    for (const folder of this.folders.withTwiningDir()) {
      const entry: FolderSync = { folder, scheduler: undefined as unknown as Scheduler };
      entry.scheduler = new (core().SyncScheduler)(
        { sync: options => folder.run(e => e.sync(options)), syncStatus: () => folder.beside(e => e.syncStatus()) },
        {
          intervalMs: Math.max(5, seconds) * 1000,
          onReport: report => this.reported(entry, report),
          onError: error => log.warn(`${folder.name}: background sync: ${error.message}`),
          onState: status => {
            entry.status = status;
            this.draw();
          },
        },
      ).start();
      this.syncs.set(folder.root, entry);
    }
  }

  /** A sync ran (in the background, or by the command): refresh and tell what came in. */
  reported(entry: FolderSync | TwiningFolder, report: SyncReport): void {
    const sync = 'scheduler' in entry ? entry : this.syncs.get(entry.root);
    const folder = 'scheduler' in entry ? entry.folder : entry;
    if (sync) sync.lastReport = report;
    const c = report.incoming;
    const incoming = c.entries + c.decisions + c.handoffs + c.claims + c.agents + c.graph;
    if (incoming > 0) {
      log.info(`${folder.name}: sync with ${report.remote}: in ${JSON.stringify(report.incoming)}, out ${JSON.stringify(report.outgoing)}`);
      inBackground(`${folder.name}: reading what sync brought in`, folder.refresh());
    }
    const warnings = report.incoming_entries.filter(e => e.entry_type === 'warning');
    if (warnings.length) {
      const first = warnings[0];
      const message =
        warnings.length === 1
          ? `Twining: ${first.agent_id ?? 'another agent'} posted a warning on another clone (synced from ${report.remote}): ${first.summary ?? first.id}`
          : `Twining: ${warnings.length} warnings came in from other clones (synced from ${report.remote}), the first by ${first.agent_id ?? 'another agent'}: ${first.summary ?? first.id}`;
      this.shown.push(message);
      followUp(vscode.window.showWarningMessage(message, 'Open'), () =>
        vscode.commands.executeCommand('twining.openRecord', { folder: folder.root, type: 'entry', id: first.id }),
      );
    }
    for (const lost of report.claims_lost)
      followUp(
        vscode.window.showWarningMessage(`Twining: ${lost.agent_id}'s claim on ${lost.target} was released: ${lost.holder} claimed it first on another clone.`),
        () => undefined,
      );
    inBackground(
      `${folder.name}: sync status`,
      folder
        .beside(e => e.syncStatus())
        .then(status => {
          if (sync) sync.status = status;
          this.draw();
        }),
    );
  }

  /** Runs a background-style sync of every folder now (tests, and after the command turned sync on). */
  async syncNow(): Promise<void> {
    if (this.syncs.size === 0) this.restart();
    await Promise.all([...this.syncs.values()].map(s => s.scheduler.run('manual')));
  }

  private draw(): void {
    const states = [...this.syncs.values()].filter(s => s.status?.enabled);
    if (states.length === 0) {
      this.item.hide();
      return;
    }
    const failed = states.filter(s => s.status?.last_error);
    const pending = states.reduce((n, s) => n + (s.status?.pending ?? 0), 0);
    const last = states
      .map(s => s.status?.last_sync_at)
      .filter((t): t is string => !!t)
      .sort()[0];
    const ago = last ? agoText(Date.now() - Date.parse(last)) : 'never';
    this.item.text = failed.length ? `$(warning) Sync failed` : `$(sync) ${ago}${pending ? ` · ${pending} pending` : ''}`;
    const tip = new vscode.MarkdownString(undefined, true);
    for (const s of states) {
      const st = s.status!;
      tip.appendMarkdown(`**${s.folder.name}** syncs with \`${st.remote}\` on \`${st.ref}\` as *${st.clone ?? 'this clone'}*  \n`);
      tip.appendMarkdown(`Last sync: ${st.last_sync_at ?? 'never'}; pending: ${st.pending} file(s)  \n`);
      if (st.last_error) tip.appendMarkdown(`Error: ${st.last_error}  \n${st.fix ? `Fix: ${st.fix}  \n` : ''}`);
    }
    tip.appendMarkdown('\nClick to sync now.');
    this.item.tooltip = tip;
    this.item.backgroundColor = failed.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: `Twining sync: ${failed.length ? 'failed' : `last synced ${ago}`}, ${pending} pending` };
    this.item.show();
  }

  dispose(): void {
    for (const s of this.syncs.values()) s.scheduler.stop();
    clearInterval(this.ticker);
    for (const d of this.disposables) d.dispose();
    if (SyncStatusBar.current === this) SyncStatusBar.current = undefined;
  }
}

function agoText(ms: number): string {
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`;
  return `${Math.round(ms / 3_600_000)} h ago`;
}
