/**
 * Commands that post to the blackboard or record decisions: Post Warning, Post Finding, Post
 * Delegation, Record Decision. Argument objects take the fields of `post`, `delegate` and
 * `decide`; `agent_id` defaults to the user's agent id. Interactive runs offer the active file,
 * its folders and the project as the scope.
 */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import { core } from '../model/engine-loader';
import type { TwiningFolder } from '../model/folders';
import { documentUri, showDocument } from '../editor/record-documents';
import { duration, list, score } from '../present/format';
import { followUp, inform } from '../log';
import { Invocation, folderFromArgs, quietly, withDefault } from './command-runner';
import { activeFile, askText, csv, pickFolder, pickOne, pickScope } from './prompts';

function folderAndFile(inv: Invocation, folder: TwiningFolder): string | undefined {
  if (inv.mode === 'node' && inv.node.kind === 'contextScope') return inv.node.scope;
  return inv.mode === 'uri' ? folder.relativePath(inv.uri) : activeFile(folder);
}

async function interactiveFolder(inv: Invocation, ctx: TwiningSession, title: string): Promise<TwiningFolder> {
  if (inv.mode === 'node') return inv.node.folder;
  if (inv.mode === 'uri') {
    const folder = ctx.folders.folderOf(inv.uri);
    if (folder?.hasTwiningDir) return folder;
  }
  return pickFolder(ctx, { title });
}

function postCommand(entryType: 'warning' | 'finding', title: string) {
  return async (inv: Invocation, ctx: TwiningSession) => {
    if (inv.mode === 'args') {
      const args = inv.args;
      const folder = await folderFromArgs(ctx, args);
      if (args.entry_type !== undefined && args.entry_type !== entryType) {
        throw new Error(`entry_type: ${title} posts a ${entryType}, not a ${JSON.stringify(args.entry_type)}`);
      }
      args.entry_type = entryType;
      withDefault(args, 'agent_id', ctx.agentId());
      const result = await folder.write(title, engine => engine.post(args as never));
      quietly(`${entryType} posted`);
      return result;
    }
    const folder = await interactiveFolder(inv, ctx, title);
    const summary = await askText(
      { title, step: 1, total: 3 },
      {
        prompt: entryType === 'warning' ? 'What should others watch out for? (one line)' : 'What did you find out? (one line)',
        max: 200,
      },
    );
    const detail = await askText({ title, step: 2, total: 3 }, { prompt: 'Details (optional)', optional: true, max: 65536 });
    const scope = await pickScope({ title, step: 3, total: 3 }, folderAndFile(inv, folder), 'project');
    const input: Record<string, unknown> = { entry_type: entryType, summary, agent_id: ctx.agentId(), scope: scope ?? 'project' };
    if (detail) input.detail = detail;
    const result = await folder.write(title, engine => engine.post(input as never));
    followUp(
      vscode.window.showInformationMessage(
        `${entryType === 'warning' ? 'Warning' : 'Finding'} posted to the blackboard (scope ${scope ?? 'project'}).`,
        'Open',
      ),
      () => showDocument(documentUri(folder, 'entry', result.id)),
    );
    return result;
  };
}

export const postWarning = postCommand('warning', 'Post Warning');
export const postFinding = postCommand('finding', 'Post Finding');

