/** Registers every command (see command-table.ts for the list and command-runner.ts for how arguments work). */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import { CommandId } from './command-table';
import { Handler, registerCommand } from './command-runner';
import { acknowledgeHandoff, createHandoff, openHandoff, verifyHandoff } from './handoff-commands';
import { postDelegation, postFinding, postWarning, recordDecision } from './blackboard-commands';
import { discoverAgents, registerAgent } from './agent-commands';
import { initialize, openRecord, refresh, showLog, showStatus } from './folder-commands';
import { setUpGitMerging } from './git-merging-commands';
import { sync } from './sync-command';
import { search } from './search-command';
import { resolveEntry } from './resolve-command';
import { dismissEntry, followActiveEditor, overrideDecision, pinContext, promoteDecision, reconsiderDecision, showProjectContext } from './lifecycle-commands';
import { continueInChat } from './continue-in-chat';
import { claimPath, openClaim, releaseClaim } from './claim-commands';
import { addAgentInstructions, copyMcpConfiguration, registerProposedDocuments } from './agent-setup-commands';
import { openTimeline, showGraph } from './timeline-commands';
import { setUpAgentHooks } from './hooks-setup-commands';
import { setUpAgents } from './set-up-agents-command';
import { exportMarkdown, whatChangedSince } from './history-commands';
import { linkCommitToDecision } from './commit-link-commands';
import { askSessionForRecord } from './session-commands';

const HANDLERS: Record<CommandId, Handler> = {
  'twining.createHandoff': createHandoff,
  'twining.acknowledgeHandoff': acknowledgeHandoff,
  'twining.openHandoff': openHandoff,
  'twining.verifyHandoff': verifyHandoff,
  'twining.continueInChat': continueInChat,
  'twining.postDelegation': postDelegation,
  'twining.registerAgent': registerAgent,
  'twining.discoverAgents': discoverAgents,
  'twining.postWarning': postWarning,
  'twining.postFinding': postFinding,
  'twining.recordDecision': recordDecision,
  'twining.showStatus': showStatus,
  'twining.refresh': refresh,
  'twining.initialize': initialize,
  'twining.setUpGitMerging': setUpGitMerging,
  'twining.sync': sync,
  'twining.openRecord': openRecord,
  'twining.showLog': showLog,
  'twining.search': search,
  'twining.dismissEntry': dismissEntry,
  'twining.resolveEntry': resolveEntry,
  'twining.reconsiderDecision': reconsiderDecision,
  'twining.overrideDecision': overrideDecision,
  'twining.promoteDecision': promoteDecision,
  'twining.pinContext': pinContext,
  'twining.followActiveEditor': followActiveEditor,
  'twining.showProjectContext': showProjectContext,
  'twining.copyMcpConfiguration': copyMcpConfiguration,
  'twining.addAgentInstructions': addAgentInstructions,
  'twining.claimPath': claimPath,
  'twining.releaseClaim': releaseClaim,
  'twining.openClaim': openClaim,
  'twining.openTimeline': openTimeline,
  'twining.showGraph': showGraph,
  'twining.setUpAgentHooks': setUpAgentHooks,
  'twining.setUpAgents': setUpAgents,
  'twining.exportMarkdown': exportMarkdown,
  'twining.whatChangedSince': whatChangedSince,
  'twining.linkCommitToDecision': linkCommitToDecision,
  'twining.askSessionForRecord': askSessionForRecord,
};

export function registerCommands(ctx: TwiningSession): vscode.Disposable[] {
  return [...(Object.keys(HANDLERS) as CommandId[]).map(id => registerCommand(id, HANDLERS[id], ctx)), ...registerProposedDocuments()];
}
