/**
 * The side-by-side session: one scripted call of every tool of twining-mcp 1.9 (its 32 tools at
 * commit 4846d7048cd84fe6771ff8c51aac1a29cc96d02b), run on a fresh copy of the reference folder
 * against any MCP server over stdio, and what is compared between two servers:
 *
 * - each result's field set (every field path, array items merged as `[]`);
 * - the content itself, with every id replaced by what it names in that server's folder (a
 *   decision's summary, an entity's type and name, an entry's type and summary), every time by
 *   `<time>`: for every call but the few whose step says otherwise (`compare`);
 * - the knowledge graph left by the whole session, entities and relations named the same way.
 *
 * scripts/side-by-side.js runs it on twining-mcp and on this project's server and keeps what
 * twining-mcp returned in test/fixtures/side-by-side/; side-by-side.test.ts runs it on ours today.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** Results so far, by step label (an argument may use an earlier step's id). */
type Results = Record<string, any>;

export interface Step {
  label: string;
  tool: string;
  args: (r: Results, session: { started: string }) => Record<string, unknown>;
  /**
   * What must be the same on both servers beyond the field set: by default the whole content,
   * normalised; else only the part this returns, or nothing (`'fields'`), where the two rank by
   * different means (twining-mcp's keyword search against our BM25) or ours adds on purpose.
   */
  compare?: 'fields' | ((value: any) => unknown);
}

const JWT_BEARER = '01M80HHJN7TF8W1N7EW8PHV7MT'; // architecture, src/auth/
const VERSIONED = '01M80HHK025WC0FGZ865H3Q5TH'; // api, src/api/
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ'; // security, src/auth/jwt.ts, depends on JWT_BEARER
const ACK_HANDOFF = '01M80HHKAVJT8FG2B08Q4NGZ4W'; // backend-dev, src/auth/, not acknowledged

const decision = (summary: string, extra: Record<string, unknown> = {}) => ({
  domain: 'security',
  scope: 'src/auth/session.ts',
  summary,
  context: 'Sessions are refreshed by several tabs at once.',
  rationale: 'A single refresh path removes the race.',
  agent_id: 'sbs-agent',
  ...extra,
});

