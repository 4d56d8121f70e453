/**
 * The status bar item: "$(bell) 2" when two unacknowledged handoffs target the user's agent id
 * (in all Twining folders together); hidden when there are none. A click focuses the Handoffs view.
 * The count comes from the handoffs model, which the Handoffs view and the inbox share.
 */
import * as vscode from 'vscode';
import type { HandoffsModel } from '../model/handoffs-model';
import { log, messageOf } from '../log';

export class HandoffStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The last count shown (tests read it). */
  count = 0;

  constructor(private readonly model: HandoffsModel) {
    this.item = vscode.window.createStatusBarItem('twining.handoffsForYou', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Twining: Handoffs for You';
    this.item.command = 'twining.handoffs.focus';
    this.disposables.push(
      this.item,
      model.onDidChange(() => this.schedule()),
    );
  }

  /** Counts again soon (coalescing bursts of changes). */
  schedule(delayMs = 30): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.model.folders.track(this.update());
    }, delayMs);
  }

  /** Resolves when a scheduled count is done (tests). */
  async idle(): Promise<void> {
    while (this.timer || this.running) {
      if (this.running) await this.running;
      else await new Promise(resolve => setTimeout(resolve, 10));
    }
  }

  private async update(): Promise<void> {
    try {
      await this.model.folders.ready();
      const me = this.model.agentId();
      let count = 0;
      for (const folder of this.model.folders.withTwiningDir()) count += (await this.model.forMe(folder)).length;
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
