/**
 * Claims in the tree views: under each agent in the Agents view (its claims, live and lapsed,
 * with *Release* for the user's own and *Open Claim* for every one), a holder that never
 * registered as its own row there, and the live claims on the Context view's file. The rows are
 * drawn from the claims model's kept lists (model/claims-model.ts), so they are current whenever
 * it says it loaded.
 */
import * as vscode from 'vscode';
import type { ClaimView } from '../../core';
import type { TwiningFolder } from '../model/folders';
import type { ClaimsModel } from '../model/claims-model';
import { type ClaimHolderNode, type ClaimNode, type Node, makeNode } from './nodes';
import { absolute, md, relative, when } from '../present/format';

const DELEGATION = 'delegation:';

/** What a claim is on, in words: a path, a folder, a glob, or "delegation <id>". */
export function claimTarget(claim: ClaimView): string {
  return claim.target.startsWith(DELEGATION) ? `delegation ${claim.target.slice(DELEGATION.length)}` : claim.target;
}

/** The claims of `agentId` in `folder` as rows (live first, then lapsed, each oldest first). */
export function claimNodesOf(model: ClaimsModel, folder: TwiningFolder, agentId: string, you: string): ClaimNode[] {
  const order = (c: ClaimView) => (c.state === 'live' ? 0 : 1);
  return model
    .claimsOf(folder)
    .filter(c => c.agent_id === agentId)
    .sort((a, b) => order(a) - order(b))
    .map(claim => makeNode<ClaimNode>({ kind: 'claim', folder, claim, place: 'agents', isMine: agentId === you }));
}

/** Rows for the holders of claims in `folder` that are not among `registered`. */
export function unregisteredHolders(model: ClaimsModel, folder: TwiningFolder, registered: ReadonlySet<string>, you: string): ClaimHolderNode[] {
  const byAgent = new Map<string, ClaimView[]>();
  for (const c of model.claimsOf(folder)) if (!registered.has(c.agent_id)) byAgent.set(c.agent_id, [...(byAgent.get(c.agent_id) ?? []), c]);
  return [...byAgent].map(([agentId, claims]) => makeNode<ClaimHolderNode>({ kind: 'claimHolder', folder, agentId, claims, isMe: agentId === you }));
}

/** The live claims on the Context view's file (`scope` relative to `folder`). */
export function contextClaimNodes(model: ClaimsModel, folder: TwiningFolder, scope: string | undefined, you: string): Node[] {
  if (scope === undefined) return [];
  return model
    .claimsOnPath(folder, scope)
    .map(c => makeNode<ClaimNode>({ kind: 'claim', folder, claim: c.claim, place: 'context', isMine: c.claim.agent_id === you }));
}

/** "live · until 10:30 (in 25 min) · JWT rework", or "lapsed: expired 10:30 (2 min ago)". */
function claimDescription(claim: ClaimView, now: Date): string {
  const until = new Date(claim.expires_at).toLocaleTimeString();
  if (claim.state === 'lapsed') return `lapsed (${claim.lapsed_because ?? 'expired'}) · was until ${until} · ${claim.reason}`;
  return `until ${until} (${relative(claim.expires_at, now)}) · ${claim.reason}`;
}

export function claimItem(node: ClaimNode, now: Date): vscode.TreeItem {
  const { claim } = node;
  const lapsed = claim.state === 'lapsed';
  const label = node.place === 'context' ? `Claimed by ${node.isMine ? 'you' : claim.agent_id}` : claimTarget(claim);
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = `${node.folder.key}#${node.place}:claim:${claim.id}`;
  item.iconPath = lapsed
    ? new vscode.ThemeIcon('unlock', new vscode.ThemeColor('disabledForeground'))
    : new vscode.ThemeIcon('lock', node.isMine ? undefined : new vscode.ThemeColor('list.warningForeground'));
  item.description = [node.place === 'context' ? claimTarget(claim) : '', claimDescription(claim, now), claim.clone ? `on ${claim.clone}` : '']
    .filter(Boolean)
    .join(' · ');
  item.contextValue = `twining.claim.${lapsed ? 'lapsed' : 'live'}${node.isMine ? '.mine' : ''}`;
  item.command = { command: 'twining.openClaim', title: 'Open Claim', arguments: [node] };
  item.accessibilityInformation = { label: `${label}, ${item.description}` };
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendMarkdown(`$(${lapsed ? 'unlock' : 'lock'}) **${md(claimTarget(claim))}** — claimed by ${md(claim.agent_id)}${node.isMine ? ' (you)' : ''}\n\n`);
  tip.appendMarkdown(`${md(claim.reason)}\n\n`);
  if (claim.clone) tip.appendMarkdown(`On another clone: ${md(claim.clone)} (brought by sync)\n\n`);
  tip.appendMarkdown(`Since ${md(when(claim.claimed_at, now))}  \n`);
  if (claim.renewed_at !== claim.claimed_at) tip.appendMarkdown(`Renewed ${md(when(claim.renewed_at, now))}  \n`);
  tip.appendMarkdown(`${lapsed ? 'Was held until' : 'Until'} ${md(when(claim.expires_at, now))}`);
  if (lapsed)
    tip.appendMarkdown(
      `\n\nLapsed: ${claim.lapsed_because === 'holder gone' ? 'its holder has given no sign of life' : 'its time ran out'}. It no longer holds anyone back.`,
    );
  item.tooltip = tip;
  return item;
}

export function claimHolderItem(node: ClaimHolderNode): vscode.TreeItem {
  const live = node.claims.filter(c => c.state === 'live').length;
  const item = new vscode.TreeItem(node.agentId, vscode.TreeItemCollapsibleState.Expanded);
  item.id = `${node.folder.key}#claimHolder:${node.agentId}`;
  item.iconPath = new vscode.ThemeIcon('lock', live ? undefined : new vscode.ThemeColor('disabledForeground'));
  item.description = `${node.isMe ? 'you · ' : ''}not registered · ${live} live claim${live === 1 ? '' : 's'}`;
  item.tooltip = `${node.agentId} holds claims but is not in the agent registry (claimed through the CLI, a hook or a tool). Latest claim: ${absolute(node.claims[node.claims.length - 1]?.claimed_at)}`;
  item.contextValue = 'twining.claimHolder';
  return item;
}

/** The claim rows under a holder row. */
export function claimHolderChildren(node: ClaimHolderNode): ClaimNode[] {
  return node.claims.map(claim => makeNode<ClaimNode>({ kind: 'claim', folder: node.folder, claim, place: 'agents', isMine: node.isMe }));
}
