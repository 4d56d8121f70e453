/**
 * Dismiss a warning or finding, and reconsider, override or promote a decision: the core's
 * `dismiss`, `reconsider`, `override` and `promote`. Argument objects take the operation's fields
 * (`agent_id`, `overridden_by`, `promoted_by` default to the user's agent id) and run without a
 * prompt. From the Context view or a quick fix they act on that item, asking only for the reason;
 * from the palette they offer what applies to the active file (or the whole project).
 */
import { inform } from '../log';
import type { BlackboardEntry, ContextDecision, TwiningEngine } from '../../core';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { oneLine, relative } from '../present/format';
import { Invocation, folderFromArgs, quietly, withDefault } from './command-runner';
import { askText, pickFolder, pickOne } from './prompts';

/** The folder and scope the palette versions offer items from: the active file, else the project. */
async function activeContext(ctx: TwiningSession, title: string) {
  const file = ctx.fileContext.activeFile();
  const folder = file?.folder ?? (await pickFolder(ctx, { title }));
  return { folder, context: await ctx.fileContext.get(folder, file?.scope) };
}

/** An argument-object call: the operation's fields, `who` defaulting to the user's agent id. */
async function argsCall<T>(
  args: Record<string, unknown>,
  ctx: TwiningSession,
  title: string,
  who: string,
  run: (engine: TwiningEngine, input: never) => Promise<T>,
): Promise<T> {
  const folder = await folderFromArgs(ctx, args);
  withDefault(args, who, ctx.agentId());
  return folder.write(title, engine => run(engine, args as never));
}

export async function dismissEntry(inv: Invocation, ctx: TwiningSession) {
  const title = 'Dismiss Warning or Finding';
  if (inv.mode === 'args') {
    const result = await argsCall(inv.args, ctx, title, 'agent_id', (engine, input) => engine.dismiss(input));
    quietly(`${result.dismissed.length} dismissed${result.not_found.length ? `, ${result.not_found.length} not found` : ''}`);
    return result;
  }
  let folder: TwiningFolder;
  let entry: BlackboardEntry;
  if (inv.mode === 'node' && inv.node.kind === 'contextEntry') ({ folder, entry } = inv.node);
  else {
    const at = await activeContext(ctx, title);
    folder = at.folder;
    const items = [...at.context.warnings, ...at.context.findings].map(e => ({
      label: `$(${e.entry_type === 'warning' ? 'warning' : 'lightbulb'}) ${oneLine(e.summary)}`,
      description: `${e.agent_id} · ${relative(e.timestamp, ctx.clock.now())} · ${e.scope}`,
      entry: e,
    }));
    if (items.length === 0) {
      inform('No warning or finding applies to the active file.');
      return undefined;
    }
    entry = (await pickOne({ title }, items, 'Which warning or finding was dealt with?')).entry;
  }
  const kind = entry.entry_type === 'warning' ? 'warning' : 'finding';
  const reason = await askText(
    { title: `Dismiss ${kind}: ${oneLine(entry.summary, 60)}` },
    { prompt: 'Why is it dismissed? (kept in a status entry on the blackboard)', placeHolder: 'e.g. fixed in verifyToken()', optional: true, max: 2000 },
  );
  const input = { ids: [entry.id], agent_id: ctx.agentId(), ...(reason ? { reason } : {}) };
  const result = await folder.write(title, engine => engine.dismiss(input));
  if (result.dismissed.length) quietly(`${kind} dismissed`);
  else inform(`The ${kind} "${oneLine(entry.summary, 80)}" was already dismissed.`);
  return result;
}

/** The decision a command acts on: the view's item, or one picked from the active file's decisions. */
export async function decisionTarget(
  inv: Invocation,
  ctx: TwiningSession,
  title: string,
  accept: (d: ContextDecision) => boolean,
): Promise<{ folder: TwiningFolder; decision: ContextDecision } | undefined> {
  if (inv.mode === 'node' && inv.node.kind === 'contextDecision') return { folder: inv.node.folder, decision: inv.node.decision };
  const { folder, context } = await activeContext(ctx, title);
  const items = context.decisions.filter(accept).map(d => ({
    label: `$(law) ${oneLine(d.summary)}`,
    description: `${d.status} · ${d.agent_id ?? ''} · ${d.scope}`,
    decision: d,
  }));
  if (items.length === 0) {
    inform(`No decision to ${title.split(' ')[0].toLowerCase()} applies to the active file.`);
    return undefined;
  }
  return { folder, decision: (await pickOne({ title }, items, 'Which decision?')).decision };
}

