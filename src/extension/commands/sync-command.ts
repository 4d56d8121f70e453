/** *Twining: Sync*: the record exchanged with the repository's remote now (core/sync/), then in the background. */
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import { currentSync } from '../editor/sync-status';
import { inform } from '../log';
import { Invocation, folderFromArgs, quietly } from './command-runner';
import { pickFolder } from './prompts';

export async function sync(inv: Invocation, ctx: TwiningSession) {
  let folder;
  let remote: string | undefined;
  if (inv.mode === 'args') {
    folder = await folderFromArgs(ctx, inv.args);
    const { remote: r, ...extra } = inv.args as { remote?: unknown };
    if (r !== undefined && typeof r !== 'string') throw new Error('Sync: remote must be the name of a git remote');
    if (Object.keys(extra).length) throw new Error(`Sync: unknown field(s) ${Object.keys(extra).join(', ')} (it takes folder and remote)`);
    remote = r;
  } else folder = (inv.mode === 'uri' ? ctx.folders.folderOf(inv.uri) : undefined) ?? (await pickFolder(ctx, { title: 'Sync' }));
  const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Twining: syncing' }, () =>
    folder.run(engine => engine.sync({ remote, reason: 'manual' })),
  );
  currentSync()?.reported(folder, report);
  const counts = (c: Record<string, number>) =>
    Object.entries(c)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ') || 'nothing';
  const message = `Synced ${folder.name} with ${report.remote} (${report.ref}): in ${counts({ ...report.incoming })}; out ${counts({ ...report.outgoing })}.`;
  if (inv.mode === 'args') quietly(message);
  else inform(message);
  return report;
}
