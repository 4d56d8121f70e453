/**
 * Resolve a warning, need or question: the core's `resolve` (twining-mcp 2.x's twining_resolve),
 * the record-keeping way to close one beside Dismiss. An argument object takes the operation's
 * fields (`agent_id` defaults to the user's agent id) and runs without a prompt. From the Context
 * view it acts on that warning, asking only how it was handled; from the palette it offers the open
 * warnings, needs and questions of the active file (or the whole project).
 */
import { inform } from '../log';
import type { BlackboardEntry } from '../../core';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { oneLine, relative } from '../present/format';
import { Invocation, folderFromArgs, quietly, withDefault } from './command-runner';
import { askText, pickFolder, pickOne } from './prompts';

const TITLE = 'Resolve Warning, Need or Question';
const ICONS: Record<string, string> = { warning: 'warning', need: 'megaphone', question: 'question' };

export async function resolveEntry(inv: Invocation, ctx: TwiningSession) {
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    withDefault(inv.args, 'agent_id', ctx.agentId());
    const result = await folder.write(TITLE, engine => engine.resolve(inv.args as never));
    quietly(`${result.resolved.length} resolved${result.not_found.length ? `, ${result.not_found.length} not found` : ''}`);
    return result;
  }
  let folder: TwiningFolder;
  let entry: BlackboardEntry;
  if (inv.mode === 'node' && inv.node.kind === 'contextEntry') ({ folder, entry } = inv.node);
  else {
    const picked = await pickOpenItem(ctx);
    if (!picked) return undefined;
    ({ folder, entry } = picked);
  }
  const kind = String(entry.entry_type);
  if (entry.status === 'resolved') {
    inform(`The ${kind} "${oneLine(entry.summary, 80)}" was already resolved${typeof entry.resolved_by === 'string' ? ` by ${entry.resolved_by}` : ''}.`);
    return undefined;
  }
  const note = await askText(
    { title: `Resolve ${kind}: ${oneLine(entry.summary, 60)}` },
    { prompt: 'How was it handled? (kept with the entry as its resolution note)', placeHolder: 'e.g. fixed in verifyToken()', optional: true, max: 4000 },
  );
  const input = { ids: [entry.id], agent_id: ctx.agentId(), ...(note ? { note } : {}) };
  const result = await folder.write(TITLE, engine => engine.resolve(input));
  if (result.resolved.length) quietly(`${kind} resolved`);
  else inform(`The ${kind} "${oneLine(entry.summary, 80)}" is no longer on the blackboard (dismissed or archived).`);
  return result;
}

/** An open warning, need or question of the active file (or the project), picked by the user. */
async function pickOpenItem(ctx: TwiningSession): Promise<{ folder: TwiningFolder; entry: BlackboardEntry } | undefined> {
  const file = ctx.fileContext.activeFile();
  const folder = file?.folder ?? (await pickFolder(ctx, { title: TITLE }));
  const scope = file?.scope;
  const triage = await folder.engine.triage({ section: 'open', limit: 200, ...(scope ? { scope } : {}) });
  const open = (triage.open ?? []).filter(i => i.kind !== 'decision');
  const now = ctx.clock.now();
  const items = [];
  for (const i of open.reverse()) {
    const entry = await folder.engine.getEntry(i.id);
    if (entry)
      items.push({
        label: `$(${ICONS[i.kind] ?? 'note'}) ${oneLine(i.summary)}`,
        description: `${i.kind} · ${i.agent_id} · ${relative(i.timestamp, now)} · ${i.scope}`,
        entry,
      });
  }
  if (items.length === 0) {
    inform(scope ? 'No open warning, need or question applies to the active file.' : 'No open warning, need or question.');
    return undefined;
  }
  return { folder, entry: (await pickOne({ title: TITLE }, items, 'Which one was handled?')).entry };
}
