/**
 * Handoff commands: Create (scope from the active editor, the snapshot shown before anything is
 * written), Acknowledge, Open and Verify.
 *
 * Argument objects take the fields of the core's `handoff` operation, with two conveniences:
 * `source_agent` defaults to the user's agent id, and when `scope` is left out the handoff is
 * scoped to the active editor's file (if it is in the chosen folder); pass `scope: null` for a
 * handoff without scope.
 */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import type { HandoffSnapshot, HandoffRecord, HandoffResult, SnapshotChange, SnapshotChanges } from '../../core';
import type { TwiningFolder } from '../model/folders';
import { documentUri, showDocument } from '../editor/record-documents';
import { driftCount, driftSummary } from '../../core/text/drift-text';
import { RESULT_STATUS_LOOK, plural } from '../present/format';
import { resolveSnapshot } from '../present/snapshot-contents';
import { followUp, inform } from '../log';
import { core } from '../model/engine-loader';
import { Cancelled, Invocation, folderFromArgs, quietly, withDefault } from './command-runner';
import { activeFile, askText, pickAgent, pickFolder, pickHandoff, pickOne, pickScope, Step } from './prompts';

const TITLE = 'Create Handoff';

export function snapshotCounts(s: HandoffSnapshot): string {
  return countsText({ decisions: s.decision_ids.length, warnings: s.warning_ids.length, findings: s.finding_ids.length });
}

function countsText(c: { decisions: number; warnings: number; findings: number }): string {
  return `${plural(c.decisions, 'decision')}, ${plural(c.warnings, 'warning')}, ${plural(c.findings, 'finding')}`;
}

/**
 * Writes a handoff holding the snapshot the user confirmed (`confirmed`; undefined: no snapshot, or
 * an explicit one). When what is in scope changed since, the engine writes nothing and says what
 * changed; `ask` shows that and returns true to hand over the new snapshot (then compared in its
 * turn), false to cancel (nothing written: Cancelled).
 */
export async function handOverConfirmed(
  folder: TwiningFolder,
  input: Record<string, unknown>,
  confirmed: HandoffSnapshot | undefined,
  ask: (changes: SnapshotChanges) => Promise<boolean>,
): Promise<HandoffRecord> {
  for (;;) {
    const shown = confirmed;
    try {
      return await folder.write('Create Handoff', engine => engine.handoff(input as never, { confirmed: shown }));
    } catch (error) {
      if (!shown || !core().isTwiningError(error, 'CHANGED')) throw error;
      const changes = error.details as SnapshotChanges;
      if (!(await ask(changes))) throw new Cancelled();
      confirmed = changes.current;
    }
  }
}

/** Tells what changed in scope since the snapshot was confirmed, shows the new one, and asks. */
async function confirmChanged(folder: TwiningFolder, scope: string | undefined, changes: SnapshotChanges): Promise<boolean> {
  const resolved = await folder.run(engine => resolveSnapshot(engine, changes.current));
  type Item = vscode.QuickPickItem & { go?: boolean };
  const items: Item[] = [
    {
      label: '$(check) Hand over the new snapshot',
      description: snapshotCounts(changes.current),
      detail: `Changed in ${scope ?? 'the whole project'}: ${core().describeSnapshotChanges(changes)}`,
      go: true,
    },
    { label: '$(close) Cancel (nothing is written)', go: false },
  ];
  const sections: [string, SnapshotChange[], string][] = [
    ['Came into scope', changes.added, 'add'],
    ['Left the scope', changes.removed, 'remove'],
  ];
  for (const [title, list, icon] of sections) {
    if (list.length === 0) continue;
    items.push({ label: title, kind: vscode.QuickPickItemKind.Separator });
    for (const c of list) items.push({ label: `$(${icon}) ${c.summary}`, description: `${c.item} ${c.id}`, go: true });
  }
  items.push({ label: 'The new snapshot', kind: vscode.QuickPickItemKind.Separator });
  for (const r of resolved)
    items.push({
      label: `$(${r.item === 'decision' ? 'law' : r.item === 'warning' ? 'warning' : 'lightbulb'}) ${r.summary ?? r.id}`,
      description: r.scope,
      go: true,
    });
  const picked = await pickOne({ title: `${TITLE}: what is in scope changed` }, items, 'What is in scope changed since you confirmed the snapshot');
  return picked.go === true;
}

