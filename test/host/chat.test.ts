// The language model tools (registered with vscode.lm) and the @twining chat participant's
// handler: slash commands answered from the engine, and the tool-calling loop driven by a scripted
// model (no real language model is needed).
import * as assert from 'assert';
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import { describeIn, firstFolder, manifest, twiningDir } from './helpers';
import { TwiningApi, cli, lastLine, readLines, sleep, twining } from './twining';

interface Captured {
  markdown: string;
  buttons: vscode.Command[];
  progress: string[];
  references: string[];
}

function fakeStream(): { stream: vscode.ChatResponseStream; out: Captured } {
  const out: Captured = { markdown: '', buttons: [], progress: [], references: [] };
  const stream = {
    markdown: (value: string | vscode.MarkdownString) => void (out.markdown += typeof value === 'string' ? value : value.value),
    button: (command: vscode.Command) => void out.buttons.push(command),
    progress: (value: string) => void out.progress.push(value),
    reference: (value: vscode.Uri | vscode.Location) => void out.references.push((value instanceof vscode.Uri ? value : value.uri).fsPath),
    anchor: () => undefined,
    filetree: () => undefined,
    push: () => undefined,
  } as unknown as vscode.ChatResponseStream;
  return { stream, out };
}

const token = new vscode.CancellationTokenSource().token;

function request(
  prompt: string,
  command: string | undefined,
  model?: Partial<vscode.LanguageModelChat>,
  references: vscode.ChatPromptReference[] = [],
): vscode.ChatRequest {
  return { prompt, command, references, toolReferences: [], toolInvocationToken: undefined, model } as unknown as vscode.ChatRequest;
}

/** Runs a slash command through the participant's handler; returns what it streamed and its result. */
async function slash(
  api: TwiningApi,
  command: string,
  prompt = '',
  options: { model?: Partial<vscode.LanguageModelChat>; references?: vscode.ChatPromptReference[] } = {},
) {
  const { stream, out } = fakeStream();
  const result = (await api.chatHandler(request(prompt, command, options.model, options.references), emptyContext, stream, token)) as vscode.ChatResult;
  return { out, result: result ?? {}, metadata: (result?.metadata ?? {}) as Record<string, unknown> };
}

/** A model's response whose stream yields `parts`, one at a time, as a model's stream does. */
function modelResponse(parts: unknown[]): { stream: AsyncIterable<unknown>; text: AsyncIterable<string> } {
  const iterate = <T>(items: T[]): AsyncIterable<T> => ({
    [Symbol.asyncIterator]: () => {
      let next = 0;
      return { next: () => Promise.resolve(next < items.length ? { value: items[next++], done: false } : { value: undefined, done: true as const }) };
    },
  });
  return { stream: iterate(parts), text: iterate<string>([]) };
}

/** A model that answers every request with `text` (and records the prompts it got). */
function scriptedModel(text: string, seen: string[] = []): Partial<vscode.LanguageModelChat> {
  return {
    name: 'Scripted',
    sendRequest: (messages: vscode.LanguageModelChatMessage[]) => {
      seen.push(messages.map(m => m.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('')).join('\n'));
      return Promise.resolve(modelResponse([new vscode.LanguageModelTextPart(text)]));
    },
  };
}

const emptyContext = { history: [] } as unknown as vscode.ChatContext;

