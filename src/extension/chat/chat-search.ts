/**
 * /search <keywords>: ranked keyword search over decisions and blackboard entries, from the
 * engine's search index (no model); `#file` references narrow it to their scope.
 */
import { md, oneLine, relative } from '../present/format';
import { ChatCall, ChatCommandResult, promptText, referenceScope, scopeOf } from './chat-call';

/** How many hits an answer shows (and how many get an Open button). */
const SHOWN = 10;
const BUTTONS = 3;

export async function search(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  const query = promptText(call.request);
  if (!query) {
    stream.markdown('Give keywords: `/search token refresh` (add `#file` references to search within their scope).');
    return { metadata: { command: 'search' } };
  }
  const scope = await scopeOf(call, { activeEditor: false });
  stream.progress(`Searching decisions and the blackboard for "${oneLine(query, 60)}"…`);
  const { results, total_matched } = await folder.run(engine => engine.search({ query, limit: SHOWN, ...(scope ? { scope } : {}) }));
  referenceScope(call, scope);
  if (results.length === 0) {
    stream.markdown(`Nothing matches \`${md(query)}\`${scope ? ` in \`${scope}\`` : ''}.`);
    return { metadata: { command: 'search', scope } };
  }
  const now = ctx.clock.now();
  stream.markdown(`**${total_matched} match(es)** for \`${md(query)}\`${scope ? ` in \`${scope}\`` : ''}, best first:\n\n`);
  for (const hit of results) {
    const what = hit.kind === 'decision' ? `decision, ${hit.status}, ${md(hit.domain)}` : md(hit.entry_type);
    stream.markdown(
      `- **${md(hit.summary)}** — ${what}, scope \`${hit.scope}\`${hit.agent_id ? `, by ${md(hit.agent_id)}` : ''} ${relative(hit.timestamp, now)}\n`,
    );
  }
  for (const hit of results.slice(0, BUTTONS)) {
    stream.button({
      command: 'twining.openRecord',
      title: `Open "${oneLine(hit.summary, 40)}"`,
      arguments: [{ type: hit.kind === 'decision' ? 'decision' : 'entry', id: hit.id, folder: folder.root }],
    });
  }
  return { metadata: { command: 'search', scope } };
}
