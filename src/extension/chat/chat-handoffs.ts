/**
 * The handoff slash commands, answered from the engine without a model: /handoff <summary> (scope
 * from `#file` references or the selection, else the active file; `to: agent` names the target),
 * /ack <id, id prefix or words of the summary> and /verify <the same>.
 */
import type { HandoffIndexLine, HandoffRecord, SnapshotChanges } from '../../core';
import { core } from '../model/engine-loader';
import { driftItems, NO_DRIFT } from '../../core/text/drift-text';
import { snapshotCounts } from '../commands/handoff-commands';
import { absolute, md, oneLine, relative } from '../present/format';
import { matchHandoffs, parseHandoff } from './chat-parse';
import { ChatCall, ChatCommandResult, handoffButtons, promptText, referenceScope, scopeOf } from './chat-call';

export async function handoff(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  const { summary, target } = parseHandoff(promptText(call.request));
  if (!summary) {
    stream.markdown(
      'Say what you hand over, e.g. `/handoff to: reviewer JWT middleware done; refresh flow still needs tests`. ' +
        'The scope is the files you reference with `#file` (or the selection), else the active file.',
    );
    return { metadata: { command: 'handoff' } };
  }
  const scope = await scopeOf(call);
  stream.progress(`Handing over with the snapshot of ${scope ? `\`${scope}\`` : 'the whole project'}…`);
  const input = { source_agent: ctx.agentId(), summary, results: [], ...(scope ? { scope } : {}), ...(target ? { target_agent: target } : {}) };
  // The snapshot this answer announces is the one written: if what is in scope changes before the
  // write, nothing is written, the answer says what changed, and a button hands over the new one.
  const confirmed = await folder.run(engine => engine.previewSnapshot(scope));
  let record: HandoffRecord;
  try {
    record = await folder.write('/handoff', engine => engine.handoff(input, { confirmed }));
  } catch (error) {
    if (!core().isTwiningError(error, 'CHANGED')) throw error;
    const changes = error.details as SnapshotChanges;
    stream.markdown(
      `Nothing was handed over: what is in scope ${scope ? `\`${scope}\`` : '(the whole project)'} changed while the handoff was being written: ` +
        `${md(core().describeSnapshotChanges(changes))}.\n\nThe snapshot now holds ${snapshotCounts(changes.current)}:\n\n`,
    );
    for (const s of changes.current.summaries) stream.markdown(`- ${md(s)}\n`);
    stream.button({
      command: 'twining.createHandoff',
      title: 'Hand Over the New Snapshot',
      arguments: [{ ...input, scope: scope ?? null, expected_digest: changes.current_digest, folder: folder.root }],
    });
    return { metadata: { command: 'handoff', scope } };
  }
  stream.markdown(
    `Handoff created from **${md(record.source_agent)}** to ${record.target_agent ? `**${md(record.target_agent)}**` : 'any agent'}, ` +
      `scope ${scope ? `\`${scope}\`` : 'whole project'}, with ${snapshotCounts(record.context_snapshot)} attached (id \`${record.id}\`).\n\n`,
  );
  for (const s of record.context_snapshot.summaries) stream.markdown(`- ${md(s)}\n`);
  referenceScope(call, scope);
  stream.button({ command: 'twining.openHandoff', title: 'Open Handoff', arguments: [{ handoff_id: record.id, folder: folder.root }] });
  return { metadata: { command: 'handoff', handoffId: record.id, scope } };
}

type Pick = { line: HandoffIndexLine } | { answered: ChatCommandResult };

/**
 * The one handoff a prompt names. An empty prompt means the newest unacknowledged handoff for the
 * user (for /ack), or the newest for the user, else the newest (for /verify). Several matches are
 * listed and nothing is done.
 */
