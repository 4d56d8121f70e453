/**
 * The `@twining` chat participant. Slash commands answer straight from the engine: /status,
 * /agents, /delegations, /handoffs, and /handoff <summary> (hands over with the active file's
 * scope). Anything else goes to the request's model together with the `twining_*` tools, in a
 * tool-calling loop.
 */
import * as vscode from 'vscode';
import type { TwiningFolder } from '../model/folders';
import { chooseFolder } from '../model/folder-choice';
import type { TwiningContext } from '../twining-context';
import { renderStatus } from '../views/record-documents';
import { log, messageOf } from '../log';
import { activeFile } from '../commands/prompts';
import { snapshotCounts } from '../commands/handoff-commands';
import { expiry, list, relative, score, strings } from '../present/format';

const MAX_TOOL_ROUNDS = 8;

/** The participant's request handler (exported through the API so tests can drive it). */
export function createChatHandler(ctx: TwiningContext): vscode.ChatRequestHandler {
  return (request, context, stream, token) => handle(ctx, request, context, stream, token);
}

/** Registers `@twining` where the chat API exists (it is absent in some hosts). */
export function registerChatParticipant(ctx: TwiningContext, handler: vscode.ChatRequestHandler): vscode.Disposable | undefined {
  const chat = (vscode as { chat?: typeof vscode.chat }).chat;
  if (typeof chat?.createChatParticipant !== 'function') return undefined;
  const participant = chat.createChatParticipant('twining.chat', handler);
  participant.iconPath = vscode.Uri.joinPath(ctx.extensionUri, 'media', 'twining.png');
  return participant;
}

async function handle(
  ctx: TwiningContext,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  try {
    const folder = await chooseFolder(ctx.folders);
    switch (request.command) {
      case 'status':
        stream.markdown(renderStatus(folder.name, await folder.run(engine => engine.status({}))));
        return {};
      case 'agents':
        return await agents(ctx, folder, stream);
      case 'delegations':
        return await delegations(ctx, folder, stream);
      case 'handoffs':
        return await handoffs(ctx, folder, stream);
      case 'handoff':
        return await handoff(ctx, folder, request, stream);
      default:
        return await freeForm(ctx, folder, request, context, stream, token);
    }
  } catch (error) {
    log.error(`@twining: ${messageOf(error)}`);
    stream.markdown(`**Twining could not answer:** ${messageOf(error)}`);
    return { errorDetails: { message: messageOf(error) } };
  }
}

async function agents(ctx: TwiningContext, folder: TwiningFolder, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const { agents } = await folder.run(engine => engine.agents({}));
  const now = ctx.clock.now();
  if (agents.length === 0) {
    stream.markdown('No agent is registered yet.');
    stream.button({ command: 'twining.registerAgent', title: 'Register Agent' });
    return {};
  }
  stream.markdown(`**${agents.length} agents** in ${folder.name}:\n\n`);
  for (const a of agents) {
    stream.markdown(
      `- **${a.agent_id}** — ${a.liveness}${a.role ? `, ${a.role}` : ''}; ${list(strings(a.capabilities), 'no capabilities')}; last active ${relative(a.last_seen, now)}\n`,
    );
  }
  return {};
}

async function delegations(ctx: TwiningContext, folder: TwiningFolder, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const { delegations, expired_count } = await folder.run(engine => engine.delegations({}));
  const now = ctx.clock.now();
  if (delegations.length === 0) stream.markdown('No open delegation.');
  for (const d of delegations) {
    const best = d.suggested_agents[0];
    stream.markdown(
      `- **${d.summary}** (${d.urgency}, ${expiry(d.expires_at, now)}) needs ${list(d.required_capabilities)}` +
        `${best ? `; best suited: ${best.agent_id} (${score(best.total_score)})` : '; nobody to suggest'}\n`,
    );
  }
  if (expired_count) stream.markdown(`\n${expired_count} expired need(s) not shown.`);
  return {};
}

async function handoffs(ctx: TwiningContext, folder: TwiningFolder, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const { handoffs, total_count } = await folder.run(engine => engine.handoffs({ limit: 20 }));
  const me = ctx.agentId();
  const now = ctx.clock.now();
  if (handoffs.length === 0) stream.markdown('No handoff yet.');
  for (const h of handoffs) {
    const mark = h.acknowledged ? '✓' : h.target_agent === me ? '🔔' : '•';
    stream.markdown(
      `- ${mark} **${h.summary}** — ${h.source_agent} → ${h.target_agent ?? 'any agent'}, ${relative(h.created_at, now)}` +
        `${h.acknowledged ? '' : ' (not acknowledged)'}${h.scope ? `, scope \`${h.scope}\`` : ''}\n`,
    );
  }
  if (total_count > handoffs.length) stream.markdown(`\n…and ${total_count - handoffs.length} older.`);
  const mine = handoffs.filter(h => !h.acknowledged && h.target_agent === me);
  for (const h of mine.slice(0, 3)) {
    stream.button({
      command: 'twining.acknowledgeHandoff',
      title: `Acknowledge "${h.summary.slice(0, 40)}"`,
      arguments: [{ handoff_id: h.id, folder: folder.root }],
    });
  }
  return {};
}

async function handoff(ctx: TwiningContext, folder: TwiningFolder, request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const summary = request.prompt.trim();
  if (!summary) {
    stream.markdown('Say what you hand over, e.g. `/handoff JWT middleware done; refresh flow still needs tests`. The handoff is scoped to the active file.');
    return {};
  }
  const scope = activeFile(folder);
  const record = await folder.write('/handoff', engine => engine.handoff({ source_agent: ctx.agentId(), summary, results: [], ...(scope ? { scope } : {}) }));
  stream.markdown(
    `Handoff created from **${record.source_agent}** to any agent, scope ${scope ? `\`${scope}\`` : 'whole project'}, with ${snapshotCounts(record.context_snapshot)} attached.\n\n`,
  );
  for (const s of record.context_snapshot.summaries) stream.markdown(`- ${s}\n`);
  stream.button({ command: 'twining.openHandoff', title: 'Open Handoff', arguments: [{ handoff_id: record.id, folder: folder.root }] });
  return {};
}

async function freeForm(
  ctx: TwiningContext,
  folder: TwiningFolder,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  const tools: vscode.LanguageModelChatTool[] = (lm?.tools ?? [])
    .filter(t => t.name.startsWith('twining_'))
    .map(t => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const me = ctx.agentId();
  const file = activeFile(folder);
  const messages: vscode.LanguageModelChatMessage[] = [
    vscode.LanguageModelChatMessage.User(
      [
        'You help coordinate the AI agents and people who work on this codebase through Twining, a shared .twining/ folder',
        'holding registered agents, blackboard entries (warnings, findings, needs…), delegations, handoffs and decisions.',
        'Use the twining_* tools to read and change it; answer briefly, in Markdown.',
        `The user's own agent id is "${me}": use it as source_agent, agent_id or acknowledging agent when the user acts themselves.`,
        `The current time is ${ctx.clock.now().toISOString()}.`,
        file
          ? `The active editor shows ${file}; use it (or its folder, ending in "/") as the scope when the user means "this file".`
          : 'No file is open in the editor.',
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
    if (calls.length === 0) return {};
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
    if (token.isCancellationRequested) return {};
  }
  stream.markdown('\n\n_(Stopped after several tool calls.)_');
  return {};
}
