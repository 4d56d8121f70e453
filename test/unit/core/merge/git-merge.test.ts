/**
 * git merges of `.twining/` in real repositories: two branches from one base (twining-mcp's
 * reference folder), each written at the same time by this project's library in-process, by
 * worker processes and (branch b) by twining-mcp's way of writing; merged both ways with the
 * driver that `twining git-setup` configures, run through the bundled dist/cli.js. Then the same
 * histories merged in a clone without the set-up, as the documented contrast: every file both sides
 * appended to conflicts, and so does a handoff acknowledged on both sides.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace } from '../../../../src/core';
import { FIXTURE, startWorker, Worker } from '../../../support/tmp';
import { cli, commitAll, conflicted, fixtureRepo, git, gitMay, idsOf, newRepo, readFolder } from '../../../support/git-repo';
import { mcpAcknowledge, mcpDismiss, mcpOverride, mcpPost, mcpRegister } from '../../../support/mcp-writes';

const OPEN = '01M80HHKAVJT8FG2B08Q4NGZ4W'; // the reference folder's unacknowledged handoff
const bb = (project: string) => readFolder(project).files.get('blackboard.jsonl') as { id: string; timestamp: string; summary: string }[];

async function finish(workers: Worker[]): Promise<string[]> {
  const posted: string[] = [];
  for (const w of workers) {
    const { code } = await w.exited;
    assert.equal(code, 0, `worker exited ${code}: ${w.stderr.slice(-2000)}`);
    assert.deepEqual(
      w.messages.filter(m => m.op === 'error'),
      [],
      'no worker operation failed',
    );
    for (const m of w.messages) if (m.op === 'post') posted.push(m.id);
  }
  return posted;
}

describe('git merge of two branches with the twining driver', () => {
  let repo: string;
  let app: string;
  const base = { entries: new Set<string>(), decisions: [] as { id: string }[] };
  const facts = { dismissed: [] as string[], postedA: [] as string[], postedB: [] as string[], supersededByA: '', overriddenByB: '', newDecisionA: '' };
  const side = { a: '', b: '' };
  const merges: Record<'ab' | 'ba', { status: number; stderr: string; conflicts: string[] }> = {} as never;

  before(async () => {
    repo = newRepo();
    app = path.join(repo, 'app');
    fs.mkdirSync(app);
    fs.cpSync(FIXTURE, path.join(app, '.twining'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'README.md'), 'A project with a .twining/ folder in app/.\n');
    const setup = cli(repo, 'git-setup', '--dir', 'app');
    assert.equal(setup.status, 0, setup.stderr);
    assert.match(setup.stdout, /created 9 line\(s\) in app\/\.twining\/\.gitattributes/);
    assert.match(setup.stdout, /never from committed files/);
    const again = cli(repo, 'git-setup', '--dir', 'app');
    assert.match(again.stdout, /Already set up: nothing changed/, 'idempotent');
    commitAll(repo, 'base: the reference folder');
    for (const e of bb(app)) base.entries.add(e.id);
    base.decisions = readFolder(app).files.get('decisions/index.json') as { id: string }[];

    side.a = path.join(repo, '..', 'wa', 'app');
    side.b = path.join(repo, '..', 'wb', 'app');
    git(repo, 'worktree', 'add', '-q', '../wa', '-b', 'a');
    git(repo, 'worktree', 'add', '-q', '../wb', '-b', 'b');

    // Branch a: two worker processes and the library in this process, at the same time.
    const workersA = [0, 1].map(i => startWorker({ mode: 'mix', root: side.a, name: `wa${i}`, ops: 30, seed: 31 + i, barrier: true, retryLocked: true }));
    await Promise.all(workersA.map(w => w.ready));
    workersA.forEach(w => w.go());
    const ws = await openWorkspace(side.a);
    facts.supersededByA = base.decisions[0].id;
    const decided = await ws.decide({
      domain: 'merge',
      scope: 'src/merge/',
      summary: 'Supersede the first decision on branch a',
      context: 'c',
      rationale: 'r',
      supersedes: facts.supersededByA,
      agent_id: 'alice',
    });
    facts.newDecisionA = decided.id;
    await ws.acknowledge({ handoff_id: OPEN, agent_id: 'alice' }).catch(() => undefined); // a worker may have been first
    await ws.register({ agent_id: 'tester', capabilities: ['fuzzing'], role: 'qa-a' });
    facts.postedA.push((await ws.post({ entry_type: 'finding', summary: 'found on branch a', agent_id: 'alice' })).id);
    facts.postedA.push(...(await finish(workersA)));
    commitAll(path.dirname(side.a), 'branch a');

    // Branch b: one worker process while twining-mcp's kind of writes happen.
    const workerB = startWorker({ mode: 'mix', root: side.b, name: 'wb0', ops: 30, seed: 77, barrier: true, retryLocked: true });
    await workerB.ready;
    workerB.go();
    const warnings = bb(side.b)
      .filter(e => base.entries.has(e.id))
      .slice(-2);
    facts.dismissed = warnings.map(e => e.id);
    await mcpDismiss(side.b, facts.dismissed);
    facts.overriddenByB = base.decisions[1].id;
    await mcpOverride(side.b, facts.overriddenByB, 'human', 'replaced on branch b');
    await mcpAcknowledge(side.b, OPEN, 'bob');
    await mcpRegister(side.b, 'tester', ['Load-Testing'], 'qa-b');
    for (let i = 0; i < 5; i++) facts.postedB.push(await mcpPost(side.b, { entry_type: 'warning', summary: `mcp warning ${i} on branch b`, agent_id: 'bob' }));
    facts.postedB.push(...(await finish([workerB])));
    commitAll(path.dirname(side.b), 'branch b');

    // Merged both ways, from a subfolder (git runs the driver at the top of the work tree anyway).
    for (const [name, into, from] of [
      ['ab', 'a', 'b'],
      ['ba', 'b', 'a'],
    ] as const) {
      git(repo, 'checkout', '-q', '-b', name, into);
      const r = gitMay(app, 'merge', '--no-edit', from);
      merges[name] = { status: r.status, stderr: r.stderr, conflicts: conflicted(repo) };
    }
  });

  test('no conflict in either direction, and the driver is what merged', () => {
    for (const name of ['ab', 'ba'] as const) {
      assert.equal(merges[name].status, 0, `${name}: ${merges[name].stderr}`);
      assert.deepEqual(merges[name].conflicts, []);
      assert.match(merges[name].stderr, /twining merge: app\/\.twining\/blackboard\.jsonl: merged by record/);
    }
  });

  test('both directions give the same .twining/ tree, byte for byte', () => {
    assert.equal(git(repo, 'rev-parse', 'ab:app/.twining'), git(repo, 'rev-parse', 'ba:app/.twining'));
  });

  test('every file parses; the blackboard is the union minus what one side dismissed, in time order', () => {
    git(repo, 'checkout', '-q', 'ab');
    const { files, problems } = readFolder(app);
    assert.deepEqual(problems, []);
    const merged = files.get('blackboard.jsonl') as { id: string; timestamp: string }[];
    const a = idsOf(bb(side.a));
    const b = idsOf(bb(side.b));
    const expected = new Set([...base.entries].filter(id => !facts.dismissed.includes(id) && a.has(id) && b.has(id)));
    for (const id of [...a, ...b]) if (!base.entries.has(id)) expected.add(id);
    assert.deepEqual([...idsOf(merged)].sort(), [...expected].sort());
    assert.equal(merged.length, expected.size, 'each entry once');
    for (const id of [...facts.postedA, ...facts.postedB]) assert.ok(idsOf(merged).has(id), `posted ${id} is there`);
    for (const id of facts.dismissed) assert.ok(!idsOf(merged).has(id), `dismissed ${id} stays dismissed`);
    const order = merged.map(e => e.timestamp + e.id);
    assert.deepEqual(order, [...order].sort());
  });

  test('acknowledgements from both sides are kept; file and index agree; the double one keeps the earlier', () => {
    git(repo, 'checkout', '-q', 'ab');
    const { files } = readFolder(app);
    const index = files.get('handoffs/index.jsonl') as { id: string; acknowledged: boolean }[];
    const sideIndex = (p: string) => readFolder(p).files.get('handoffs/index.jsonl') as { id: string; acknowledged: boolean }[];
    const all = new Set([...sideIndex(side.a), ...sideIndex(side.b)].map(h => h.id));
    assert.deepEqual(index.map(h => h.id).sort(), [...all].sort());
    const ackedOnSides = new Set([...sideIndex(side.a), ...sideIndex(side.b)].filter(h => h.acknowledged).map(h => h.id));
    for (const h of index) {
      const record = files.get(`handoffs/${h.id}.json`) as { acknowledged_by?: string };
      assert.equal(h.acknowledged, record.acknowledged_by !== undefined, `${h.id}: index and file agree`);
      assert.equal(h.acknowledged, ackedOnSides.has(h.id), `${h.id}: acknowledged on a side ⇔ acknowledged after the merge`);
    }
    const ack = (root: string) => JSON.parse(fs.readFileSync(path.join(root, '.twining', 'handoffs', `${OPEN}.json`), 'utf8'));
    const [fa, fb] = [ack(side.a), ack(side.b)];
    const earlier = fa.acknowledged_at < fb.acknowledged_at ? fa : fb;
    const merged = files.get(`handoffs/${OPEN}.json`) as { acknowledged_by: string; acknowledged_at: string };
    assert.deepEqual([merged.acknowledged_by, merged.acknowledged_at], [earlier.acknowledged_by, earlier.acknowledged_at]);
  });

  test('status changes from both sides are kept, and records and index agree', () => {
    git(repo, 'checkout', '-q', 'ab');
    const { files } = readFolder(app);
    const index = files.get('decisions/index.json') as { id: string; status: string }[];
    const status = new Map(index.map(d => [d.id, d.status]));
    assert.equal(status.get(facts.supersededByA), 'superseded');
    assert.equal(status.get(facts.overriddenByB), 'overridden');
    assert.equal(status.get(facts.newDecisionA), 'active');
    for (const d of index) assert.equal((files.get(`decisions/${d.id}.json`) as { status: string }).status, d.status, d.id);
    assert.equal((files.get(`decisions/${facts.overriddenByB}.json`) as { overridden_by: string }).overridden_by, 'human');
  });

  test('registrations from both sides: union of agents, capabilities merged, the later role', () => {
    git(repo, 'checkout', '-q', 'ab');
    const registry = readFolder(app).files.get('agents/registry.json') as { agent_id: string; capabilities: string[]; role?: string }[];
    const sideAgents = (p: string) => (readFolder(p).files.get('agents/registry.json') as { agent_id: string }[]).map(a => a.agent_id);
    assert.deepEqual(registry.map(a => a.agent_id).sort(), [...new Set([...sideAgents(side.a), ...sideAgents(side.b)])].sort());
    const tester = registry.find(a => a.agent_id === 'tester')!;
    assert.ok(
      tester.capabilities.includes('fuzzing') && tester.capabilities.includes('load-testing') && tester.capabilities.includes('testing'),
      tester.capabilities.join(','),
    );
    assert.equal(tester.role, 'qa-b', 'branch b registered later');
  });

  test('the merged folder reads back through the library and the CLI', async () => {
    git(repo, 'checkout', '-q', 'ab');
    const ws = await openWorkspace(app);
    const { files } = readFolder(app);
    assert.equal((await ws.read({ limit: 0 })).total_count, (files.get('blackboard.jsonl') as unknown[]).length);
    assert.equal((await ws.handoffs({ limit: 1000 })).total_count, (files.get('handoffs/index.jsonl') as unknown[]).length);
    assert.equal((await ws.decisions({ status: ['overridden'] })).decisions[0].id, facts.overriddenByB);
    const status = cli(app, 'status', '--json');
    assert.equal(status.status, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).handoffs, (files.get('handoffs/index.jsonl') as unknown[]).length);
    const verify = cli(repo, 'verify', OPEN, '--dir', 'app');
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, /Snapshot (intact|has no digest)/);
  });

  test('contrast: merged in a clone without `twining git-setup`, every file both sides appended to conflicts', t => {
    const clone = path.join(repo, '..', 'clone');
    git(repo, 'clone', '-q', repo, clone);
    git(clone, 'config', 'user.email', 'merge-test@example.com');
    git(clone, 'config', 'user.name', 'Merge Test');
    git(clone, 'checkout', '-q', '-b', 'a', 'origin/a');
    const r = gitMay(clone, 'merge', '--no-edit', 'origin/b');
    const files = conflicted(clone);
    t.diagnostic(`without the driver: exit ${r.status}, conflicts in ${files.join(', ')}`);
    assert.notEqual(r.status, 0);
    // Always the files both sides appended to and the handoff both acknowledged; other handoffs when
    // the workers of both branches happened to acknowledge them again.
    for (const f of ['agents/registry.json', 'blackboard.jsonl', `handoffs/${OPEN}.json`, 'handoffs/index.jsonl'])
      assert.ok(files.includes(`app/.twining/${f}`), `${f} conflicts`);
    assert.ok(
      files.every(f => f.startsWith('app/.twining/')),
      files.join(', '),
    );
  });
});

describe('git merge with bad input on one side', () => {
  test('a corrupt blackboard line is kept, an unparseable registry is a named conflict with both sides, the rest merges', async () => {
    const repo = fixtureRepo();
    git(repo, 'checkout', '-q', '-b', 'broken');
    const torn = '{"entry_type":"warning","summary":"torn by a crash","det';
    fs.appendFileSync(path.join(repo, '.twining', 'blackboard.jsonl'), torn + '\n');
    await mcpPost(repo, { entry_type: 'finding', summary: 'after the torn line' });
    const registry = path.join(repo, '.twining', 'agents', 'registry.json');
    const brokenRegistry = fs.readFileSync(registry, 'utf8').slice(0, -30);
    fs.writeFileSync(registry, brokenRegistry);
    commitAll(repo, 'broken side');
    git(repo, 'checkout', '-q', 'main');
    await mcpPost(repo, { entry_type: 'finding', summary: 'on main' });
    await mcpRegister(repo, 'newcomer', ['go']);
    commitAll(repo, 'main side');
    const r = gitMay(repo, 'merge', '--no-edit', 'broken');
    assert.notEqual(r.status, 0);
    assert.deepEqual(conflicted(repo), ['.twining/agents/registry.json']);
    assert.match(r.stderr, /\.twining\/agents\/registry\.json: theirs does not parse as JSON/);
    assert.match(r.stderr, /line \d+ is not a JSON object; it is kept verbatim/);
    const text = fs.readFileSync(registry, 'utf8');
    assert.ok(text.includes(brokenRegistry) && text.includes('"newcomer"'), 'both sides of the registry are in the file');
    const lines = fs.readFileSync(path.join(repo, '.twining', 'blackboard.jsonl'), 'utf8').split('\n');
    assert.ok(lines.includes(torn));
    assert.ok(lines.some(l => l.includes('after the torn line')) && lines.some(l => l.includes('"on main"')));
  });

  test('text beyond ASCII on one side, ASCII on the other: every byte of both is kept', async () => {
    const repo = fixtureRepo();
    git(repo, 'checkout', '-q', '-b', 'accents');
    const accented = await (await openWorkspace(repo)).post({ entry_type: 'finding', summary: 'Café au lait: naïve “quotes”, 日本語 and 😀', agent_id: 'zoë' });
    commitAll(repo, 'a finding beyond ASCII');
    git(repo, 'checkout', '-q', 'main');
    const plain = await (await openWorkspace(repo)).post({ entry_type: 'finding', summary: 'plain ASCII finding', agent_id: 'bob' });
    commitAll(repo, 'an ASCII finding');
    const r = gitMay(repo, 'merge', '--no-edit', 'accents');
    assert.equal(r.status, 0, r.stderr);
    const merged = bb(repo);
    assert.equal(merged.find(e => e.id === accented.id)?.summary, 'Café au lait: naïve “quotes”, 日本語 and 😀');
    assert.equal(merged.find(e => e.id === plain.id)?.summary, 'plain ASCII finding');
    assert.ok(fs.readFileSync(path.join(repo, '.twining', 'blackboard.jsonl'), 'utf8').includes('"agent_id":"zoë"'), 'written as UTF-8');
  });

  test('conflict markers committed by an earlier hand merge are kept and reported, and the merge is clean', async () => {
    const repo = fixtureRepo();
    git(repo, 'checkout', '-q', '-b', 'hand');
    const index = path.join(repo, '.twining', 'handoffs', 'index.jsonl');
    const [first, second] = fs.readFileSync(index, 'utf8').split('\n');
    fs.writeFileSync(index, `${first}\n<<<<<<< HEAD\n${second}\n=======\n${second.replace('"acknowledged":true', '"acknowledged":false')}\n>>>>>>> other\n`);
    commitAll(repo, 'a bad hand merge');
    git(repo, 'checkout', '-q', 'main');
    await mcpAcknowledge(repo, OPEN, 'carol');
    commitAll(repo, 'main acknowledges');
    const r = gitMay(repo, 'merge', '--no-edit', 'hand');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /conflict marker left by an earlier merge/);
    assert.match(r.stderr, /holds handoff 01M80HHKBXQEDY2H6KWG27Q6EF twice with different content/);
    const out = fs.readFileSync(index, 'utf8').split('\n').filter(Boolean);
    assert.equal(out.filter(l => l.startsWith('{')).length, 2, 'one line per handoff');
    assert.equal(out.filter(l => /^(<{7}|={7}|>{7})/.test(l)).length, 3, 'the markers are kept');
    const parsed = out.filter(l => l.startsWith('{')).map(l => JSON.parse(l));
    assert.ok(parsed.every(h => h.acknowledged === true));
  });

  test('git-setup outside a repository changes nothing and says why', () => {
    const dir = fs.mkdtempSync(path.join(path.dirname(newRepo()), 'plain-'));
    const r = cli(dir, 'git-setup');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /is not inside a git repository; nothing was changed/);
  });
});
