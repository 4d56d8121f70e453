/**
 * What a PreToolUse hook needs about a file, without reading the whole folder on every tool call:
 * `.twining/sessions/hook-index/`, derived from the decision index (active and provisional
 * decisions, where they apply) and the blackboard (open warnings), in buckets by the first two
 * folders of a path, so that a hook reads only the buckets of the file it is asked about:
 *  - `meta.json`: the decision index's stat and the blackboard's identity and byte offset the
 *    buckets were made from, the bucket keys, and warnings resolved since;
 *  - `d-<key>.json` / `w-<key>.json`: the decisions / warnings whose scope (or, for decisions, an
 *    affected file) lies under that key; a scope shallower than two folders is in the bucket
 *    `_short:<its first folder>` (`_short:src` for `src/` and `src/x.ts`; `_short:project` for
 *    `project`, a scope without a slash being its own first folder).
 * A file `a/b/...` overlaps a scope (docs/format.md §Scope overlap: either is a prefix of the other) only if the
 * scope is in bucket `a/b/`, or is shallow and a prefix of the file: a shallow scope with a slash
 * has first folder `a`, one without is a prefix of `a`; so the file reads `a/b/` and the `_short:`
 * buckets of `a`'s prefixes (`_short:`, `_short:s`, ..., `_short:a`) that exist, and the lookup is
 * exact. Project-wide warnings (scope `project`, which overlaps only paths starting so) are not
 * read for `src/...`. A file shallower than two folders reads every bucket. Kept current cheaply: decision
 * buckets are rewritten when `decisions/index.json` changed; warning buckets get the lines
 * appended since the offset (a rewritten blackboard, after a dismiss or an archive, is read whole
 * once). SessionStart writes it from the engine it loaded anyway. Derived, never the truth.
 *
 * A twining-mcp 2.x folder has none of those files: its index is made from the database's rows
 * (sqlite-hook-read.ts) whenever the database's version stamp moved, and says so in its meta
 * (`blackboard.identity` "sqlite", `decisions_stat` the stamp).
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { ensureSessionsDir, fileSafe, readJsonFile, sessionsDir, writeJsonFile } from '../session-files';
import { isSqliteFolder } from '../sqlite/sqlite-detect';
import { readBytes, readText } from '../read-file';
import { readForHookIndex, sqliteFolderStamp } from '../sqlite/sqlite-hook-read';
import { identityOf, stampOf } from '../version-stamp';

/** A record's field as text: a string as it is, anything else (a malformed record) as JSON. */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : (JSON.stringify(v) ?? ''));

/** [id, scope, affected_files, summary, status] */
export type IndexedDecision = [string, string, string[], string, string];
/** [id, scope, summary, agent_id] */
export type IndexedWarning = [string, string, string, string];

/** The index's format; an index of another (an older build's) is made again, never read. */
const VERSION = 3;

interface Meta {
  version: typeof VERSION;
  decisions_stat: string;
  blackboard: { identity: string; offset: number };
  decision_keys: string[];
  warning_keys: string[];
  resolved: string[];
}

const DIR = 'hook-index';
/** The prefix of the buckets of scopes shallower than two folders. */
const SHORT = '_short:';
/** `blackboard.identity` of an index made from a 2.x folder's database. */
const SQLITE = 'sqlite';
const dirOf = (twiningDir: string) => path.join(sessionsDir(twiningDir), DIR);

/** The bucket of a scope or file: its first two folders ("src/auth/"), or `_short:` and its first folder. */
export function bucketOf(p: string): string {
  const parts = p.split('/');
  return parts.length >= 3 ? `${parts[0]}/${parts[1]}/` : `${SHORT}${parts[0]}`;
}

export function indexDecisions(items: unknown): IndexedDecision[] {
  const out: IndexedDecision[] = [];
  if (!Array.isArray(items)) return out;
  for (const d of items) {
    if (!d || typeof d !== 'object') continue;
    const r = d as Record<string, unknown>;
    if ((r.status !== 'active' && r.status !== 'provisional') || typeof r.id !== 'string') continue;
    const files = Array.isArray(r.affected_files) ? r.affected_files.filter((x): x is string => typeof x === 'string') : [];
    out.push([r.id, typeof r.scope === 'string' ? r.scope : '', files, textOf(r.summary), r.status]);
  }
  return out;
}

/** New open warnings among blackboard lines, and the ids they (or others) resolve. */
export function scanEntries(entries: Iterable<Record<string, unknown>>): { warnings: IndexedWarning[]; resolved: string[] } {
  const warnings: IndexedWarning[] = [];
  const resolved: string[] = [];
  for (const e of entries) {
    if (e.entry_type === 'warning' && typeof e.id === 'string' && typeof e.scope === 'string' && e.status !== 'resolved')
      warnings.push([e.id, e.scope, textOf(e.summary), textOf(e.agent_id)]);
    if (e.status === 'resolved' && typeof e.id === 'string') resolved.push(e.id);
    if (Array.isArray(e.relates_to)) for (const r of e.relates_to) if (typeof r === 'string') resolved.push(r);
  }
  return { warnings, resolved };
}