function toolsAvailable(): boolean {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  return (lm?.tools ?? []).filter(t => t.name.startsWith('twining_')).length === manifest().contributes.languageModelTools.length;
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

  it('/claims lists who holds what, and with a path only the claims that collide with it', async () => {
    const root = firstFolder();
    await cli('claim', root, { agent_id: 'chat-claimer', paths: ['chat-claims/'], reason: 'splitting the chat module', ttl_ms: 600_000 });
    try {
      const all = fakeStream();
      await api.chatHandler(request('', 'claims'), emptyContext, all.stream, token);
      assert.match(all.out.markdown, /- `chat-claims\/`: \*\*chat-claimer\*\* since .*, expires in .*; splitting the chat module/);
      const colliding = fakeStream();
      await api.chatHandler(request('chat-claims/a.ts', 'claims'), emptyContext, colliding.stream, token);
      assert.match(colliding.out.markdown, /that collide with `chat-claims\/a\.ts`[\s\S]*chat-claimer/);
      const elsewhere = fakeStream();
      await api.chatHandler(request('docs/readme.md', 'claims'), emptyContext, elsewhere.stream, token);
      assert.ok(!elsewhere.out.markdown.includes('chat-claimer'), elsewhere.out.markdown);
      assert.ok(all.out.buttons.some(b => b.command === 'twining.claimPath'));
    } finally {
      await cli('release', root, { agent_id: 'chat-claimer' });
    }
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

  it('the twining_* tools of the manifest are registered and answer through vscode.lm.invokeTool', async function () {
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
      sendRequest: (messages: vscode.LanguageModelChatMessage[], options?: vscode.LanguageModelChatRequestOptions) => {
        seen.push(messages);
        const round = seen.length;
        assert.ok(
          options?.tools?.some(t => t.name === 'twining_status'),
          'the twining tools are offered',
        );
        if (round === 1) return Promise.resolve(modelResponse([new vscode.LanguageModelToolCallPart('call-1', 'twining_status', {})]));
        const last = messages[messages.length - 1].content[0] as vscode.LanguageModelToolResultPart;
        const status = JSON.parse((last.content[0] as vscode.LanguageModelTextPart).value);
        return Promise.resolve(modelResponse([new vscode.LanguageModelTextPart(`There are ${status.registered_agents} agents.`)]));
      },
    };
    const { stream, out } = fakeStream();
    await api.chatHandler(request('How many agents are there?', undefined, model), emptyContext, stream, token);
    assert.strictEqual(seen.length, 2);
    assert.match(out.markdown, /^There are \d+ agents\.$/);
  });
});

