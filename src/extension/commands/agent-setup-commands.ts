/**
 * Setting up other agents: *Copy MCP Configuration* (the snippet that starts this installation's
 * `twining mcp` for Claude Code, Cursor, Codex, VS Code's mcp.json or any other MCP client) and
 * *Add Agent Instructions* (Twining's section in the workspace's agent instructions and a prompt
 * file for handing off, shown as a diff before anything is written).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { CLIENTS, MCP_CLIENTS, McpClient, clientSnippet, currentRuntime, isMcpClient, mcpLaunch } from '../../agents/setup/client-config';
import { INSTRUCTION_TARGETS, InstructionTarget, PROMPT_FILE, TARGETS, handoffPrompt, withSection } from '../../agents/setup/agent-instructions';
import type { TwiningFolder } from '../model/folders';
import type { TwiningSession } from '../session';
import { bundledCli } from '../tools/mcp-provider';
import { followUp, log, inform } from '../log';
import { Cancelled, Invocation, folderFromArgs, quietly } from './command-runner';
import { pickFolder, pickOne } from './prompts';

/** Takes the named fields out of an argument object and refuses any other. */
function fields(what: string, args: Record<string, unknown>, known: string[]): Record<string, unknown> {
  const extra = Object.keys(args).filter(k => !known.includes(k));
  if (extra.length) throw new Error(`${what}: unknown field(s) ${extra.join(', ')} (it takes ${known.join(', ')} and folder)`);
  return args;
}

export async function folderOf(inv: Invocation, ctx: TwiningSession, title: string): Promise<TwiningFolder> {
  if (inv.mode === 'args') return folderFromArgs(ctx, inv.args);
  if (inv.mode === 'node') return inv.node.folder;
  return (inv.mode === 'uri' ? ctx.folders.folderOf(inv.uri) : undefined) ?? (await pickFolder(ctx, { title }));
}

// ---------------------------------------------------------------------------------------------
// Copy MCP Configuration

/** `{client?, folder?}`: copies the snippet for `client` to the clipboard and opens it in an editor. */
export async function copyMcpConfiguration(inv: Invocation, ctx: TwiningSession) {
  const title = 'Copy MCP Configuration';
  const folder = await folderOf(inv, ctx, title);
  let client: McpClient;
  if (inv.mode === 'args') {
    const { client: value } = fields(title, inv.args, ['client']);
    if (typeof value !== 'string' || !isMcpClient(value)) throw new Error(`${title}: client must be one of ${MCP_CLIENTS.join(', ')}`);
    client = value;
  } else {
    const items = MCP_CLIENTS.map(id => ({ id, label: CLIENTS[id].label, description: CLIENTS[id].file, detail: CLIENTS[id].hint }));
    client = (await pickOne({ title }, items, 'Which MCP client should start Twining?')).id;
  }
  const launch = mcpLaunch(currentRuntime(), bundledCli(), folder.root);
  const text = clientSnippet(client, launch);
  await vscode.env.clipboard.writeText(text);
  const document = await vscode.workspace.openTextDocument({ content: text, language: CLIENTS[client].language === 'json' ? 'json' : 'plaintext' });
  await vscode.window.showTextDocument(document, { preview: true });
  const message = `MCP configuration for ${CLIENTS[client].label} copied. ${CLIENTS[client].hint} It runs this installation's CLI: copy it again after updating the extension.`;
  log.info(`${folder.name}: ${message}`);
  if (inv.mode === 'args') quietly(`MCP configuration for ${CLIENTS[client].label} copied.`);
  else inform(message);
  return { client, file: CLIENTS[client].file, text, launch };
}

// ---------------------------------------------------------------------------------------------
// Add Agent Instructions

/** Proposed texts, shown by the diff editor (`twining-proposed:/<folder>/<file>`). */
const PROPOSED_SCHEME = 'twining-proposed';
const proposed = new Map<string, string>();
const proposedChanged = new vscode.EventEmitter<vscode.Uri>();

/** Registers the content provider of the proposed texts (with the commands). */
export function registerProposedDocuments(): vscode.Disposable[] {
  return [
    proposedChanged,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, {
      onDidChange: proposedChanged.event,
      provideTextDocumentContent: uri => proposed.get(uri.path) ?? '',
    }),
  ];
}

