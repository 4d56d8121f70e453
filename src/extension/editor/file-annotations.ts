/**
 * Twining in the editor itself, for every open file in a folder with `.twining/`:
 * - the active warnings in its scope as Information diagnostics at the top of the file (source
 *   "Twining", the warning's id as the code, linking to the warning), with quick fixes to dismiss
 *   or open it (setting `twining.diagnostics.enabled`);
 * - its current decisions as one CodeLens line at the top (setting `twining.codeLens.enabled`).
 * Both come from the ContextModel, so they follow writes by anyone within one refresh.
 */
import * as vscode from 'vscode';
import type { BlackboardEntry } from '../../core';
import { SECTION } from '../settings';
import type { TwiningFolder } from '../model/folders';
import { log, messageOf } from '../log';
import { oneLine, plural } from '../present/format';
import { ContextModel, scopeOfUri } from '../model/context-model';
import type { Folders } from '../model/folders';
import { documentUri } from './record-documents';
import { makeNode } from '../views/nodes';
import type { ContextEntryNode } from '../views/nodes';

export const DIAGNOSTIC_SOURCE = 'Twining';
const LENS_DECISIONS = 3;

const enabled = (key: 'diagnostics.enabled' | 'codeLens.enabled') => vscode.workspace.getConfiguration(SECTION).get<boolean>(key, true) !== false;

export class FileAnnotations implements vscode.CodeActionProvider, vscode.CodeLensProvider, vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('twining');
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.diagnostics, this.lensEmitter];
  /** The warning behind each diagnostic, by document and id (for the quick fixes). */
  private readonly shown = new Map<string, { folder: TwiningFolder; entries: Map<string, BlackboardEntry> }>();
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly folders: Folders,
    private readonly model: ContextModel,
  ) {
    const selector: vscode.DocumentSelector = { scheme: 'file' };
    this.disposables.push(
      vscode.languages.registerCodeActionsProvider(selector, this, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
      vscode.languages.registerCodeLensProvider(selector, this),
      model.onDidChange(() => this.schedule()),
      vscode.workspace.onDidOpenTextDocument(() => this.schedule()),
      vscode.workspace.onDidCloseTextDocument(doc => {
        this.diagnostics.delete(doc.uri);
        this.shown.delete(doc.uri.toString());
      }),
      vscode.workspace.onDidChangeConfiguration(event => {
        if (event.affectsConfiguration(`${SECTION}.diagnostics.enabled`)) this.schedule();
        if (event.affectsConfiguration(`${SECTION}.codeLens.enabled`)) this.lensEmitter.fire();
      }),
    );
    this.schedule();
  }

  /** Resolves when the diagnostics are up to date (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private schedule(): void {
    this.lensEmitter.fire();
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.folders.track(this.updateDiagnostics()).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    });
  }

  private async updateDiagnostics(): Promise<void> {
    await this.folders.ready();
    const on = enabled('diagnostics.enabled');
    const open = new Set<string>();
    for (const doc of vscode.workspace.textDocuments) {
      const file = on ? scopeOfUri(this.folders, doc.uri) : undefined;
      if (!file) continue;
      open.add(doc.uri.toString());
      try {
        const context = await this.model.get(file.folder, file.scope);
        const entries = new Map(context.warnings.map(w => [w.id, w] as const));
        this.shown.set(doc.uri.toString(), { folder: file.folder, entries });
        this.diagnostics.set(
          doc.uri,
          context.warnings.map(w => this.diagnosticOf(file.folder, doc, w)),
        );
      } catch (error) {
        log.debug(`${file.folder.name}: diagnostics of ${file.scope}: ${messageOf(error)}`);
      }
    }
    this.diagnostics.forEach(uri => {
      if (!open.has(uri.toString())) {
        this.diagnostics.delete(uri);
        this.shown.delete(uri.toString());
      }
    });
  }

  private diagnosticOf(folder: TwiningFolder, doc: vscode.TextDocument, w: BlackboardEntry): vscode.Diagnostic {
    const top = doc.lineCount > 0 ? doc.lineAt(0).range : new vscode.Range(0, 0, 0, 0);
    const where = w.scope === folder.relativePath(doc.uri) ? '' : `, scope ${w.scope}`;
    const d = new vscode.Diagnostic(top, `${oneLine(String(w.summary), 300)} (warning by ${w.agent_id}${where})`, vscode.DiagnosticSeverity.Information);
    d.source = DIAGNOSTIC_SOURCE;
    d.code = { value: w.id, target: documentUri(folder, 'entry', w.id) };
    return d;
  }

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const shown = this.shown.get(document.uri.toString());
    if (!shown) return [];
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== DIAGNOSTIC_SOURCE) continue;
      const id = typeof diagnostic.code === 'object' ? String(diagnostic.code.value) : String(diagnostic.code);
      const entry = shown.entries.get(id);
      if (!entry) continue;
      const node = makeNode<ContextEntryNode>({ kind: 'contextEntry', folder: shown.folder, entry });
      const dismiss = new vscode.CodeAction('Dismiss warning…', vscode.CodeActionKind.QuickFix);
      dismiss.diagnostics = [diagnostic];
      dismiss.command = { command: 'twining.dismissEntry', title: 'Dismiss warning…', arguments: [node] };
      const resolve = new vscode.CodeAction('Resolve warning…', vscode.CodeActionKind.QuickFix);
      resolve.diagnostics = [diagnostic];
      resolve.command = { command: 'twining.resolveEntry', title: 'Resolve warning…', arguments: [node] };
      const open = new vscode.CodeAction('Open warning', vscode.CodeActionKind.QuickFix);
      open.diagnostics = [diagnostic];
      open.command = { command: 'twining.openRecord', title: 'Open warning', arguments: [{ type: 'entry', id, folder: shown.folder.root }] };
      actions.push(resolve, dismiss, open);
    }
    return actions;
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!enabled('codeLens.enabled')) return [];
    const file = scopeOfUri(this.folders, document.uri);
    if (!file) return [];
    try {
      const context = await this.model.get(file.folder, file.scope);
      const current = context.decisions.filter(d => d.status === 'active' || d.status === 'provisional');
      if (current.length === 0) return [];
      const top = new vscode.Range(0, 0, 0, 0);
      const lenses = current.slice(0, LENS_DECISIONS).map(
        d =>
          new vscode.CodeLens(top, {
            title: `$(law) ${oneLine(d.summary, 70)}${d.status === 'provisional' ? ' (provisional)' : ''}`,
            tooltip: `Decision by ${d.agent_id ?? 'unknown'} (${d.domain}, ${d.status}): ${oneLine(d.rationale ?? '', 300)}`,
            command: 'twining.openRecord',
            arguments: [{ type: 'decision', id: d.id, folder: file.folder.root }],
          }),
      );
      if (current.length > LENS_DECISIONS) {
        lenses.push(
          new vscode.CodeLens(top, {
            title: `+${plural(current.length - LENS_DECISIONS, 'more decision')}`,
            command: 'twining.context.focus',
          }),
        );
      }
      return lenses;
    } catch (error) {
      log.debug(`${file.folder.name}: CodeLens of ${file.scope}: ${messageOf(error)}`);
      return [];
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
