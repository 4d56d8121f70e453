/**
 * The inbox: when handoffs addressed to the user's agent id arrive from another process (an agent,
 * the CLI, twining-mcp; not this extension's own writes), one notification says who and what, with
 * Open, Acknowledge and Continue in Chat; a burst gives one notification for all of them. The
 * setting `twining.inbox.notify` turns it off. The status bar count is separate (status-bar.ts);
 * both look at the handoffs model's list, queried once per change.
 */
import * as vscode from 'vscode';
import type { TwiningFolder } from '../model/folders';
import type { HandoffsModel } from '../model/handoffs-model';
import { SECTION } from '../settings';
import { followUp, inBackground, log, messageOf } from '../log';
import { ArrivalBatcher, ArrivalLine, Timers, arrivalMessage, newArrivals, realTimers } from './inbox-rules';

type Arrival = ArrivalLine & { folder: TwiningFolder };

/** One notification as shown (tests read `Inbox.shown`). */
export interface InboxNotification {
  message: string;
  actions: string[];
  handoffIds: string[];
}

const OPEN = 'Open';
const ACKNOWLEDGE = 'Acknowledge';
const CONTINUE = 'Continue in Chat';
const OPEN_VIEW = 'Open Handoffs View';

export class Inbox implements vscode.Disposable {
  /** Per folder: the unacknowledged handoffs for the user at the last look; absent before the first look. */
  private readonly known = new Map<string, Set<string>>();
  private readonly batcher: ArrivalBatcher<Arrival>;
  private readonly disposables: vscode.Disposable[] = [];
  private chain: Promise<void> = Promise.resolve();
  private startTimer: NodeJS.Timeout | undefined;
  /** Every notification shown, oldest first (tests). */
  readonly shown: InboxNotification[] = [];

  constructor(
    private readonly model: HandoffsModel,
    timers: Timers = realTimers,
  ) {
    this.batcher = new ArrivalBatcher<Arrival>(items => this.notify(items), timers);
    this.disposables.push(
      model.onDidChange(change => {
        const k = change.kinds;
        const folder = change.folder;
        if (k.has('settings') || k.has('trust')) this.enqueue(() => this.lookAll(true));
        else if (!folder) this.enqueue(() => this.lookAll(false));
        else if (k.has('handoffs') || k.has('handoffRecords')) this.enqueue(() => this.look(folder));
      }),
    );
  }

  /** Takes the first look (what is already there is not news) `delayMs` from now. */
  start(delayMs = 600): void {
    this.startTimer = setTimeout(() => this.enqueue(() => this.lookAll(false)), delayMs);
  }

  /** Resolves when the looks queued so far are done and no arrival waits to be shown (tests). */
  async idle(): Promise<void> {
    await this.chain;
    while (this.batcher.waiting) await new Promise(resolve => setTimeout(resolve, 50));
  }

  /** Whether the inbox has taken in this handoff (shown it, or found it there at its first look). */
  knows(handoffId: string): boolean {
    return [...this.known.values()].some(ids => ids.has(handoffId));
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch(error => log.warn(`inbox: ${messageOf(error)}`));
    inBackground('inbox', this.model.folders.track(this.chain));
  }

  /** Looks at every folder; `rebaseline` forgets what was known (the agent id changed). */
  private async lookAll(rebaseline: boolean): Promise<void> {
    await this.model.folders.ready();
    if (rebaseline) this.known.clear();
    for (const folder of this.model.folders.withTwiningDir()) await this.look(folder);
  }

  private async look(folder: TwiningFolder): Promise<void> {
    if (!folder.hasTwiningDir) return;
    const me = this.model.agentId();
    const handoffs = (await this.model.forMe(folder)).slice(0, 200);
    const before = this.known.get(folder.key);
    const { arrivals, known } = newArrivals(before ?? new Set(), handoffs, folder.written);
    this.known.set(folder.key, known);
    // The first look only learns what is there.
    if (before === undefined || arrivals.length === 0) return;
    log.info(`inbox: ${arrivals.length} new handoff(s) for ${me} in ${folder.name}: ${arrivals.map(a => a.id).join(', ')}`);
    this.batcher.add(arrivals.map(a => ({ id: a.id, summary: String(a.summary), source_agent: String(a.source_agent), folder })));
  }

  private notify(items: Arrival[]): void {
    if (!vscode.workspace.getConfiguration(SECTION).get<boolean>('inbox.notify', true)) return;
    const message = arrivalMessage(items);
    if (items.length === 1) {
      const [h] = items;
      const args = { handoff_id: h.id, folder: h.folder.root };
      this.record(message, [OPEN, ACKNOWLEDGE, CONTINUE], items);
      followUp(vscode.window.showInformationMessage(message, OPEN, ACKNOWLEDGE, CONTINUE), choice => {
        const command =
          choice === OPEN
            ? 'twining.openHandoff'
            : choice === ACKNOWLEDGE
              ? 'twining.acknowledgeHandoff'
              : choice === CONTINUE
                ? 'twining.continueInChat'
                : undefined;
        return command ? vscode.commands.executeCommand(command, args) : undefined;
      });
      return;
    }
    this.record(message, [OPEN_VIEW], items);
    followUp(vscode.window.showInformationMessage(message, OPEN_VIEW), () => vscode.commands.executeCommand('twining.handoffs.focus'));
  }

  private record(message: string, actions: string[], items: Arrival[]): void {
    this.shown.push({ message, actions, handoffIds: items.map(i => i.id) });
  }

  dispose(): void {
    if (this.startTimer) clearTimeout(this.startTimer);
    this.batcher.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
