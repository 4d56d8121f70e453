/**
 * Every command the extension contributes, with the core operation whose fields its argument
 * object takes. No `vscode` import: the manifest unit test compares this with package.json.
 */
import type { OperationName } from '../../core';

export interface CommandInfo {
  title: string;
  /** The operation whose input the argument object is (undefined: the command's own fields). */
  op?: OperationName;
  /** Writes to `.twining/`: disabled in untrusted workspaces. */
  writes: boolean;
  /** Shown in the Command Palette. */
  palette: boolean;
}

export const COMMANDS = {
  'twining.createHandoff': { title: 'Create Handoff', op: 'handoff', writes: true, palette: true },
  'twining.acknowledgeHandoff': { title: 'Acknowledge Handoff', op: 'acknowledge', writes: true, palette: true },
  'twining.openHandoff': { title: 'Open Handoff', writes: false, palette: true },
  'twining.verifyHandoff': { title: 'Verify Handoff', op: 'verify', writes: false, palette: true },
  'twining.postDelegation': { title: 'Post Delegation', op: 'delegate', writes: true, palette: true },
  'twining.registerAgent': { title: 'Register Agent', op: 'register', writes: true, palette: true },
  'twining.discoverAgents': { title: 'Discover Agents', op: 'discover', writes: false, palette: true },
  'twining.postWarning': { title: 'Post Warning', op: 'post', writes: true, palette: true },
  'twining.postFinding': { title: 'Post Finding', op: 'post', writes: true, palette: true },
  'twining.recordDecision': { title: 'Record Decision', op: 'decide', writes: true, palette: true },
  'twining.showStatus': { title: 'Show Status', op: 'status', writes: false, palette: true },
  'twining.refresh': { title: 'Refresh', writes: false, palette: true },
  'twining.initialize': { title: 'Initialize', writes: true, palette: true },
  'twining.openRecord': { title: 'Open Record', writes: false, palette: false },
  'twining.showLog': { title: 'Show Log', writes: false, palette: true },
} as const satisfies Record<string, CommandInfo>;

export type CommandId = keyof typeof COMMANDS;
export const COMMAND_IDS = Object.keys(COMMANDS) as CommandId[];
