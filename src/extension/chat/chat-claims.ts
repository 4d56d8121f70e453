/**
 * /claims [path]: who holds which file, folder, glob or delegation, answered from the engine
 * without a model (`claims`, twining_claims). With a path, only the claims that collide with it
 * (prefix or glob, both ways); lapsed claims (expired, or their holder gone) are listed apart, as
 * the Agents view shows them.
 */
import { expiry, md, oneLine, relative } from '../present/format';
import { ChatCall, ChatCommandResult, promptText } from './chat-call';

export async function claims(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream, request } = call;
  const path = promptText(request).trim().split(/\s+/)[0] || undefined;
  stream.progress('Reading the claims…');
  const listed = await folder.run(engine => engine.claims(path ? { path } : {}));
  const now = ctx.clock.now();
  const me = ctx.agentId();
  const live = listed.claims.filter(c => c.state === 'live');
  const lapsed = listed.claims.filter(c => c.state === 'lapsed');
  const where = path ? ` that collide with \`${md(path)}\`` : '';
  if (live.length === 0) stream.markdown(`No live claim${where} in ${md(folder.name)}.\n`);
  else {
    stream.markdown(`**${live.length} live claim${live.length === 1 ? '' : 's'}**${where} in ${md(folder.name)}:\n\n`);
    for (const c of live)
      stream.markdown(
        `- \`${md(c.target)}\`: **${md(c.agent_id)}**${c.agent_id === me ? ' (you)' : ''} since ${relative(c.claimed_at, now)}, ${expiry(c.expires_at, now)}; ${md(oneLine(c.reason, 160))}\n`,
      );
  }
  if (lapsed.length) {
    stream.markdown(`\n${lapsed.length} lapsed (no longer held):\n\n`);
    for (const c of lapsed) stream.markdown(`- \`${md(c.target)}\`: ${md(c.agent_id)}, ${c.lapsed_because ?? 'lapsed'}\n`);
  }
  stream.button({ command: 'twining.claimPath', title: 'Claim This File / Folder' });
  if (live.some(c => c.agent_id === me)) stream.button({ command: 'twining.releaseClaim', title: 'Release Claim' });
  return { metadata: { command: 'claims', ...(path ? { scope: path } : {}) } };
}
