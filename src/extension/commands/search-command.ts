/**
 * Twining: Search. With an argument object (the fields of `search`) it returns the ranked
 * results; from the palette it opens a quick pick that searches as you type, from the index the
 * engine keeps (nothing is re-read per keystroke), and opens the chosen decision or entry the way
 * the views do (Open Record).
 */
import * as vscode from 'vscode';
import { inBackground } from '../log';
import type { SearchHit, SearchResult } from '../../core/search/search-index';
import type { TwiningFolder } from '../model/folders';
import type { TwiningSession } from '../session';
import { oneLine, relative } from '../present/format';
import { Invocation, folderFromArgs } from './command-runner';
import { pickFolder } from './prompts';

/** Codicons by record type: decisions by status, entries by entry type. */
const ICONS: Record<string, string> = {
  active: 'law',
  provisional: 'question',
  superseded: 'history',
  overridden: 'circle-slash',
  warning: 'warning',
  finding: 'lightbulb',
  need: 'megaphone',
  offer: 'gift',
  question: 'comment-discussion',
  answer: 'comment',
  constraint: 'lock',
  status: 'info',
  artifact: 'package',
  decision: 'law',
};

/** How long typing must pause before a search runs. */
const DEBOUNCE_MS = 120;
const LIMIT = 50;

export interface SearchItem extends vscode.QuickPickItem {
  hit?: SearchHit;
}

/** One search shown in a quick pick; tests reach the open one through `currentSearch()`. */
export class SearchSession implements vscode.Disposable {
  readonly quickPick = vscode.window.createQuickPick<SearchItem>();
  /** The query the shown items answer ('' before the first search). */
  shownQuery = '';
  private timer?: ReturnType<typeof setTimeout>;
  private sequence = 0;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly folder: TwiningFolder,
    private readonly now: () => Date,
    private readonly onAccept: (hit: SearchHit) => Promise<void>,
  ) {
    const qp = this.quickPick;
    qp.title = `Twining: Search${folder.name ? ` (${folder.name})` : ''}`;
    qp.placeholder = 'Search decisions, warnings, findings… (keywords; prefixes and small typos match)';
    // The engine ranks; the quick pick must not filter or re-sort by label.
    qp.matchOnDescription = false;
    qp.matchOnDetail = false;
    this.disposables.push(
      qp,
      qp.onDidChangeValue(value => this.schedule(value)),
      qp.onDidAccept(() => {
        const hit = qp.selectedItems[0]?.hit ?? qp.activeItems[0]?.hit;
        if (!hit) return;
        qp.hide();
        inBackground('Search: opening the result', this.onAccept(hit));
      }),
      qp.onDidHide(() => this.dispose()),
    );
  }

  show(): void {
    this.quickPick.show();
  }

  private schedule(value: string): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      inBackground('Search', this.run(value.trim()));
    }, DEBOUNCE_MS);
  }

  private async run(query: string): Promise<void> {
    const seq = ++this.sequence;
    const qp = this.quickPick;
    if (query === '') {
      qp.items = [];
      this.shownQuery = '';
      return;
    }
    qp.busy = true;
    try {
      const result: SearchResult = await this.folder.run(engine => engine.search({ query, limit: LIMIT }));
      if (seq !== this.sequence) return; // a later keystroke's search is under way
      qp.items = itemsOf(result, query, this.now());
      this.shownQuery = query;
    } catch (error) {
      if (seq !== this.sequence) return;
      qp.items = [{ label: `$(error) ${(error as Error).message}`, alwaysShow: true }];
      this.shownQuery = query;
    } finally {
      if (seq === this.sequence) qp.busy = false;
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (current === this) current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** The quick pick rows: summary as label; type, scope, age and author in the description. */
export function itemsOf(result: SearchResult, query: string, now: Date): SearchItem[] {
  if (result.results.length === 0) return [{ label: `$(circle-slash) Nothing matches "${oneLine(query, 60)}"`, alwaysShow: true }];
  return result.results.map(hit => {
    const type = hit.kind === 'decision' ? hit.status : hit.entry_type;
    const what = hit.kind === 'decision' ? `${hit.status} decision · ${hit.domain}` : hit.entry_type;
    return {
      label: `$(${ICONS[type] ?? 'note'}) ${oneLine(hit.summary, 120)}`,
      description: [what, hit.scope, relative(hit.timestamp, now), hit.agent_id].filter(Boolean).join(' · '),
      // Every row stays: the engine has already matched and ranked them.
      alwaysShow: true,
      hit,
    };
  });
}

let current: SearchSession | undefined;

/** The search quick pick now open, if any (test hooks). */
export function currentSearch(): SearchSession | undefined {
  return current;
}

export async function search(inv: Invocation, ctx: TwiningSession): Promise<SearchResult | undefined> {
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    return folder.run(engine => engine.search(inv.args as never));
  }
  const folder = inv.mode === 'node' ? inv.node.folder : await pickFolder(ctx, { title: 'Twining: Search' });
  current?.dispose();
  const session = new SearchSession(
    folder,
    () => ctx.clock.now(),
    async hit => {
      await vscode.commands.executeCommand('twining.openRecord', {
        type: hit.kind === 'decision' ? 'decision' : 'entry',
        id: hit.id,
        folder: folder.root,
      });
    },
  );
  current = session;
  session.show();
  return undefined;
}