function group<T>(items: T[], keysOf: (item: T) => string[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items)
    for (const key of new Set(keysOf(item))) {
      const list = out.get(key);
      if (list) list.push(item);
      else out.set(key, [item]);
    }
  return out;
}
const decisionKeys = (d: IndexedDecision) => [bucketOf(d[1]), ...d[2].map(bucketOf)];

function parseLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // A line that does not parse (a writer cut off) is skipped, as every reader of the folder does.
    }
  }
  return out;
}

/** Bytes [from, to) of a file, cut back to the last complete line. */
async function readRange(file: string, from: number, to: number): Promise<{ text: string; end: number }> {
  const buffer = (await readBytes(file, 'log', from, to)) ?? Buffer.alloc(0);
  const last = buffer.lastIndexOf(10, buffer.length - 1);
  return last < 0 ? { text: '', end: from } : { text: buffer.toString('utf8', 0, last + 1), end: from + last + 1 };
}

const bucketFile = (twiningDir: string, kind: 'd' | 'w', key: string) => path.join(dirOf(twiningDir), `${kind}-${fileSafe(key)}.json`);
const readBucket = async <T>(twiningDir: string, kind: 'd' | 'w', key: string): Promise<T[]> =>
  (await readJsonFile<{ items: T[] }>(bucketFile(twiningDir, kind, key)))?.items ?? [];
const writeBucket = (twiningDir: string, kind: 'd' | 'w', key: string, items: unknown[]) => writeJsonFile(bucketFile(twiningDir, kind, key), { items }, false);

async function writeAll(twiningDir: string, kind: 'd' | 'w', groups: Map<string, unknown[]>, previous: string[]): Promise<string[]> {
  await Promise.all([...groups].map(([key, items]) => writeBucket(twiningDir, kind, key, items)));
  await Promise.all(previous.filter(k => !groups.has(k)).map(k => fs.rm(bucketFile(twiningDir, kind, k), { force: true })));
  return [...groups.keys()];
}

/**
 * Whether a PreToolUse could bring the index up to date by reading only what was appended since
 * (an index exists, of this blackboard, not longer than it): then nobody needs to write it whole.
 */
export async function hookIndexUsable(twiningDir: string): Promise<boolean> {
  const [meta, bst] = await Promise.all([
    readJsonFile<Meta>(path.join(dirOf(twiningDir), 'meta.json')),
    fs.stat(path.join(twiningDir, 'blackboard.jsonl')).catch(() => undefined),
  ]);
  return meta?.version === VERSION && !!bst && meta.blackboard.identity === identityOf(bst) && bst.size >= meta.blackboard.offset;
}

/** Writes the whole index (SessionStart, from the engine's state). */
export async function writeHookIndex(
  twiningDir: string,
  from: { decisionsStat: string; blackboard: { identity: string; offset: number }; decisions: IndexedDecision[]; entries: Iterable<Record<string, unknown>> },
): Promise<void> {
  await ensureSessionsDir(twiningDir);
  await fs.mkdir(dirOf(twiningDir), { recursive: true });
  const old = await readJsonFile<Meta>(path.join(dirOf(twiningDir), 'meta.json'));
  const { warnings, resolved } = scanEntries(from.entries);
  const gone = new Set(resolved);
  const meta: Meta = {
    version: VERSION,
    decisions_stat: from.decisionsStat,
    blackboard: from.blackboard,
    decision_keys: await writeAll(twiningDir, 'd', group(from.decisions, decisionKeys), old?.decision_keys ?? []),
    warning_keys: await writeAll(
      twiningDir,
      'w',
      group(
        warnings.filter(w => !gone.has(w[0])),
        w => [bucketOf(w[1])],
      ),
      old?.warning_keys ?? [],
    ),
    resolved: [],
  };
  await writeJsonFile(path.join(dirOf(twiningDir), 'meta.json'), meta, false);
}

/**
 * The decisions and open warnings whose place overlaps `file` (a candidate set: the caller applies
 * the exact overlap rule), after bringing the index up to date with the folder.
 */
export async function lookUp(twiningDir: string, file: string): Promise<{ decisions: IndexedDecision[]; warnings: IndexedWarning[] }> {
  const metaFile = path.join(dirOf(twiningDir), 'meta.json');
  const meta = isSqliteFolder(twiningDir) ? await currentForSqlite(twiningDir, metaFile) : await currentForFiles(twiningDir, metaFile);
  return candidates(twiningDir, meta, file);
}

