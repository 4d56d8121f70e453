/**
 * twining_verify of a scope, as twining-mcp 1.9 means it (src/engine/verify.ts and
 * src/engine/graph.ts getTestCoverage at commit 4846d7048cd84fe6771ff8c51aac1a29cc96d02b): the
 * active and provisional decisions bearing on the scope are checked for test coverage (a
 * `tested_by` relation from one of their affected files in the knowledge graph), the scope's
 * warnings for an answer, finding or status that relates to them, the decisions for context
 * assembled before them (`assembled_before`), and the decisions' files for commits after them
 * (drift, from git). The result is posted as a finding, as twining-mcp posts it.
 *
 * Two differences, on purpose: a test file found for an affected file is related `tested_by` only
 * once (twining-mcp adds the relation again at every verify), and constraints' `check_command`s,
 * shell commands anyone who can post to the blackboard can write, are not run: that check
 * reports "skip" with the number of checkable constraints.
 */
import { execFile } from 'child_process';
import { promisify } from 'util';
import type { FolderStore } from '../engine/folder-store';
import type { ParsedInputOf } from '../schemas/schemas';
import { VERIFY_CHECKS } from '../schemas/schemas';
import { overlaps } from '../scope';
import { isResolved } from '../rules/resolution';
import type { DecisionRecord } from '../records';
import { allDecisionRecords } from './trace-ops';
import { appendEntry } from './blackboard-ops';
import { changeGraph, readGraph } from './graph-ops';

type Status = 'pass' | 'warn' | 'fail';
type CheckName = (typeof VERIFY_CHECKS)[number];

export interface ScopeVerifyResult {
  scope: string;
  verified_at: string;
  checks: Partial<Record<CheckName, Record<string, unknown> & { status: string }>>;
  summary: string;
  /** Whether a check named in fail_on has the status "fail". */
  failed: boolean;
  /** The finding that records the verification (absent when the workspace is read-only). */
  finding_id?: string;
}

/** A decision bears on a scope by scope overlap, an affected file overlapping it, or an affected symbol equal to it (decision-store.ts getByScope). */
const bearsOn = (d: DecisionRecord, scope: string) =>
  overlaps(d.scope, scope) || (d.affected_files ?? []).some(f => overlaps(f, scope)) || (d.affected_symbols ?? []).some(s => s === scope);

export async function verifyScope(ctx: FolderStore, args: ParsedInputOf<'verify'> & { scope: string }): Promise<ScopeVerifyResult> {
  const run = new Set<CheckName>(args.checks ?? VERIFY_CHECKS);
  const all = [...(await allDecisionRecords(ctx)).values()].filter(d => bearsOn(d, args.scope));
  all.sort((a, b) => (a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? 1 : -1) : a.id < b.id ? 1 : -1));
  const decisions = all.filter(d => d.status === 'active' || d.status === 'provisional');
  const checks: ScopeVerifyResult['checks'] = {};
  if (run.has('test_coverage')) checks.test_coverage = await testCoverage(ctx, decisions);
  if (run.has('warnings')) checks.warnings = await warnings(ctx, args.scope);
  if (run.has('assembly')) checks.assembly = assembly(decisions, args.agent_id);
  if (run.has('drift')) checks.drift = await drift(ctx, decisions, all);
  if (run.has('constraints')) checks.constraints = await constraints(ctx, args.scope);
  const summary = Object.entries(checks)
    .map(([name, check]) => `${name}: ${check.status}`)
    .join(', ');
  const result: ScopeVerifyResult = {
    scope: args.scope,
    verified_at: ctx.timestamp(),
    checks,
    summary,
    failed: (args.fail_on ?? []).some(name => checks[name as CheckName]?.status === 'fail'),
  };
  if (!ctx.readOnly) {
    const finding = await appendEntry(ctx, {
      entry_type: 'finding',
      summary: `Verification: ${summary}`.slice(0, 200),
      detail: JSON.stringify(checks, null, 2),
      tags: ['verify'],
      scope: args.scope,
      agent_id: args.agent_id ?? 'verify-engine',
    }).catch(error => void ctx.warn(`verify: the finding was not posted: ${(error as Error).message}`));
    if (finding) result.finding_id = finding.id;
  }
  return result;
}

async function testCoverage(ctx: FolderStore, decisions: DecisionRecord[]) {
  // Relate each affected file to a test file named like it, when the graph has both.
  const wanted: { source: string; test: string }[] = [];
  const { entities } = await readGraph(ctx);
  const files = entities.filter(e => e.type === 'file');
  const find = (q: string) => files.find(e => e.name.toLowerCase().includes(q.toLowerCase()));
  for (const d of decisions)
    for (const file of d.affected_files ?? []) {
      const base = file.replace(/\.\w+$/, '');
      for (const suffix of ['.test.ts', '.spec.ts', '.test.js', '.spec.js']) {
        const test = find(base + suffix);
        const source = test && find(file);
        if (test && source) wanted.push({ source: source.id, test: test.id });
      }
    }
  if (wanted.length && !ctx.readOnly)
    await changeGraph(ctx, (_entities, relations) => {
      for (const { source, test } of wanted)
        if (!relations.some(r => r.type === 'tested_by' && r.source === source && r.target === test))
          relations.push({ id: ctx.id(), source, target: test, type: 'tested_by', properties: {}, created_at: ctx.timestamp() });
    }).catch(error => ctx.warn(`verify: tested_by relations not added: ${(error as Error).message}`));
  const graph = await readGraph(ctx);
  const covered = new Set(graph.relations.filter(r => r.type === 'tested_by').map(r => r.source));
  const byName = new Map(graph.entities.map(e => [e.name, e]));
  const uncovered = decisions
    .filter(d => !(d.affected_files ?? []).some(f => covered.has(byName.get(f)?.id ?? '')))
    .map(d => ({ decision_id: d.id, summary: d.summary, affected_files: d.affected_files ?? [] }));
  const withTests = decisions.length - uncovered.length;
  const status: Status = !uncovered.length ? 'pass' : withTests / Math.max(decisions.length, 1) >= 0.5 ? 'warn' : 'fail';
  return { status, decisions_in_scope: decisions.length, decisions_with_tested_by: withTests, uncovered };
}