export interface FileChange {
  /** Relative to the folder, with `/`. */
  relative: string;
  file: string;
  current: string | undefined;
  next: string;
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file}: cannot be read (${(error as Error).message}); nothing was written`);
  }
}

/** What the command would write in a folder: only the files whose text changes. */
export async function plannedChanges(folder: TwiningFolder, target: InstructionTarget, prompt: boolean): Promise<FileChange[]> {
  const wanted: [string, (current: string | undefined) => string][] = [[TARGETS[target].path, current => withSection(target, current, TARGETS[target].path)]];
  if (prompt) wanted.push([PROMPT_FILE, () => handoffPrompt()]);
  const changes: FileChange[] = [];
  for (const [relative, make] of wanted) {
    const file = path.join(folder.root, ...relative.split('/'));
    const current = await readIfExists(file);
    const next = make(current);
    if (next !== current) changes.push({ relative, file, current, next });
  }
  return changes;
}

/** Writes one file whole: a temporary file beside it, then a rename, so no reader sees half of it. */
export async function writeWhole(change: FileChange): Promise<void> {
  await fs.promises.mkdir(path.dirname(change.file), { recursive: true });
  const temp = `${change.file}.${process.pid}.twining.tmp`;
  try {
    await fs.promises.writeFile(temp, change.next, 'utf8');
    await fs.promises.rename(temp, change.file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw new Error(`${change.file}: could not be written (${(error as Error).message}); it is unchanged`);
  }
}

/**
 * Opens `text` as a read-only document (`twining-proposed:/<folder>/<name>`) in the diff language:
 * a preview the person reads and never has to save or discard. Returns a function that closes its
 * tab (once the question it illustrates is answered).
 */
export async function showPreview(folder: TwiningFolder, name: string, text: string): Promise<() => Promise<void>> {
  const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${folder.name}/${name}` });
  proposed.set(uri.path, text);
  proposedChanged.fire(uri);
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(document, 'diff');
  await vscode.window.showTextDocument(document, { preview: true });
  return async () => {
    const tabs = vscode.window.tabGroups.all
      .flatMap(g => g.tabs)
      .filter(t => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs);
    proposed.delete(uri.path);
  };
}

/** Shows each change as a diff of the file (or nothing) against the proposed text. */
export async function showDiffs(folder: TwiningFolder, changes: FileChange[]): Promise<void> {
  for (const change of changes) {
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${folder.name}/${change.relative}` });
    proposed.set(uri.path, change.next);
    proposedChanged.fire(uri);
    const left = change.current === undefined ? vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/empty/${change.relative}` }) : vscode.Uri.file(change.file);
    const label = `${change.relative}: ${change.current === undefined ? 'new file' : 'current ↔ with Twining'}`;
    await vscode.commands.executeCommand('vscode.diff', left, uri, label, { preview: false });
  }
}

/**
 * `{target?, prompt?, folder?}`: writes Twining's section into the chosen instructions file
 * (`agents`, `copilot` or `instructions-file`; default `agents`) and, unless `prompt` is false,
 * the handoff prompt file. Run by hand, it shows the diffs and asks before writing. Running it
 * again replaces the marked section instead of adding another.
 */
export async function addAgentInstructions(inv: Invocation, ctx: TwiningSession) {
  const title = 'Add Agent Instructions';
  const folder = await folderOf(inv, ctx, title);
  let target: InstructionTarget = 'agents';
  let prompt = true;
  if (inv.mode === 'args') {
    const args = fields(title, inv.args, ['target', 'prompt']);
    if (args.target !== undefined) {
      if (typeof args.target !== 'string' || !(INSTRUCTION_TARGETS as readonly string[]).includes(args.target))
        throw new Error(`${title}: target must be one of ${INSTRUCTION_TARGETS.join(', ')}`);
      target = args.target as InstructionTarget;
    }
    if (args.prompt !== undefined && typeof args.prompt !== 'boolean') throw new Error(`${title}: prompt must be true or false`);
    prompt = args.prompt !== false;
  } else {
    const items = INSTRUCTION_TARGETS.map(id => ({ id, label: TARGETS[id].label, description: TARGETS[id].path, detail: TARGETS[id].detail }));
    target = (await pickOne({ title }, items, `Where should the instructions for agents go? (${PROMPT_FILE} is added too)`)).id;
  }
  const changes = await plannedChanges(folder, target, prompt);
  const written = changes.map(c => c.relative);
  if (changes.length === 0) {
    const message = `The agent instructions in ${folder.name} are up to date; nothing was written.`;
    if (inv.mode === 'args') quietly(message);
    else inform(message);
    return { written, folder: folder.root };
  }
  if (inv.mode !== 'args') {
    await showDiffs(folder, changes);
    const choice = await vscode.window.showInformationMessage(
      `Write ${written.join(' and ')} in ${folder.name}?`,
      { modal: true, detail: 'The diff editors show each file now and with Twining. Running this again replaces the Twining section rather than adding one.' },
      'Write',
    );
    if (choice !== 'Write') throw new Cancelled();
  }
  // These files are outside .twining/: no engine writes them, so the rule is asked here.
  const refusal = ctx.folders.writeRefusal(title);
  if (refusal) throw refusal;
  for (const change of changes) await writeWhole(change);
  const message = `Wrote ${written.join(' and ')} in ${folder.name}.`;
  log.info(message);
  if (inv.mode === 'args') quietly(message);
  else followUp(vscode.window.showInformationMessage(message, 'Open'), () => vscode.window.showTextDocument(vscode.Uri.file(changes[0].file)));
  return { written, folder: folder.root };
}
