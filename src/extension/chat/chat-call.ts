/**
 * One chat request as the slash commands see it: the folder it is about, the prompt without its
 * `#file` references, the files in scope (those references, the selection the chat attached, else
 * the active editor's file), and the buttons and references every command shows the same way.
 */
import * as vscode from 'vscode';
import type { TwiningFolder } from '../model/folders';
import type { TwiningSession } from '../session';
import { activeFile } from '../commands/prompts';
import { commonScope } from './chat-parse';

/** What a request's result carries for the follow-ups (ChatResult.metadata). */
export interface TwiningChatMetadata {
  command: string;
  handoffId?: string;
  scope?: string;
  /** Capabilities named or found (delegate, discover). */
  capabilities?: string[];
  /** Unacknowledged handoffs for the user, newest first (handoffs, status). */
  forYou?: string[];
}

export interface ChatCall {
  ctx: TwiningSession;
  folder: TwiningFolder;
  request: vscode.ChatRequest;
  context: vscode.ChatContext;
  stream: vscode.ChatResponseStream;
  token: vscode.CancellationToken;
}

export type ChatCommandResult = vscode.ChatResult & { metadata?: TwiningChatMetadata };

/** The prompt with the text of its references (`#file:jwt.ts`) taken out. */
export function promptText(request: vscode.ChatRequest): string {
  let text = request.prompt;
  const ranged = request.references.filter(r => r.range).sort((a, b) => b.range![0] - a.range![0]);
  for (const r of ranged) text = text.slice(0, r.range![0]) + text.slice(r.range![1]);
  return text.replace(/\s+/g, ' ').trim();
}

/** The URIs of the request's references (files, folders, selections) that lie in the folder. */
export function referencedUris(request: vscode.ChatRequest, folder: TwiningFolder): vscode.Uri[] {
  const uris: vscode.Uri[] = [];
  for (const r of request.references) {
    const uri = r.value instanceof vscode.Uri ? r.value : r.value instanceof vscode.Location ? r.value.uri : undefined;
    if (uri && folder.relativePath(uri) !== undefined && !uris.some(u => u.toString() === uri.toString())) uris.push(uri);
  }
  return uris;
}

/**
 * The workspace-relative scope the request is about: its references (a file, a folder ending in
 * "/", or the folder they share), else the active editor's file; undefined for none.
 */
export async function scopeOf(call: Pick<ChatCall, 'request' | 'folder'>, { activeEditor = true } = {}): Promise<string | undefined> {
  const uris = referencedUris(call.request, call.folder);
  if (uris.length === 0) return activeEditor ? activeFile(call.folder) : undefined;
  const paths: string[] = [];
  for (const uri of uris) {
    const rel = call.folder.relativePath(uri)!;
    const stat = await vscode.workspace.fs.stat(uri).then(
      s => s,
      () => undefined,
    );
    paths.push(stat && stat.type & vscode.FileType.Directory ? `${rel}/` : rel);
  }
  return commonScope(paths);
}

/** Shows the files of a scope as references of the answer (a folder scope as the folder). */
export function referenceScope(call: Pick<ChatCall, 'stream' | 'folder'>, scope: string | undefined): void {
  if (!scope || scope === 'project') return;
  call.stream.reference(vscode.Uri.joinPath(call.folder.workspaceFolder.uri, scope.replace(/\/$/, '')));
}

/** The argument object of the handoff commands for a handoff of this folder. */
export function handoffArgs(folder: TwiningFolder, id: string): { handoff_id: string; folder: string } {
  return { handoff_id: id, folder: folder.root };
}

/** The buttons for one handoff: Acknowledge (while nobody has), Continue in Chat, Open. */
export function handoffButtons(call: Pick<ChatCall, 'stream' | 'folder'>, id: string, options: { acknowledge: boolean; label?: string }): void {
  const args = [handoffArgs(call.folder, id)];
  const of = options.label ? ` "${options.label}"` : '';
  if (options.acknowledge) call.stream.button({ command: 'twining.acknowledgeHandoff', title: `Acknowledge${of}`, arguments: args });
  call.stream.button({ command: 'twining.continueInChat', title: `Continue in Chat${of}`, arguments: args });
  call.stream.button({ command: 'twining.openHandoff', title: `Open${of}`, arguments: args });
}
