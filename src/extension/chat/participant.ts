/**
 * The `@twining` chat participant. Slash commands answer from the engine without a model
 * (chat-lists.ts, chat-handoffs.ts, chat-decide.ts, chat-search.ts, chat-claims.ts); /delegate asks the model only for
 * capabilities the prompt leaves out. Anything else goes to the request's model with the
 * `twining_*` tools (free-form.ts). Follow-ups suggest the next step (chat-followups.ts).
 */
import * as vscode from 'vscode';
import { chooseFolder } from '../model/folder-choice';
import type { TwiningSession } from '../session';
import { log, messageOf } from '../log';
import type { ChatCall, ChatCommandResult } from './chat-call';
import { agents, delegations, discover, handoffs, status } from './chat-lists';
import { acknowledge, handoff, verify } from './chat-handoffs';
import { delegate, why } from './chat-decide';
import { search } from './chat-search';
import { brief } from './chat-brief';
import { claims } from './chat-claims';
import { freeForm } from './free-form';
import { followupsFor } from './chat-followups';
import type { ChatCommandName } from './chat-parse';

/** The slash commands (package.json `chatParticipants[0].commands` lists the same names). */
export const CHAT_COMMANDS: Record<ChatCommandName, (call: ChatCall) => Promise<ChatCommandResult>> = {
  status,
  brief,
  agents,
  delegations,
  handoffs,
  handoff,
  delegate,
  discover,
  ack: acknowledge,
  verify,
  why,
  search,
  claims,
};

/** The participant's request handler (exported through the API so tests can drive it). */
export function createChatHandler(ctx: TwiningSession): vscode.ChatRequestHandler {
  return (request, context, stream, token) => handle(ctx, request, context, stream, token);
}

/** Registers `@twining` where the chat API exists (it is absent in some hosts). */
export function registerChatParticipant(ctx: TwiningSession, handler: vscode.ChatRequestHandler): vscode.Disposable | undefined {
  const chat = (vscode as { chat?: typeof vscode.chat }).chat;
  if (typeof chat?.createChatParticipant !== 'function') return undefined;
  const participant = chat.createChatParticipant('twining.chat', handler);
  participant.iconPath = vscode.Uri.joinPath(ctx.extensionUri, 'media', 'twining.png');
  participant.followupProvider = { provideFollowups: result => followupsFor(result, ctx.agentId()) };
  return participant;
}

async function handle(
  ctx: TwiningSession,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<ChatCommandResult> {
  try {
    const folder = await chooseFolder(ctx.folders);
    const call: ChatCall = { ctx, folder, request, context, stream, token };
    const command = request.command && Object.hasOwn(CHAT_COMMANDS, request.command) ? CHAT_COMMANDS[request.command as ChatCommandName] : undefined;
    return await (command ?? freeForm)(call);
  } catch (error) {
    log.error(`@twining${request.command ? ` /${request.command}` : ''}: ${messageOf(error)}`);
    stream.markdown(`**Twining could not answer:** ${messageOf(error)}`);
    return { errorDetails: { message: messageOf(error) } };
  }
}
