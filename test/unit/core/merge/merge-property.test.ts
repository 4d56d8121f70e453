/**
 * Property-style check of the git merge driver: random histories on two branches of one base
 * (twining-mcp's reference folder), made of posts, dismissals, registrations, handoffs,
 * acknowledgements, decisions (some superseding) and overrides, written by the library and in
 * twining-mcp's way. The merged folder is compared with replays of both histories' operations on
 * the base, one branch after the other, in both orders: whatever does not depend on the order
 * must equal the replays; what does (who acknowledged first, which status) must be one of the two
 * replays' values, as the documented rules pick it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { STATUS_PRECEDENCE } from '../../../../src/core/merge/merge-file';
import { FIXTURE, tempProject } from '../../../support/tmp';
import { commitAll, conflicted, fixtureRepo, git, gitMay, readFolder } from '../../../support/git-repo';
import { mcpDismiss, mcpOverride, mcpPost } from '../../../support/mcp-writes';
import { prng } from '../../../support/prng';

type Op =
  | { kind: 'post' | 'handoff'; summary: string }
  | { kind: 'dismiss' | 'ack' | 'override' | 'register'; target: string; agent?: string; caps?: string[] }
  | { kind: 'decide'; summary: string; supersedes?: string };

interface View {
  entries: { id: string; summary: string }[];
  handoffs: { id: string; summary: string }[];
  decisions: { id: string; summary: string; status: string }[];
}

function view(root: string): View {
  const f = readFolder(root).files;
  return {
    entries: f.get('blackboard.jsonl') as View['entries'],
    handoffs: (f.get('handoffs/index.jsonl') as View['handoffs']) ?? [],
    decisions: f.get('decisions/index.json') as View['decisions'],
  };
}

/** A random history of `n` operations, choosing targets among what this branch can see. */
function history(root: string, name: string, n: number, rand: () => number): Op[] {
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  const ops: Op[] = [];
  const v = view(root);
  for (let i = 0; i < n; i++) {
    const r = rand();
    const summary = `${name} ${i}`;
    if (r < 0.25) ops.push({ kind: 'post', summary });
    else if (r < 0.35 && v.entries.length) ops.push({ kind: 'dismiss', target: pick(v.entries).summary });
    else if (r < 0.5)
      ops.push({
        kind: 'register',
        target: pick(['backend-dev', 'tester', 'newcomer', `${name}-agent`]),
        caps: [pick(['Go', 'rust', 'docs', 'ops']), `${name}-${i}`],
      });
    else if (r < 0.62) ops.push({ kind: 'handoff', summary });
    else if (r < 0.75 && v.handoffs.length) ops.push({ kind: 'ack', target: pick(v.handoffs).summary, agent: `${name}-ack-${i}` });
    else if (r < 0.88) ops.push({ kind: 'decide', summary, ...(rand() < 0.4 ? { supersedes: pick(v.decisions).summary } : {}) });
    else ops.push({ kind: 'override', target: pick(v.decisions).summary, agent: `${name}-lead` });
  }
  return ops;
}

/** Applies one operation; targets are found by summary, so a replay finds the same records. */
async function apply(root: string, op: Op): Promise<void> {
  const ws = await openWorkspace(root);
  const v = view(root);
  const find = <T extends { summary: string }>(list: T[], summary: string) => list.find(x => x.summary === summary);
  switch (op.kind) {
    case 'post':
      await mcpPost(root, { entry_type: 'finding', summary: op.summary, agent_id: 'poster' });
      break;
    case 'dismiss': {
      const e = find(v.entries, op.target);
      if (e) await mcpDismiss(root, [e.id]);
      break;
    }
    case 'register':
      await ws.register({ agent_id: op.target, capabilities: op.caps ?? [] });
      break;
    case 'handoff':
      await ws.handoff({ source_agent: 'prop', summary: op.summary, results: [{ description: 'd', status: 'completed' }] });
      break;
    case 'ack': {
      const h = find(v.handoffs, op.target);
      if (h) await ws.acknowledge({ handoff_id: h.id, agent_id: op.agent! });
      break;
    }
    case 'decide': {
      const sup = op.supersedes ? find(v.decisions, op.supersedes) : undefined;
      await ws.decide({ domain: `d-${op.summary}`, scope: 'src/', summary: op.summary, context: 'c', rationale: 'r', ...(sup ? { supersedes: sup.id } : {}) });
      break;
    }
    case 'override': {
      const d = find(v.decisions, op.target);
      if (d) await mcpOverride(root, d.id, op.agent!, 'property test');
      break;
    }
  }
}