export async function createHandoff(inv: Invocation, ctx: TwiningSession): Promise<HandoffRecord | undefined> {
  if (inv.mode === 'args') {
    const args = inv.args;
    const folder = await folderFromArgs(ctx, args);
    withDefault(args, 'source_agent', ctx.agentId());
    if (!('scope' in args)) withDefault(args, 'scope', activeFile(folder));
    if (args.scope === null) delete args.scope;
    const record = await folder.write('Create Handoff', engine => engine.handoff(args as never));
    quietly(`handoff created (${snapshotCounts(record.context_snapshot)} attached)`);
    return record;
  }

  const folder = inv.mode === 'node' ? inv.node.folder : await pickFolder(ctx, { title: TITLE });
  const file =
    inv.mode === 'uri' ? folder.relativePath(inv.uri) : inv.mode === 'node' && inv.node.kind === 'contextScope' ? inv.node.scope : activeFile(folder);
  const target = inv.mode === 'node' && inv.node.kind === 'agent' ? inv.node.agent.agent_id : undefined;
  const total = target ? 4 : 5;

  // 1-2. Scope (what each offered scope's snapshot would attach, counted in one call), then the
  // picked scope's snapshot: the one the user confirms is the one compared, and stored, at the write.
  let scope: string | undefined;
  let confirmed: HandoffSnapshot | undefined;
  for (;;) {
    scope = await pickScope({ title: TITLE, step: 1, total }, file, undefined, async scopes =>
      (await folder.run(engine => engine.snapshotCounts(scopes))).map(c => `Attaches ${countsText(c)}`),
    );
    const picked = scope;
    const snapshot = await folder.run(engine => engine.previewSnapshot(picked));
    const choice = await confirmSnapshot(folder, scope, snapshot, { title: TITLE, step: 2, total });
    if (choice === 'back') continue;
    confirmed = choice === 'attach' ? snapshot : undefined;
    break;
  }

  // 3. Summary.
  const summary = await askText(
    { title: TITLE, step: 3, total },
    {
      prompt: 'What are you handing over?',
      placeHolder: 'e.g. JWT middleware done; needs tests for token refresh',
      max: 4000,
    },
  );

  // 4. Results, one or more.
  const results = await askResults({ title: TITLE, step: 4, total });

  // 5. Target agent.
  const targetAgent = target ?? (await pickAgent(folder, { title: TITLE, step: 5, total }, { any: true, placeHolder: 'Hand over to' }));

  const input: Record<string, unknown> = { source_agent: ctx.agentId(), summary, results };
  if (targetAgent) input.target_agent = targetAgent;
  if (scope) input.scope = scope;
  if (!confirmed) input.auto_snapshot = false;
  const record = await handOverConfirmed(folder, input, confirmed, changes => confirmChanged(folder, scope, changes));
  followUp(
    vscode.window.showInformationMessage(
      `Handoff created for ${targetAgent ?? 'any agent'} with ${snapshotCounts(record.context_snapshot)} attached.`,
      'Open Handoff',
    ),
    () => showDocument(documentUri(folder, 'handoff', record.id)),
    'Twining: Open Handoff',
  );
  return record;
}

type SnapshotChoice = 'attach' | 'none' | 'back';

/** Shows every decision, warning and finding the snapshot will attach; asks to go on. */
async function confirmSnapshot(folder: TwiningFolder, scope: string | undefined, snapshot: HandoffSnapshot, s: Step): Promise<SnapshotChoice> {
  const resolved = await folder.run(engine => resolveSnapshot(engine, snapshot));
  type Item = vscode.QuickPickItem & { choice?: SnapshotChoice };
  const items: Item[] = [
    {
      label: '$(check) Attach this snapshot',
      description: snapshotCounts(snapshot),
      detail: `Scope: ${scope ?? 'whole project (no scope)'}`,
      choice: 'attach',
    },
  ];
  for (const [title, kind, icon] of [
    ['Decisions', 'decision', 'law'],
    ['Warnings', 'warning', 'warning'],
    ['Findings', 'finding', 'lightbulb'],
  ] as const) {
    const of = resolved.filter(r => r.item === kind);
    if (of.length === 0) continue;
    items.push({ label: `${title} (${of.length})`, kind: vscode.QuickPickItemKind.Separator });
    for (const r of of) items.push({ label: `$(${icon}) ${r.summary ?? r.id}`, description: r.scope, choice: 'attach' });
  }
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({ label: '$(circle-slash) Hand off without a snapshot', choice: 'none' });
  items.push({ label: '$(arrow-left) Choose another scope', choice: 'back' });
  const picked = await pickOne(s, items, 'The handoff will carry these decisions, warnings and findings');
  return picked.choice ?? 'attach';
}