export async function postDelegation(inv: Invocation, ctx: TwiningSession) {
  const title = 'Post Delegation';
  if (inv.mode === 'args') {
    const args = inv.args;
    const folder = await folderFromArgs(ctx, args);
    withDefault(args, 'agent_id', ctx.agentId());
    const result = await folder.write('Post Delegation', engine => engine.delegate(args as never));
    quietly(`delegation posted${result.suggested_agents[0] ? `; best suited: ${result.suggested_agents[0].agent_id}` : ''}`);
    return result;
  }
  const folder = await interactiveFolder(inv, ctx, title);
  const summary = await askText({ title, step: 1, total: 4 }, { prompt: 'What do you need help with? (one line)', max: 200 });
  const known = await folder.run(async engine => {
    const caps = new Set<string>();
    for (const a of (await engine.agents({})).agents) for (const c of Array.isArray(a.capabilities) ? a.capabilities : []) caps.add(c);
    return [...caps];
  });
  const capabilities = csv(
    await askText(
      { title, step: 2, total: 4 },
      {
        prompt: 'Required capabilities, comma-separated',
        placeHolder: known.length ? `known: ${list(known)}` : 'e.g. testing, typescript',
      },
    ),
  );
  const timeouts = await folder.run(async engine => (await engine.config()).delegations.timeouts);
  const urgency = (
    await pickOne(
      { title, step: 3, total: 4 },
      core().URGENCIES.map(u => ({ label: u, description: `expires after ${duration(timeouts[`${u}_ms`])}`, urgency: u, picked: u === 'normal' })),
      'Urgency',
    )
  ).urgency;
  const scope = await pickScope({ title, step: 4, total: 4 }, folderAndFile(inv, folder), 'project');
  const input = { summary, required_capabilities: capabilities, urgency, scope: scope ?? 'project', agent_id: ctx.agentId() };
  const result = await folder.write('Post Delegation', engine => engine.delegate(input));
  const best = result.suggested_agents[0];
  inform(best ? `Delegation posted. Best suited: ${best.agent_id} (${score(best.total_score)}).` : 'Delegation posted. No active or idle agent matches yet.');
  return result;
}

export async function recordDecision(inv: Invocation, ctx: TwiningSession) {
  const title = 'Record Decision';
  if (inv.mode === 'args') {
    const args = inv.args;
    const folder = await folderFromArgs(ctx, args);
    withDefault(args, 'agent_id', ctx.agentId());
    const result = await folder.write('Record Decision', engine => engine.decide(args as never));
    quietly(`decision recorded${result.conflicts?.length ? ' as provisional (conflicts)' : ''}`);
    return result;
  }
  const folder = await interactiveFolder(inv, ctx, title);
  const total = 7;
  const domains = await folder.run(async engine => [...new Set((await engine.decisions({})).decisions.map(d => d.domain))]);
  const domain = await askText(
    { title, step: 1, total },
    {
      prompt: 'Domain',
      placeHolder: domains.length ? `e.g. ${list(domains.slice(0, 6))}` : 'e.g. architecture, security, api',
      max: 200,
    },
  );
  const summary = await askText({ title, step: 2, total }, { prompt: 'The decision, in one line', max: 200 });
  const context = await askText({ title, step: 3, total }, { prompt: 'Context: what made a decision necessary?', max: 20000 });
  const rationale = await askText({ title, step: 4, total }, { prompt: 'Rationale: why this option?', max: 20000 });
  const scope = (await pickScope({ title, step: 5, total }, folderAndFile(inv, folder), 'project')) ?? 'project';
  const confidence = (
    await pickOne(
      { title, step: 6, total },
      core().CONFIDENCES.map(c => ({ label: c, confidence: c, picked: c === 'medium' })),
      'Confidence',
    )
  ).confidence;
  // Offer to supersede an active decision in the same domain whose scope overlaps.
  const overlapping = await folder.run(async engine =>
    (await engine.decisions({ scope, domain, status: 'active' })).decisions.filter(d => d.summary !== summary),
  );
  let supersedes: string | undefined;
  if (overlapping.length) {
    const picked = await pickOne(
      { title, step: 7, total },
      [
        { label: '$(add) Keep the existing decisions', description: 'the new one becomes provisional if it conflicts', id: undefined as string | undefined },
        ...overlapping.map(d => ({ label: `$(replace) Supersede: ${d.summary}`, description: d.scope, id: d.id })),
      ],
      'Does this decision replace an existing one?',
    );
    supersedes = picked.id;
  }
  const input: Record<string, unknown> = { domain, summary, context, rationale, scope, confidence, agent_id: ctx.agentId() };
  if (supersedes) input.supersedes = supersedes;
  const result = await folder.write('Record Decision', engine => engine.decide(input as never));
  const message = result.conflicts?.length
    ? `Decision recorded as provisional: it may conflict with ${result.conflicts.map(c => `"${c.summary}"`).join(', ')}.`
    : 'Decision recorded.';
  followUp(vscode.window.showInformationMessage(message, 'Open'), () => showDocument(documentUri(folder, 'decision', result.id)));
  return result;
}