/** The index of a 2.x folder, made again from its rows when the database's stamp moved. */
async function currentForSqlite(twiningDir: string, metaFile: string): Promise<Meta> {
  const stamp = sqliteFolderStamp(twiningDir);
  const kept = await readJsonFile<Meta>(metaFile);
  if (kept?.version === VERSION && kept.blackboard.identity === SQLITE && kept.decisions_stat === stamp) return kept;
  const { decisions, entries } = readForHookIndex(twiningDir);
  await writeHookIndex(twiningDir, { decisionsStat: stamp, blackboard: { identity: SQLITE, offset: 0 }, decisions: indexDecisions(decisions), entries });
  return (await readJsonFile<Meta>(metaFile))!;
}

/** The index of a 1.x folder, brought up to date with its files (see above). */
async function currentForFiles(twiningDir: string, metaFile: string): Promise<Meta> {
  const decisionsFile = path.join(twiningDir, 'decisions', 'index.json');
  const blackboardFile = path.join(twiningDir, 'blackboard.jsonl');
  const [kept, dst, bst] = await Promise.all([
    readJsonFile<Meta>(metaFile),
    fs.stat(decisionsFile).catch(() => undefined),
    fs.stat(blackboardFile).catch(() => undefined),
  ]);
  const identity = bst ? identityOf(bst) : 'missing';
  const size = bst?.size ?? 0;
  let meta = kept?.version === VERSION ? kept : undefined;
  if (!meta || identity !== meta.blackboard.identity || size < meta.blackboard.offset) {
    // No index yet, or the blackboard was rewritten: read both whole, once.
    const { text, end } = size ? await readRange(blackboardFile, 0, size) : { text: '', end: 0 };
    const items = dst ? (JSON.parse((await readText(decisionsFile, 'index').catch(() => undefined)) ?? '[]') as unknown) : [];
    await writeHookIndex(twiningDir, {
      decisionsStat: stampOf(dst),
      blackboard: { identity, offset: end },
      decisions: indexDecisions(items),
      entries: parseLines(text),
    });
    meta = (await readJsonFile<Meta>(metaFile))!;
  } else {
    let changed = false;
    if (meta.decisions_stat !== stampOf(dst)) {
      let items: unknown = [];
      try {
        items = dst ? JSON.parse((await readText(decisionsFile, 'index')) ?? '[]') : [];
      } catch {
        items = [];
      }
      meta.decision_keys = await writeAll(twiningDir, 'd', group(indexDecisions(items), decisionKeys), meta.decision_keys);
      meta.decisions_stat = stampOf(dst);
      changed = true;
    }
    if (size > meta.blackboard.offset) {
      const { text, end } = await readRange(blackboardFile, meta.blackboard.offset, size);
      const { warnings, resolved } = scanEntries(parseLines(text));
      for (const [key, added] of group(warnings, w => [bucketOf(w[1])])) {
        await writeBucket(twiningDir, 'w', key, [...(await readBucket<IndexedWarning>(twiningDir, 'w', key)), ...added]);
        if (!meta.warning_keys.includes(key)) meta.warning_keys.push(key);
      }
      meta.resolved.push(...resolved);
      meta.blackboard.offset = end;
      changed = true;
    }
    if (changed) await writeJsonFile(metaFile, meta, false);
  }
  return meta;
}

async function candidates(twiningDir: string, meta: Meta, file: string): Promise<{ decisions: IndexedDecision[]; warnings: IndexedWarning[] }> {
  const own = bucketOf(file);
  // The buckets that can hold a scope overlapping the file (see above); all for a shallow file.
  const wanted = new Set([own]);
  const first = file.slice(0, file.indexOf('/'));
  for (let i = 0; i <= first.length; i++) wanted.add(SHORT + first.slice(0, i));
  const keys = (list: string[]) => (own.startsWith(SHORT) ? list : list.filter(k => wanted.has(k)));
  const gone = new Set(meta.resolved);
  const [decisions, warnings] = await Promise.all([
    Promise.all(keys(meta.decision_keys).map(k => readBucket<IndexedDecision>(twiningDir, 'd', k))),
    Promise.all(keys(meta.warning_keys).map(k => readBucket<IndexedWarning>(twiningDir, 'w', k))),
  ]);
  const seen = new Set<string>();
  return {
    decisions: decisions.flat().filter(d => !seen.has(d[0]) && seen.add(d[0]) !== undefined),
    warnings: warnings.flat().filter(w => !gone.has(w[0])),
  };
}

/** The blackboard lines appended after `offset` (the session's own writes), when the file was not rewritten since. */
export async function blackboardSince(twiningDir: string, offset: number): Promise<Record<string, unknown>[] | undefined> {
  const file = path.join(twiningDir, 'blackboard.jsonl');
  const st = await fs.stat(file).catch(() => undefined);
  if (!st || st.size < offset) return undefined;
  if (st.size === offset) return [];
  return parseLines((await readRange(file, offset, st.size)).text);
}
