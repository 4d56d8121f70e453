/**
 * Folder-level commands: Initialize, Refresh, Show Status, Show Log, and Open Record (what a
 * click on a snapshot or drift item runs).
 */
import * as path from 'path';
import type { TwiningSession } from '../session';
import { core } from '../model/engine-loader';
import { documentUri, showDocument } from '../editor/record-documents';
import { inBackground, inform, log } from '../log';
import { Invocation, folderFromArgs, quietly } from './command-runner';
import { pickFolder } from './prompts';
import { offerAfterInitialize } from './git-merging-commands';

export async function initialize(inv: Invocation, ctx: TwiningSession) {
  let folder;
  if (inv.mode === 'args') {
    folder = await folderFromArgs(ctx, inv.args, 'any');
    const extra = Object.keys(inv.args);
    if (extra.length) throw new Error(`Initialize: unknown field(s) ${extra.join(', ')} (it takes only folder)`);
  } else {
    folder = inv.mode === 'uri' ? ctx.folders.folderOf(inv.uri) : undefined;
    folder ??= await pickFolder(ctx, { title: 'Initialize Twining' }, { twiningDir: false });
  }
  const result = await folder.run(engine => engine.init());
  await ctx.folders.recheck(folder);
  log.info(`${folder.name}: ${result.created ? 'created' : 'completed'} ${result.dir}`);
  const message = result.created
    ? `Twining initialized: created .twining/ in ${folder.name}.`
    : `.twining/ already existed in ${folder.name}; missing entries were added.`;
  if (inv.mode === 'args') quietly(message);
  else {
    inform(message);
    inBackground(`${folder.name}: git merging`, offerAfterInitialize(folder));
  }
  return result;
}

/** Refresh: every folder re-read, `.twining/` looked for again, every view re-rendered. */
export async function refresh(_inv: Invocation, ctx: TwiningSession): Promise<void> {
  await ctx.folders.refreshAll();
}

export async function showStatus(inv: Invocation, ctx: TwiningSession) {
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    return folder.run(engine => engine.status(inv.args as never));
  }
  const folder = inv.mode === 'node' ? inv.node.folder : await pickFolder(ctx, { title: 'Twining Status' });
  const status = await folder.run(engine => engine.status({}));
  await showDocument(documentUri(folder, 'status', 'status'));
  return status;
}

export function showLog(): void {
  log.show();
}

/** `{type: "decision" | "entry", id, folder?}`: opens a rendering of the decision (with its chain) or of the entry. */
export async function openRecord(inv: Invocation, ctx: TwiningSession): Promise<void> {
  if (inv.mode !== 'args') throw new Error('Open Record takes {type, id, folder}');
  const args = inv.args;
  const folder = await folderFromArgs(ctx, args);
  const id = typeof args.id === 'string' ? args.id : '';
  core().checkUlid('id', id); // before it becomes a file name
  if (args.type === 'decision') {
    const record = await folder.run(engine => engine.getDecision(id));
    if (!record) throw new Error(`The decision record ${path.basename(folder.engine.layout.decisionFile(id))} is missing`);
    await showDocument(documentUri(folder, 'decision', id));
    return;
  }
  if (args.type === 'entry') {
    await showDocument(documentUri(folder, 'entry', id));
    return;
  }
  throw new Error('type: must be "decision" or "entry"');
}
