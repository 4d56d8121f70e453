/**
 * The Handoffs view: newest first; unacknowledged handoffs stand out, those for the user's own
 * agent id most. Under each: its results, its context snapshot (click an item to open the record)
 * and, when something drifted since it was created, a "Drift" group. Drift comes from the core's
 * `verify`, computed in the background for the listed handoffs and again only when the blackboard
 * or the decisions change. The list comes from the handoffs model (model/handoffs-model.ts),
 * which the status bar and the inbox share.
 */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import type { HandoffRecord, TwiningEngine, VerifyResult } from '../../core';
import type { TwiningFolder } from '../model/folders';
import type { HandoffsModel } from '../model/handoffs-model';
import { log, messageOf } from '../log';
import { FolderTreeProvider, messageNode } from './tree-base';
import { DriftItemNode, DriftNode, HandoffNode, Node, ResultNode, SnapshotItemNode, SnapshotNode, makeNode } from './nodes';
import { RESULT_STATUS_LOOK, md, oneLine, plural, relative, strings, when } from '../present/format';
import { resolveSnapshot } from '../present/snapshot-contents';
import { NO_DRIFT, driftCount, driftItems } from '../../core/text/drift-text';

const LIST_LIMIT = 200;

const ICONS = {
  forMe: new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('charts.orange')),
  unacknowledged: new vscode.ThemeIcon('mail', new vscode.ThemeColor('charts.blue')),
  acknowledged: new vscode.ThemeIcon('mail-read', new vscode.ThemeColor('descriptionForeground')),
};

const SNAPSHOT_ICON = {
  decision: new vscode.ThemeIcon('law'),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  finding: new vscode.ThemeIcon('lightbulb'),
};

/** Engines are re-created when trust changes; their file versions then start again. */
const engineIds = new WeakMap<TwiningEngine, number>();
let nextEngineId = 1;
function engineId(engine: TwiningEngine): number {
  let id = engineIds.get(engine);
  if (id === undefined) engineIds.set(engine, (id = nextEngineId++));
  return id;
}

/** The drift counts that show on an item; a change in them re-renders it. */
function driftSignature(v: VerifyResult | undefined): string {
  if (!v) return '';
  const d = v.drift;
  return [v.intact, d.decisions_no_longer_active.length, d.entries_removed.length, d.new_decisions.length, d.new_warnings.length].join(':');
}

export class HandoffsProvider extends FolderTreeProvider {
  protected readonly what = 'the handoffs';
  protected override readonly ticks = true;
  /** Handoff elements by folder and id: the same object across reloads, so one can be re-rendered. */
  private readonly nodes = new Map<string, Map<string, HandoffNode & { driftKey?: string }>>();
  private readonly driftRuns = new Map<string, Promise<void>>();
  private readonly driftAgain = new Set<string>();

  constructor(
    session: TwiningSession,
    private readonly model: HandoffsModel,
  ) {
    super(session, model);
    // Drift depends on the decisions, the warnings and findings, and each handoff's own record;
    // the drift keys say which handoffs need verifying again.
    this.disposables.push(model.onDidChangeDrift(folder => this.computeDrift(folder)));
  }

  protected async load(folder: TwiningFolder): Promise<{ items: Node[] }> {
    const list = await this.model.list(folder);
    const handoffs = list.lines.slice(0, LIST_LIMIT);
    const total_count = list.total;
    const me = this.model.agentId();
    const known = this.nodes.get(folder.key) ?? new Map<string, HandoffNode & { driftKey?: string }>();
    const next = new Map<string, HandoffNode & { driftKey?: string }>();
    const items: HandoffNode[] = [];
    for (const line of handoffs) {
      let node = known.get(line.id);
      if (!node || node.folder !== folder) node = makeNode<HandoffNode>({ kind: 'handoff', folder, line, forMe: false });
      node.line = line;
      node.forMe = line.target_agent === me;
      next.set(line.id, node);
      items.push(node);
    }
    this.nodes.set(folder.key, next);
    this.computeDrift(folder);
    if (total_count > items.length) {
      return {
        items: [
          ...items,
          messageNode(
            folder,
            'older',
            `${total_count - items.length} older handoffs not shown`,
            `The newest ${items.length} of ${total_count} are listed.`,
            'info',
          ),
        ],
      };
    }
    return { items };
  }

