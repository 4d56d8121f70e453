/**
 * A request without a slash command: it goes to the request's model together with the
 * `twining_*` language model tools, in a tool-calling loop; the files in scope (references, the
 * selection, else the active file) are named in the instructions.
 */
import * as vscode from 'vscode';
import { messageOf } from '../log';
import { ChatCall, ChatCommandResult, scopeOf } from './chat-call';

const MAX_TOOL_ROUNDS = 8;

export async function freeForm(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, request, context, stream, token } = call;
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  const tools: vscode.LanguageModelChatTool[] = (lm?.tools ?? [])
    .filter(t => t.name.startsWith('twining_'))
    .map(t => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const me = ctx.agentId();
  const scope = await scopeOf(call);
  const messages: vscode.LanguageModelChatMessage[] = [
    vscode.LanguageModelChatMessage.User(
      [
        'You help coordinate the AI agents and people who work on this codebase through Twining, a shared .twining/ folder',
        'holding registered agents, blackboard entries (warnings, findings, needs…), delegations, handoffs and decisions.',
        'Use the twining_* tools to read and change it; answer briefly, in Markdown.',
        `The user's own agent id is "${me}": use it as source_agent, agent_id or acknowledging agent when the user acts themselves.`,
        `The current time is ${ctx.clock.now().toISOString()}.`,
        scope
          ? `The user's request is about ${scope} (the files they referenced, or the active editor's); use it as the scope when they mean "this file".`
          : 'No file is referenced or open in the editor.',
      ].join(' '),
    ),
  ];
  for (const turn of context.history.slice(-6)) {
    if (turn instanceof vscode.ChatRequestTurn && turn.participant === 'twining.chat') messages.push(vscode.LanguageModelChatMessage.User(turn.prompt));
    if (turn instanceof vscode.ChatResponseTurn && turn.participant === 'twining.chat') {
      const text = turn.response.map(p => (p instanceof vscode.ChatResponseMarkdownPart ? p.value.value : '')).join('');
      if (text) messages.push(vscode.LanguageModelChatMessage.Assistant(text));
    }
  }
  messages.push(vscode.LanguageModelChatMessage.User(request.prompt));

  for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
    const response = await request.model.sendRequest(messages, { tools, justification: 'Answer questions about the Twining coordination state' }, token);
    const calls: vscode.LanguageModelToolCallPart[] = [];
    let text = '';
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) {
        text += part.value;
        stream.markdown(part.value);
      } else if (part instanceof vscode.LanguageModelToolCallPart) {
        calls.push(part);
      }
    }
    if (calls.length === 0) return { metadata: { command: 'freeForm', scope } };
    messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
    for (const call of calls) {
      let content: unknown[];
      try {
        const result = await lm!.invokeTool(call.name, { input: call.input, toolInvocationToken: request.toolInvocationToken }, token);
        content = result.content;
      } catch (error) {
        content = [new vscode.LanguageModelTextPart(`Error: ${messageOf(error)}`)];
      }
      messages.push(vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(call.callId, content)]));
    }
    if (token.isCancellationRequested) return { metadata: { command: 'freeForm', scope } };
  }
  stream.markdown('\n\n_(Stopped after several tool calls.)_');
  return { metadata: { command: 'freeForm', scope } };
}