describeIn(['single'], 'chat slash commands, Continue in Chat and the inbox', () => {
  let api: TwiningApi;
  let root: string;
  const now = () => ['--now', api.now().toISOString()];
  const fileRef = (rel: string): vscode.ChatPromptReference => ({ id: 'vscode.file', value: vscode.Uri.file(path.join(root, rel)) });
  const record = (id: string) => JSON.parse(fs.readFileSync(path.join(twiningDir(), 'handoffs', `${id}.json`), 'utf8'));
  const blackboardLines = () => readLines(path.join(twiningDir(), 'blackboard.jsonl'));

  before(async () => {
    api = await twining();
    root = firstFolder();
  });

  // The other suites count the user's unacknowledged handoffs: leave none of ours behind.
  after(async () => {
    const engine = api.folders.get(root)!;
    const { handoffs } = await engine.handoffs({ target_agent: api.agentId(), acknowledged: false, limit: 1000 });
    for (const h of handoffs) await vscode.commands.executeCommand('twining.acknowledgeHandoff', { handoff_id: h.id });
    await api.whenIdle();
  });

  it('/handoff takes its scope from #file references and its target from "to:"', async () => {
    const prompt = 'to: reviewer Token signing done, please review #file:jwt.ts';
    const at = prompt.indexOf('#file');
    const { out, metadata } = await slash(api, 'handoff', prompt, { references: [{ ...fileRef('src/auth/jwt.ts'), range: [at, prompt.length] }] });
    assert.match(out.markdown, /to \*\*reviewer\*\*, scope `src\/auth\/jwt\.ts`, with 2 decisions/);
    assert.ok(out.progress.length > 0, 'progress is shown while it writes');
    assert.deepStrictEqual(out.references, [path.join(root, 'src', 'auth', 'jwt.ts')]);
    const stored = record(String(metadata.handoffId));
    assert.deepStrictEqual(
      [stored.summary, stored.scope, stored.target_agent, stored.source_agent],
      ['Token signing done, please review', 'src/auth/jwt.ts', 'reviewer', api.agentId()],
    );
  });

  it('/ack takes a handoff by id prefix, once; unknown words write nothing', async () => {
    const written = (await cli(
      'handoff',
      root,
      { source_agent: 'backend-dev', target_agent: api.agentId(), summary: 'Ack me from chat', results: [] },
      now(),
    )) as { id: string };
    const first = await slash(api, 'ack', written.id.slice(0, 14));
    assert.match(first.out.markdown, /^Acknowledged \*\*Ack me from chat\*\* from \*\*backend-dev\*\* as \*\*user-/);
    assert.strictEqual(record(written.id).acknowledged_by, api.agentId());
    assert.deepStrictEqual(
      first.out.buttons.map(b => b.command),
      ['twining.continueInChat', 'twining.openHandoff'],
    );
    const at = record(written.id).acknowledged_at;
    const again = await slash(api, 'ack', 'Ack me from chat');
    assert.match(again.out.markdown, /was already acknowledged by .* nothing was changed/);
    assert.strictEqual(record(written.id).acknowledged_at, at);
    const none = await slash(api, 'ack', 'no such handoff words');
    assert.match(none.out.markdown, /^No handoff matches/);
  });

  it('/verify names what drifted since the handoff was written', async () => {
    const h = (await cli('handoff', root, { source_agent: 'backend-dev', scope: 'src/chatdrift/', summary: 'Drift check from chat', results: [] }, now())) as {
      id: string;
    };
    await cli('post', root, { entry_type: 'warning', summary: 'Chat drift warning', scope: 'src/chatdrift/a.ts', agent_id: 'tester' }, now());
    const { out, metadata } = await slash(api, 'verify', h.id);
    assert.match(out.markdown, /\*\*Drift check from chat\*\*/);
    assert.match(out.markdown, /The snapshot is intact/);
    assert.match(out.markdown, /New warning in scope: Chat drift warning \(src\/chatdrift\/a\.ts\)/);
    assert.strictEqual(metadata.handoffId, h.id);
  });

  it('/why lists the decisions behind a file, named or referenced', async () => {
    const named = await slash(api, 'why', 'src/auth/jwt.ts');
    assert.match(named.out.markdown, /decision\(s\) behind `src\/auth\/jwt\.ts`\*\*/);
    assert.match(named.out.markdown, /\*\*Sign JWTs with RS256 and rotate keys every 30 days\*\*/);
    assert.match(named.out.markdown, /\*\*Use stateless JWT bearer tokens for API authentication\*\*[^\n]*\n {2}JWTs can be verified by any instance/);
    assert.ok(named.out.buttons.every(b => b.command === 'twining.openRecord'));
    const referenced = await slash(api, 'why', '', { references: [fileRef('src/auth/jwt.ts')] });
    assert.strictEqual(referenced.out.markdown, named.out.markdown);
    // The selection the chat attaches is a Location.
    const selection = new vscode.Location(vscode.Uri.file(path.join(root, 'src', 'auth', 'jwt.ts')), new vscode.Range(3, 0, 5, 1));
    const selected = await slash(api, 'why', '', { references: [{ id: 'vscode.implicit.selection', value: selection }] });
    assert.strictEqual(selected.out.markdown, named.out.markdown);
  });

  it('a free-form request tells the model which files it is about', async () => {
    const seen: string[] = [];
    const both = [fileRef('src/auth/jwt.ts'), fileRef('src/api/users.ts')];
    const { out } = await slash(api, '', 'who should review these?', { model: scriptedModel('Ask the reviewer.', seen), references: both });
    assert.strictEqual(out.markdown, 'Ask the reviewer.');
    assert.match(seen[0], /The user's request is about src\/ \(the files they referenced/);
  });

  it('/delegate posts the need the prompt describes, and asks the model only for missing capabilities', async () => {
    const given = await slash(api, 'delegate', 'needs: testing, review — Cover the refresh flow urgency: high');
    const need = blackboardLines().pop()!;
    assert.deepStrictEqual([need.entry_type, need.summary, need.agent_id], ['need', 'Cover the refresh flow', api.agentId()]);
    assert.deepStrictEqual(JSON.parse(String(need.detail)).required_capabilities, ['testing', 'review']);
    assert.strictEqual(JSON.parse(String(need.detail)).urgency, 'high');
    assert.match(given.out.markdown, /Best suited:\n\n- \*\*(tester|reviewer)\*\*/);

    const seen: string[] = [];
    const proposed = await slash(api, 'delegate', 'Write end-to-end tests for login', { model: scriptedModel('Sure: ["testing", "typescript"]', seen) });
    assert.match(seen[0], /Prefer these tags, which registered agents have: .*testing/);
    assert.match(proposed.out.markdown, /Capabilities proposed by Scripted: testing, typescript/);
    assert.deepStrictEqual(JSON.parse(String(blackboardLines().pop()!.detail)).required_capabilities, ['testing', 'typescript']);

    const count = blackboardLines().length;
    const refused = await slash(api, 'delegate', 'Something vague', { model: scriptedModel('I cannot tell.') });
    assert.match(refused.out.markdown, /Which capabilities does it need\?/);
    assert.strictEqual(blackboardLines().length, count, 'nothing was posted');
  });

  it('/search ranks decisions and entries by keywords, within the referenced scope', async () => {
    const { out } = await slash(api, 'search', 'JWT bearer tokens');
    assert.match(
      out.markdown,
      /match\(es\)\*\* for `JWT bearer tokens`, best first:\n\n- \*\*Use stateless JWT bearer tokens for API authentication\*\* — decision, active, architecture, scope `src\/auth\/`/,
    );
    assert.deepStrictEqual(out.buttons[0].arguments?.[0], { type: 'decision', id: '01M80HHJN7TF8W1N7EW8PHV7MT', folder: root });
    const scoped = await slash(api, 'search', 'JWT #file:users.ts', { references: [{ ...fileRef('src/api/users.ts'), range: [4, 18] }] });
    assert.doesNotMatch(scoped.out.markdown, /stateless JWT/);
    const none = await slash(api, 'search', 'zzzqqq');
    assert.match(none.out.markdown, /^Nothing matches `zzzqqq`/);
  });

  it('/discover ranks agents for the capabilities named', async () => {
    const { out, metadata } = await slash(api, 'discover', 'testing review');
    assert.match(out.markdown, /\*\*Best suited for testing, review\*\*/);
    assert.match(out.markdown, /- \*\*(tester|reviewer)\*\* 0\.\d\d — has (testing|review), lacks (review|testing)/);
    assert.deepStrictEqual(metadata.capabilities, ['testing', 'review']);
    const empty = await slash(api, 'discover', '');
    assert.match(empty.out.markdown, /Name the capabilities/);
  });

  it('Continue in Chat builds the prompt from the handoff, its snapshot, drift and chain', async () => {
    const first = (await cli('handoff', root, { source_agent: 'architect', scope: 'src/auth/', summary: 'Auth skeleton in place', results: [] }, now())) as {
      id: string;
    };
    const second = (await cli(
      'handoff',
      root,
      {
        source_agent: 'backend-dev',
        target_agent: api.agentId(),
        scope: 'src/auth/',
        summary: 'JWT refresh half done',
        continues: first.id,
        results: [{ description: 'refresh endpoint', status: 'partial' }],
      },
      now(),
    )) as { id: string };
    const result = await vscode.commands.executeCommand<{ handoff_id: string; query: string; opened: string }>('twining.continueInChat', {
      handoff_id: second.id,
    });
    const q = result.query;
    assert.match(q, new RegExp(`^Continue the work of Twining handoff ${second.id} from backend-dev to ${api.agentId()}`));
    assert.match(q, new RegExp(`call twining_acknowledge with handoff_id "${second.id}" and agent_id "${api.agentId()}"`));
    assert.match(q, /## What was handed over\n\nJWT refresh half done/);
    assert.match(q, /- partial: refresh endpoint/);
    assert.match(
      q,
      /- Use stateless JWT bearer tokens for API authentication \[01M80HHJN7TF8W1N7EW8PHV7MT\], scope `src\/auth\/`\n {2}Rationale: JWTs can be verified/,
    );
    assert.match(q, /## Changed since the handoff was written\n\n/);
    assert.match(q, new RegExp(`## The chain it continues\\n\\n- ${first.id}: Auth skeleton in place \\(from architect`));
    assert.ok(['chat', 'document'].includes(result.opened));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('the inbox shows one notification for a burst from another process, none for our own writes', async function () {
    this.timeout(60000);
    // The handoffs another process wrote for us in the tests above may still be on their way
    // through the file watcher: once the inbox has taken each in, and shown what it shows, only
    // this test's writes can add a notification.
    const engine = api.folders.get(root)!;
    const { handoffs: waiting } = await engine.handoffs({ target_agent: api.agentId(), acknowledged: false, limit: 1000 });
    for (let tries = 0; waiting.some(h => !api.inbox.knows(h.id)); tries++) {
      assert.ok(
        tries < 200,
        `the inbox never took in ${waiting
          .filter(h => !api.inbox.knows(h.id))
          .map(h => h.id)
          .join(', ')}`,
      );
      await sleep(50);
    }
    await api.whenIdle();
    await api.inbox.idle();
    const before = api.inbox.shown.length;
    // Our own handoff to ourselves is not news.
    await vscode.commands.executeCommand('twining.createHandoff', { summary: 'Own handoff to me', results: [], target_agent: api.agentId(), scope: null });
    await api.whenIdle();
    await sleep(2000);
    await api.whenIdle();
    assert.strictEqual(api.inbox.shown.length, before, `no notification for our own write: ${JSON.stringify(api.inbox.shown.slice(before))}`);

    // Three handoffs for the user written by other processes at once: one notification.
    const burst = await Promise.all(
      ['tester', 'reviewer', 'tester'].map((source, i) =>
        cli('handoff', root, { source_agent: source, target_agent: api.agentId(), summary: `Burst ${i}`, results: [] }, now()),
      ),
    );
    const ids = (burst as { id: string }[]).map(b => b.id).sort();
    const deadline = Date.now() + 20000;
    while (api.inbox.shown.length === before && Date.now() < deadline) await sleep(200);
    await sleep(2500); // anything more would show by now
    await api.whenIdle();
    const shown = api.inbox.shown.slice(before);
    assert.strictEqual(shown.length, 1, JSON.stringify(shown));
    // The senders in the order their handoffs were seen (the three writers race).
    assert.match(shown[0].message, /^3 handoffs for you, from (tester, reviewer|reviewer, tester)\.$/);
    assert.deepStrictEqual([...shown[0].handoffIds].sort(), ids);
    assert.deepStrictEqual(shown[0].actions, ['Open Handoffs View']);

    // One handoff: who and what, with Open, Acknowledge and Continue in Chat.
    await cli('handoff', root, { source_agent: 'backend-dev', target_agent: api.agentId(), summary: 'Single arrival', results: [] }, now());
    const until = Date.now() + 20000;
    while (api.inbox.shown.length === before + 1 && Date.now() < until) await sleep(200);
    assert.strictEqual(api.inbox.shown[before + 1]?.message, 'Handoff for you from backend-dev: Single arrival');
    assert.deepStrictEqual(api.inbox.shown[before + 1].actions, ['Open', 'Acknowledge', 'Continue in Chat']);

    // Handoffs for someone else are not for the user's inbox; the setting turns it off.
    await cli('handoff', root, { source_agent: 'backend-dev', target_agent: 'tester', summary: 'Not for you', results: [] }, now());
    await vscode.workspace.getConfiguration('twining').update('inbox.notify', false, vscode.ConfigurationTarget.Global);
    try {
      await cli('handoff', root, { source_agent: 'backend-dev', target_agent: api.agentId(), summary: 'Muted arrival', results: [] }, now());
      await sleep(3000);
      await api.whenIdle();
      assert.strictEqual(api.inbox.shown.length, before + 2, JSON.stringify(api.inbox.shown.slice(before + 2)));
    } finally {
      await vscode.workspace.getConfiguration('twining').update('inbox.notify', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
