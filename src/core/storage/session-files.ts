/**
 * `.twining/sessions/`: what this project keeps about agent sessions on one machine, beside the
 * shared records: when each agent last assembled a briefing (so a decision can say honestly that
 * it was `assembled_before`), and each hooked session's state (its agent, the files it touched, its
 * last tool call, whether it recorded its work). It is local and derived: the folder ignores itself
 * (a `.gitignore` of `*`), twining-mcp does not read it (its plugin keeps `.twining/.sessions/`), and
 * the merge driver never sees it. Imports nothing heavy: the hook process loads it on every call.
 */
import { readText } from './read-file';
import { sha1Hex } from '../text/sha1';
import { promises as fs } from 'fs';
import * as path from 'path';
import type { SessionState } from '../records';

export const SESSIONS_DIR = 'sessions';

export const sessionsDir = (twiningDir: string) => path.join(twiningDir, SESSIONS_DIR);

/** A name made only of safe characters (agent and session ids come from outside). */
export function fileSafe(id: string): string {
  const plain = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  if (plain === id) return id;
  // SHA-1 without `crypto`, which a hook process would load for this alone (text/sha1.ts).
  return `${plain}-${sha1Hex(id).slice(0, 10)}`;
}

/** The folders made (or found) by this process: a long-lived engine writes a briefing mark per `assemble`. */
const ensured = new Set<string>();

/** Creates `.twining/sessions/` with its `.gitignore` when missing (looked at once per process; a write that finds it gone makes it again). */
export async function ensureSessionsDir(twiningDir: string): Promise<string> {
  const dir = sessionsDir(twiningDir);
  if (ensured.has(dir)) return dir;
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, '.gitignore'), '# Local session state of Twining (not shared)\n*\n', { flag: 'wx' }).catch(error => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  ensured.add(dir);
  return dir;
}

/** Writes JSON whole (temporary file, then rename): a reader never sees half a file. */
export async function writeJsonFile(file: string, value: unknown, pretty = true): Promise<void> {
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  const text = (pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)) + '\n';
  try {
    await fs.writeFile(tmp, text);
  } catch (error) {
    // The folder went away since this process made it (a user cleaned .twining/sessions/): make it again, once.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || path.basename(path.dirname(file)) !== SESSIONS_DIR) throw error;
    ensured.delete(path.dirname(file));
    await ensureSessionsDir(path.dirname(path.dirname(file)));
    await fs.writeFile(tmp, text);
  }
  await fs.rename(tmp, file);
}

export async function readJsonFile<T>(file: string): Promise<T | undefined> {
  try {
    const value = JSON.parse((await readText(file, 'session')) ?? '') as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

// Assemblies -----------------------------------------------------------------------------------

export interface AssemblyMark {
  agent_id: string;
  assembled_at: string;
  task: string;
  scope: string;
}

const assemblyFile = (twiningDir: string, agentId: string) => path.join(sessionsDir(twiningDir), `assembly-${fileSafe(agentId)}.json`);

export function readAssembly(twiningDir: string, agentId: string): Promise<AssemblyMark | undefined> {
  return readJsonFile<AssemblyMark>(assemblyFile(twiningDir, agentId));
}

export async function writeAssembly(twiningDir: string, mark: AssemblyMark): Promise<void> {
  await ensureSessionsDir(twiningDir);
  await writeJsonFile(assemblyFile(twiningDir, mark.agent_id), mark);
}

/**
 * How long an assembly counts as "before" a decision by the same agent. twining-mcp keeps the
 * mark in memory for the life of its server process (one agent session); a session here spans
 * several processes (hooks, CLI, MCP server), so the mark is on disk and lasts a working day.
 */
export const ASSEMBLY_FRESH_MS = 8 * 3600_000;

// Hooked sessions ------------------------------------------------------------------------------

export type { SessionState } from '../records';

export const sessionFile = (twiningDir: string, sessionId: string) => path.join(sessionsDir(twiningDir), `session-${fileSafe(sessionId)}.json`);

export function readSessionState(twiningDir: string, sessionId: string): Promise<SessionState | undefined> {
  return readJsonFile<SessionState>(sessionFile(twiningDir, sessionId));
}

export async function writeSessionState(twiningDir: string, state: SessionState): Promise<void> {
  await ensureSessionsDir(twiningDir);
  await writeJsonFile(sessionFile(twiningDir, state.session_id), state);
}

/** Every session state (the Agents view's session board). */
export async function listSessionStates(twiningDir: string): Promise<SessionState[]> {
  const names = await fs.readdir(sessionsDir(twiningDir)).catch(() => [] as string[]);
  const states = await Promise.all(
    names.filter(n => n.startsWith('session-') && n.endsWith('.json')).map(n => readJsonFile<SessionState>(path.join(sessionsDir(twiningDir), n))),
  );
  return states.filter((s): s is SessionState => !!s && typeof s.session_id === 'string');
}
