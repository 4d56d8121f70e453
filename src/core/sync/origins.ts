/**
 * Which clone a blackboard entry or a claim came from (issue 28 part 6), for the views: the claim's
 * tooltip names its holder's clone, an entry's tooltip the clone it was written on.
 *
 * Nothing is added to the records themselves (their format is twining-mcp's). The record's history
 * says it: every commit on `twining/record` is made by one clone's sync (its author is `Twining
 * sync (<label>)`, `twining-sync@<clone id>.invalid`, sync-run.ts), and a commit's new blobs
 * against its parent are exactly what that clone wrote since it last synced. So when a sync
 * brings records in, the commits it fetched are walked oldest first (at most `MAX_COMMITS`), and
 * each incoming id is given the clone of the first commit whose new blobs hold it. The answers
 * are kept in `.git/twining/origins.json` (the common git directory, never committed), bounded.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { gitText } from './sync-git';
import { fileOfTreePath } from './record-files';
import { Repo, readBlobs } from './record-tree';
import { listTreeOnce } from './sync-reads';
import { repoOf } from './sync-state';
import { syncConfig } from './sync-config';

const MAX_COMMITS = 50;
const MAX_KEPT = 20_000;

const originsFile = (repo: Repo) => path.join(repo.gitDir, 'twining', 'origins.json');

/** id → the label of the clone it came from ("host:folder"), for records another clone wrote. */
export async function readOrigins(repo: Repo): Promise<Record<string, string>> {
  try {
    const value = JSON.parse(await fs.readFile(originsFile(repo), 'utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

async function addOrigins(repo: Repo, found: Map<string, string>): Promise<void> {
  if (found.size === 0) return;
  const all = Object.entries({ ...(await readOrigins(repo)), ...Object.fromEntries(found) }).slice(-MAX_KEPT);
  const file = originsFile(repo);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, JSON.stringify(Object.fromEntries(all)));
  await fs.rename(temp, file);
}

/** A clone's label as its sync commit's author names it, as plain short text (the remote is input from elsewhere). */
function labelOf(authorName: string): string | undefined {
  const m = /^Twining sync \((.{1,200})\)$/.exec(authorName);
  return m && !/[\u0000-\u001f]/.test(m[1]) ? m[1] : undefined;
}

/** The ids a record file's new blob holds: a JSONL part's lines' ids, a record file's own id. */
function idsIn(rel: string, bytes: Buffer | undefined): string[] {
  if (!rel.endsWith('.jsonl')) return [rel.slice(rel.lastIndexOf('/') + 1, -'.json'.length)];
  const ids: string[] = [];
  for (const line of (bytes ?? Buffer.alloc(0)).toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === 'string') ids.push(id);
    } catch {
      // a line the sync's checks let through is JSON; anything else holds no id
    }
  }
  return ids;
}

const ATTRIBUTED = (rel: string) => rel === 'blackboard.jsonl' || rel === 'claims/claims.jsonl' || rel.startsWith('records/posts/');

/**
 * Finds and keeps which clone each of `incoming` (ids of entries and claims that came in) was
 * written on, from the commits after `base` up to `tip`. Commits by `selfId` are skipped.
 */
export async function attributeIncoming(repo: Repo, base: string | undefined, tip: string, incoming: Set<string>, selfId: string): Promise<void> {
  if (incoming.size === 0) return;
  const range = base ? [`${base}..${tip}`] : [tip];
  const log = await gitText(repo.cwd, ['rev-list', '--reverse', `--max-count=${MAX_COMMITS}`, '--first-parent', '--format=%H %P%x09%ae%x09%an', ...range]);
  // --reverse applies after --max-count: the newest MAX_COMMITS, oldest first.
  const found = new Map<string, string>();
  for (const line of log.split('\n')) {
    if (!line || line.startsWith('commit ')) continue;
    const [ids, email, name] = line.split('\t');
    const [commit, parent] = ids.split(' ');
    const label = labelOf(name ?? '');
    if (!label || email === `twining-sync@${selfId}.invalid`) continue;
    const [now, before] = await Promise.all([listTreeOnce(repo, commit), parent ? listTreeOnce(repo, parent) : Promise.resolve([])]);
    const had = new Set(before.map(e => e.id));
    const fresh = now.filter(e => !had.has(e.id) && ATTRIBUTED(fileOfTreePath(e.path).rel));
    const blobs = await readBlobs(
      repo,
      fresh.filter(e => e.path.includes('.jsonl')).map(e => e.id),
    );
    for (const e of fresh) for (const id of idsIn(fileOfTreePath(e.path).rel, blobs.get(e.id))) if (incoming.has(id) && !found.has(id)) found.set(id, label);
    if (found.size === incoming.size) break;
  }
  await addOrigins(repo, found);
}

/** Which clone records came from, for the views of the `.twining/` folder `dir`: this clone's label and id → label for records another clone wrote. */
export async function originsOf(dir: string): Promise<{ self?: string; records: Record<string, string> }> {
  const repo = await repoOf(dir);
  if (!repo) return { records: {} };
  const [config, records] = await Promise.all([syncConfig(repo), readOrigins(repo)]);
  const self = config.get('twining.sync.label');
  return { ...(self ? { self } : {}), records };
}
