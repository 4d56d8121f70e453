/**
 * The one rule for which workspace folder an action is about, used by commands (their `folder`
 * field or prompt), language model tools and chat: the folder named (a path, URI or folder name);
 * else the active editor's folder when it qualifies; else the only folder that qualifies. When
 * several qualify, argument objects, tools and chat are refused with the list (they cannot be
 * asked), and interactive commands ask.
 */
import * as vscode from 'vscode';
import type { TwiningFolder } from './twining-folder';
import type { Folders } from './folders';
import { core } from './engine-loader';

export interface FolderRule {
  /** A path, URI or workspace folder name; undefined: decide by the active editor. */
  spec?: unknown;
  /** Only folders that have `.twining/` (default), only those that do not, or any (Initialize). */
  twiningDir?: boolean | 'any';
}

function inputError(code: 'INVALID_INPUT' | 'NOT_FOUND', message: string): Error {
  return new (core().TwiningError)(code, message);
}

/** The folder the rule picks, or the candidates when it cannot pick one. Throws when none qualifies. */
export async function applyFolderRule(folders: Folders, rule: FolderRule = {}): Promise<TwiningFolder | TwiningFolder[]> {
  await folders.ready();
  const wantDir = rule.twiningDir ?? true;
  if (rule.spec !== undefined) {
    const spec = rule.spec;
    let folder: TwiningFolder | undefined;
    if (spec instanceof vscode.Uri) folder = folders.folderOf(spec);
    else if (typeof spec === 'string') folder = folders.folderOf(spec) ?? folders.all().find(f => f.name === spec);
    else throw inputError('INVALID_INPUT', 'folder: must be a path, a URI or the name of a workspace folder');
    if (!folder) throw inputError('NOT_FOUND', `folder: "${String(spec)}" is not in a workspace folder`);
    if (wantDir === true && !folder.hasTwiningDir)
      throw inputError('NOT_FOUND', `folder: ${folder.name} has no .twining/ folder (run "Twining: Initialize" first)`);
    return folder;
  }
  const candidates = wantDir === 'any' ? folders.all() : wantDir ? folders.withTwiningDir() : folders.all().filter(f => !f.hasTwiningDir);
  const active = folders.activeFolder();
  if (active && candidates.includes(active)) return active;
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    throw inputError(
      'NOT_FOUND',
      wantDir === true
        ? 'No workspace folder has a .twining/ folder (run "Twining: Initialize" first)'
        : folders.all().length && wantDir === false
          ? 'Every workspace folder already has a .twining/ folder'
          : 'No workspace folder is open',
    );
  }
  return candidates;
}

/** The folder the rule picks; several candidates are refused with their names. */
export async function chooseFolder(folders: Folders, rule: FolderRule = {}): Promise<TwiningFolder> {
  const choice = await applyFolderRule(folders, rule);
  if (!Array.isArray(choice)) return choice;
  throw inputError(
    'INVALID_INPUT',
    `folder: required when several workspace folders have .twining/ (${choice.map(f => f.name).join(', ')}); open a file of the one you mean or name it`,
  );
}
