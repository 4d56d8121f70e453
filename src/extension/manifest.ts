/**
 * The parts of package.json that are derived from the core rather than written by hand: the
 * language model tools, one per operation, whose input schemas are the zod schemas of the core.
 * scripts/sync-manifest.js writes them into package.json; test/unit/manifest.test.ts fails when
 * package.json and this function disagree. No `vscode` import (it runs in plain Node).
 */
import { OPERATION_NAMES, jsonSchemaOf, inputs } from '../core';
import { writes } from '../core/operations/operation-writes';
import type { OperationName } from '../core';
import { OPERATIONS, toolName } from '../core/operations/operation-info';
import { LM_TOOLS_WHEN } from './tools/tool-division';
import { contributedInstructions, handoffPrompt } from '../agents/setup/agent-instructions';

export interface ToolContribution {
  name: string;
  displayName: string;
  toolReferenceName: string;
  canBeReferencedInPrompt: boolean;
  icon: string;
  userDescription: string;
  modelDescription: string;
  tags: string[];
  inputSchema: Record<string, unknown>;
  /** Hidden when VS Code's agents get the tools from Twining's MCP server instead (each tool once). */
  when: string;
}

const TOOL_ICONS: Record<OperationName, string> = {
  register: '$(person-add)',
  agents: '$(organization)',
  discover: '$(search)',
  delegate: '$(megaphone)',
  delegations: '$(megaphone)',
  handoff: '$(send)',
  handoffs: '$(mail)',
  acknowledge: '$(check)',
  post: '$(note)',
  read: '$(book)',
  decide: '$(law)',
  decisions: '$(law)',
  status: '$(pulse)',
  verify: '$(verified)',
  why: '$(question)',
  dismiss: '$(close)',
  reconsider: '$(discussion)',
  override: '$(debug-step-over)',
  promote: '$(arrow-up)',
  search: '$(search)',
  claim: '$(lock)',
  release: '$(unlock)',
  claims: '$(lock)',
  trace: '$(type-hierarchy)',
  what_changed: '$(history)',
  summarize: '$(list-flat)',
  link_commit: '$(git-commit)',
  commits: '$(git-commit)',
  recent: '$(clock)',
  archive: '$(archive)',
  export: '$(markdown)',
  add_entity: '$(symbol-class)',
  add_relation: '$(references)',
  neighbors: '$(type-hierarchy-sub)',
  graph_query: '$(search)',
  prune_graph: '$(trash)',
  assemble: '$(book)',
  record: '$(save)',
  resolve: '$(pass)',
  triage: '$(checklist)',
  archive_stale: '$(archive)',
  unarchive: '$(history)',
  housekeeping: '$(tools)',
  amend: '$(edit)',
  migrate_status: '$(database)',
  exchange_status: '$(sync)',
};

/** `contributes.languageModelTools`, in operation order. */
export function languageModelTools(): ToolContribution[] {
  return OPERATION_NAMES.map(op => {
    const info = OPERATIONS[op];
    const described = inputs[op].description ?? info.title;
    return {
      name: toolName(op),
      displayName: `Twining: ${info.title}`,
      toolReferenceName: `twining-${op}`,
      canBeReferencedInPrompt: true,
      icon: TOOL_ICONS[op],
      userDescription: described,
      modelDescription: `${info.model}${writes(op) ? ' Writes to the shared .twining/ folder of the workspace.' : ' Read-only.'}`,
      tags: ['twining', writes(op) ? 'twining-write' : 'twining-read'],
      inputSchema: jsonSchemaOf(op),
      when: LM_TOOLS_WHEN,
    };
  });
}

/**
 * The files the extension contributes to VS Code's chat (`contributes.chatInstructions` and
 * `contributes.chatPromptFiles`), by path in the repository: generated from the same text as the
 * MCP server's instructions and Add Agent Instructions.
 */
export function chatFiles(): Record<string, string> {
  return {
    'media/chat/twining.instructions.md': contributedInstructions(),
    'media/chat/twining-handoff.prompt.md': handoffPrompt(),
  };
}
