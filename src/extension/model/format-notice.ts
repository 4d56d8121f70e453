/**
 * Tells the user, once per folder and session, when its `.twining/` is in a layout this version
 * does not read: twining-mcp 2.x's SQLite layout (`twining.db` + `records/`) or a newer format.
 * Without it the views would be empty as if nothing had been recorded.
 */
import * as path from 'path';
import { promises as fs } from 'fs';
import * as vscode from 'vscode';
import type { TwiningFolder } from './twining-folder';
import { inBackground, log, messageOf } from '../log';

const told = new Set<string>();

/** Whether the folder holds anything of another layout (three stats: the core is loaded only then). */
async function mayBeOtherLayout(dir: string): Promise<boolean> {
  const found = await Promise.all(
    ['twining.db', 'records', 'events'].map(name =>
      fs.stat(path.join(dir, name)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return found.includes(true);
}

export async function noticeFolderFormat(folder: TwiningFolder): Promise<void> {
  if (told.has(folder.key)) return;
  told.add(folder.key);
  try {
    if (!(await mayBeOtherLayout(folder.dir))) {
      told.delete(folder.key);
      return;
    }
    const format = await folder.run(engine => engine.folderFormat());
    const message = format.refusal
      ? `Twining: ${format.refusal.replace(/; nothing was written.*$/, '')}. Its views stay empty and nothing is written to it.`
      : format.backend === 'sqlite' && format.reason !== 'fresh'
        ? `Twining: ${folder.name}'s .twining/ is in twining-mcp 2.x's SQLite layout (twining.db and records/). This version of Twining reads and writes only the files layout, so its views show none of those records and its writes are refused. Keep using twining-mcp's tools there, or run \`twining-mcp migrate --reverse\` to share the files layout.`
        : undefined;
    if (message) inBackground('showing the layout warning', vscode.window.showWarningMessage(message));
  } catch (error) {
    log.warn(`${folder.name}: could not tell which layout .twining/ is in: ${messageOf(error)}`);
  }
}
