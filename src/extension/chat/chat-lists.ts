/**
 * The slash commands that list, answered from the engine without a model: /status, /agents,
 * /delegations, /handoffs and /discover <capabilities>.
 */
import { renderStatus } from '../editor/record-documents';
import { expiry, list, md, oneLine, relative, score, strings } from '../present/format';
import { capabilityList } from './chat-parse';
import { ChatCall, ChatCommandResult, handoffButtons, promptText } from './chat-call';

/** Unacknowledged handoffs addressed to the user, newest first. */
async function forYou(call: ChatCall): Promise<string[]> {
  const me = call.ctx.agentId();
  const { handoffs } = await call.folder.run(engine => engine.handoffs({ target_agent: me, acknowledged: false, limit: 20 }));
  return handoffs.map(h => h.id);
}

export async function status(call: ChatCall): Promise<ChatCommandResult> {
  call.stream.progress('Reading the coordination state…');
  const s = await call.folder.run(engine => engine.status({}));
  call.stream.markdown(renderStatus(call.folder.name, s));
  return { metadata: { command: 'status', forYou: await forYou(call) } };
}

export async function agents(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  stream.progress('Reading the agent registry…');
  const { agents } = await folder.run(engine => engine.agents({}));
  const now = ctx.clock.now();
  if (agents.length === 0) {
    stream.markdown('No agent is registered yet.');
    stream.button({ command: 'twining.registerAgent', title: 'Register Agent' });
    return { metadata: { command: 'agents' } };
  }
  stream.markdown(`**${agents.length} agents** in ${folder.name}:\n\n`);
  for (const a of agents) {
    stream.markdown(
      `- **${md(a.agent_id)}** — ${a.liveness}${a.role ? `, ${md(a.role)}` : ''}; ${md(list(strings(a.capabilities), 'no capabilities'))}; last active ${relative(a.last_seen, now)}\n`,
    );
  }
  const capabilities = [...new Set(agents.flatMap(a => strings(a.capabilities)))];
  return { metadata: { command: 'agents', capabilities } };
}

export async function delegations(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  stream.progress('Reading the open delegations…');
  const { delegations, expired_count } = await folder.run(engine => engine.delegations({}));
  const now = ctx.clock.now();
  if (delegations.length === 0) {
    stream.markdown('No open delegation.');
    stream.button({ command: 'twining.postDelegation', title: 'Post Delegation' });
  }
  for (const d of delegations) {
    const best = d.suggested_agents[0];
    stream.markdown(
      `- **${md(d.summary)}** (${d.urgency}, ${expiry(d.expires_at, now)}) needs ${md(list(d.required_capabilities))}` +
        `${best ? `; best suited: ${md(best.agent_id)} (${score(best.total_score)})` : '; nobody to suggest'}\n`,
    );
  }
  if (expired_count) stream.markdown(`\n${expired_count} expired need(s) not shown.`);
  return { metadata: { command: 'delegations' } };
}

export async function handoffs(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  stream.progress('Reading the handoffs…');
  const { handoffs, total_count } = await folder.run(engine => engine.handoffs({ limit: 20 }));
  const me = ctx.agentId();
  const now = ctx.clock.now();
  if (handoffs.length === 0) stream.markdown('No handoff yet.');
  for (const h of handoffs) {
    const mark = h.acknowledged ? '✓' : h.target_agent === me ? '🔔' : '•';
    stream.markdown(
      `- ${mark} **${md(h.summary)}** — ${md(h.source_agent)} → ${md(h.target_agent ?? 'any agent')}, ${relative(h.created_at, now)}` +
        `${h.acknowledged ? '' : ' (not acknowledged)'}${h.scope ? `, scope \`${h.scope}\`` : ''} · \`${h.id.slice(0, 8)}\`\n`,
    );
  }
  if (total_count > handoffs.length) stream.markdown(`\n…and ${total_count - handoffs.length} older.`);
  const mine = handoffs.filter(h => !h.acknowledged && h.target_agent === me);
  if (mine.length) stream.markdown(`\n\n**${mine.length} for you** (\`${me}\`):`);
  for (const h of mine.slice(0, 3)) handoffButtons(call, h.id, { acknowledge: true, label: oneLine(h.summary, 40) });
  return { metadata: { command: 'handoffs', forYou: mine.map(h => h.id) } };
}

export async function discover(call: ChatCall): Promise<ChatCommandResult> {
  const { folder, stream } = call;
  const capabilities = capabilityList(promptText(call.request).replace(/^(needs|capabilities)\s*:/i, ''));
  if (capabilities.length === 0) {
    stream.markdown('Name the capabilities the work needs, e.g. `/discover testing, review`.');
    return { metadata: { command: 'discover' } };
  }
  stream.progress(`Ranking agents for ${capabilities.join(', ')}…`);
  const { agents, total_registered } = await folder.run(engine => engine.discover({ required_capabilities: capabilities }));
  if (agents.length === 0) {
    stream.markdown(`None of the ${total_registered} registered agents matches ${md(capabilities.join(', '))}.`);
  } else {
    stream.markdown(`**Best suited for ${md(capabilities.join(', '))}** (capability overlap 70 %, liveness 30 %):\n\n`);
    for (const a of agents.slice(0, 10)) {
      const lacks = capabilities.filter(c => !a.matched_capabilities.includes(c));
      stream.markdown(
        `- **${md(a.agent_id)}** ${score(a.total_score)} — has ${md(list(a.matched_capabilities, 'none of them'))}` +
          `${lacks.length ? `, lacks ${md(lacks.join(', '))}` : ''}; ${a.liveness}\n`,
      );
    }
  }
  return { metadata: { command: 'discover', capabilities } };
}
