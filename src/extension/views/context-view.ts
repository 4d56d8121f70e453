/**
 * The Context view: what bears on the file in the active editor (or a pinned one, or the whole
 * project): its decisions (current ones first; superseded and overridden ones in a collapsed group,
 * each saying what replaced it), warnings, findings, open delegations and unacknowledged handoffs,
 * each with its author and age. A click opens the record; the menus dismiss, reconsider, override
 * and promote. The data is the core's `scopeContext`, kept by the ContextModel.
 */
import * as vscode from 'vscode';
import type { ContextDecision, ScopeContext } from '../../core';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { log, messageOf } from '../log';
import { messageNode } from './tree-base';
import { Node, makeNode } from './nodes';
import type {
  ContextDecisionNode,
  ContextDelegationNode,
  ContextEntryNode,
  ContextGroup,
  ContextGroupNode,
  ContextHandoffNode,
  ContextNode,
  ContextScopeNode,
  ContextSessionNode,
} from './nodes';
import { sessionItem } from './session-items';
import type { ContextModel } from '../model/context-model';
import type { ClaimsModel } from '../model/claims-model';
import { claimItem, contextClaimNodes } from './claim-nodes';
import { md, oneLine, plural, relative, when } from '../present/format';
import { resolutionFacts, resolutionSentence } from '../present/resolution-text';

const GROUPS: Record<ContextGroup, { label: string; icon: string; color?: string; expanded: boolean }> = {
  decisions: { label: 'Decisions', icon: 'law', expanded: true },
  past: { label: 'Superseded and overridden', icon: 'history', expanded: false },
  warnings: { label: 'Warnings', icon: 'warning', color: 'list.warningForeground', expanded: true },
  findings: { label: 'Findings', icon: 'lightbulb', expanded: true },
  resolved: { label: 'Resolved', icon: 'pass', expanded: false },
  delegations: { label: 'Open delegations', icon: 'megaphone', expanded: true },
  handoffs: { label: 'Unacknowledged handoffs', icon: 'mail', color: 'charts.blue', expanded: true },
  sessions: { label: 'Agent sessions that changed it', icon: 'pulse', expanded: true },
};

const DECISION_ICON: Record<string, vscode.ThemeIcon> = {
  active: new vscode.ThemeIcon('law', new vscode.ThemeColor('charts.green')),
  provisional: new vscode.ThemeIcon('law', new vscode.ThemeColor('charts.yellow')),
  superseded: new vscode.ThemeIcon('law', new vscode.ThemeColor('disabledForeground')),
  overridden: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
};

/** What replaced or overrode a past decision, in words. */
export function fateOf(d: ContextDecision): string | undefined {
  if (d.status === 'superseded') return d.replaced_by ? `superseded by "${d.replaced_by.summary}"` : 'superseded';
  if (d.status === 'overridden') return `overridden${d.overridden_by ? ` by ${d.overridden_by}` : ''}${d.override_reason ? `: ${d.override_reason}` : ''}`;
  return undefined;
}

