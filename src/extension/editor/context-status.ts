/**
 * The status bar item for the active file: "$(law) 2 decisions · 1 warning" when decisions,
 * warnings or findings apply to it (as the Context view lists them); hidden when nothing does, or
 * when the file is not in a folder with `.twining/`. A click focuses the Context view.
 */
import * as vscode from 'vscode';
import type { ContextModel } from '../model/context-model';
import { ContextProvider } from '../views/context-view';
import { log, messageOf } from '../log';
import { md } from '../present/format';

export class ContextStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private running: Promise<void> | undefined;
  private again = false;
  /** The text shown ('' when hidden; tests read it). */
  text = '';

  constructor(private readonly model: ContextModel) {
    this.item = vscode.window.createStatusBarItem('twining.fileContext', vscode.StatusBarAlignment.Left, 49);
    this.item.name = 'Twining: Decisions and Warnings for This File';
    this.item.command = 'twining.context.focus';
    this.disposables.push(
      this.item,
      model.onDidChange(() => this.update()),
    );
    this.update();
  }

  /** Resolves when the shown text is up to date (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private update(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.render().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.update();
      }
    });
  }

  private async render(): Promise<void> {
    try {
      const file = this.model.activeFile();
      const context = file ? await this.model.get(file.folder, file.scope) : undefined;
      const text = context ? ContextProvider.summary(context) : '';
      this.text = text;
      if (!text || !file || !context) {
        this.item.hide();
        return;
      }
      const warned = context.warnings.length > 0;
      this.item.text = `$(${warned ? 'warning' : 'law'}) ${text}`;
      const tip = new vscode.MarkdownString(undefined, true);
      tip.appendMarkdown(`**Twining: ${md(text)}** apply to ${md(file.scope)}\n\n`);
      for (const d of context.decisions.filter(d => d.status === 'active' || d.status === 'provisional').slice(0, 5)) {
        tip.appendMarkdown(`- $(law) ${md(d.summary)}${d.status === 'provisional' ? ' (provisional)' : ''}\n`);
      }
      for (const w of context.warnings.slice(0, 5)) tip.appendMarkdown(`- $(warning) ${md(String(w.summary))}\n`);
      tip.appendMarkdown('\nClick to open the Context view.');
      this.item.tooltip = tip;
      this.item.accessibilityInformation = { label: `Twining: ${text} apply to this file` };
      this.item.show();
    } catch (error) {
      log.warn(`context status bar: ${messageOf(error)}`);
      this.item.hide();
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
