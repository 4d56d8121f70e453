/**
 * Writes to a `.twining/` folder the way twining-mcp makes them (docs/format.md §Locking, docs/format.md §Files, docs/format.md §Rules): its locks
 * (proper-lockfile, same options), its key order and serialisation, its in-place rewrites. For the
 * tests that need both implementations' writes in one history (the git merge suites); not a test
 * file.
 */
import * as fs from 'fs';
import * as path from 'path';
import lockfile from 'proper-lockfile';
import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();
const LOCK = { stale: 10000, update: 5000, realpath: true, retries: { retries: 10, factor: 1.5, minTimeout: 50, maxTimeout: 1000 } };

async function locked<T>(file: string, work: () => T): Promise<T> {
  const release = await lockfile.lock(file, LOCK);
  try {
    return work();
  } finally {
    await release();
  }
}

const at = (root: string, ...rel: string[]) => path.join(root, '.twining', ...rel);
const jsonText = (v: unknown) => JSON.stringify(v, null, 2);
const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(l => l.trim() !== '');

export interface McpEntry {
  entry_type: string;
  summary: string;
  detail?: string;
  tags?: string[];
  scope?: string;
  agent_id?: string;
}

export async function mcpPost(root: string, e: McpEntry, now = new Date()): Promise<string> {
  const id = ulid(now.getTime());
  const entry = {
    entry_type: e.entry_type,
    summary: e.summary,
    detail: e.detail ?? '',
    tags: e.tags ?? [],
    scope: e.scope ?? 'project',
    agent_id: e.agent_id ?? 'main',
    id,
    timestamp: now.toISOString(),
  };
  const file = at(root, 'blackboard.jsonl');
  await locked(file, () => fs.appendFileSync(file, JSON.stringify(entry) + '\n'));
  return id;
}

/** Dismiss: rewrite the blackboard in place without the given ids (lines that do not parse stay). */
export async function mcpDismiss(root: string, ids: string[]): Promise<void> {
  const file = at(root, 'blackboard.jsonl');
  await locked(file, () => {
    const kept = lines(file).filter(l => {
      try {
        return !ids.includes(JSON.parse(l).id);
      } catch {
        return true;
      }
    });
    fs.writeFileSync(file, kept.map(l => l + '\n').join(''));
  });
}

/** Override: status, `overridden_by` and `override_reason` in the file and the index; an `Override:` decision entry. */
export async function mcpOverride(root: string, id: string, by: string, reason: string): Promise<void> {
  const index = at(root, 'decisions', 'index.json');
  const summary = await locked(index, () => {
    const file = at(root, 'decisions', `${id}.json`);
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    Object.assign(record, { status: 'overridden', overridden_by: by, override_reason: reason });
    fs.writeFileSync(file, jsonText(record));
    const entries = JSON.parse(fs.readFileSync(index, 'utf8'));
    for (const e of entries) if (e.id === id) e.status = 'overridden';
    fs.writeFileSync(index, jsonText(entries));
    return record.summary as string;
  });
  await mcpPost(root, { entry_type: 'decision', summary: `Override: ${summary} -- overridden by ${by}`.slice(0, 200), detail: reason, tags: [], agent_id: by });
}

/** Acknowledge (docs/format.md §Acknowledging a handoff): the record's fields appended or overwritten in place, every index line re-serialised. */
export async function mcpAcknowledge(root: string, id: string, agent: string, now = new Date()): Promise<void> {
  const index = at(root, 'handoffs', 'index.jsonl');
  await locked(index, () => {
    const file = at(root, 'handoffs', `${id}.json`);
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    record.acknowledged_by = agent;
    record.acknowledged_at = now.toISOString();
    fs.writeFileSync(file, jsonText(record));
    const out = lines(index)
      .map(l => JSON.parse(l))
      .map(l => (l.id === id ? { ...l, acknowledged: true } : l));
    fs.writeFileSync(index, out.map(l => JSON.stringify(l) + '\n').join(''));
  });
}

/** Registration (docs/format.md §Registration), read inside the lock. */
export async function mcpRegister(root: string, agentId: string, capabilities: string[], role?: string, now = new Date()): Promise<void> {
  const file = at(root, 'agents', 'registry.json');
  await locked(file, () => {
    const registry = JSON.parse(fs.readFileSync(file, 'utf8'));
    const norm = (tags: string[]) => [...new Set(tags.map(t => t.toLowerCase().trim()).filter(Boolean))];
    const old = registry.find((a: { agent_id: string }) => a.agent_id === agentId);
    if (old) {
      old.capabilities = norm([...old.capabilities, ...capabilities]);
      if (role !== undefined) old.role = role;
      old.last_active = now.toISOString();
    } else
      registry.push({
        agent_id: agentId,
        capabilities: norm(capabilities),
        ...(role ? { role } : {}),
        registered_at: now.toISOString(),
        last_active: now.toISOString(),
      });
    fs.writeFileSync(file, jsonText(registry));
  });
}
