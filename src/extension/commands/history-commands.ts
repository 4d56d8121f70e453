/**
 * Export as Markdown and What Changed Since…: two read-only views of the engine's history tools
 * (`export`, `what_changed`). With an argument object each returns the core result (Export also
 * opens the document); from the palette they ask for the folder, the scope or the time.
 */
import * as vscode from 'vscode';
import type { ExportResult } from '../../core/operations/export-ops';
import type { WhatChanged } from '../../core/operations/change-ops';
import type { TwiningFolder } from '../model/folders';
import type { TwiningSession } from '../session';
import { scopeOfUri } from '../model/context-model';
import { oneLine } from '../present/format';
import { Invocation, folderFromArgs } from './command-runner';
import { askText, pickFolder, pickOne } from './prompts';

const HOUR_MS = 3600_000;

/** Opens the export as an untitled Markdown document beside nothing else: the user saves it where they like. */
async function openMarkdown(markdown: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
  await vscode.window.showTextDocument(doc, { preview: false });
}

export async function exportMarkdown(inv: Invocation, ctx: TwiningSession): Promise<ExportResult> {
  const title = 'Twining: Export as Markdown';
  let folder: TwiningFolder;
  let scope: string | undefined;
  if (inv.mode === 'args') {
    folder = await folderFromArgs(ctx, inv.args);
    const args = inv.args;
    const result = await folder.run(engine => engine.export(args as never));
    await openMarkdown(result.markdown);
    return result;
  }
  if (inv.mode === 'uri') {
    const file = scopeOfUri(ctx.folders, inv.uri);
    if (!file) throw new Error(`${inv.uri.fsPath} is not in a folder with .twining/`);
    ({ folder, scope } = file);
  } else {
    folder = inv.mode === 'node' ? inv.node.folder : await pickFolder(ctx, { title });
    const active = scopeOfUri(ctx.folders, vscode.window.activeTextEditor?.document.uri);
    if (active && active.folder === folder) {
      const choice = await pickOne(
        { title },
        [
          { label: '$(root-folder) Everything', description: folder.name, scope: undefined },
          { label: `$(file) ${active.scope}`, description: "only what overlaps the active file's scope", scope: active.scope },
        ],
        'Export the whole state or one scope?',
      );
      scope = choice.scope;
    }
  }
  const result = await folder.run(engine => engine.export(scope ? { scope } : {}));
  await openMarkdown(result.markdown);
  return result;
}

interface ChangeItem extends vscode.QuickPickItem {
  record?: { type: 'decision' | 'entry'; id: string };
}

/** The quick pick rows of a what_changed result, grouped by kind. */
export function changeItems(result: WhatChanged): ChangeItem[] {
  const items: ChangeItem[] = [];
  const group = (label: string, rows: ChangeItem[]) => {
    if (rows.length === 0) return;
    items.push({ label, kind: vscode.QuickPickItemKind.Separator }, ...rows);
  };
  group(
    'New decisions',
    result.new_decisions.map(d => ({ label: `$(law) ${oneLine(d.summary, 120)}`, record: { type: 'decision', id: d.id } })),
  );
  group(
    'New entries',
    result.new_entries.map(e => ({ label: `$(note) ${oneLine(e.summary, 120)}`, description: e.entry_type, record: { type: 'entry', id: e.id } })),
  );
  group(
    'Overridden',
    result.overridden_decisions.map(d => ({
      label: `$(circle-slash) ${oneLine(d.summary, 120)}`,
      description: oneLine(d.reason, 80),
      record: { type: 'decision', id: d.id },
    })),
  );
  group(
    'Reconsidered (provisional)',
    result.reconsidered_decisions.map(d => ({ label: `$(question) ${oneLine(d.summary, 120)}`, record: { type: 'decision', id: d.id } })),
  );
  return items;
}

/** Asks for the time: presets or an ISO 8601 time typed in. */
async function askSince(now: Date, title: string): Promise<string> {
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const yesterday = new Date(now);
  yesterday.setDate(yesterday.getDate() - 1);
  yesterday.setHours(0, 0, 0, 0);
  const choice = await pickOne(
    { title },
    [
      { label: 'Last hour', since: ago(HOUR_MS) },
      { label: 'Since yesterday', description: yesterday.toLocaleString(), since: yesterday.toISOString() },
      { label: 'Last week', since: ago(7 * 24 * HOUR_MS) },
      { label: 'A time…', description: 'ISO 8601, e.g. 2026-01-31T09:00:00Z', since: undefined },
    ],
    'What changed since when?',
  );
  if (choice.since) return choice.since;
  const typed = await askText(
    { title },
    { prompt: 'An ISO 8601 time (UTC with Z, or with an offset)', value: ago(24 * HOUR_MS), placeHolder: '2026-01-31T09:00:00Z' },
  );
  return typed.trim();
}

export async function whatChangedSince(inv: Invocation, ctx: TwiningSession): Promise<WhatChanged | undefined> {
  const title = 'Twining: What Changed Since…';
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    const args = inv.args;
    return folder.run(engine => engine.what_changed(args as never));
  }
  const folder = inv.mode === 'node' ? inv.node.folder : await pickFolder(ctx, { title });
  const since = await askSince(ctx.clock.now(), title);
  const result = await folder.run(engine => engine.what_changed({ since }));
  const items = changeItems(result);
  const rows: ChangeItem[] = items.length ? items : [{ label: `$(circle-slash) Nothing changed since ${since}` }];
  const picked = await pickOne({ title: `${title} ${since}` }, rows, 'Open a decision or entry');
  if (picked.record) await vscode.commands.executeCommand('twining.openRecord', { ...picked.record, folder: folder.root });
  return result;
}
