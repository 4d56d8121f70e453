/**
 * The Agents view: every registered agent, liveness by icon and colour, role and capabilities in
 * the description, registration and last activity in the tooltip; gone agents last. Liveness
 * counts an agent's latest blackboard entry, so this view also redraws on blackboard changes
 * (model/agents-model.ts says which changes count).
 */
import * as vscode from 'vscode';
import { core } from '../model/engine-loader';
import type { TwiningFolder } from '../model/folders';
import type { AgentsModel } from '../model/agents-model';
import type { ClaimsModel } from '../model/claims-model';
import type { TwiningSession } from '../session';
import { FolderTreeProvider, LIVENESS_ICON, LIVENESS_ORDER, earliest, messageNode } from './tree-base';
import { AgentNode, Node, makeNode } from './nodes';
import { list, md, strings, when } from '../present/format';
import { sessionChildren, sessionGroupNode, sessionItem } from './session-items';
import { claimHolderChildren, claimHolderItem, claimItem, claimNodesOf, unregisteredHolders } from './claim-nodes';

export class AgentsProvider extends FolderTreeProvider {
  protected readonly what = 'the agent registry';

  constructor(
    session: TwiningSession,
    private readonly model: AgentsModel,
    /** Each agent's claims are its children (views/claim-nodes.ts). */
    private readonly claims?: ClaimsModel,
  ) {
    // The session board (hooked agent sessions) redraws through the agents model, which shows
    // the `sessions` kind too: a change of both redraws once.
    super(session, model);
    if (claims) this.disposables.push(claims.onDidLoad(() => this.redraw()));
  }

  protected async load(folder: TwiningFolder): Promise<{ items: Node[]; nextTransition?: number }> {
    const [{ agents, thresholds, unavailable }, board] = await Promise.all([this.model.agents(folder), this.session.sessions.board(folder)]);
    const me = this.session.agentId();
    const now = this.session.clock.now();
    const sorted = agents
      .map((agent, index) => ({ agent, index }))
      .sort((a, b) => LIVENESS_ORDER[a.agent.liveness] - LIVENESS_ORDER[b.agent.liveness] || a.index - b.index)
      .map(({ agent }) => makeNode<AgentNode>({ kind: 'agent', folder, agent, isMe: agent.agent_id === me }));
    const holders = this.claims ? unregisteredHolders(this.claims, folder, new Set(agents.map(a => a.agent_id)), me) : [];
    // A 2.x folder without its database: say why no agent is listed instead of an empty view.
    const notice = unavailable
      ? [messageNode(folder, 'agents-unavailable', 'Agents are not shown: twining-mcp 2.x keeps them only in twining.db', unavailable, 'info')]
      : [];
    return {
      items: board.sessions.length ? [...notice, ...sorted, ...holders, sessionGroupNode(folder, board.sessions)] : [...notice, ...sorted, ...holders],
      nextTransition: earliest([...agents.map(a => core().nextLivenessChange(a.last_seen, now, thresholds)), board.next_change], now.getTime()),
    };
  }

  protected childrenOf(element: Node): Node[] {
    if (element.kind === 'claimHolder') return claimHolderChildren(element);
    if (element.kind === 'agent' && this.claims) return claimNodesOf(this.claims, element.folder, element.agent.agent_id, this.session.agentId());
    return sessionChildren(element);
  }

  protected itemOf(element: Node): vscode.TreeItem {
    const board = sessionItem(element, this.session.clock.now());
    if (board) return board;
    if (element.kind === 'claim') return claimItem(element, this.session.clock.now());
    if (element.kind === 'claimHolder') return claimHolderItem(element);
    if (element.kind !== 'agent') return new vscode.TreeItem('?');
    const { agent } = element;
    const held = this.claims ? this.claims.claimsOf(element.folder).filter(c => c.agent_id === agent.agent_id) : [];
    const item = new vscode.TreeItem(agent.agent_id, held.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = `${element.folder.key}#agent:${agent.agent_id}`;
    item.iconPath = LIVENESS_ICON[agent.liveness];
    const parts: string[] = [agent.liveness];
    if (element.isMe) parts.unshift('you');
    if (agent.role) parts.push(agent.role);
    parts.push(list(strings(agent.capabilities), 'no capabilities'));
    const live = held.filter(c => c.state === 'live').length;
    if (live) parts.push(`${live} claim${live === 1 ? '' : 's'}`);
    item.description = parts.join(' · ');
    item.contextValue = element.isMe ? 'twining.agent.me' : 'twining.agent';
    item.accessibilityInformation = { label: `${agent.agent_id}, ${item.description}` };
    return item;
  }

  protected override tooltipOf(element: Node): vscode.MarkdownString | undefined {
    if (element.kind !== 'agent') return undefined;
    const { agent } = element;
    const now = this.session.clock.now();
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`$(${LIVENESS_ICON[agent.liveness].id}) **${md(agent.agent_id)}** — ${agent.liveness}${element.isMe ? ' (you)' : ''}\n\n`);
    if (agent.role) tip.appendMarkdown(`Role: ${md(agent.role)}\n\n`);
    if (agent.description) tip.appendMarkdown(`${md(agent.description)}\n\n`);
    tip.appendMarkdown(`Capabilities: ${md(list(strings(agent.capabilities)))}\n\n`);
    tip.appendMarkdown(`Registered: ${md(when(agent.registered_at, now))}  \n`);
    if (agent.last_active !== agent.registered_at) tip.appendMarkdown(`Registration refreshed: ${md(when(agent.last_active, now))}  \n`);
    tip.appendMarkdown(`Last activity: ${md(when(agent.last_seen, now))}${agent.last_seen !== agent.last_active ? ', a blackboard entry' : ''}`);
    return tip;
  }
}