  /** Verifies the listed handoffs whose drift is older than the data, one at a time, in the background. */
  private computeDrift(folder: TwiningFolder): void {
    if (this.driftRuns.has(folder.key)) {
      this.driftAgain.add(folder.key);
      return;
    }
    const pass = this.driftPass(folder).catch(error => log.debug(`${folder.name}: drift: ${messageOf(error)}`));
    const run = this.session.folders.track(pass).finally(() => {
      this.driftRuns.delete(folder.key);
      if (this.driftAgain.delete(folder.key)) this.computeDrift(folder);
    });
    this.driftRuns.set(folder.key, run);
  }

  private async driftPass(folder: TwiningFolder): Promise<void> {
    // Let the list render first.
    await new Promise(resolve => setTimeout(resolve, 0));
    const nodes = [...(this.nodes.get(folder.key)?.values() ?? [])];
    // The engine is already fresh (the folder refreshed it before announcing the change):
    // a handoff is verified again only when its key moved. Most blackboard appends (statuses,
    // needs, answers…) leave every handoff's drift as it was.
    const keyOf = (engine: TwiningEngine, id: string) => `${engineId(engine)}:${engine.versions().drift}:${engine.recordVersion(id)}`;
    for (const node of nodes) {
      try {
        const outcome = await folder.run(async engine => {
          if (node.driftKey === keyOf(engine, node.line.id)) return undefined;
          try {
            const verify = await engine.verify({ handoff_id: node.line.id });
            return { verify, key: keyOf(engine, node.line.id) };
          } catch (error) {
            // An unreadable record is not verified again until it (or the data) changes.
            node.driftKey = keyOf(engine, node.line.id);
            throw error;
          }
        });
        if (!outcome) continue;
        const before = driftSignature(node.verify);
        node.verify = outcome.verify;
        node.driftKey = outcome.key;
        if (before !== driftSignature(node.verify) && (before !== '' || node.verify.drifted || !node.verify.intact)) {
          this.emitter.fire(node);
        }
      } catch (error) {
        log.debug(`${folder.name}: drift of handoff ${node.line.id}: ${messageOf(error)}`);
      }
    }
  }

  /** Resolves when the background drift computations have finished (tests). */
  async driftIdle(): Promise<void> {
    while (this.driftRuns.size) await Promise.allSettled([...this.driftRuns.values()]);
  }

  protected async childrenOf(element: Node): Promise<Node[]> {
    const { folder } = element;
    switch (element.kind) {
      case 'handoff': {
        const record = await folder.run(engine => engine.getHandoff(element.line.id));
        if (!record) return [messageNode(folder, `${element.line.id}:missing`, 'The handoff record file is missing')];
        const results = Array.isArray(record.results) ? record.results : [];
        const children: Node[] = results.map((result, index) => makeNode<ResultNode>({ kind: 'result', folder, handoffId: element.line.id, result, index }));
        if (results.length === 0) children.push(messageNode(folder, `${element.line.id}:noresults`, 'No results', undefined, 'info'));
        const snapshot = (record.context_snapshot ?? {}) as Partial<HandoffRecord['context_snapshot']>;
        const counts = {
          decisions: strings(snapshot.decision_ids).length,
          warnings: strings(snapshot.warning_ids).length,
          findings: strings(snapshot.finding_ids).length,
        };
        children.push(makeNode<SnapshotNode>({ kind: 'snapshot', folder, handoffId: element.line.id, counts }));
        if (element.verify && (element.verify.drifted || !element.verify.intact)) {
          children.push(makeNode<DriftNode>({ kind: 'drift', folder, handoffId: element.line.id, verify: element.verify }));
        }
        return children;
      }
      case 'snapshot':
        return this.snapshotItems(folder, element.handoffId);
      case 'drift':
        return driftItemNodes(element);
      default:
        return [];
    }
  }

