/**
 * Every command the extension contributes, with the core operation whose fields its argument
 * object takes. No `vscode` import: the manifest unit test compares this with package.json.
 */
import type { OperationName } from '../../core';
import { writes } from '../../core/operations/operation-writes';

export interface CommandInfo {
  title: string;
  /** The operation whose input the argument object is (undefined: the command's own fields). */
  op?: OperationName;
  /** For a command without an operation: it writes to `.twining/` (with one, the operation says). */
  writesItself?: true;
  /** Shown in the Command Palette. */
  palette: boolean;
}

export const COMMANDS = {
  'twining.createHandoff': { title: 'Create Handoff', op: 'handoff', palette: true },
  'twining.acknowledgeHandoff': { title: 'Acknowledge Handoff', op: 'acknowledge', palette: true },
  'twining.openHandoff': { title: 'Open Handoff', palette: true },
  'twining.verifyHandoff': { title: 'Verify Handoff', op: 'verify', palette: true },
  'twining.continueInChat': { title: 'Continue in Chat', palette: true },
  'twining.postDelegation': { title: 'Post Delegation', op: 'delegate', palette: true },
  'twining.registerAgent': { title: 'Register Agent', op: 'register', palette: true },
  'twining.discoverAgents': { title: 'Discover Agents', op: 'discover', palette: true },
  'twining.postWarning': { title: 'Post Warning', op: 'post', palette: true },
  'twining.postFinding': { title: 'Post Finding', op: 'post', palette: true },
  'twining.recordDecision': { title: 'Record Decision', op: 'decide', palette: true },
  'twining.showStatus': { title: 'Show Status', op: 'status', palette: true },
  'twining.refresh': { title: 'Refresh', palette: true },
  'twining.initialize': { title: 'Initialize', writesItself: true, palette: true },
  'twining.setUpGitMerging': { title: 'Set Up Git Merging', writesItself: true, palette: true },
  'twining.openRecord': { title: 'Open Record', palette: false },
  'twining.showLog': { title: 'Show Log', palette: true },
  'twining.search': { title: 'Search', op: 'search', palette: true },
  'twining.dismissEntry': { title: 'Dismiss Warning or Finding', op: 'dismiss', palette: true },
  'twining.resolveEntry': { title: 'Resolve Warning, Need or Question', op: 'resolve', palette: true },
  'twining.reconsiderDecision': { title: 'Reconsider Decision', op: 'reconsider', palette: true },
  'twining.overrideDecision': { title: 'Override Decision', op: 'override', palette: true },
  'twining.promoteDecision': { title: 'Promote Decision', op: 'promote', palette: true },
  'twining.pinContext': { title: 'Pin Context to This File', palette: true },
  'twining.followActiveEditor': { title: 'Context: Follow the Active Editor', palette: true },
  'twining.showProjectContext': { title: 'Context: Show the Whole Project', palette: true },
  'twining.copyMcpConfiguration': { title: 'Copy MCP Configuration', palette: true },
  'twining.addAgentInstructions': { title: 'Add Agent Instructions', writesItself: true, palette: true },
  'twining.claimPath': { title: 'Claim This File / Folder', op: 'claim', palette: true },
  'twining.releaseClaim': { title: 'Release Claim', op: 'release', palette: true },
  'twining.openClaim': { title: 'Open Claim', palette: false },
  'twining.openTimeline': { title: 'Open Timeline', palette: true },
  'twining.showGraph': { title: 'Show Graph', palette: true },
  'twining.setUpAgentHooks': { title: 'Set Up Agent Hooks', writesItself: true, palette: true },
  'twining.exportMarkdown': { title: 'Export as Markdown', op: 'export', palette: true },
  'twining.whatChangedSince': { title: 'What Changed Since…', op: 'what_changed', palette: true },
  'twining.linkCommitToDecision': { title: 'Link Commit to Decision', op: 'link_commit', palette: true },
  'twining.askSessionForRecord': { title: 'Ask for a Record or Handoff', writesItself: true, palette: false },
} as const satisfies Record<string, CommandInfo>;

export type CommandId = keyof typeof COMMANDS;
export const COMMAND_IDS = Object.keys(COMMANDS) as CommandId[];

/** Whether a command writes to `.twining/` (then it is disabled in untrusted workspaces). */
export function commandWrites(id: CommandId): boolean {
  const info: CommandInfo = COMMANDS[id];
  return info.op ? writes(info.op) : info.writesItself === true;
}