async function askResults(s: Step): Promise<HandoffResult[]> {
  const results: HandoffResult[] = [];
  for (;;) {
    type Item = vscode.QuickPickItem & { status?: HandoffResult['status'] };
    const items: Item[] = core().RESULT_STATUSES.map(status => ({
      label: `$(${RESULT_STATUS_LOOK[status].icon}) ${status}`,
      description: results.length ? 'add another result' : 'add a result',
      status,
    }));
    const done: Item = {
      label: results.length ? `$(check) Done (${plural(results.length, 'result')})` : '$(check) Done (no results)',
      description: results.map(r => `${r.status}: ${r.description}`).join(' · '),
    };
    // Once there is a result, finishing is the likely next step: Done comes first.
    if (results.length) items.unshift(done);
    else items.push(done);
    const picked = await pickOne({ ...s, title: `${s.title}: results` }, items, results.length ? 'Add another result, or Done' : 'Status of the first result');
    if (!picked.status) return results;
    const description = await askText({ ...s, title: `${s.title}: ${picked.status} result` }, { prompt: 'What was done or attempted?', max: 2000 });
    results.push({ description, status: picked.status });
  }
}

// ---------------------------------------------------------------------------------------------

/** The handoff a command is about: a tree item, an argument object `{handoff_id, folder?}`, or a pick. */
export async function handoffTarget(
  inv: Invocation,
  ctx: TwiningSession,
  title: string,
  options: { unacknowledged?: boolean } = {},
): Promise<{ folder: TwiningFolder; id: string; args?: Record<string, unknown> }> {
  if (inv.mode === 'node' && inv.node.kind === 'handoff') return { folder: inv.node.folder, id: inv.node.line.id };
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    return { folder, id: core().checkUlid('handoff_id', inv.args.handoff_id), args: inv.args };
  }
  const folder = await pickFolder(ctx, { title });
  return { folder, id: await pickHandoff(ctx, folder, { title }, options) };
}

export async function acknowledgeHandoff(inv: Invocation, ctx: TwiningSession) {
  const { folder, id, args } = await handoffTarget(inv, ctx, 'Acknowledge Handoff', { unacknowledged: true });
  const input = args ? withDefault(args, 'agent_id', ctx.agentId()) : { handoff_id: id, agent_id: ctx.agentId() };
  const result = await folder.write('Acknowledge Handoff', engine => engine.acknowledge(input as never));
  if (args) quietly(`handoff acknowledged as ${result.acknowledged_by}`);
  else inform(`Acknowledged "${result.summary}" from ${result.source_agent} as ${result.acknowledged_by}.`);
  return result;
}

export async function openHandoff(inv: Invocation, ctx: TwiningSession): Promise<HandoffRecord | undefined> {
  const { folder, id, args } = await handoffTarget(inv, ctx, 'Open Handoff');
  if (args && Object.keys(args).some(k => k !== 'handoff_id')) {
    throw new Error(
      `Open Handoff: unknown field(s) ${Object.keys(args)
        .filter(k => k !== 'handoff_id')
        .join(', ')} (it takes handoff_id and folder)`,
    );
  }
  const record = await folder.run(engine => engine.getHandoff(id));
  if (!record) throw new Error(`Handoff not found: ${id}`);
  await showDocument(documentUri(folder, 'handoff', id));
  return record;
}

export async function verifyHandoff(inv: Invocation, ctx: TwiningSession) {
  const { folder, id, args } = await handoffTarget(inv, ctx, 'Verify Handoff');
  const input = args ?? { handoff_id: id };
  const result = await folder.run(engine => engine.verify(input as never));
  if (!args) {
    const n = driftCount(result);
    const text = n === 0 ? 'No drift: the snapshot still describes its scope.' : `Drift since the handoff: ${driftSummary(result)}.`;
    const show = n === 0 ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    followUp(show(text, 'Open Handoff'), () => showDocument(documentUri(folder, 'handoff', id)), 'Twining: Open Handoff');
  }
  return result;
}