async function pickHandoff(call: ChatCall, command: 'ack' | 'verify'): Promise<Pick> {
  const { ctx, folder, stream } = call;
  const query = promptText(call.request);
  const me = ctx.agentId();
  const { handoffs } = await folder.run(engine => engine.handoffs({ limit: 1000 }));
  let found: HandoffIndexLine[];
  if (query) found = matchHandoffs(query, handoffs);
  else {
    const mine = handoffs.filter(h => h.target_agent === me && (command === 'verify' || !h.acknowledged));
    found = mine.length ? [mine[0]] : command === 'verify' && handoffs.length ? [handoffs[0]] : [];
  }
  if (found.length === 1) return { line: found[0] };
  const now = ctx.clock.now();
  if (found.length === 0) {
    stream.markdown(
      query
        ? `No handoff matches \`${md(query)}\`: give its id, the first characters of it, or words of its summary (\`/handoffs\` lists them).`
        : `No unacknowledged handoff is addressed to you (\`${me}\`). Name one: \`/${command} <id or words of its summary>\`.`,
    );
  } else {
    stream.markdown(`${found.length} handoffs match \`${md(query)}\`; say which (more of the id, or more words):\n\n`);
    for (const h of found.slice(0, 10)) stream.markdown(`- \`${h.id}\` **${md(h.summary)}** — ${md(h.source_agent)}, ${relative(h.created_at, now)}\n`);
  }
  return { answered: { metadata: { command } } };
}

export async function acknowledge(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  const picked = await pickHandoff(call, 'ack');
  if ('answered' in picked) return picked.answered;
  const line = picked.line;
  const record = await folder.run(engine => engine.getHandoff(line.id));
  if (!record) throw new Error(`Handoff not found: ${line.id}`);
  if (record.acknowledged_by) {
    stream.markdown(
      `**${md(oneLine(record.summary, 200))}** was already acknowledged by **${md(record.acknowledged_by)}** ${absolute(record.acknowledged_at)}; nothing was changed.`,
    );
    handoffButtons(call, line.id, { acknowledge: false });
    return { metadata: { command: 'ack', handoffId: line.id, scope: record.scope } };
  }
  stream.progress(`Acknowledging "${oneLine(record.summary, 60)}"…`);
  const result = await folder.write('/ack', engine => engine.acknowledge({ handoff_id: line.id, agent_id: ctx.agentId() }));
  stream.markdown(
    `Acknowledged **${md(oneLine(result.summary, 200))}** from **${md(result.source_agent)}** as **${md(result.acknowledged_by)}**. ` +
      `It carries ${snapshotCounts(record.context_snapshot)}.`,
  );
  referenceScope(call, record.scope);
  handoffButtons(call, line.id, { acknowledge: false });
  return { metadata: { command: 'ack', handoffId: line.id, scope: record.scope } };
}

export async function verify(call: ChatCall): Promise<ChatCommandResult> {
  const { folder, stream } = call;
  const picked = await pickHandoff(call, 'verify');
  if ('answered' in picked) return picked.answered;
  const line = picked.line;
  stream.progress(`Checking "${oneLine(line.summary, 60)}" for drift…`);
  const result = await folder.run(engine => engine.verify({ handoff_id: line.id }));
  stream.markdown(`**${md(oneLine(line.summary, 200))}** (\`${line.id}\`, from ${md(line.source_agent)}):\n\n`);
  stream.markdown(result.intact ? '- The snapshot is intact (it matches its digest).\n' : '');
  const items = driftItems(result);
  if (items.length === 0) stream.markdown(`- ${NO_DRIFT}\n`);
  for (const item of items) stream.markdown(`- ${md(item.sentence)}\n`);
  if (result.chain.length > 1)
    stream.markdown(
      `\nIt continues ${result.chain.length - 1} earlier handoff(s): ${result.chain
        .slice(1)
        .map(id => `\`${id}\``)
        .join(' ← ')}.`,
    );
  referenceScope(call, line.scope);
  handoffButtons(call, line.id, { acknowledge: !line.acknowledged });
  return { metadata: { command: 'verify', handoffId: line.id, scope: line.scope } };
}
