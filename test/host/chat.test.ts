// The language model tools (registered with vscode.lm) and the @twining chat participant's
// handler: slash commands answered from the engine, and the tool-calling loop driven by a scripted
// model (no real language model is needed).
import * as assert from 'assert';
import * as vscode from 'vscode';
import * as path from 'path';
import { describeIn, twiningDir } from './helpers';
import { TwiningApi, lastLine, twining } from './twining';

interface Captured {
  markdown: string;
  buttons: vscode.Command[];
}

function fakeStream(): { stream: vscode.ChatResponseStream; out: Captured } {
  const out: Captured = { markdown: '', buttons: [] };
  const stream = {
    markdown: (value: string | vscode.MarkdownString) => void (out.markdown += typeof value === 'string' ? value : value.value),
    button: (command: vscode.Command) => void out.buttons.push(command),
    progress: () => undefined,
    reference: () => undefined,
    anchor: () => undefined,
    filetree: () => undefined,
    push: () => undefined,
  } as unknown as vscode.ChatResponseStream;
  return { stream, out };
}

const token = new vscode.CancellationTokenSource().token;

function request(prompt: string, command: string | undefined, model?: Partial<vscode.LanguageModelChat>): vscode.ChatRequest {
  return { prompt, command, references: [], toolReferences: [], toolInvocationToken: undefined, model } as unknown as vscode.ChatRequest;
}

const emptyContext = { history: [] } as unknown as vscode.ChatContext;

function toolsAvailable(): boolean {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  return (lm?.tools ?? []).filter(t => t.name.startsWith('twining_')).length === 14;
}

describeIn(['single'], 'chat participant and language model tools', () => {
  let api: TwiningApi;

  before(async () => {
    api = await twining();
  });

  it('/status answers from the engine', async () => {
    const { stream, out } = fakeStream();
    await api.chatHandler(request('', 'status'), emptyContext, stream, token);
    assert.match(out.markdown, /^# Twining status: demo-project/);
    assert.match(out.markdown, /\*\*Agents:\*\* \d+ registered/);
  });

  it('/agents and /delegations list what the views show', async () => {
    const agents = fakeStream();
    await api.chatHandler(request('', 'agents'), emptyContext, agents.stream, token);
    assert.match(agents.out.markdown, /\*\*backend-dev\*\* — (active|idle), implementer; typescript, api, database/);
    const needs = fakeStream();
    await api.chatHandler(request('', 'delegations'), emptyContext, needs.stream, token);
    assert.match(
      needs.out.markdown,
      /\*\*Review the API rate-limiting design\*\* \(low, expires in .*\) needs review, security; best suited: reviewer \(1\.00\)/,
    );
  });

  it('/handoffs lists handoffs and offers to acknowledge those for the user', async () => {
    const created = await vscode.commands.executeCommand<{ id: string }>('twining.createHandoff', {
      summary: 'Chat test handoff',
      results: [],
      target_agent: api.agentId(),
      scope: null,
    });
    const { stream, out } = fakeStream();
    await api.chatHandler(request('', 'handoffs'), emptyContext, stream, token);
    assert.match(out.markdown, /🔔 \*\*Chat test handoff\*\*/);
    assert.deepStrictEqual(out.buttons[0]?.arguments?.[0]?.handoff_id, created.id);
    await vscode.commands.executeCommand('twining.acknowledgeHandoff', { handoff_id: created.id });
  });

  it('/handoff <summary> hands over with the scope of the active file', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { stream, out } = fakeStream();
    await api.chatHandler(request('Handed over from chat', 'handoff'), emptyContext, stream, token);
    assert.match(
      out.markdown,
      /Handoff created from \*\*user-.*\*\* to any agent, scope whole project, with \d+ decisions?, \d+ warnings?, \d+ findings? attached/,
    );
    const [top] = (await api.folders.values().next().value!.handoffs({ limit: 1 })).handoffs;
    assert.strictEqual(top.summary, 'Handed over from chat');
  });

  it('the 14 twining_* tools are registered and answer through vscode.lm.invokeTool', async function () {
    if (!toolsAvailable()) this.skip(); // the host hides language model tools (chat.disableAIFeatures)
    const result = await vscode.lm.invokeTool('twining_agents', { input: { include_gone: false }, toolInvocationToken: undefined }, token);
    const text = result.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const parsed = JSON.parse(text);
    assert.ok(parsed.agents.some((a: { agent_id: string }) => a.agent_id === 'tester'));
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('twining_discover', { input: { required_capabilities: 'x' }, toolInvocationToken: undefined }, token)),
      /required_capabilities/,
    );
  });

  it('a writing tool writes through the engine (outside chat, VS Code does not ask for confirmation)', async function () {
    if (!toolsAvailable()) this.skip(); // the host hides language model tools (chat.disableAIFeatures)
    const result = await vscode.lm.invokeTool(
      'twining_post',
      { input: { entry_type: 'question', summary: 'Posted by a tool', agent_id: 'tool-user' }, toolInvocationToken: undefined },
      token,
    );
    const { id } = JSON.parse((result.content[0] as vscode.LanguageModelTextPart).value);
    const line = lastLine(path.join(twiningDir(), 'blackboard.jsonl'));
    assert.deepStrictEqual([line.id, line.entry_type, line.summary, line.agent_id], [id, 'question', 'Posted by a tool', 'tool-user']);
  });

  it('free-form requests run a tool-calling loop with the request model', async function () {
    if (!toolsAvailable()) this.skip(); // the host hides language model tools (chat.disableAIFeatures)
    const seen: vscode.LanguageModelChatMessage[][] = [];
    const model: Partial<vscode.LanguageModelChat> = {
      sendRequest: async (messages: vscode.LanguageModelChatMessage[], options?: vscode.LanguageModelChatRequestOptions) => {
        seen.push(messages);
        const round = seen.length;
        assert.ok(
          options?.tools?.some(t => t.name === 'twining_status'),
          'the twining tools are offered',
        );
        async function* parts(): AsyncIterable<unknown> {
          if (round === 1) yield new vscode.LanguageModelToolCallPart('call-1', 'twining_status', {});
          else {
            const last = messages[messages.length - 1].content[0] as vscode.LanguageModelToolResultPart;
            const status = JSON.parse((last.content[0] as vscode.LanguageModelTextPart).value);
            yield new vscode.LanguageModelTextPart(`There are ${status.registered_agents} agents.`);
          }
        }
        return { stream: parts(), text: (async function* () {})() } as unknown as vscode.LanguageModelChatResponse;
      },
    };
    const { stream, out } = fakeStream();
    await api.chatHandler(request('How many agents are there?', undefined, model), emptyContext, stream, token);
    assert.strictEqual(seen.length, 2);
    assert.match(out.markdown, /^There are \d+ agents\.$/);
  });
});