export class ContextProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private view: vscode.TreeView<Node> | undefined;
  /** The data of the last render (tests read it): the target's context. */
  last: { folder: TwiningFolder; scope?: string; context: ScopeContext } | undefined;
  /** Number of root loads so far. */
  loads = 0;
  private tick: NodeJS.Timeout | undefined;
  private redrawPending = false;

  constructor(
    private readonly session: TwiningSession,
    private readonly model: ContextModel,
    /** The live claims on the file are listed first (views/claim-nodes.ts). */
    private readonly claims?: ClaimsModel,
  ) {
    // The context and the session board fire in the same dispatch when one change touches both
    // (a hook's post and its session file): the view redraws once.
    this.disposables.push(model.onDidChange(() => this.redrawSoon()));
    this.disposables.push(session.sessions.onDidChange(() => this.redrawSoon()));
    if (claims) this.disposables.push(claims.onDidLoad(() => this.emitter.fire()));
  }

  /** One redraw for every event of the current dispatch. */
  private redrawSoon(): void {
    if (this.redrawPending) return;
    this.redrawPending = true;
    queueMicrotask(() => {
      this.redrawPending = false;
      this.emitter.fire();
    });
  }

  attach(view: vscode.TreeView<Node>): void {
    this.view = view;
    this.describe();
    this.disposables.push(this.model.onDidChange(() => this.describe()));
    // Ages ("3 min ago") move while the view is visible.
    const update = () => {
      if (view.visible && !this.tick) this.tick = setInterval(() => this.emitter.fire(), 30_000);
      if (!view.visible && this.tick) {
        clearInterval(this.tick);
        this.tick = undefined;
      }
    };
    this.disposables.push(view.onDidChangeVisibility(update));
    update();
  }

  /** The view's description says what it shows. */
  private describe(): void {
    if (!this.view) return;
    const t = this.model.target;
    const several = this.session.folders.withTwiningDir().length > 1;
    const where = t ? (t.scope ?? 'whole project') + (several ? ` (${t.folder.name})` : '') : undefined;
    this.view.description = t ? `${where}${t.mode === 'pinned' ? ' · pinned' : ''}` : undefined;
  }

  async getChildren(element?: Node): Promise<Node[]> {
    if (element) return element.kind === 'contextGroup' ? element.children : [];
    await this.session.folders.ready();
    const target = this.model.target;
    if (!target || !target.folder.hasTwiningDir) {
      this.last = undefined;
      return [];
    }
    const { folder, scope } = target;
    this.loads++;
    let context: ScopeContext;
    try {
      context = await this.model.get(folder, scope);
    } catch (error) {
      log.warn(`${folder.name}: context of ${scope ?? 'the project'}: ${messageOf(error)}`);
      return [messageNode(folder, 'context-error', `Could not read the context: ${messageOf(error)}`)];
    }
    this.last = { folder, scope, context };
    const nodes: Node[] = [makeNode<ContextScopeNode>({ kind: 'contextScope', folder, scope, mode: target.mode })];
    if (this.claims) nodes.push(...contextClaimNodes(this.claims, folder, scope, this.session.agentId()));
    const claimRows = nodes.length - 1;
    const group = (g: ContextGroup, children: ContextNode[], total: number) => {
      if (children.length) nodes.push(makeNode<ContextGroupNode>({ kind: 'contextGroup', folder, group: g, children, total }));
    };
    const current = context.decisions.filter(d => d.status === 'active' || d.status === 'provisional');
    const past = context.decisions.filter(d => !(d.status === 'active' || d.status === 'provisional'));
    const decisionNodes: ContextNode[] = current.map(decision => makeNode<ContextDecisionNode>({ kind: 'contextDecision', folder, decision }));
    if (past.length) {
      decisionNodes.push(
        makeNode<ContextGroupNode>({
          kind: 'contextGroup',
          folder,
          group: 'past',
          children: past.map(decision => makeNode<ContextDecisionNode>({ kind: 'contextDecision', folder, decision })),
          total: past.length,
        }),
      );
    }
    // An entry another clone's sync brought says which clone it was written on (sync/origins.ts).
    const origins: { records: Record<string, string> } = await folder.beside(engine => engine.origins()).catch(() => ({ records: {} }));
    const entryNodes = (entries: ScopeContext['warnings']) =>
      entries.map(entry => makeNode<ContextEntryNode>({ kind: 'contextEntry', folder, entry, clone: origins.records[entry.id] }));
    const t = context.totals;
    const lists: [ContextGroup, ContextNode[], number][] = [
      // The count is of the current decisions; the past ones count in their own group.
      ['decisions', decisionNodes, context.active_count + context.provisional_count],
      ['warnings', entryNodes(context.warnings), t.warnings],
      ['findings', entryNodes(context.findings), t.findings],
      // Resolved needs, warnings and questions (twining-mcp 2.x): folded, each saying who resolved it and why.
      ['resolved', entryNodes(context.resolved ?? []), t.resolved ?? 0],
      ['delegations', context.delegations.map(delegation => makeNode<ContextDelegationNode>({ kind: 'contextDelegation', folder, delegation })), t.delegations],
      ['handoffs', context.handoffs.map(line => makeNode<ContextHandoffNode>({ kind: 'contextHandoff', folder, line })), t.handoffs],
    ];
    for (const [g, children, total] of lists) group(g, children, total);
    if (nodes.length === 1 + claimRows) {
      nodes.push(
        messageNode(
          folder,
          'context-empty',
          scope ? 'No decision, warning or finding applies here' : 'Nothing recorded yet',
          'Record one from the row above.',
          'info',
        ),
      );
    }
    // The hooked agent sessions (the session board) that edited this file.
    const touching = scope ? await this.session.sessions.touching(folder, scope).catch(() => []) : [];
    group(
      'sessions',
      touching.map(s => makeNode<ContextSessionNode>({ kind: 'contextSession', folder, session: s })),
      touching.length,
    );
    return nodes;
  }

  getTreeItem(element: Node): vscode.TreeItem {
    const now = this.session.clock.now();
    const base = `${element.folder.key}#context:`;
    switch (element.kind) {
      case 'contextScope': {
        const item = new vscode.TreeItem(element.scope ?? `Whole project: ${element.folder.name}`, vscode.TreeItemCollapsibleState.None);
        item.id = `${base}scope`;
        item.iconPath = element.scope ? vscode.ThemeIcon.File : new vscode.ThemeIcon('root-folder');
        if (element.scope) item.resourceUri = vscode.Uri.joinPath(element.folder.workspaceFolder.uri, element.scope);
        item.description = element.mode === 'pinned' ? 'pinned' : element.mode === 'project' ? undefined : 'active editor';
        item.tooltip = element.scope
          ? `What bears on ${element.scope}: decisions whose scope, affected files or symbols cover it, and entries whose scope overlaps it.`
          : 'Everything recorded in this folder.';
        item.contextValue = `twining.contextScope.${element.mode}`;
        if (element.scope) item.command = { command: 'vscode.open', title: 'Open', arguments: [item.resourceUri] };
        return item;
      }
      case 'contextGroup': {
        const look = GROUPS[element.group];
        const shown = element.children.filter(c => c.kind !== 'contextGroup').length;
        const count = element.total > shown ? `${shown} of ${element.total}` : String(element.total);
        const item = new vscode.TreeItem(look.label, look.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${base}group:${element.group}`;
        item.iconPath = new vscode.ThemeIcon(look.icon, look.color ? new vscode.ThemeColor(look.color) : undefined);
        item.description = count;
        item.contextValue = `twining.contextGroup.${element.group}`;
        return item;
      }
      case 'contextDecision': {
        const d = element.decision;
        const item = new vscode.TreeItem(oneLine(d.summary), vscode.TreeItemCollapsibleState.None);
        item.id = `${base}decision:${d.id}`;
        item.iconPath = DECISION_ICON[d.status] ?? new vscode.ThemeIcon('law');
        const fate = fateOf(d);
        item.description = [fate ?? d.status, d.agent_id, relative(d.timestamp, now)].filter(Boolean).join(' · ');
        item.contextValue = `twining.contextDecision.${d.status === 'active' || d.status === 'provisional' ? d.status : 'past'}`;
        item.command = { command: 'twining.openRecord', title: 'Open', arguments: [{ type: 'decision', id: d.id, folder: element.folder.root }] };
        const tip = new vscode.MarkdownString(undefined, true);
        tip.appendMarkdown(`**${md(d.summary)}**\n\n${md(d.status)} · ${md(d.domain)} · confidence ${md(d.confidence)} · \`${md(d.scope)}\`\n\n`);
        if (d.rationale) tip.appendMarkdown(`${md(oneLine(d.rationale, 400))}\n\n`);
        if (fate) tip.appendMarkdown(`${md(fate)}\n\n`);
        tip.appendMarkdown(`Recorded by ${md(d.agent_id ?? 'unknown')}, ${md(when(d.timestamp, now))}`);
        item.tooltip = tip;
        return item;
      }
      case 'contextEntry': {
        const e = element.entry;
        const resolution = resolutionFacts(e);
        if (resolution) {
          const item = new vscode.TreeItem(oneLine(String(e.summary ?? '')), vscode.TreeItemCollapsibleState.None);
          item.id = `${base}resolved:${e.id}`;
          item.iconPath = new vscode.ThemeIcon('pass', new vscode.ThemeColor('disabledForeground'));
          item.description = [
            `${e.entry_type} resolved${resolution.by ? ` by ${resolution.by}` : ''}`,
            resolution.at ? relative(resolution.at, now) : undefined,
            resolution.note ? oneLine(resolution.note, 80) : undefined,
          ]
            .filter(Boolean)
            .join(' · ');
          item.contextValue = 'twining.contextEntry.resolved';
          item.tooltip = `${e.entry_type} by ${e.agent_id}${onClone(element.clone)}, ${when(e.timestamp, now)}\nScope: ${e.scope}\n\n${e.summary}${e.detail ? `\n\n${e.detail}` : ''}\n\n${resolutionSentence(resolution)}`;
          item.command = { command: 'twining.openRecord', title: 'Open', arguments: [{ type: 'entry', id: e.id, folder: element.folder.root }] };
          return item;
        }
        const warning = e.entry_type === 'warning';
        const item = new vscode.TreeItem(oneLine(String(e.summary ?? '')), vscode.TreeItemCollapsibleState.None);
        item.id = `${base}entry:${e.id}`;
        item.iconPath = warning ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon('lightbulb');
        item.description = [e.agent_id, relative(e.timestamp, now), e.scope, element.clone ? `on ${element.clone}` : ''].filter(Boolean).join(' · ');
        item.contextValue = `twining.contextEntry.${warning ? 'warning' : 'finding'}`;
        item.tooltip = `${warning ? 'Warning' : 'Finding'} by ${e.agent_id}${onClone(element.clone)}, ${when(e.timestamp, now)}\nScope: ${e.scope}\n\n${e.summary}${e.detail ? `\n\n${e.detail}` : ''}`;
        item.command = { command: 'twining.openRecord', title: 'Open', arguments: [{ type: 'entry', id: e.id, folder: element.folder.root }] };
        return item;
      }
      case 'contextDelegation': {
        const d = element.delegation;
        const item = new vscode.TreeItem(oneLine(d.summary), vscode.TreeItemCollapsibleState.None);
        item.id = `${base}delegation:${d.entry_id}`;
        item.iconPath = new vscode.ThemeIcon('megaphone');
        item.description = [d.urgency, d.agent_id, relative(d.timestamp, now), d.required_capabilities.join(', ')].filter(Boolean).join(' · ');
        item.contextValue = 'twining.contextDelegation';
        item.command = { command: 'twining.openRecord', title: 'Open', arguments: [{ type: 'entry', id: d.entry_id, folder: element.folder.root }] };
        return item;
      }
      case 'contextHandoff': {
        const h = element.line;
        const item = new vscode.TreeItem(oneLine(String(h.summary ?? '')), vscode.TreeItemCollapsibleState.None);
        item.id = `${base}handoff:${h.id}`;
        item.iconPath = new vscode.ThemeIcon('mail', new vscode.ThemeColor('charts.blue'));
        item.description = [`${h.source_agent} → ${h.target_agent ?? 'any agent'}`, relative(h.created_at, now), h.scope].filter(Boolean).join(' · ');
        item.contextValue = 'twining.contextHandoff';
        item.command = { command: 'twining.openHandoff', title: 'Open', arguments: [{ handoff_id: h.id, folder: element.folder.root }] };
        return item;
      }
      case 'contextSession':
        return sessionItem(element, now) ?? new vscode.TreeItem('?');
      case 'claim':
        return claimItem(element, now);
      case 'message': {
        const item = new vscode.TreeItem(element.text, vscode.TreeItemCollapsibleState.None);
        item.id = `${base}message:${element.id}`;
        item.iconPath = new vscode.ThemeIcon(element.severity === 'warning' ? 'warning' : 'info');
        item.description = element.detail;
        return item;
      }
      default:
        return new vscode.TreeItem('?');
    }
  }

  /** Tooltips are set when the item is made. */
  resolveTreeItem(item: vscode.TreeItem): vscode.TreeItem {
    return item;
  }

  /** A short count for people: "2 decisions · 1 warning". */
  static summary(context: ScopeContext): string {
    const parts: string[] = [];
    const decisions = context.active_count + context.provisional_count;
    if (decisions) parts.push(plural(decisions, 'decision'));
    if (context.warnings.length) parts.push(plural(context.warnings.length, 'warning'));
    if (context.findings.length) parts.push(plural(context.findings.length, 'finding'));
    return parts.join(' · ');
  }

  dispose(): void {
    if (this.tick) clearInterval(this.tick);
    for (const d of this.disposables) d.dispose();
  }
}

/** " on host:folder (another clone)" for an entry another clone's sync brought. */
const onClone = (clone: string | undefined) => (clone ? ` on ${clone} (another clone)` : '');