const isCurrent = (d: ContextDecision) => d.status === 'active' || d.status === 'provisional';

export async function reconsiderDecision(inv: Invocation, ctx: TwiningSession) {
  const title = 'Reconsider Decision';
  if (inv.mode === 'args') return argsCall(inv.args, ctx, title, 'agent_id', (engine, input) => engine.reconsider(input));
  const target = await decisionTarget(inv, ctx, title, isCurrent);
  if (!target) return undefined;
  const { folder, decision } = target;
  const newContext = await askText(
    { title: `${title}: ${oneLine(decision.summary, 60)}` },
    { prompt: 'What changed, or why should it be looked at again? (posted as a warning)', max: 20000 },
  );
  const result = await folder.write(title, engine => engine.reconsider({ decision_id: decision.id, new_context: newContext, agent_id: ctx.agentId() }));
  inform(
    `${result.flagged ? 'The decision is provisional now' : `The decision stays ${decision.status}`}; a warning asks to reconsider it` +
      `${result.dependents.length ? ` (${result.dependents.length} dependent decisions named)` : ''}.`,
  );
  return result;
}

export async function overrideDecision(inv: Invocation, ctx: TwiningSession) {
  const title = 'Override Decision';
  if (inv.mode === 'args') return argsCall(inv.args, ctx, title, 'overridden_by', (engine, input) => engine.override(input));
  const target = await decisionTarget(inv, ctx, title, isCurrent);
  if (!target) return undefined;
  const { folder, decision } = target;
  const step = { title: `${title}: ${oneLine(decision.summary, 60)}` };
  const reason = await askText({ ...step, step: 1, total: 2 }, { prompt: 'Why is it overridden?', max: 20000 });
  const replacement = await askText(
    { ...step, step: 2, total: 2 },
    { prompt: 'The decision that replaces it, in one line (optional: leave empty for none)', optional: true, max: 200 },
  );
  const input = { decision_id: decision.id, reason, overridden_by: ctx.agentId(), ...(replacement ? { new_decision: replacement } : {}) };
  const result = await folder.write(title, engine => engine.override(input));
  inform(`Overridden: "${oneLine(result.old_summary, 80)}"${result.new_decision_id ? `, replaced by "${replacement}"` : ''}.`);
  return result;
}

export async function promoteDecision(inv: Invocation, ctx: TwiningSession) {
  const title = 'Promote Decision';
  if (inv.mode === 'args') return argsCall(inv.args, ctx, title, 'promoted_by', (engine, input) => engine.promote(input));
  const target = await decisionTarget(inv, ctx, title, d => d.status === 'provisional');
  if (!target) return undefined;
  const { folder, decision } = target;
  const result = await folder.write(title, engine => engine.promote({ decision_ids: [decision.id], promoted_by: ctx.agentId() }));
  if (result.promoted.length) quietly(`"${oneLine(decision.summary, 60)}" is active`);
  else {
    const status = result.wrong_status[0]?.status ?? (result.already_active.length ? 'active' : 'gone');
    inform(`"${oneLine(decision.summary, 80)}" was not promoted: it is ${status}.`);
  }
  return result;
}

/** Pin Context to This File / Follow the Active Editor / Show Whole Project Context. */
export async function pinContext(inv: Invocation, ctx: TwiningSession): Promise<void> {
  if (inv.mode === 'node') ctx.fileContext.pin({ folder: inv.node.folder, scope: inv.node.kind === 'contextScope' ? inv.node.scope : undefined });
  else if (inv.mode === 'uri') {
    const folder = ctx.folders.folderOf(inv.uri);
    const scope = folder?.relativePath(inv.uri);
    if (folder?.hasTwiningDir && scope) ctx.fileContext.pin({ folder, scope });
  } else if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    const scope = typeof inv.args.scope === 'string' && inv.args.scope ? inv.args.scope : undefined;
    ctx.fileContext.pin({ folder, scope });
  } else ctx.fileContext.pin();
}

export function followActiveEditor(_inv: Invocation, ctx: TwiningSession): void {
  ctx.fileContext.follow();
}

export async function showProjectContext(inv: Invocation, ctx: TwiningSession): Promise<void> {
  const folder = inv.mode === 'node' ? inv.node.folder : inv.mode === 'args' ? await folderFromArgs(ctx, inv.args) : undefined;
  ctx.fileContext.wholeProject(folder);
}
