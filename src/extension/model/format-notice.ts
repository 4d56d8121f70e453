/**
 * Tells the user, once per folder and session, what this version cannot do with its `.twining/`:
 * a newer format (not read: the views would be empty as if nothing had been recorded), or a
 * twining-mcp 2.x SQLite folder (`twining.db` + `records/`) read from `records/` because the
 * extension host's Node has no node:sqlite (no agents, no writes) or because the database is not
 * there (a fresh clone: no agents). A 2.x folder with its database is read and written like any.
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
    const [format, notice] = await folder.run(engine => Promise.all([engine.folderFormat(), engine.formatNotice()]));
    const message = format.refusal ? `Twining: ${notice}. Its views stay empty and nothing is written to it.` : notice ? `Twining: ${notice}.` : undefined;
    if (message) inBackground('showing the layout warning', vscode.window.showWarningMessage(message));
  } catch (error) {
    log.warn(`${folder.name}: could not tell which layout .twining/ is in: ${messageOf(error)}`);
  }
}
