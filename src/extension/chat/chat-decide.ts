/**
 * /why <file, folder or symbol> (the decisions behind it, from the engine) and /delegate (a need
 * posted from the prompt; only when it names no capabilities is the model asked for them).
 */
import * as vscode from 'vscode';
import { list, md, oneLine, relative, score } from '../present/format';
import { log, messageOf } from '../log';
import { core } from '../model/engine-loader';
import { parseDelegate } from './chat-parse';
import { ChatCall, ChatCommandResult, promptText, referenceScope, scopeOf } from './chat-call';

export async function why(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  const scope = promptText(call.request) || (await scopeOf(call));
  if (!scope) {
    stream.markdown('Name a file, folder or symbol (`/why src/auth/jwt.ts`), reference one with `#file`, or open a file first.');
    return { metadata: { command: 'why' } };
  }
  stream.progress(`Looking for the decisions behind \`${scope}\`…`);
  const { decisions, more, omitted_count, active_count, provisional_count } = await folder.run(engine =>
    // The chat answers within the budget a model's call gets (twining-mcp's, core/schemas/model-defaults.ts); the rest as one line each below.
    engine.why(core().withModelDefaults('why', { scope }) as { scope: string }),
  );
  referenceScope(call, /[/.]/.test(scope) ? scope : undefined);
  if (decisions.length === 0 && !more?.length) {
    stream.markdown(`No decision covers \`${md(scope)}\`.`);
    stream.button({ command: 'twining.recordDecision', title: 'Record Decision' });
    return { metadata: { command: 'why', scope } };
  }
  const now = ctx.clock.now();
  stream.markdown(`**${decisions.length} decision(s) behind \`${md(scope)}\`** (${active_count} active, ${provisional_count} provisional), newest first:\n\n`);
  for (const d of decisions) {
    stream.markdown(
      `- **${md(d.summary)}** — ${d.status}, ${d.domain}, scope \`${d.scope}\`, by ${md(d.agent_id)} ${relative(d.timestamp, now)} (confidence ${d.confidence})\n` +
        `  ${md(oneLine(d.rationale, 400))}\n`,
    );
    stream.button({
      command: 'twining.openRecord',
      title: `Open "${oneLine(d.summary, 40)}"`,
      arguments: [{ type: 'decision', id: d.id, folder: folder.root }],
    });
  }
  // Past the answer's token budget (twining-mcp 2.x's bounded why): the rest as one line each.
  if (more?.length) {
    stream.markdown(`\n${more.length} more, too many to give in full:\n\n`);
    for (const m of more) stream.markdown(`- ${md(m.summary)} — ${m.status}, ${relative(m.timestamp, now)}\n`);
  }
  if (omitted_count) stream.markdown(`\n…and ${omitted_count} more decision(s) not listed.\n`);
  return { metadata: { command: 'why', scope } };
}

export async function delegate(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  const asked = parseDelegate(promptText(call.request));
  if (!asked.summary) {
    stream.markdown(
      'Say what help is needed: `/delegate needs: testing, review — Write integration tests for the refresh flow` (add `urgency: high` if it is urgent).',
    );
    return { metadata: { command: 'delegate' } };
  }
  let capabilities = asked.capabilities;
  if (capabilities.length === 0) {
    stream.progress('Asking the model which capabilities this needs…');
    // No agents known (a 2.x folder read from records/: NOT_FOUND): the model proposes capabilities without them.
    const agentsOf = (engine: Parameters<Parameters<typeof folder.run>[0]>[0]) =>
      engine.agents({}).then(
        r => r.agents,
        (error: unknown) => ((error as { code?: unknown }).code === 'NOT_FOUND' ? [] : Promise.reject(error as Error)),
      );
    const known = await folder.run(async engine => [...new Set((await agentsOf(engine)).flatMap(a => a.capabilities))]);
    capabilities = await proposeCapabilities(call, asked.summary, known);
    if (capabilities.length === 0) {
      stream.markdown(
        `Which capabilities does it need? Say them: \`/delegate needs: ${known.slice(0, 2).join(', ') || 'testing, review'} — ${md(asked.summary)}\`.`,
      );
      return { metadata: { command: 'delegate' } };
    }
    stream.markdown(`_Capabilities proposed by ${md(call.request.model.name ?? 'the model')}: ${md(capabilities.join(', '))}._\n\n`);
  }
  const scope = await scopeOf(call, { activeEditor: false });
  stream.progress('Posting the delegation…');
  const input = {
    summary: oneLine(asked.summary, 200),
    required_capabilities: capabilities,
    agent_id: ctx.agentId(),
    ...(asked.urgency ? { urgency: asked.urgency } : {}),
    ...(scope ? { scope } : {}),
  };
  const result = await folder.write('/delegate', engine => engine.delegate(input));
  stream.markdown(
    `Posted a ${asked.urgency ?? 'normal'}-urgency delegation **${md(input.summary)}** needing ${md(list(capabilities))}` +
      `${scope ? `, scope \`${scope}\`` : ''} (expires ${relative(result.expires_at, ctx.clock.now())}).\n\n`,
  );
  referenceScope(call, scope);
  const suggested = result.suggested_agents;
  if (suggested.length === 0) stream.markdown('No registered agent has these capabilities yet.');
  else {
    stream.markdown('Best suited:\n\n');
    for (const a of suggested.slice(0, 5))
      stream.markdown(`- **${md(a.agent_id)}** ${score(a.total_score)} (${a.liveness}; has ${md(list(a.matched_capabilities))})\n`);
  }
  return { metadata: { command: 'delegate', capabilities } };
}

/** The capability tags the model proposes for a need (from the tags agents have, where they fit). */
async function proposeCapabilities(call: ChatCall, summary: string, known: readonly string[]): Promise<string[]> {
  const model = call.request.model;
  if (!model?.sendRequest) return [];
  const ask = [
    'Which capabilities does an agent need to take on this work? Answer with a JSON array of one to five short lowercase tags and nothing else.',
    known.length ? `Prefer these tags, which registered agents have: ${known.join(', ')}.` : '',
    `The work: ${summary}`,
  ]
    .filter(Boolean)
    .join('\n');
  try {
    const response = await model.sendRequest(
      [vscode.LanguageModelChatMessage.User(ask)],
      { justification: 'Propose the capabilities a delegation needs' },
      call.token,
    );
    let text = '';
    for await (const part of response.stream) if (part instanceof vscode.LanguageModelTextPart) text += part.value;
    const json = text.match(/\[[^\]]*\]/)?.[0];
    const tags = json ? (JSON.parse(json) as unknown[]) : [];
    return [
      ...new Set(
        tags
          .filter((t): t is string => typeof t === 'string')
          .map(t => t.trim().toLowerCase())
          .filter(t => /^[a-z0-9][\w.+#-]{0,49}$/.test(t)),
      ),
    ].slice(0, 5);
  } catch (error) {
    log.warn(`/delegate: the model proposed no capabilities: ${messageOf(error)}`);
    return [];
  }
}
