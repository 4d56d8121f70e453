/**
 * The language model tools: one per core operation, named `twining_<op>`, taking exactly the
 * operation's input (the schema in package.json is generated from the core's zod schemas by
 * scripts/sync-manifest.js). Writing tools ask for confirmation first. The folder is chosen by
 * the one folder rule (model/folder-choice.ts): the active editor's, else the only one.
 */
import * as vscode from 'vscode';
import type { HandoffSnapshot, OperationName, TwiningEngine } from '../../core';
import type { TwiningFolder } from '../model/folders';
import { chooseFolder } from '../model/folder-choice';
import type { TwiningSession } from '../session';
import { OPERATIONS, toolName } from '../../core/operations/operation-info';
import { writes, writtenInWords } from '../../core/operations/operation-writes';
import { core } from '../model/engine-loader';
import { list } from '../present/format';

type Input = Record<string, unknown>;

/** Calls one operation of the engine's table by name with an (already validated) input. */
export function runOperation(engine: TwiningEngine, op: OperationName, input: Input): Promise<unknown> {
  return engine.run(op, input);
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const arr = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * The snapshots shown in handoff confirmations, by tool input, until the call they were shown for
 * runs: the one the user confirmed is the one compared, and stored, at the write (a few at most).
 */
const shownSnapshots = new Map<string, HandoffSnapshot>();
const inputKey = (folder: TwiningFolder, input: Input) => `${folder.root}\n${JSON.stringify(input)}`;

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
        if (shownSnapshots.size >= 16) shownSnapshots.delete(shownSnapshots.keys().next().value!);
        shownSnapshots.set(inputKey(folder, input), s);
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
    case 'claim':
      return `Claim ${input.delegation_id ? `delegation ${str(input.delegation_id)}` : list(arr(input.paths))} for **${str(input.agent_id)}** (${str(input.reason)}) ${where}.`;
    case 'release':
      return `Release ${arr(input.paths).length || input.delegation_id || arr(input.claim_ids).length ? 'the named claims' : 'every claim'} of **${str(input.agent_id)}** ${where}.`;
    default:
      return `Run ${op} ${where}.`;
  }
}

class TwiningTool implements vscode.LanguageModelTool<Input> {
  constructor(
    private readonly op: OperationName,
    private readonly ctx: TwiningSession,
  ) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>): Promise<vscode.PreparedToolInvocation> {
    const info = OPERATIONS[this.op];
    if (!writes(this.op)) return { invocationMessage: `Twining: ${info.title}` };
    const folder = await chooseFolder(this.ctx.folders);
    const input = options.input ?? {};
    return {
      invocationMessage: `Twining: ${info.title}`,
      confirmationMessages: {
        title: `Twining: ${info.title}?`,
        // What it does, then every kind of data it may change (core/operations/operation-writes.ts).
        message: new vscode.MarkdownString(`${await describe(this.op, input, folder)}\n\nIt may change ${writtenInWords(this.op)}.`),
      },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>): Promise<vscode.LanguageModelToolResult> {
    const name = toolName(this.op);
    const folder = await chooseFolder(this.ctx.folders);
    // A field the tool does not have is left out and named in the result, unless it looks misspelt (core/forgiving-input.ts).
    const { input: known, ignored } = core().forgivingInput(name, core().inputs[this.op], options.input ?? {});
    // twining-mcp's defaults for a model's call: why keeps to 4000 tokens (core/schemas/model-defaults.ts).
    const input = core().withModelDefaults(this.op, known) as typeof known;
    core().parseInput(this.op, input); // a clear error naming the field, before anything runs
    // A handoff holds the snapshot its confirmation showed; if what is in scope changed since,
    // nothing is written and the error says what changed (calling again shows the new one).
    const confirmed = this.op === 'handoff' ? shownSnapshots.get(inputKey(folder, input)) : undefined;
    if (confirmed) shownSnapshots.delete(inputKey(folder, input));
    const call = (engine: TwiningEngine) => (confirmed ? engine.handoff(input as never, { confirmed }) : runOperation(engine, this.op, input));
    const result = await (writes(this.op) ? folder.write(name, call) : folder.run(call));
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify(core().withIgnoredFields(result, ignored)))]);
  }
}

/** Registers the tools where the language model API exists (it is absent in some hosts). */
export function registerTools(ctx: TwiningSession): vscode.Disposable[] {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  if (typeof lm?.registerTool !== 'function') return [];
  // The operation list comes from operations.ts, so registering does not load the core.
  return (Object.keys(OPERATIONS) as OperationName[]).map(op => lm.registerTool(toolName(op), new TwiningTool(op, ctx)));
}
