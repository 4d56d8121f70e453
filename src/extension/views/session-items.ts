/**
 * How the session board's elements look (nodes.ts's SessionGroupNode, SessionNode,
 * SessionFileNode in the Agents view, ContextSessionNode in the Context view): one row per
 * hooked session with its agent, tool, state, files and age; a warning icon and the *Ask for a
 * Record or Handoff* action on a session that ended after edits without recording them.
 */
import * as vscode from 'vscode';
import type { SessionView } from '../../core';
import type { TwiningFolder } from '../model/folders';
import { LIVENESS_ICON } from './tree-base';
import { makeNode, type Node, type SessionFileNode, type SessionGroupNode, type SessionNode } from './nodes';
import { md, plural, when } from '../present/format';
import { sessionDescription, sessionState, toolName } from '../present/session-text';

const UNRECORDED_ICON = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
const WAITING_ICON = new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('charts.yellow'));

export function sessionGroupNode(folder: TwiningFolder, sessions: SessionView[]): SessionGroupNode {
  return makeNode<SessionGroupNode>({ kind: 'sessionGroup', folder, sessions });
}

/** The children of a session board element in the Agents view. */
export function sessionChildren(element: Node): Node[] {
  if (element.kind === 'sessionGroup') return element.sessions.map(session => makeNode<SessionNode>({ kind: 'session', folder: element.folder, session }));
  if (element.kind === 'session')
    return element.session.files_touched.map(file =>
      makeNode<SessionFileNode>({ kind: 'sessionFile', folder: element.folder, session: element.session, file }),
    );
  return [];
}

export function sessionIcon(s: SessionView): vscode.ThemeIcon {
  return s.unrecorded ? UNRECORDED_ICON : s.waiting_since ? WAITING_ICON : LIVENESS_ICON[s.liveness];
}

/** The tree item of a session board element, or undefined for other elements. */
export function sessionItem(element: Node, now: Date): vscode.TreeItem | undefined {
  const base = `${element.folder.key}#`;
  switch (element.kind) {
    case 'sessionGroup': {
      const item = new vscode.TreeItem('Agent sessions', vscode.TreeItemCollapsibleState.Expanded);
      item.id = `${base}sessions`;
      item.iconPath = new vscode.ThemeIcon('pulse');
      const owing = element.sessions.filter(s => s.unrecorded).length;
      item.description = [plural(element.sessions.length, 'session'), owing ? `${owing} without a record` : ''].filter(Boolean).join(' · ');
      item.tooltip = 'Agent sessions seen by Twining’s hooks (Set Up Agents): live ones, and ended ones that did not record their work.';
      item.contextValue = 'twining.sessionGroup';
      return item;
    }
    case 'session':
    case 'contextSession': {
      const s = element.session;
      const files = element.kind === 'session' && s.files_touched.length > 0;
      const item = new vscode.TreeItem(s.agent_id, files ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      item.id = `${base}${element.kind}:${s.session_id}`;
      item.iconPath = sessionIcon(s);
      item.description = s.clone ? `${sessionDescription(s, now)} · on ${s.clone}` : sessionDescription(s, now);
      item.contextValue = s.unrecorded ? 'twining.session.unrecorded' : 'twining.session';
      item.accessibilityInformation = { label: `${s.agent_id}, ${item.description}` };
      item.tooltip = sessionTooltip(s, now);
      return item;
    }
    case 'sessionFile': {
      const uri = vscode.Uri.joinPath(element.folder.workspaceFolder.uri, element.file);
      const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
      item.id = `${base}session:${element.session.session_id}:file:${element.file}`;
      item.description = element.file.includes('/') ? element.file.slice(0, element.file.lastIndexOf('/')) : undefined;
      item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
      item.contextValue = 'twining.sessionFile';
      return item;
    }
    default:
      return undefined;
  }
}

export function sessionTooltip(s: SessionView, now: Date): vscode.MarkdownString {
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendMarkdown(`**${md(s.agent_id)}** — ${md(toolName(s.tool))} session, ${md(sessionState(s))}\n\n`);
  if (s.clone) tip.appendMarkdown(`On another clone: ${md(s.clone)} (brought by sync)\n\n`);
  tip.appendMarkdown(`Session: ${md(s.session_id)}  \nStarted: ${md(when(s.started_at, now))}  \nLast hook call: ${md(when(s.last_seen, now))}`);
  if (s.last_tool) tip.appendMarkdown(` (${md(s.last_tool)})`);
  tip.appendMarkdown('\n\n');
  if (s.waiting_since)
    tip.appendMarkdown(
      `Waiting for ${md(s.waiting_reason === 'turn ended' ? 'input: its turn ended' : (s.waiting_reason ?? 'input'))} since ${md(when(s.waiting_since, now))}\n\n`,
    );
  if (s.files_touched.length)
    tip.appendMarkdown(`Files changed: ${s.files_touched.slice(0, 20).map(md).join(', ')}${s.files_touched.length > 20 ? ', …' : ''}\n\n`);
  tip.appendMarkdown(s.recorded_at ? `Last recorded its work: ${md(when(s.recorded_at, now))}` : 'Has not recorded its work in Twining.');
  if (s.unrecorded) tip.appendMarkdown('\n\nIt stopped after changing files without a record or a handoff: ask it for one from the row’s menu.');
  return tip;
}
