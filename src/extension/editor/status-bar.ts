/**
 * The status bar item: "$(bell) 2" when two unacknowledged handoffs target the user's agent id
 * (in all Twining folders together); hidden when there are none. A click focuses the Handoffs view.
 */
import * as vscode from 'vscode';
import type { Folders } from '../model/folders';
import { log, messageOf } from '../log';

export class HandoffStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The last count shown (tests read it). */
  count = 0;

  constructor(
    private readonly folders: Folders,
    private readonly agentId: () => string,
  ) {
    this.item = vscode.window.createStatusBarItem('twining.handoffsForYou', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Twining: Handoffs for You';
    this.item.command = 'twining.handoffs.focus';
    this.disposables.push(
      this.item,
      folders.onDidChange(change => {
        const k = change.kinds;
        if (!change.folder || k.has('handoffs') || k.has('handoffRecords') || k.has('presence') || k.has('trust') || k.has('settings')) this.schedule();
      }),
    );
  }

  /** Recounts soon (coalescing bursts of changes). */
  schedule(delayMs = 30): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.folders.track(this.update());
    }, delayMs);
  }

  /** Resolves when a scheduled recount is done (tests). */
  async idle(): Promise<void> {
    while (this.timer || this.running) {
      if (this.running) await this.running;
      else await new Promise(resolve => setTimeout(resolve, 10));
    }
  }

  private async update(): Promise<void> {
    try {
      await this.folders.ready();
      const me = this.agentId();
      let count = 0;
      for (const folder of this.folders.withTwiningDir()) {
        const { total_count } = await folder.run(engine => engine.handoffs({ target_agent: me, acknowledged: false, limit: 1 }));
        count += total_count;
      }
      this.count = count;
      if (count === 0) {
        this.item.hide();
        return;
      }
      this.item.text = `$(bell) ${count}`;
      const tip = new vscode.MarkdownString(undefined, true);
      tip.appendMarkdown(`**${count} unacknowledged handoff${count === 1 ? '' : 's'}** for you (\`${me}\`)\n\nClick to open the Handoffs view.`);
      this.item.tooltip = tip;
      this.item.accessibilityInformation = { label: `Twining: ${count} unacknowledged handoffs for you` };
      this.item.show();
    } catch (error) {
      log.warn(`status bar: ${messageOf(error)}`);
    } finally {
      this.running = undefined;
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