  private async snapshotItems(folder: TwiningFolder, handoffId: string): Promise<Node[]> {
    const resolved = await folder.run(async engine => resolveSnapshot(engine, (await engine.getHandoff(handoffId))?.context_snapshot));
    const items: Node[] = resolved.map(r =>
      makeNode<SnapshotItemNode>({ kind: 'snapshotItem', folder, handoffId, item: r.item, id: r.id, summary: r.summary, status: r.status }),
    );
    if (items.length === 0) items.push(messageNode(folder, `${handoffId}:emptysnapshot`, 'Nothing was attached', undefined, 'info'));
    return items;
  }

  protected itemOf(element: Node): vscode.TreeItem {
    const now = this.session.clock.now();
    switch (element.kind) {
      case 'handoff': {
        const { line, forMe, verify } = element;
        const acknowledged = line.acknowledged === true;
        const item = new vscode.TreeItem(oneLine(String(line.summary ?? '')), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${element.folder.key}#handoff:${line.id}`;
        item.iconPath = acknowledged ? ICONS.acknowledged : forMe ? ICONS.forMe : ICONS.unacknowledged;
        const parts: string[] = [];
        if (!acknowledged && forMe) parts.push('for you');
        else if (!acknowledged) parts.push('new');
        parts.push(`${line.source_agent} → ${line.target_agent ?? 'any agent'}`);
        if (line.scope) parts.push(line.scope);
        parts.push(relative(line.created_at, now));
        const drift = driftCount(verify);
        if (drift) parts.push(`⚠ drift (${drift})`);
        item.description = parts.join(' · ');
        item.contextValue = `twining.handoff.${acknowledged ? 'acknowledged' : forMe ? 'unacknowledged.forYou' : 'unacknowledged'}${drift ? '.drifted' : ''}`;
        item.accessibilityInformation = { label: `${acknowledged ? 'Acknowledged' : 'Unacknowledged'} handoff: ${line.summary}, ${item.description}` };
        return item;
      }
      case 'result': {
        const r = element.result;
        const item = new vscode.TreeItem(oneLine(String(r.description ?? '')), vscode.TreeItemCollapsibleState.None);
        item.id = `${element.folder.key}#handoff:${element.handoffId}/result:${element.index}`;
        const look = RESULT_STATUS_LOOK[r.status];
        item.iconPath = look ? new vscode.ThemeIcon(look.icon, new vscode.ThemeColor(look.color)) : new vscode.ThemeIcon('circle-outline');
        const artifacts = strings(r.artifacts);
        item.description = [r.status, artifacts.length ? plural(artifacts.length, 'artifact') : '', r.notes ? 'notes' : ''].filter(Boolean).join(' · ');
        const tip = new vscode.MarkdownString();
        tip.appendMarkdown(`**${md(String(r.description ?? ''))}**\n\nStatus: ${r.status}`);
        if (artifacts.length) tip.appendMarkdown(`\n\nArtifacts:\n${artifacts.map(a => `- \`${a.replace(/`/g, "'")}\``).join('\n')}`);
        if (r.notes) tip.appendMarkdown(`\n\nNotes: ${md(r.notes)}`);
        item.tooltip = tip;
        item.contextValue = 'twining.result';
        return item;
      }
      case 'snapshot': {
        const item = new vscode.TreeItem('Context snapshot', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${element.folder.key}#handoff:${element.handoffId}/snapshot`;
        item.iconPath = new vscode.ThemeIcon('archive');
        item.tooltip = 'The decisions, warnings and findings in scope when the handoff was created. Click an item to open it.';
        const c = element.counts;
        item.description = `${plural(c.decisions, 'decision')} · ${plural(c.warnings, 'warning')} · ${plural(c.findings, 'finding')}`;
        item.contextValue = 'twining.snapshot';
        return item;
      }
      case 'snapshotItem': {
        const label = element.summary ?? element.id;
        const item = new vscode.TreeItem(oneLine(label), vscode.TreeItemCollapsibleState.None);
        item.id = `${element.folder.key}#handoff:${element.handoffId}/snapshot:${element.item}:${element.id}`;
        item.iconPath = SNAPSHOT_ICON[element.item];
        const stale = element.item === 'decision' ? element.status !== 'active' : element.status === 'removed';
        item.description = `${element.item}${stale ? ` · now ${element.status}` : element.item === 'decision' ? ` · ${element.status}` : ''}`;
        item.tooltip = `${element.item[0].toUpperCase()}${element.item.slice(1)} ${element.id}${stale ? ` (now ${element.status})` : ''}\n\n${label}`;
        item.contextValue = `twining.snapshotItem.${element.item}`;
        item.command = {
          command: 'twining.openRecord',
          title: 'Open',
          arguments: [{ type: element.item === 'decision' ? 'decision' : 'entry', id: element.id, folder: element.folder.root }],
        };
        return item;
      }
      case 'drift': {
        const n = driftCount(element.verify);
        const item = new vscode.TreeItem(`Drift (${n})`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${element.folder.key}#handoff:${element.handoffId}/drift`;
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.description = 'changed since the handoff';
        item.tooltip = driftMarkdown(element.verify);
        item.contextValue = 'twining.drift';
        return item;
      }
      case 'driftItem': {
        const item = new vscode.TreeItem(oneLine(element.label), vscode.TreeItemCollapsibleState.None);
        item.id = `${element.folder.key}#handoff:${element.handoffId}/drift:${element.description}:${element.target?.id ?? element.label}`;
        item.iconPath = new vscode.ThemeIcon(element.icon);
        item.description = element.description;
        if (element.target) {
          item.command = { command: 'twining.openRecord', title: 'Open', arguments: [{ ...element.target, folder: element.folder.root }] };
        }
        item.contextValue = 'twining.driftItem';
        return item;
      }
      default:
        return new vscode.TreeItem('?');
    }
  }

  protected override tooltipOf(element: Node): vscode.MarkdownString | undefined {
    if (element.kind !== 'handoff') return undefined;
    const { line, verify, forMe } = element;
    const now = this.session.clock.now();
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**${md(String(line.summary ?? ''))}**\n\n`);
    tip.appendMarkdown(`From **${md(line.source_agent)}** to **${md(line.target_agent ?? 'any agent')}**${forMe ? ' (you)' : ''}  \n`);
    tip.appendMarkdown(`Scope: ${line.scope ? `\`${line.scope}\`` : 'whole project'}  \n`);
    tip.appendMarkdown(`Created: ${md(when(line.created_at, now))}  \n`);
    tip.appendMarkdown(`Results: ${line.result_status}  \n`);
    tip.appendMarkdown(line.acknowledged ? '$(check) Acknowledged' : '$(bell) Not acknowledged yet');
    tip.appendMarkdown('\n\n---\n\n');
    tip.appendMarkdown(verify ? driftMarkdown(verify).value : 'Drift: being checked…');
    return tip;
  }
}

function driftItemNodes(element: DriftNode): Node[] {
  const { folder, handoffId } = element;
  return driftItems(element.verify).map(d =>
    makeNode<DriftItemNode>({ kind: 'driftItem', folder, handoffId, label: d.label, description: d.change, icon: d.icon, target: d.target }),
  );
}

/** The drift report as Markdown (tooltips). */
export function driftMarkdown(v: VerifyResult): vscode.MarkdownString {
  const tip = new vscode.MarkdownString(undefined, true);
  const items = driftItems(v);
  if (items.length === 0) {
    tip.appendMarkdown(`$(pass) ${NO_DRIFT}`);
    return tip;
  }
  tip.appendMarkdown('$(warning) **Drift since the handoff**\n\n');
  for (const d of items) tip.appendMarkdown(`- ${md(d.sentence)}\n`);
  return tip;
}