/** Every tool of twining-mcp 1.9, in an order where each call has something to work on. */
export const SESSION: Step[] = [
  { label: 'status-before', tool: 'twining_status', args: () => ({}) },
  { label: 'register', tool: 'twining_register', args: () => ({ agent_id: 'sbs-agent', capabilities: ['testing', 'auth'], role: 'checker' }) },
  { label: 'agents', tool: 'twining_agents', args: () => ({ include_gone: true }) },
  { label: 'discover', tool: 'twining_discover', args: () => ({ required_capabilities: ['testing'], include_gone: true }) },
  {
    label: 'post-warning',
    tool: 'twining_post',
    args: () => ({ entry_type: 'warning', summary: 'Token refresh races on logout', scope: 'src/auth/session.ts', tags: ['auth'], agent_id: 'sbs-agent' }),
  },
  {
    label: 'post-finding',
    tool: 'twining_post',
    args: () => ({
      entry_type: 'finding',
      summary: 'Refresh is called twice per tab',
      detail: 'Seen in src/auth/session.ts refreshSession()',
      scope: 'src/auth/',
      agent_id: 'sbs-agent',
    }),
  },
  { label: 'read', tool: 'twining_read', args: () => ({ scope: 'src/auth/', limit: 10 }) },
  { label: 'query', tool: 'twining_query', args: () => ({ query: 'refresh', limit: 5 }), compare: 'fields' },
  { label: 'recent', tool: 'twining_recent', args: () => ({ n: 5 }) },
  {
    label: 'assemble',
    tool: 'twining_assemble',
    args: () => ({ task: 'Fix the token refresh race', scope: 'src/auth/', agent_id: 'sbs-agent' }),
    // The graph's part: the entities around the scope, and how the graph reaches each decision.
    compare: v => ({
      related_entities: v.related_entities,
      relevance_paths: (v.active_decisions as { id: string; relevance_path?: string }[])
        .filter(d => d.relevance_path)
        .map(d => `${d.id}: ${d.relevance_path}`)
        .sort(),
    }),
  },
  {
    label: 'decide-refresh',
    tool: 'twining_decide',
    args: () =>
      decision('Refresh sessions through one shared lock', {
        depends_on: [JWT_BEARER],
        affected_files: ['src/auth/session.ts'],
        affected_symbols: ['refreshSession'],
        confidence: 'high',
        commit_hash: 'abc1234',
        alternatives: [{ option: 'Retry on 401', reason_rejected: 'Hides the race' }],
      }),
  },
  {
    label: 'decide-logout',
    tool: 'twining_decide',
    args: r => decision('Logout waits for a refresh in flight', { depends_on: [r['decide-refresh'].id], affected_files: ['src/auth/logout.ts'] }),
  },
  { label: 'why', tool: 'twining_why', args: () => ({ scope: 'src/auth/session.ts', agent_id: 'sbs-agent' }) },
  { label: 'trace-refresh', tool: 'twining_trace', args: r => ({ decision_id: r['decide-refresh'].id }) },
  { label: 'trace-jwt-down', tool: 'twining_trace', args: () => ({ decision_id: JWT_BEARER, direction: 'downstream' }) },
  { label: 'trace-rs256-up', tool: 'twining_trace', args: () => ({ decision_id: RS256, direction: 'upstream' }) },
  { label: 'link-commit', tool: 'twining_link_commit', args: r => ({ decision_id: r['decide-logout'].id, commit_hash: 'def5678', agent_id: 'sbs-agent' }) },
  { label: 'commits-abc', tool: 'twining_commits', args: () => ({ commit_hash: 'abc1234' }) },
  { label: 'commits-def', tool: 'twining_commits', args: () => ({ commit_hash: 'def5678' }) },
  { label: 'commits-none', tool: 'twining_commits', args: () => ({ commit_hash: '0000000' }) },
  { label: 'search-decisions', tool: 'twining_search_decisions', args: () => ({ query: 'refresh', limit: 5 }), compare: 'fields' },
  {
    label: 'reconsider',
    tool: 'twining_reconsider',
    args: r => ({ decision_id: r['decide-logout'].id, new_context: 'The lock may make logout slow', agent_id: 'sbs-agent' }),
  },
  { label: 'promote', tool: 'twining_promote', args: r => ({ decision_ids: [r['decide-logout'].id], promoted_by: 'sbs-agent' }) },
  {
    label: 'override',
    tool: 'twining_override',
    args: () => ({
      decision_id: VERSIONED,
      reason: 'Clients pin a header instead',
      new_decision: 'Version endpoints by an Accept header',
      overridden_by: 'sbs-agent',
    }),
  },
  { label: 'add-entity-class', tool: 'twining_add_entity', args: () => ({ name: 'SessionStore', type: 'class', properties: { language: 'typescript' } }) },
  { label: 'add-entity-test', tool: 'twining_add_entity', args: () => ({ name: 'test/auth/session.test.ts', type: 'file' }) },
  { label: 'add-entity-orphan', tool: 'twining_add_entity', args: () => ({ name: 'LegacyCookie', type: 'concept' }) },
  { label: 'add-relation-impl', tool: 'twining_add_relation', args: () => ({ source: 'SessionStore', target: 'src/auth/session.ts', type: 'implements' }) },
  {
    label: 'add-relation-test',
    tool: 'twining_add_relation',
    args: () => ({ source: 'src/auth/session.ts', target: 'test/auth/session.test.ts', type: 'tested_by', properties: { kind: 'unit' } }),
  },
  { label: 'neighbors', tool: 'twining_neighbors', args: () => ({ entity: 'src/auth/session.ts', depth: 2 }) },
  { label: 'neighbors-typed', tool: 'twining_neighbors', args: () => ({ entity: 'src/auth/session.ts', relation_types: ['tested_by'] }) },
  { label: 'graph-query', tool: 'twining_graph_query', args: () => ({ query: 'session' }) },
  { label: 'graph-query-typed', tool: 'twining_graph_query', args: () => ({ query: 'auth', entity_types: ['file'], limit: 3 }) },
  { label: 'prune-dry', tool: 'twining_prune_graph', args: () => ({ dry_run: true }) },
  {
    label: 'delegate',
    tool: 'twining_delegate',
    args: () => ({
      summary: 'Write a race test for refresh',
      required_capabilities: ['testing'],
      urgency: 'high',
      scope: 'src/auth/session.ts',
      agent_id: 'sbs-agent',
    }),
  },
  {
    label: 'handoff',
    tool: 'twining_handoff',
    args: () => ({
      source_agent: 'sbs-agent',
      target_agent: 'tester',
      scope: 'src/auth/',
      summary: 'Refresh lock in place; race test still to write',
      results: [{ description: 'Shared refresh lock', status: 'completed', artifacts: ['src/auth/session.ts'] }],
    }),
  },
  { label: 'acknowledge', tool: 'twining_acknowledge', args: () => ({ handoff_id: ACK_HANDOFF, agent_id: 'tester' }) },
  { label: 'summarize', tool: 'twining_summarize', args: () => ({ scope: 'src/auth/' }) },
  { label: 'what-changed', tool: 'twining_what_changed', args: (_r, s) => ({ since: s.started, scope: 'src/auth/' }) },
  { label: 'verify', tool: 'twining_verify', args: () => ({ scope: 'src/auth/', agent_id: 'sbs-agent' }) },
  { label: 'export-auth', tool: 'twining_export', args: () => ({ scope: 'src/auth/' }) },
  { label: 'status-mid', tool: 'twining_status', args: () => ({}) },
  // Every entry of the reference folder is older than the session, none of the session's is.
  { label: 'archive', tool: 'twining_archive', args: (_r, s) => ({ before: s.started }) },
  // The verification finding's detail holds ours's verify result, which has more fields.
  {
    label: 'read-after-archive',
    tool: 'twining_read',
    args: () => ({ scope: 'src/auth/' }),
    compare: v => ({ ...v, entries: v.entries.map((e: any) => ({ ...e, detail: '' })) }),
  },
  { label: 'prune', tool: 'twining_prune_graph', args: () => ({ entity_types: ['concept'] }) },
  { label: 'export', tool: 'twining_export', args: () => ({}) },
  // After the last export: ours also records who dismissed what and why in a status entry (README, `dismiss`).
  { label: 'dismiss', tool: 'twining_dismiss', args: r => ({ ids: [r['post-warning'].id], reason: 'Fixed by the refresh lock' }) },
  // After the dismissal, which ours records in a status entry.
  { label: 'status-after', tool: 'twining_status', args: () => ({}), compare: ({ blackboard_entries: _n, summary: _s, ...rest }) => rest },
];

