/**
 * The language model tools: one per core operation, named `twining_<op>`, taking exactly the
 * operation's input (the schema in package.json is generated from the core's zod schemas by
 * scripts/sync-manifest.js). Writing tools ask for confirmation first. The folder is the active
 * editor's Twining folder, else the first workspace folder that has `.twining/`.
 */
import * as vscode from 'vscode';
import type { OperationName, Workspace } from '../../core';
import type { Folders, TwiningFolder } from '../model/folders';
import { OPERATIONS, toolName } from '../operations';
import { core } from '../model/engine-loader';
import { list } from '../present/format';

export interface ToolContext {
  folders: Folders;
  afterWrite(folder: TwiningFolder): Promise<void>;
}

type Input = Record<string, unknown>;

/** The folder tools and chat work in. */
export async function chatFolder(folders: Folders): Promise<TwiningFolder> {
  await folders.ready();
  const present = folders.present();
  const active = folders.activeFolder();
  const folder = active && present.includes(active) ? active : present[0];
  if (!folder) throw new Error('No workspace folder has a .twining/ folder. Run "Twining: Initialize" first.');
  return folder;
}

/** Calls one operation of the engine by name with an (already validated) input. */
export function runOperation(engine: Workspace, op: OperationName, input: Input): Promise<unknown> {
  const method = engine[op] as (input: Input) => Promise<unknown>;
  return method.call(engine, input);
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const arr = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** What a writing tool is about to do, for the confirmation dialog. */
async function describe(op: OperationName, input: Input, folder: TwiningFolder): Promise<string> {
  const where = `in \`${folder.name}/.twining/\``;
  switch (op) {
    case 'register':
      return `Register agent **${str(input.agent_id)}** with capabilities ${list(arr(input.capabilities))} ${where}.`;
    case 'delegate':
      return `Post a ${str(input.urgency) || 'normal'}-urgency delegation "${str(input.summary)}" needing ${list(arr(input.required_capabilities))} ${where}.`;
    case 'handoff': {
      const results = Array.isArray(input.results) ? input.results.length : 0;
      let snapshot = '';
      if (input.auto_snapshot !== false && !input.context_snapshot) {
        const s = await folder.run(engine => engine.previewSnapshot(str(input.scope) || undefined));
        snapshot = ` The snapshot attaches ${s.decision_ids.length} decision(s), ${s.warning_ids.length} warning(s) and ${s.finding_ids.length} finding(s).`;
      }
      return `Hand over "${str(input.summary)}" from **${str(input.source_agent)}** to **${str(input.target_agent) || 'any agent'}** with ${results} result(s), scope ${str(input.scope) || 'whole project'}, ${where}.${snapshot}`;
    }
    case 'acknowledge': {
      const id = str(input.handoff_id);
      const h = core().isUlid(id) ? await folder.run(engine => engine.getHandoff(id)).catch(() => undefined) : undefined;
      return `Acknowledge handoff ${h ? `"${h.summary}" from ${h.source_agent}` : id} as **${str(input.agent_id)}** ${where}.`;
    }
    case 'post':
      return `Post a ${str(input.entry_type)} "${str(input.summary)}" (scope ${str(input.scope) || 'project'}) to the blackboard ${where}.`;
    case 'decide':
      return `Record the ${str(input.domain)} decision "${str(input.summary)}" (scope ${str(input.scope)})${input.supersedes ? `, superseding ${str(input.supersedes)}` : ''} ${where}.`;
    default:
      return `Run ${op} ${where}.`;
  }
}

class TwiningTool implements vscode.LanguageModelTool<Input> {
  constructor(
    private readonly op: OperationName,
    private readonly ctx: ToolContext,
  ) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>): Promise<vscode.PreparedToolInvocation> {
    const info = OPERATIONS[this.op];
    if (!info.writes) return { invocationMessage: `Twining: ${info.title}` };
    const folder = await chatFolder(this.ctx.folders);
    const input = options.input ?? {};
    return {
      invocationMessage: `Twining: ${info.title}`,
      confirmationMessages: { title: `Twining: ${info.title}?`, message: new vscode.MarkdownString(await describe(this.op, input, folder)) },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>): Promise<vscode.LanguageModelToolResult> {
    const info = OPERATIONS[this.op];
    if (info.writes && !this.ctx.folders.isTrusted) {
      throw new Error(`Twining is read-only in an untrusted workspace; ${toolName(this.op)} would write to .twining/. Ask the user to trust the workspace.`);
    }
    const folder = await chatFolder(this.ctx.folders);
    const input = (options.input ?? {}) as Input;
    core().parseInput(this.op, input); // a clear error naming the field, before anything runs
    const result = await folder.run(engine => runOperation(engine, this.op, input));
    if (info.writes) await this.ctx.afterWrite(folder);
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify(result))]);
  }
}

/** Registers the tools where the language model API exists (it is absent in some hosts). */
export function registerTools(ctx: ToolContext): vscode.Disposable[] {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  if (typeof lm?.registerTool !== 'function') return [];
  // The operation list comes from operations.ts, so registering does not load the core.
  return (Object.keys(OPERATIONS) as OperationName[]).map(op => lm.registerTool(toolName(op), new TwiningTool(op, ctx)));
}
