/**
 * What a PreToolUse hook needs about a file, without reading the whole folder on every tool call:
 * `.twining/sessions/hook-index.json`, derived from the decision index (its active and provisional
 * decisions, where they apply) and the blackboard (its open warnings), with the stat of the one and
 * the byte offset of the other it was made from. A hook brings it up to date cheaply: the decision
 * part is re-read only when `decisions/index.json` changed, and the blackboard part reads only the
 * lines appended since (a file rewritten by a dismiss or an archive is read whole, once). The
 * SessionStart hook writes it from the engine it has loaded anyway. Never the truth: deleting it
 * costs one full read.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { ensureSessionsDir, readJsonFile, sessionsDir, writeJsonFile } from '../core/store/session-files';

/** [id, scope, affected_files, affected_symbols, summary, status] */
export type IndexedDecision = [string, string, string[], string[], string, string];
/** [id, scope, summary, agent_id] */
export type IndexedWarning = [string, string, string, string];

export interface HookIndex {
  version: 1;
  decisions_stat: string;
  blackboard: { identity: string; offset: number };
  decisions: IndexedDecision[];
  warnings: IndexedWarning[];
}

const FILE = 'hook-index.json';
const statKey = (st: { size: number; mtimeMs: number; ino: number } | undefined) => (st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'missing');

export function indexDecisions(items: unknown): IndexedDecision[] {
  const out: IndexedDecision[] = [];
  if (!Array.isArray(items)) return out;
  for (const d of items) {
    if (!d || typeof d !== 'object') continue;
    const r = d as Record<string, unknown>;
    if ((r.status !== 'active' && r.status !== 'provisional') || typeof r.id !== 'string') continue;
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    out.push([r.id, typeof r.scope === 'string' ? r.scope : '', strings(r.affected_files), strings(r.affected_symbols), String(r.summary ?? ''), r.status]);
  }
  return out;
}

/** Applies blackboard lines (parsed objects) to the open warnings: new warnings in, resolved or related-to ones out. */
export function applyEntries(warnings: IndexedWarning[], entries: Iterable<Record<string, unknown>>): IndexedWarning[] {
  let list = warnings;
  const gone = new Set<string>();
  for (const e of entries) {
    if (e.entry_type === 'warning' && typeof e.id === 'string' && typeof e.scope === 'string' && e.status !== 'resolved')
      list.push([e.id, e.scope, String(e.summary ?? ''), String(e.agent_id ?? '')]);
    if (e.status === 'resolved' && typeof e.id === 'string') gone.add(e.id);
    if (Array.isArray(e.relates_to)) for (const r of e.relates_to) if (typeof r === 'string') gone.add(r);
  }
  if (gone.size) list = list.filter(w => !gone.has(w[0]));
  return list;
}

function parseLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v);
    } catch {
      // A line that does not parse (a writer cut off) is skipped, as every reader of the folder does.
    }
  }
  return out;
}

/** Bytes [from, to) of a file, cut back to the last complete line. */
async function readRange(file: string, from: number, to: number): Promise<{ text: string; end: number }> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    const { bytesRead } = await handle.read(buffer, 0, to - from, from);
    const last = buffer.lastIndexOf(10, bytesRead - 1);
    return last < 0 ? { text: '', end: from } : { text: buffer.toString('utf8', 0, last + 1), end: from + last + 1 };
  } finally {
    await handle.close();
  }
}

/**
 * The index, brought up to date with the folder (and written back when that changed anything).
 * `twiningDir` is the project's `.twining/`.
 */
export async function freshHookIndex(twiningDir: string): Promise<HookIndex> {
  const file = path.join(sessionsDir(twiningDir), FILE);
  const decisionsFile = path.join(twiningDir, 'decisions', 'index.json');
  const blackboardFile = path.join(twiningDir, 'blackboard.jsonl');
  const [kept, dst, bst] = await Promise.all([
    readJsonFile<HookIndex>(file),
    fs.stat(decisionsFile).catch(() => undefined),
    fs.stat(blackboardFile).catch(() => undefined),
  ]);
  let index: HookIndex = kept?.version === 1 ? kept : { version: 1, decisions_stat: '', blackboard: { identity: '', offset: 0 }, decisions: [], warnings: [] };
  let changed = false;
  const dKey = statKey(dst);
  if (index.decisions_stat !== dKey) {
    const text = dst ? await fs.readFile(decisionsFile, 'utf8').catch(() => '[]') : '[]';
    let items: unknown = [];
    try {
      items = JSON.parse(text);
    } catch {
      items = [];
    }
    index = { ...index, decisions_stat: dKey, decisions: indexDecisions(items) };
    changed = true;
  }
  const identity = bst ? `${bst.dev}:${bst.ino}` : 'missing';
  const size = bst?.size ?? 0;
  if (identity !== index.blackboard.identity || size < index.blackboard.offset) {
    // New or rewritten (a dismiss, an archive): read whole.
    const { text, end } = size ? await readRange(blackboardFile, 0, size) : { text: '', end: 0 };
    index = { ...index, blackboard: { identity, offset: end }, warnings: applyEntries([], parseLines(text)) };
    changed = true;
  } else if (size > index.blackboard.offset) {
    const { text, end } = await readRange(blackboardFile, index.blackboard.offset, size);
    if (end > index.blackboard.offset) {
      index = { ...index, blackboard: { identity, offset: end }, warnings: applyEntries(index.warnings, parseLines(text)) };
      changed = true;
    }
  }
  if (changed) await saveHookIndex(twiningDir, index).catch(() => undefined);
  return index;
}

export async function saveHookIndex(twiningDir: string, index: HookIndex): Promise<void> {
  await ensureSessionsDir(twiningDir);
  await writeJsonFile(path.join(sessionsDir(twiningDir), FILE), index, false);
}

/** The blackboard lines appended after `offset` (the session's own writes), when the file was not rewritten since. */
export async function blackboardSince(twiningDir: string, offset: number): Promise<Record<string, unknown>[] | undefined> {
  const file = path.join(twiningDir, 'blackboard.jsonl');
  const st = await fs.stat(file).catch(() => undefined);
  if (!st || st.size < offset) return undefined;
  if (st.size === offset) return [];
  return parseLines((await readRange(file, offset, st.size)).text);
}