/** The threshold the automatic-archive session sets in config.yml: the reference folder holds 14 entries. */
export const ARCHIVE_THRESHOLD = 16;

/** With archive.max_blackboard_entries_before_archive at 16: the post that reaches it archives (twining-mcp's blackboard.ts post). */
export const AUTO_ARCHIVE_SESSION: Step[] = [
  { label: 'post-15', tool: 'twining_post', args: () => ({ entry_type: 'finding', summary: 'Fifteenth entry', scope: 'src/auth/', agent_id: 'sbs-agent' }) },
  { label: 'status-15', tool: 'twining_status', args: () => ({}) },
  {
    label: 'post-16',
    tool: 'twining_post',
    args: () => ({ entry_type: 'warning', summary: 'Sixteenth entry', scope: 'src/auth/jwt.ts', agent_id: 'sbs-agent' }),
  },
  { label: 'read-after', tool: 'twining_read', args: () => ({}) },
  { label: 'status-after', tool: 'twining_status', args: () => ({}) },
  { label: 'post-after', tool: 'twining_post', args: () => ({ entry_type: 'status', summary: 'After the archive', agent_id: 'sbs-agent' }) },
  { label: 'read-last', tool: 'twining_read', args: () => ({}) },
];

/** A project's blackboard and archive files, each entry as its type and summary, in file order. */
export function filesOf(root: string): { blackboard: string[]; archive: string[] } {
  const dir = path.join(root, '.twining');
  const line = (e: { entry_type?: unknown; summary?: unknown }) => `${String(e.entry_type)}: ${String(e.summary)}`;
  const archiveDir = path.join(dir, 'archive');
  const archived = fs.existsSync(archiveDir) ? fs.readdirSync(archiveDir).filter(f => f.endsWith('.jsonl')) : [];
  return {
    blackboard: readLines(path.join(dir, 'blackboard.jsonl')).map(line),
    archive: archived.flatMap(f => readLines(path.join(archiveDir, f)).map(line)),
  };
}