async function warnings(ctx: FolderStore, scope: string) {
  await ctx.blackboard.refresh();
  const inScope = ctx.blackboard.entries.filter(e => typeof e.scope === 'string' && overlaps(e.scope, scope));
  const acknowledgedIds = new Set<string>();
  const resolvedIds = new Set<string>();
  for (const e of inScope)
    for (const id of Array.isArray(e.relates_to) ? e.relates_to : []) {
      if (e.entry_type === 'answer' || e.entry_type === 'finding') acknowledgedIds.add(id);
      if (e.entry_type === 'status') resolvedIds.add(id);
    }
  // twining-mcp 2.x: a warning resolved with twining_resolve carries its own status.
  for (const e of inScope) if (e.entry_type === 'warning' && isResolved(e)) resolvedIds.add(e.id);
  const list = inScope.filter(e => e.entry_type === 'warning');
  const ignored = list.filter(w => !acknowledgedIds.has(w.id) && !resolvedIds.has(w.id));
  const status: Status = ignored.length === 0 ? 'pass' : ignored.length <= 2 ? 'warn' : 'fail';
  return {
    status,
    warnings_in_scope: list.length,
    acknowledged: list.filter(w => acknowledgedIds.has(w.id)).length,
    resolved: list.filter(w => resolvedIds.has(w.id)).length,
    silently_ignored: ignored.length,
    ignored_details: ignored.map(w => ({ id: w.id, summary: w.summary })),
  };
}

function assembly(decisions: DecisionRecord[], agentId?: string) {
  const mine = agentId ? decisions.filter(d => d.agent_id === agentId) : decisions;
  const assembled = mine.filter(d => d.assembled_before === true).length;
  const blind = mine.filter(d => d.assembled_before !== true);
  const status: Status = !blind.length ? 'pass' : assembled >= mine.length / 2 ? 'warn' : 'fail';
  return {
    status,
    decisions_by_agent: mine.length,
    assembled_before: assembled,
    blind_decisions: blind.map(d => ({ decision_id: d.id, summary: d.summary, agent_id: d.agent_id })),
  };
}

const run = promisify(execFile);
async function git(ctx: FolderStore, args: string[]): Promise<string | undefined> {
  try {
    return (await run('git', args, { cwd: ctx.root, timeout: 5000, encoding: 'utf8' })).stdout.trim();
  } catch {
    return undefined;
  }
}

/** A decision's affected file committed after it, with no newer decision of its domain on that file. */
async function drift(ctx: FolderStore, decisions: DecisionRecord[], all: DecisionRecord[]) {
  if ((await git(ctx, ['rev-parse', '--is-inside-work-tree'])) === undefined) return { status: 'skip', decisions_checked: 0, stale: [] };
  const stale: Record<string, string>[] = [];
  let checked = 0;
  for (const d of decisions) {
    if (!d.affected_files?.length) continue;
    checked++;
    for (const file of d.affected_files) {
      const log = await git(ctx, ['log', '--format=%aI %H', '-1', '--', file]);
      const space = log ? log.indexOf(' ') : -1;
      if (!log || space < 0) continue;
      const fileDate = log.slice(0, space);
      if (!(new Date(fileDate) > new Date(d.timestamp))) continue;
      const newer = all.some(
        o =>
          o.id !== d.id &&
          (o.status === 'active' || o.status === 'provisional') &&
          o.domain === d.domain &&
          new Date(o.timestamp) > new Date(d.timestamp) &&
          overlaps(o.scope, d.scope) &&
          (o.affected_files ?? []).includes(file),
      );
      if (!newer)
        stale.push({
          decision_id: d.id,
          summary: d.summary,
          affected_file: file,
          decision_timestamp: d.timestamp,
          last_file_modification: fileDate,
          modifying_commit: log.slice(space + 1),
        });
    }
  }
  return { status: stale.length ? 'warn' : 'pass', decisions_checked: checked, stale };
}

/** Constraints with a check_command are counted, not run (see above). */
async function constraints(ctx: FolderStore, scope: string) {
  await ctx.blackboard.refresh();
  const checkable = ctx.blackboard.entries.filter(e => {
    if (e.entry_type !== 'constraint' || typeof e.scope !== 'string' || !overlaps(e.scope, scope)) return false;
    try {
      const parsed = JSON.parse(e.detail || '') as { check_command?: unknown; expected?: unknown } | null;
      return !!parsed && typeof parsed.check_command === 'string' && typeof parsed.expected === 'string';
    } catch {
      return false;
    }
  }).length;
  return {
    status: 'skip',
    checkable: 0,
    passed: 0,
    failed: [],
    not_run: checkable,
    reason: checkable ? 'check_command constraints are shell commands from the blackboard; Twining for VS Code does not run them' : 'no checkable constraints',
  };
}
