/**
 * The walkthrough's progress (package.json `contributes.walkthroughs`, "Get started with
 * Twining"): each step completes by itself through a context key (`completionEvents:
 * onContext:…`), which this keeps current from the models the views draw from:
 *  - `twining.walkthrough.agentsWired`: a folder holds the launcher `twining setup` writes
 *    (`.agents/twining/hook.js`); *Set Up Agents* sets it too when it writes;
 *  - `twining.walkthrough.boardFilled`: an agent is registered in a folder;
 *  - `twining.walkthrough.hasHandoff`: a folder holds a handoff.
 * (`twining.hasFolder`, the initialize step's key, is the folders' own.)
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Folders } from '../model/folders';
import type { AgentsModel } from '../model/agents-model';
import type { HandoffsModel } from '../model/handoffs-model';
import { HOOK_LAUNCHER } from '../../agents/setup/launcher';
import { inBackground, setContext } from '../log';

export class WalkthroughProgress implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly shown = new Map<string, boolean>();

  constructor(
    private readonly folders: Folders,
    private readonly agents: AgentsModel,
    private readonly handoffs: HandoffsModel,
  ) {
    const update = () => inBackground('walkthrough progress', this.update());
    this.disposables.push(agents.onDidChange(update), handoffs.onDidChange(update));
  }

  start(): void {
    inBackground(
      'walkthrough progress',
      this.folders.ready().then(() => this.update()),
    );
  }

  private set(key: string, value: boolean): void {
    // A step stays done once done: only a change to true is sent.
    if (!value || this.shown.get(key)) return;
    this.shown.set(key, true);
    setContext(key, true);
  }

  async update(): Promise<void> {
    for (const folder of this.folders.withTwiningDir()) {
      const launcher = await fs.stat(path.join(folder.root, ...HOOK_LAUNCHER.split('/'))).catch(() => undefined);
      this.set('twining.walkthrough.agentsWired', !!launcher);
      const { agents } = await this.agents.agents(folder);
      this.set('twining.walkthrough.boardFilled', agents.length > 0);
      const { total } = await this.handoffs.list(folder);
      this.set('twining.walkthrough.hasHandoff', total > 0);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