/** Sets archive.max_blackboard_entries_before_archive in a project's config.yml. */
export function setArchiveThreshold(root: string, threshold: number): void {
  const file = path.join(root, '.twining', 'config.yml');
  fs.writeFileSync(
    file,
    fs.readFileSync(file, 'utf8').replace(/max_blackboard_entries_before_archive: \d+/, `max_blackboard_entries_before_archive: ${threshold}`),
  );
}

export interface StepRecord {
  label: string;
  tool: string;
  args: unknown;
  error: boolean;
  fields: string[];
  content?: unknown;
}

/** Every field path of a value: `a`, `a.b`, `list[]`, `list[].c` (array items merged). */
export function fieldPaths(value: unknown, prefix = ''): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, at: string) => {
    if (Array.isArray(v)) {
      if (at) out.add(`${at}[]`);
      for (const item of v) walk(item, `${at}[]`);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const p = at ? `${at}.${k}` : k;
        out.add(p);
        walk(child, p);
      }
    }
  };
  walk(value, prefix);
  return [...out].sort();
}

const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
const DAY = /\b\d{4}-\d{2}-\d{2}\b/g;

const readJson = (file: string): any => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : []);
const readLines = (file: string): any[] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(l => l.trim())
        .map(l => JSON.parse(l))
    : [];

/** What each id in a project's `.twining/` names: decisions, entries (archived too), entities, relations, handoffs. */
export function namesOf(root: string): Map<string, string> {
  const dir = path.join(root, '.twining');
  const names = new Map<string, string>();
  for (const d of readJson(path.join(dir, 'decisions', 'index.json'))) names.set(d.id, `<decision ${d.summary}>`);
  const archived = fs.existsSync(path.join(dir, 'archive')) ? fs.readdirSync(path.join(dir, 'archive')).map(f => path.join(dir, 'archive', f)) : [];
  for (const file of [path.join(dir, 'blackboard.jsonl'), ...archived.filter(f => f.endsWith('.jsonl'))])
    for (const e of readLines(file)) if (!names.has(e.id)) names.set(e.id, `<entry ${e.entry_type} ${e.summary}>`);
  for (const h of readLines(path.join(dir, 'handoffs', 'index.jsonl'))) names.set(h.id, `<handoff ${h.summary}>`);
  // An entity may be named after a decision or an entry (`warning:<id>`): named by what that names.
  const entities = readJson(path.join(dir, 'graph', 'entities.json'));
  const records = new Map(names);
  for (const e of entities) names.set(e.id, `<entity ${e.type} ${String(normalise(e.name, records, root))}>`);
  for (const r of readJson(path.join(dir, 'graph', 'relations.json'))) names.set(r.id, `<relation ${r.type}>`);
  return names;
}

/**
 * A value with every id named as `names` names it (else `<id>`), every time `<time>`, every day
 * `<day>`, and the project's folder `<project>`.
 */
export function normalise(value: unknown, names: Map<string, string>, root = ''): unknown {
  if (typeof value === 'string')
    return (root ? value.split(root).join('<project>') : value)
      .replace(ULID, id => names.get(id) ?? '<id>')
      .replace(ISO, '<time>')
      .replace(DAY, '<day>');
  if (Array.isArray(value)) return value.map(v => normalise(v, names, root));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, names, root)]));
  return value;
}