interface Model {
  entries: string[];
  handoffs: Map<string, string | undefined>;
  decisions: Map<string, string>;
  agents: Map<string, Set<string>>;
}

function model(root: string): Model {
  const f = readFolder(root).files;
  const entries = (f.get('blackboard.jsonl') as { entry_type: string; summary: string; agent_id: string }[])
    .map(e => `${e.entry_type}|${e.summary}|${e.agent_id}`)
    .sort();
  const handoffs = new Map<string, string | undefined>();
  for (const h of (f.get('handoffs/index.jsonl') as { id: string; summary: string; acknowledged: boolean }[]) ?? []) {
    const rec = f.get(`handoffs/${h.id}.json`) as { acknowledged_by?: string };
    assert.equal(h.acknowledged, rec.acknowledged_by !== undefined, `handoff ${h.summary}: index and file agree`);
    handoffs.set(h.summary, rec.acknowledged_by);
  }
  const decisions = new Map<string, string>();
  for (const d of f.get('decisions/index.json') as { id: string; summary: string; status: string }[]) {
    assert.equal((f.get(`decisions/${d.id}.json`) as { status: string }).status, d.status, `decision ${d.summary}: index and file agree`);
    decisions.set(d.summary, d.status);
  }
  const agents = new Map((f.get('agents/registry.json') as { agent_id: string; capabilities: string[] }[]).map(a => [a.agent_id, new Set(a.capabilities)]));
  return { entries, handoffs, decisions, agents };
}

async function replay(first: Op[], second: Op[]): Promise<Model> {
  const root = tempProject();
  fs.cpSync(FIXTURE, path.join(root, '.twining'), { recursive: true });
  for (const op of [...first, ...second]) await apply(root, op);
  return model(root);
}

const SEEDS = [11, 12, 13, 14];

describe('random histories on two branches, merged by git with the driver, against replays', () => {
  for (const seed of SEEDS) {
    test(`seed ${seed}`, async () => {
      const rand = prng(seed);
      const repo = fixtureRepo();
      const ops: Record<'a' | 'b', Op[]> = { a: [], b: [] };
      for (const name of ['a', 'b'] as const) {
        git(repo, 'checkout', '-q', '-b', name, 'main');
        ops[name] = history(repo, name, 9, rand);
        for (const op of ops[name]) await apply(repo, op);
        commitAll(repo, `branch ${name}`);
      }
      git(repo, 'checkout', '-q', '-b', 'merged', 'a');
      const r = gitMay(repo, 'merge', '--no-edit', 'b');
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(conflicted(repo), []);
      assert.deepEqual(readFolder(repo).problems, []);
      const merged = model(repo);
      const [ab, ba] = [await replay(ops.a, ops.b), await replay(ops.b, ops.a)];
      const context = `ops a: ${JSON.stringify(ops.a)}\nops b: ${JSON.stringify(ops.b)}`;

      assert.deepEqual(merged.entries, ab.entries, `blackboard entries equal the replay's\n${context}`);
      assert.deepEqual(ab.entries, ba.entries);
      assert.deepEqual([...merged.handoffs.keys()].sort(), [...ab.handoffs.keys()].sort(), context);
      for (const [summary, by] of merged.handoffs) {
        assert.equal(by !== undefined, ab.handoffs.get(summary) !== undefined, `handoff ${summary} acknowledged as in the replay\n${context}`);
        assert.ok([ab.handoffs.get(summary), ba.handoffs.get(summary)].includes(by), `handoff ${summary}: ${by} is one side's acknowledgement`);
      }
      assert.deepEqual([...merged.decisions.keys()].sort(), [...ab.decisions.keys()].sort(), context);
      const rank = (s: string | undefined) => STATUS_PRECEDENCE.indexOf(s as never);
      for (const [summary, status] of merged.decisions) {
        const [x, y] = [ab.decisions.get(summary)!, ba.decisions.get(summary)!];
        assert.equal(status, rank(x) >= rank(y) ? x : y, `decision ${summary}: ${status}, replays ${x} / ${y}\n${context}`);
      }
      assert.deepEqual([...merged.agents.keys()].sort(), [...ab.agents.keys()].sort());
      for (const [id, caps] of merged.agents) assert.deepEqual([...caps].sort(), [...ab.agents.get(id)!].sort(), `agent ${id}'s capabilities`);
    });
  }
});
