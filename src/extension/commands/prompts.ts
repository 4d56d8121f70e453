/**
 * The prompts the commands share: text, picks, workspace folder, scope (from the active editor),
 * handoff and agent choosers. Each throws `Cancelled` when the user closes it.
 */
import * as vscode from 'vscode';
import type { TwiningFolder } from '../model/folders';
import { LIVENESS_ICON } from '../views/tree-base';
import { list, oneLine, relative, strings } from '../present/format';
import { Cancelled } from './command-runner';
import { applyFolderRule } from '../model/folder-choice';
import type { TwiningSession } from '../session';
import { scopeCandidates } from '../naming';
import { promptScript } from './prompt-script';

export interface Step {
  title: string;
  step?: number;
  total?: number;
}

function titleOf(s: Step): string {
  return s.step && s.total ? `${s.title} (${s.step}/${s.total})` : s.title;
}

export async function askText(s: Step, options: { prompt: string; placeHolder?: string; value?: string; optional?: boolean; max?: number }): Promise<string> {
  const validateInput = (text: string) => {
    if (!options.optional && text.trim() === '') return 'Required';
    if (options.max && text.length > options.max) return `At most ${options.max} characters (${text.length} now)`;
    return undefined;
  };
  const script = promptScript();
  const value = script
    ? await script({ title: titleOf(s) })
    : await vscode.window.showInputBox({
        title: titleOf(s),
        prompt: options.prompt,
        placeHolder: options.placeHolder,
        value: options.value,
        ignoreFocusOut: true,
        validateInput,
      });
  if (value === undefined) throw new Cancelled();
  const invalid = script && validateInput(value);
  if (invalid) throw new Error(`${titleOf(s)}: the scripted answer "${value}" is refused: ${invalid}`);
  return value.trim();
}

export async function pickOne<T extends vscode.QuickPickItem>(
  s: Step,
  items: readonly T[],
  placeHolder: string,
  options: { matchOnDescription?: boolean } = {},
): Promise<T> {
  const script = promptScript();
  if (script) {
    const choices = items.filter(i => i.kind !== vscode.QuickPickItemKind.Separator);
    const label = await script({ title: titleOf(s), labels: choices.map(i => i.label) });
    if (label === undefined) throw new Cancelled();
    const found = choices.find(i => i.label === label);
    if (!found) throw new Error(`${titleOf(s)}: no item "${label}" to pick (there are: ${choices.map(i => i.label).join(' | ')})`);
    return found;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: titleOf(s),
    placeHolder,
    ignoreFocusOut: true,
    matchOnDescription: options.matchOnDescription ?? true,
    matchOnDetail: true,
  });
  if (!picked) throw new Cancelled();
  return picked;
}

/** "a, b ,c" → ["a", "b", "c"]. */
export function csv(text: string): string[] {
  return text
    .split(',')
    .map(s => s.trim())
    .filter(Boolean);
}

/** The workspace folder to work in: by the one folder rule, asking when several qualify (active editor's first). */
export async function pickFolder(ctx: TwiningSession, s: Step, options: { twiningDir: boolean } = { twiningDir: true }): Promise<TwiningFolder> {
  const choice = await applyFolderRule(ctx.folders, { twiningDir: options.twiningDir });
  if (!Array.isArray(choice)) return choice;
  const picked = await pickOne(
    s,
    choice.map(folder => ({ label: `$(root-folder) ${folder.name}`, folder })),
    'Workspace folder',
  );
  return picked.folder;
}

/** The workspace-relative path of the active editor's file, when it is in this folder. */
export function activeFile(folder: TwiningFolder): string | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== 'file') return undefined;
  const rel = folder.relativePath(uri);
  return rel && !rel.startsWith('.twining/') ? rel : undefined;
}

/** A scope choice: a file, one of its folders ("src/auth/"), or the whole project. */
export interface ScopeChoice extends vscode.QuickPickItem {
  scope: string | undefined;
}

/**
 * Asks for a scope, starting from `file` (the active editor's, or the one a menu was opened on).
 * `whole` is what the whole project means for this operation: no scope (handoffs) or "project".
 * `describe` adds a line per choice (e.g. what a snapshot would attach), for all choices in one call.
 */
export async function pickScope(
  s: Step,
  file: string | undefined,
  whole: string | undefined,
  describe?: (scopes: (string | undefined)[]) => Promise<string[]>,
): Promise<string | undefined> {
  const candidates = scopeCandidates(file);
  const values = candidates.map(scope => (scope === undefined ? whole : scope));
  const details = describe ? await describe(values) : [];
  const items: ScopeChoice[] = [];
  for (const [i, scope] of candidates.entries()) {
    const isFile = scope !== undefined && scope === file;
    const label = scope === undefined ? '$(project) Whole project' : `${isFile ? '$(file)' : '$(folder)'} ${scope}`;
    const value = scope === undefined ? whole : scope;
    items.push({
      label,
      description: scope === undefined ? (whole ? `scope "${whole}"` : 'no scope') : isFile ? 'active file' : 'folder',
      detail: details[i],
      scope: value,
    });
  }
  if (items.length === 1 && !describe) return items[0].scope;
  return (await pickOne(s, items, file ? 'Scope: the file, one of its folders, or the whole project' : 'Scope (open a file to scope to it)')).scope;
}

/** Picks a handoff from the list (unacknowledged ones for the user first when `unacknowledged`). */
export async function pickHandoff(ctx: TwiningSession, folder: TwiningFolder, s: Step, options: { unacknowledged?: boolean } = {}): Promise<string> {
  const me = ctx.agentId();
  const now = ctx.clock.now();
  const { handoffs } = await folder.run(engine => engine.handoffs({ limit: 200, ...(options.unacknowledged ? { acknowledged: false } : {}) }));
  if (handoffs.length === 0) {
    throw new Error(options.unacknowledged ? 'There is no unacknowledged handoff.' : 'There is no handoff yet.');
  }
  const ordered = options.unacknowledged ? [...handoffs.filter(h => h.target_agent === me), ...handoffs.filter(h => h.target_agent !== me)] : handoffs;
  const picked = await pickOne(
    s,
    ordered.map(h => ({
      label: `${h.acknowledged ? '$(mail-read)' : h.target_agent === me ? '$(bell-dot)' : '$(mail)'} ${oneLine(String(h.summary), 100)}`,
      description: `${h.source_agent} → ${h.target_agent ?? 'any agent'}${h.target_agent === me ? ' (you)' : ''} · ${relative(h.created_at, now)}`,
      detail: h.scope ? `scope ${h.scope}` : 'whole project',
      id: h.id,
    })),
    'Handoff',
  );
  return picked.id;
}

/** Picks a registered agent; with `any`, "Any agent" comes first and gives undefined. */
export async function pickAgent(folder: TwiningFolder, s: Step, options: { any?: boolean; placeHolder: string }): Promise<string | undefined> {
  const { agents } = await folder.run(engine => engine.agents({}));
  const items: (vscode.QuickPickItem & { agent?: string })[] = [];
  if (options.any) items.push({ label: '$(organization) Any agent', description: 'an open handoff', agent: undefined });
  const order = { active: 0, idle: 1, gone: 2 };
  for (const a of [...agents].sort((x, y) => order[x.liveness] - order[y.liveness])) {
    items.push({
      label: `$(${LIVENESS_ICON[a.liveness].id}) ${a.agent_id}`,
      description: `${a.liveness}${a.role ? ` · ${a.role}` : ''}`,
      detail: list(strings(a.capabilities), 'no capabilities'),
      agent: a.agent_id,
    });
  }
  return (await pickOne(s, items, options.placeHolder)).agent;
}