/** The graph of a project's folder, ids aside: entities by type and name, relations by their ends' names, sorted. */
export function graphOf(root: string): { entities: unknown[]; relations: unknown[] } {
  const dir = path.join(root, '.twining', 'graph');
  const names = namesOf(root);
  const entities = (readJson(path.join(dir, 'entities.json')) as any[]).map(e =>
    normalise({ type: e.type, name: e.name, properties: e.properties ?? {} }, names, root),
  );
  const relations = (readJson(path.join(dir, 'relations.json')) as any[]).map(r =>
    normalise({ source: r.source, type: r.type, target: r.target, properties: r.properties ?? {} }, names, root),
  );
  const byText = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
  return { entities: entities.sort(byText), relations: relations.sort(byText) };
}

/** Runs the whole session against a connected server whose project is `root`; one record per step. */
export async function runSession(client: Client, root: string, steps: readonly Step[] = SESSION, pauseMs = 0): Promise<StepRecord[]> {
  const started = new Date().toISOString();
  // Every time in the reference folder is before `started`; a session's own writes are at or after it.
  await new Promise(resolve => setTimeout(resolve, 5));
  const results: Results = {};
  const records: StepRecord[] = [];
  for (const step of steps) {
    const args = step.args(results, { started });
    const answer = (await client.callTool({ name: step.tool, arguments: args })) as { content: { text?: string }[]; isError?: boolean };
    // twining-mcp archives in the background of a post: its work lands before the next call looks.
    if (pauseMs) await new Promise(resolve => setTimeout(resolve, pauseMs));
    const text = answer.content[0]?.text ?? '';
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = { text };
    }
    const error = answer.isError === true || (value as { error?: unknown })?.error === true;
    results[step.label] = value;
    const names = namesOf(root);
    records.push({
      label: step.label,
      tool: step.tool,
      args: normalise(args, names, root),
      error,
      fields: fieldPaths(value),
      ...(error || step.compare === undefined
        ? { content: comparable(normalise(value, names, root)) }
        : typeof step.compare === 'function'
          ? { content: normalise(step.compare(value), names, root) }
          : {}),
    });
  }
  return records;
}

/** An export's Markdown as its sections (exportSections); any other result as it is. */
function comparable(value: unknown): unknown {
  const v = value as { markdown?: unknown };
  if (v && typeof v.markdown === 'string') return { ...v, markdown: exportSections(v.markdown) };
  return value;
}

/**
 * Splits a Markdown export into its sections (`# ` and `## ` headings), each its lines sorted: the
 * order of entries and decisions follows their times, and two written in the same millisecond
 * fall either way from one run to the next.
 */
export function exportSections(markdown: string): Record<string, string[]> {
  const sections: Record<string, string[]> = {};
  let current = '(top)';
  for (const line of markdown.split('\n')) {
    if (/^#{1,2} /.test(line)) current = line;
    else if (line.trim()) (sections[current] ??= []).push(line);
  }
  for (const lines of Object.values(sections)) lines.sort();
  return sections;
}

/**
 * `ours` cut down to the fields `theirs` has (recursively, arrays item by item), with object keys
 * in a stable order: deterministic content is compared on twining-mcp's fields, ours may add more.
 */
export function sameShape(ours: unknown, theirs: unknown): unknown {
  if (Array.isArray(ours) && Array.isArray(theirs)) return ours.map((o, i) => (i < theirs.length ? sameShape(o, theirs[i]) : canonical(o)));
  if (ours && theirs && typeof ours === 'object' && typeof theirs === 'object' && !Array.isArray(ours) && !Array.isArray(theirs)) {
    const t = theirs as Record<string, unknown>;
    const o = ours as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(t)
        .sort()
        .filter(k => k in o)
        .map(k => [k, sameShape(o[k], t[k])]),
    );
  }
  return canonical(ours);
}

/** A value with object keys sorted, for comparing as JSON text. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map(k => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}
