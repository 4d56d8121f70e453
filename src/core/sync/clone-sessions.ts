/**
 * Who is where (issue 28 part 6): each clone's hooked agent sessions travel with sync so the
 * session board of every clone shows the team's, each labelled with the clone it runs on.
 *
 * The session files stay local (`.twining/sessions/` ignores itself and no git merge sees it):
 * what travels is a snapshot, `sessions/<clone id>.json` in the record's tree, written by its own
 * clone only (so two clones never change one file) and carried as it is by the others. A clone
 * that receives another's snapshot writes its sessions into its own `.twining/sessions/` as
 * `session-clone.<clone id>.<session>.json`, with the clone's label, and removes the ones that
 * left it. A snapshot is input from elsewhere: it is size-limited, parsed, and only the fields the
 * board shows are kept, each of its type; anything else refuses that snapshot alone.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { SessionState } from '../records';
import type { TreeEntry } from './record-tree';
import { ensureSessionsDir, fileSafe, listSessionStates, readJsonFile, sessionsDir, writeJsonFile } from '../storage/session-files';

/** The tree folder of the snapshots. */
export const SESSIONS_TREE = 'sessions';
/** Largest snapshot accepted, and sessions per snapshot. */
export const SNAPSHOT_LIMIT = 256 * 1024;
const MAX_SESSIONS = 50;
const MAX_FILES = 100;

const REMOTE_PREFIX = 'session-clone.';
const isRemoteFile = (name: string) => name.startsWith(REMOTE_PREFIX);

export interface SessionSnapshot {
  clone: string;
  label: string;
  sessions: SessionState[];
}

/** This clone's own sessions, newest first, at most MAX_SESSIONS. */
export async function ownSnapshot(twiningDir: string, clone: { id: string; label: string }): Promise<SessionSnapshot> {
  const names = new Set((await fs.readdir(sessionsDir(twiningDir)).catch(() => [] as string[])).filter(n => !isRemoteFile(n)));
  const own = (await listSessionStates(twiningDir)).filter(s => names.has(`session-${fileSafe(s.session_id)}.json`) && s.clone === undefined);
  // Which of them the board shows is the receiving board's to say (by its own clock, as for its own sessions).
  const recent = own
    .filter(s => typeof s.last_seen === 'string')
    .sort((a, b) => (a.last_seen < b.last_seen ? 1 : -1))
    .slice(0, MAX_SESSIONS)
    .map(s => clean(s))
    .filter((s): s is SessionState => !!s);
  return { clone: clone.id, label: clone.label, sessions: recent };
}

const STRING_FIELDS = [
  'session_id',
  'agent_id',
  'tool',
  'started_at',
  'last_seen',
  'last_tool',
  'last_edit_at',
  'recorded_at',
  'ended_at',
  'waiting_since',
  'waiting_reason',
  'worktree',
  'branch',
] as const;

/** A session with only the board's fields, each a bounded string (files a bounded list of them); undefined when it lacks what the board needs. */
function clean(value: unknown): SessionState | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of STRING_FIELDS) if (typeof v[key] === 'string' && v[key].length <= 500) out[key] = v[key];
  if (typeof out.session_id !== 'string' || typeof out.agent_id !== 'string' || typeof out.last_seen !== 'string') return undefined;
  out.tool ??= 'unknown';
  out.started_at ??= out.last_seen;
  out.files_touched = Array.isArray(v.files_touched) ? v.files_touched.filter(f => typeof f === 'string' && f.length <= 500).slice(0, MAX_FILES) : [];
  out.blackboard_offset = 0;
  return out as unknown as SessionState;
}

/** A received snapshot, checked; throws naming the problem (the caller names the remote and the file). */
export function parseSnapshot(bytes: Buffer, cloneId: string): SessionSnapshot {
  if (bytes.length > SNAPSHOT_LIMIT) throw new Error(`it is ${bytes.length} bytes, over ${SNAPSHOT_LIMIT}`);
  const value = JSON.parse(bytes.toString('utf8')) as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('it is not a JSON object');
  const v = value as Record<string, unknown>;
  if (v.clone !== cloneId) throw new Error(`it names the clone ${JSON.stringify(v.clone)}, not ${cloneId}`);
  if (typeof v.label !== 'string' || v.label.length > 200 || /[\u0000-\u001f]/.test(v.label)) throw new Error('its label is not a short line of text');
  if (!Array.isArray(v.sessions)) throw new Error('it has no list of sessions');
  return {
    clone: cloneId,
    label: v.label,
    sessions: v.sessions
      .slice(0, MAX_SESSIONS)
      .map(clean)
      .filter((s): s is SessionState => !!s),
  };
}

export const snapshotBytes = (snapshot: SessionSnapshot) => Buffer.from(`${JSON.stringify(snapshot)}\n`);

/** Writes another clone's sessions into this clone's `.twining/sessions/` (local files), labelled, and removes those that left its snapshot. */
export async function writeCloneSessions(twiningDir: string, snapshot: SessionSnapshot): Promise<void> {
  const dir = await ensureSessionsDir(twiningDir);
  const prefix = `${REMOTE_PREFIX}${snapshot.clone}.`;
  const fileOf = (s: SessionState) => `${prefix}${fileSafe(s.session_id)}.json`;
  const keep = new Set<string>();
  for (const s of snapshot.sessions) {
    const name = fileOf(s);
    keep.add(name);
    const file = path.join(dir, name);
    const state: SessionState = { ...s, clone: snapshot.label };
    const now = await readJsonFile<SessionState>(file);
    if (JSON.stringify(now) !== JSON.stringify(state)) await writeJsonFile(file, state);
  }
  for (const name of await fs.readdir(dir).catch(() => [] as string[]))
    if (name.startsWith(prefix) && !keep.has(name)) await fs.rm(path.join(dir, name), { force: true });
}

/**
 * Writes here the sessions of every other clone whose snapshot changed on the remote since the
 * last sync (`base`). A snapshot that fails its checks is skipped with a note; the record's sync
 * goes on.
 */
export async function receiveSessions(
  twiningDir: string,
  remote: readonly TreeEntry[],
  base: readonly TreeEntry[],
  selfId: string,
  read: (ids: string[]) => Promise<Map<string, Buffer>>,
  notes: string[],
): Promise<void> {
  const before = new Map(base.map(e => [e.path, e.id] as const));
  const changed = remote.filter(e => {
    const m = /^sessions\/([0-9a-f]{1,64})\.json$/.exec(e.path);
    return m && m[1] !== selfId && before.get(e.path) !== e.id;
  });
  if (changed.length === 0) return;
  const blobs = await read(changed.map(e => e.id));
  for (const e of changed) {
    const cloneId = e.path.slice(`${SESSIONS_TREE}/`.length, -'.json'.length);
    try {
      await writeCloneSessions(twiningDir, parseSnapshot(blobs.get(e.id)!, cloneId));
    } catch (error) {
      notes.push(`${e.path} (another clone's sessions) was not taken: ${(error as Error).message}`);
    }
  }
}
