/**
 * The Delegations view: open delegation needs (soonest expiry first), urgency by icon, time left,
 * required capabilities; under each, the suggested agents with their score and matched
 * capabilities. Expired needs sit in a collapsed "Expired (N)" group.
 */
import * as vscode from 'vscode';
import { core } from '../model/engine-loader';
import type { Urgency } from '../../core/schemas/schemas';
import type { TwiningFolder } from '../model/folders';
import type { DelegationsModel } from '../model/agents-model';
import type { TwiningSession } from '../session';
import { FolderTreeProvider, LIVENESS_ICON, earliest, messageNode } from './tree-base';
import { DelegationNode, ExpiredGroupNode, Node, SuggestionNode, makeNode } from './nodes';
import { expiry, list, md, score, strings, when } from '../present/format';

const URGENCY_ICON: Record<Urgency, vscode.ThemeIcon> = {
  high: new vscode.ThemeIcon('flame', new vscode.ThemeColor('charts.red')),
  normal: new vscode.ThemeIcon('megaphone', new vscode.ThemeColor('charts.blue')),
  low: new vscode.ThemeIcon('arrow-down', new vscode.ThemeColor('descriptionForeground')),
};
const EXPIRED_ICON = new vscode.ThemeIcon('history', new vscode.ThemeColor('disabledForeground'));

export class DelegationsProvider extends FolderTreeProvider {
  protected readonly what = 'the delegations';
  protected override readonly ticks = true;

  constructor(
    session: TwiningSession,
    private readonly model: DelegationsModel,
  ) {
    super(session, model);
  }

  protected async load(folder: TwiningFolder): Promise<{ items: Node[]; nextTransition?: number }> {
    const { delegations, agents, thresholds } = await this.model.delegations(folder);
    const now = this.session.clock.now();
    const open = delegations.filter(d => !d.expired);
    const expired = delegations.filter(d => d.expired);
    const items: Node[] = open.map(delegation => makeNode<DelegationNode>({ kind: 'delegation', folder, delegation }));
    if (expired.length) items.push(makeNode<ExpiredGroupNode>({ kind: 'expiredGroup', folder, delegations: expired }));
    // The view changes when a need expires, and when a suggested agent turns idle or gone.
    const expiries = open.map(d => Date.parse(d.expires_at));
    const liveness = open.length ? agents.map(a => core().nextLivenessChange(a.last_seen, now, thresholds)) : [];
    return { items, nextTransition: earliest([...expiries, ...liveness], now.getTime()) };
  }

  protected childrenOf(element: Node): Node[] {
    if (element.kind === 'expiredGroup') {
      return element.delegations.map(delegation => makeNode<DelegationNode>({ kind: 'delegation', folder: element.folder, delegation }));
    }
    if (element.kind === 'delegation' && !element.delegation.expired) {
      const suggestions = element.delegation.suggested_agents;
      if (suggestions.length === 0) {
        return [messageNode(element.folder, `${element.delegation.entry_id}:none`, 'No active or idle agent to suggest', undefined, 'info')];
      }
      return suggestions.map(agent => makeNode<SuggestionNode>({ kind: 'suggestion', folder: element.folder, delegation: element.delegation, agent }));
    }
    return [];
  }

  protected itemOf(element: Node): vscode.TreeItem {
    const now = this.session.clock.now();
    switch (element.kind) {
      case 'delegation': {
        const d = element.delegation;
        const item = new vscode.TreeItem(d.summary, d.expired ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${element.folder.key}#delegation:${d.entry_id}${d.expired ? ':expired' : ''}`;
        item.iconPath = d.expired ? EXPIRED_ICON : (URGENCY_ICON[d.urgency] ?? URGENCY_ICON.normal);
        item.description = `${expiry(d.expires_at, now)} · ${list(strings(d.required_capabilities), 'no capabilities')}`;
        item.contextValue = d.expired ? 'twining.delegation.expired' : 'twining.delegation';
        item.accessibilityInformation = { label: `${d.urgency} urgency: ${d.summary}, ${item.description}` };
        return item;
      }
      case 'expiredGroup': {
        const item = new vscode.TreeItem(`Expired (${element.delegations.length})`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${element.folder.key}#expired`;
        item.iconPath = EXPIRED_ICON;
        item.tooltip = 'Delegation needs whose time ran out. They stay on the blackboard; nobody is suggested for them any more.';
        item.contextValue = 'twining.expiredGroup';
        return item;
      }
      case 'suggestion': {
        const a = element.agent;
        const item = new vscode.TreeItem(a.agent_id, vscode.TreeItemCollapsibleState.None);
        item.id = `${element.folder.key}#delegation:${element.delegation.entry_id}/agent:${a.agent_id}`;
        item.iconPath = LIVENESS_ICON[a.liveness];
        item.description = `${score(a.total_score)} · ${a.matched_capabilities.length ? list(a.matched_capabilities) : 'no matching capabilities'}`;
        item.contextValue = 'twining.suggestion';
        return item;
      }
      default:
        return new vscode.TreeItem('?');
    }
  }

  protected override tooltipOf(element: Node): vscode.MarkdownString | undefined {
    const now = this.session.clock.now();
    if (element.kind === 'delegation') {
      const d = element.delegation;
      const tip = new vscode.MarkdownString(undefined, true);
      tip.appendMarkdown(`**${md(d.summary)}**\n\n`);
      tip.appendMarkdown(`Urgency: ${d.urgency}${d.expired ? ' (expired)' : ''}  \n`);
      tip.appendMarkdown(`Needs: ${md(list(strings(d.required_capabilities)))}  \n`);
      tip.appendMarkdown(`Scope: \`${d.scope}\`  \n`);
      tip.appendMarkdown(`Posted by ${md(d.agent_id)}, ${md(when(d.timestamp, now))}  \n`);
      tip.appendMarkdown(`${d.expired ? 'Expired' : 'Expires'}: ${md(when(d.expires_at, now))}`);
      const tags = strings(d.tags).filter(t => t !== 'delegation' && t !== d.urgency);
      if (tags.length) tip.appendMarkdown(`  \nTags: ${md(list(tags))}`);
      if (!d.expired) {
        const best = d.suggested_agents[0];
        tip.appendMarkdown(best ? `\n\nBest suited: **${md(best.agent_id)}** (${score(best.total_score)})` : '\n\nNo active or idle agent to suggest.');
      }
      return tip;
    }
    if (element.kind === 'suggestion') {
      const a = element.agent;
      const tip = new vscode.MarkdownString(undefined, true);
      tip.appendMarkdown(`**${md(a.agent_id)}** — ${a.liveness}${a.role ? `, ${md(a.role)}` : ''}\n\n`);
      tip.appendMarkdown(
        `Score ${score(a.total_score)} = 0.7 × capability overlap ${score(a.capability_overlap)} + 0.3 × liveness ${score(a.liveness_score)}  \n`,
      );
      tip.appendMarkdown(`Matches: ${md(list(a.matched_capabilities))}  \n`);
      tip.appendMarkdown(`Capabilities: ${md(list(strings(a.capabilities)))}`);
      if (a.description) tip.appendMarkdown(`\n\n${md(a.description)}`);
      return tip;
    }
    return undefined;
  }
}
