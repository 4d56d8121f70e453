/**
 * Reliability: several processes writing to one `.twining/` folder at once, writers killed with
 * SIGKILL, and locks held by another program the way twining-mcp holds them (docs/format.md §Locking).
 * Worker processes (writer-process.ts) use the built library dist/core.js; run `node esbuild.js
 * --tests` first. Takes 30 to 40 s, mostly waiting out proper-lockfile's 10 s staleness.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { openWorkspace, normaliseTags } from '../../../../src/core';
import {
  fixtureProject,
  tw,
  parseJsonl,
  lockDirs,
  ownerRecords,
  snapshotTree,
  changedFiles,
  startWorker,
  sleep,
  Worker,
  WorkerMessage,
} from '../../../support/tmp';

const FIXTURE_ENTRIES = 14;
const FIXTURE_HANDOFFS = ['01M80HHKAVJT8FG2B08Q4NGZ4W', '01M80HHKBXQEDY2H6KWG27Q6EF'];
const FIXTURE_AGENTS = ['backend-dev', 'frontend-dev', 'reviewer', 'tester'];

interface FolderState {
  registry: Record<string, any>[];
  decisionIndex: Record<string, any>[];
  blackboard: Record<string, any>[];
  /** The bytes after the last `\n` of blackboard.jsonl (a torn write), '' when none. */
  blackboardTail: string;
  handoffIndex: Record<string, any>[];
  handoffFiles: Map<string, Record<string, any>>;
}

/** Parses every file the engine writes and checks that no lock directory or temp file is left. */
function loadFolder(root: string, { allowTornTail = false } = {}): FolderState {
  const registry = JSON.parse(fs.readFileSync(tw(root, 'agents/registry.json'), 'utf8'));
  assert.ok(Array.isArray(registry), 'agents/registry.json is a JSON array');
  const decisionIndex = JSON.parse(fs.readFileSync(tw(root, 'decisions/index.json'), 'utf8'));
  assert.ok(Array.isArray(decisionIndex), 'decisions/index.json is a JSON array');
  for (const d of decisionIndex) {
    const file = JSON.parse(fs.readFileSync(tw(root, 'decisions', `${d.id}.json`), 'utf8'));
    assert.equal(file.status, d.status, `decision ${d.id}: file and index agree on the status`);
  }
  const bbText = fs.readFileSync(tw(root, 'blackboard.jsonl'), 'utf8');
  const cut = bbText.lastIndexOf('\n') + 1;
  const blackboardTail = bbText.slice(cut);
  if (!allowTornTail) assert.equal(blackboardTail, '', 'blackboard.jsonl ends with a complete line');
  const blackboard = bbText
    .slice(0, cut)
    .split('\n')
    .filter(l => l !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l);
      } catch (error) {
        assert.fail(`blackboard.jsonl line ${i + 1} does not parse: ${l.slice(0, 200)}`);
      }
    });
  const handoffIndex = parseJsonl(tw(root, 'handoffs/index.jsonl'));
  const handoffFiles = new Map<string, Record<string, any>>();
  for (const name of fs.readdirSync(tw(root, 'handoffs'))) {
    if (name === 'index.jsonl') continue;
    assert.match(name, /^[0-9A-HJKMNP-TV-Z]{26}\.json$/, `only handoff records in handoffs/ (found ${name})`);
    handoffFiles.set(name.slice(0, 26), JSON.parse(fs.readFileSync(tw(root, 'handoffs', name), 'utf8')));
  }
  assert.deepEqual(lockDirs(root), [], 'no lock directory is left behind');
  assert.deepEqual(ownerRecords(root), [], 'no lock owner record is left behind');
  const temps = [...snapshotTree(root).keys()].filter(k => k.endsWith('.tmp'));
  assert.deepEqual(temps, [], 'no temporary file of an atomic rewrite is left behind');
  return { registry, decisionIndex, blackboard, blackboardTail, handoffIndex, handoffFiles };
}

const countBy = <T>(items: T[], key: (t: T) => string) => {
  const m = new Map<string, number>();
  for (const it of items) m.set(key(it), (m.get(key(it)) ?? 0) + 1);
  return m;
};

/** What a set of workers reported as done, merged. */
function reported(workers: Worker[]) {
  const all = workers.flatMap(w => w.messages);
  const of = (op: string) => all.filter(m => m.op === op);
  return { all, posts: of('post'), registers: of('register'), handoffs: of('handoff'), acks: of('ack'), errors: of('error'), warnings: of('warning') };
}

/** What writer-process.ts adds to an agent's own registration besides its numbered capability (as stored: normalised). */
const EVERY_WORKERS_CAPABILITY = new Set(['common', 'typescript', 'testing', 'review']);

/**
 * Checks every reported operation against the folder. `killed` names workers killed mid-loop: each
 * may have finished one last operation on disk without living to report it, so a registration of
 * theirs may show up unreported (in-flight writes of other kinds are checked by their own tests).
 */
function checkReportedOps(state: FolderState, ops: ReturnType<typeof reported>, killed: string[] = []) {
  // Every posted entry is in the blackboard exactly once.
  const ids = countBy(state.blackboard, e => e.id);
  for (const p of ops.posts) assert.equal(ids.get(p.id), 1, `posted entry ${p.id} (${p.summary}) is in blackboard.jsonl exactly once`);
  // Every handoff: its record, exactly one index line, exactly one "Handoff created" status entry.
  const lines = countBy(state.handoffIndex, l => l.id);
  const statusSummaries = countBy(
    state.blackboard.filter(e => e.entry_type === 'status'),
    e => e.summary,
  );
  for (const h of ops.handoffs) {
    assert.equal(state.handoffFiles.get(h.id)?.id, h.id, `handoff ${h.id} has its record file`);
    assert.equal(lines.get(h.id), 1, `handoff ${h.id} has exactly one index line`);
    assert.equal(statusSummaries.get(`Handoff created: ${h.summary}`), 1, `handoff ${h.id} posted exactly one status entry`);
  }
  // Every acknowledgement is in the record and in the index.
  const ackers = new Map<string, Set<string>>();
  for (const a of ops.acks) ackers.set(a.id, (ackers.get(a.id) ?? new Set()).add(a.agent_id));
  for (const [id, agents] of ackers) {
    const line = state.handoffIndex.find(l => l.id === id);
    assert.equal(line?.acknowledged, true, `acknowledged handoff ${id} is acknowledged: true in the index`);
    const file = state.handoffFiles.get(id)!;
    assert.ok(agents.has(file.acknowledged_by), `handoff ${id}: acknowledged_by ${file.acknowledged_by} is one of the agents that acknowledged it`);
    assert.equal(typeof file.acknowledged_at, 'string');
  }
  // Every registration: the agent is there once, with every capability ever registered for it.
  const byAgent = countBy(state.registry, a => a.agent_id);
  const caps = new Map<string, Set<string>>();
  for (const r of ops.registers) {
    const set = caps.get(r.agent_id) ?? new Set<string>();
    for (const c of normaliseTags(r.capabilities)) set.add(c);
    caps.set(r.agent_id, set);
  }
  for (const [agent, expected] of caps) {
    assert.equal(byAgent.get(agent), 1, `agent ${agent} is in the registry exactly once`);
    const record = state.registry.find(a => a.agent_id === agent)!;
    const unreported = (record.capabilities as string[]).filter(c => !expected.has(c));
    // Capabilities are named `{worker}-cap-{i}` / `{worker}-shared-{i}`: one unreported registration is one (worker, i).
    // An agent's own registration (`-cap-`) also carries the capabilities every worker uses (writer-process.ts),
    // which the killed writer's last one may be the first to give this agent.
    const numbered = unreported.filter(c => /-(?:cap|shared)-\d+$/.test(c));
    const common = unreported.filter(c => !numbered.includes(c));
    const inFlight = new Set(
      numbered.map(c => {
        const m = /^(.+)-(?:cap|shared)-(\d+)$/.exec(c);
        return m && killed.includes(m[1]) ? `${m[1]}:${m[2]}` : undefined;
      }),
    );
    const commonFromInFlight = common.every(c => EVERY_WORKERS_CAPABILITY.has(c)) && (common.length === 0 || numbered.some(c => /-cap-\d+$/.test(c)));
    assert.ok(
      unreported.length === 0 || (inFlight.size === 1 && !inFlight.has(undefined) && commonFromInFlight),
      `agent ${agent}: no capability beyond the reported registrations (but a killed writer's last one): ${unreported.join(', ')}`,
    );
    for (const c of expected) assert.ok(record.capabilities.includes(c), `agent ${agent}: reported capability ${c} is stored`);
    assert.equal(new Set(record.capabilities).size, record.capabilities.length, `agent ${agent}: no duplicate capability`);
    assert.ok(record.registered_at <= record.last_active, `agent ${agent}: registered_at <= last_active`);
  }
  return { ackers, caps };
}

async function runAll(workers: Worker[]): Promise<void> {
  await Promise.all(workers.map(w => w.ready));
  for (const w of workers) w.go();
  const exits = await Promise.all(workers.map(w => w.exited));
  exits.forEach((e, i) => assert.equal(e.code, 0, `worker ${i} exited normally; stderr: ${workers[i].stderr.slice(-2000)}`));
}

// ---------------------------------------------------------------------------------------------

describe('four processes writing at once', () => {
  const WORKERS = 4;
  const OPS = 250;
  let root: string;
  let workers: Worker[];
  let state: FolderState;
  let ops: ReturnType<typeof reported>;

  before(async () => {
    root = fixtureProject();
    workers = Array.from({ length: WORKERS }, (_, i) => startWorker({ mode: 'mix', root, name: `w${i}`, ops: OPS, seed: 1000 + i, barrier: true }));
    const started = Date.now();
    await runAll(workers);
    ops = reported(workers);
    state = loadFolder(root);
    process.stdout.write(`# ${WORKERS}×${OPS} mixed operations took ${Date.now() - started} ms\n`);
  });

  test('every worker completed all its operations without an error or a skipped line', () => {
    assert.deepEqual(ops.errors, []);
    assert.deepEqual(ops.warnings, [], 'no reader saw a line that does not parse');
    for (const w of workers)
      assert.ok(
        w.messages.some(m => m.done),
        'worker reported done',
      );
    const done = ops.posts.length + ops.registers.length + ops.handoffs.length + ops.acks.length;
    assert.equal(done, WORKERS * OPS, 'every operation is accounted for');
    assert.ok(ops.acks.filter(a => !a.own).length > 10, 'workers acknowledged handoffs created by other processes');
    assert.ok(ops.handoffs.length > 100 && ops.posts.length > 200 && ops.registers.length > 100, 'a real mix of operations ran');
  });

  test('every file parses, and no lock directory or temp file is left', () => {
    // loadFolder asserted it; here the counts of what was parsed.
    assert.ok(state.blackboard.length > FIXTURE_ENTRIES);
  });

  test('every posted entry, handoff, acknowledgement and registration is on disk', () => {
    checkReportedOps(state, ops);
  });

  test('the counts add up exactly', () => {
    assert.equal(
      state.blackboard.length,
      FIXTURE_ENTRIES + ops.posts.length + ops.handoffs.length,
      'blackboard = fixture + posts + one status entry per handoff',
    );
    assert.equal(new Set(state.blackboard.map(e => e.id)).size, state.blackboard.length, 'blackboard ids are unique');
    assert.equal(state.handoffIndex.length, FIXTURE_HANDOFFS.length + ops.handoffs.length, 'one index line per handoff');
    assert.equal(state.handoffFiles.size, FIXTURE_HANDOFFS.length + ops.handoffs.length, 'one record per handoff');
    const registered = new Set(ops.registers.map(r => r.agent_id));
    assert.equal(state.registry.length, FIXTURE_AGENTS.length + registered.size, 'registry = fixture agents + every new agent once');
    const acked = new Set([...ops.acks.map(a => a.id), FIXTURE_HANDOFFS[1]]);
    for (const line of state.handoffIndex) {
      assert.equal(line.acknowledged, acked.has(line.id), `handoff ${line.id}: acknowledged in the index exactly when someone acknowledged it`);
      assert.equal(state.handoffFiles.get(line.id)!.acknowledged_by !== undefined, acked.has(line.id), `handoff ${line.id}: the record agrees with the index`);
    }
  });

  test('a new Workspace reads the same totals', async () => {
    const ws = await openWorkspace(root, { warn: m => assert.fail(`unexpected warning: ${m}`) });
    assert.equal((await ws.read({ limit: 0 })).total_count, state.blackboard.length);
    assert.equal((await ws.handoffs({ limit: 100000 })).total_count, state.handoffIndex.length);
    assert.equal((await ws.agents()).total_registered, state.registry.length);
    const status = await ws.status();
    assert.equal(status.blackboard_entries, state.blackboard.length);
    assert.equal(status.handoffs, state.handoffIndex.length);
    assert.equal(status.unacknowledged_handoffs, state.handoffIndex.filter(l => !l.acknowledged).length);
  });
});

describe('concurrent conflicting decisions', () => {
  const WORKERS = 4;
  const OPS = 6;
  let root: string;
  let ops: WorkerMessage[];
  let index: Record<string, any>[];
  let blackboard: Record<string, any>[];

  before(async () => {
    root = fixtureProject();
    const workers = Array.from({ length: WORKERS }, (_, i) => startWorker({ mode: 'decide', root, name: `d${i}`, ops: OPS, barrier: true, domain: 'race' }));
    await runAll(workers);
    assert.deepEqual(
      workers.flatMap(w => w.messages.filter(m => m.op === 'error' || m.op === 'warning')),
      [],
    );
    ops = workers.flatMap(w => w.messages.filter(m => m.op === 'decide'));
    const state = loadFolder(root);
    index = state.decisionIndex.filter(d => d.domain === 'race');
    blackboard = state.blackboard;
  });

  test('every decision is in the index once, with its file', () => {
    assert.equal(ops.length, WORKERS * OPS);
    assert.equal(index.length, WORKERS * OPS);
    assert.deepEqual(new Set(index.map(d => d.id)), new Set(ops.map(o => o.id)));
  });

  test('exactly one stays active; every other one is provisional and names it as the conflict', () => {
    const active = index.filter(d => d.status === 'active');
    assert.equal(active.length, 1, `one active decision, got ${active.map(d => d.summary).join(', ')}`);
    assert.equal(index.filter(d => d.status === 'provisional').length, WORKERS * OPS - 1);
    const unconflicted = ops.filter(o => o.conflicts.length === 0);
    assert.deepEqual(
      unconflicted.map(o => o.id),
      [active[0].id],
      'only the active decision was recorded without conflicts',
    );
    for (const o of ops.filter(o => o.id !== active[0].id)) {
      assert.deepEqual(
        o.conflicts.map((c: { id: string }) => c.id),
        [active[0].id],
        `${o.summary} conflicts with the active one only`,
      );
    }
    // The active one is the first in the index: conflicts were computed inside the index lock.
    assert.equal(index[0].id, active[0].id);
  });

  test('one conflict warning per provisional decision and one decision entry per decision', () => {
    const warnings = blackboard.filter(e => e.entry_type === 'warning' && e.summary.startsWith('Potential conflict') && e.tags[0] === 'race');
    assert.equal(warnings.length, WORKERS * OPS - 1);
    assert.equal(blackboard.filter(e => e.entry_type === 'decision' && e.tags[0] === 'race').length, WORKERS * OPS);
  });
});

// ---------------------------------------------------------------------------------------------

type LockKind = 'blackboard' | 'registry' | 'handoffs' | 'decisions';
const LOCK_FILES: Record<LockKind, string> = {
  blackboard: 'blackboard.jsonl',
  registry: 'agents/registry.json',
  handoffs: 'handoffs/index.jsonl',
  decisions: 'decisions/index.json',
};

/** A small write that needs the lock of `kind` (and, for decisions, the blackboard's too). */
function writeThrough(ws: Awaited<ReturnType<typeof openWorkspace>>, kind: LockKind): Promise<unknown> {
  if (kind === 'blackboard') return ws.post({ entry_type: 'finding', summary: 'after the crash', agent_id: 'survivor' });
  if (kind === 'registry') return ws.register({ agent_id: 'survivor', capabilities: ['recovery'] });
  if (kind === 'handoffs') return ws.acknowledge({ handoff_id: FIXTURE_HANDOFFS[0], agent_id: 'survivor' });
  return ws.decide({ domain: 'recovery', scope: 'src/recovery/', summary: 'after the crash', context: 'c', rationale: 'r', agent_id: 'survivor' });
}

/** Writes through `kind`'s lock, retrying while it fails with LOCKED (a stale lock turns stale after 10 s). */
async function writeUntilDone(ws: Awaited<ReturnType<typeof openWorkspace>>, kind: LockKind, since: number) {
  let lockedErrors = 0;
  let message: string | undefined;
  for (;;) {
    try {
      await writeThrough(ws, kind);
      return { lockedErrors, message };
    } catch (error) {
      assert.equal((error as { code?: string }).code, 'LOCKED', (error as Error).message);
      message ??= (error as Error).message;
      lockedErrors++;
      assert.ok(Date.now() - since < 25_000, `the stale ${kind} lock did not block forever`);
    }
  }
}

/** Takes over every lock directory (or owner record) a killed writer left behind, with a write that needs it. */
async function reclaimLeftLocks(ws: Awaited<ReturnType<typeof openWorkspace>>, root: string, since: number): Promise<LockKind[]> {
  const reclaimed: LockKind[] = [];
  for (const kind of Object.keys(LOCK_FILES) as LockKind[]) {
    // A writer killed between releasing the lock and removing its owner record leaves only the record.
    if (!fs.existsSync(tw(root, `${LOCK_FILES[kind]}.lock`)) && !fs.existsSync(tw(root, `${LOCK_FILES[kind]}.lock.owner`))) continue;
    await writeUntilDone(ws, kind, since);
    reclaimed.push(kind);
  }
  return reclaimed;
}

/** Kills `victim` with SIGKILL at a moment when one of `locks` exists (so it most likely holds it). */
function killWhileLocking(victim: Worker, locks: string[], budgetMs = 3000): string | undefined {
  const until = Date.now() + budgetMs;
  while (Date.now() < until) {
    for (const lock of locks) {
      if (fs.existsSync(lock)) {
        victim.child.kill('SIGKILL');
        return lock;
      }
    }
  }
  victim.child.kill('SIGKILL');
  return undefined;
}

describe('a writer killed with SIGKILL', () => {
  test('mid-loop, next to two other writers: every file parses and no reported operation is lost', async () => {
    const root = fixtureProject();
    const survivors = [0, 1].map(i => startWorker({ mode: 'mix', root, name: `w${i}`, ops: 150, seed: 7 + i, barrier: true, retryLocked: true }));
    const victim = startWorker({ mode: 'mix', root, name: 'w2', ops: 1_000_000, seed: 99, barrier: true, retryLocked: true });
    await Promise.all([...survivors, victim].map(w => w.ready));
    for (const w of [...survivors, victim]) w.go();
    await victim.waitFor(m => m.op !== undefined && m.i >= 30);
    await sleep(150);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    assert.equal((await victim.exited).signal, 'SIGKILL');
    const victimOps = victim.messages.filter(m => m.i !== undefined).length;
    const exits = await Promise.all(survivors.map(w => w.exited));
    exits.forEach((e, i) => assert.equal(e.code, 0, survivors[i].stderr));
    const stalled = Date.now() - killedAt;

    const ops = reported([...survivors, victim]);
    const killed = ['w2'];
    // Survivors retry LOCKED register/post/acknowledge (nothing was written); only a handoff can
    // fail with LOCKED after a stale lock (see the interop tests), and nothing else may fail.
    assert.deepEqual(
      ops.errors.filter(e => !(e.code === 'LOCKED' && e.during === 'handoff')),
      [],
    );
    assert.deepEqual(ops.warnings, []);
    for (const w of survivors) assert.ok(w.messages.some(m => m.done));

    // Recover what a crash between a handoff's two steps may leave: records older than 30 s
    // without an index line are indexed by the next listing. Age them instead of waiting.
    const old = new Date(Date.now() - 120_000);
    for (const name of fs.readdirSync(tw(root, 'handoffs'))) fs.utimesSync(tw(root, 'handoffs', name), old, old);
    const ws = await openWorkspace(root, { warn: () => undefined });
    const reclaimed = await reclaimLeftLocks(ws, root, killedAt);
    const listed = await ws.handoffs({ limit: 100000 });

    const state = loadFolder(root, { allowTornTail: true });
    checkReportedOps(state, ops, killed);
    // Every record is now indexed exactly once, and every line has its record.
    const lines = countBy(state.handoffIndex, l => l.id);
    for (const id of state.handoffFiles.keys()) assert.equal(lines.get(id), 1, `record ${id} has exactly one index line`);
    for (const id of lines.keys()) assert.ok(state.handoffFiles.has(id), `index line ${id} has its record`);
    assert.equal(listed.total_count, state.handoffFiles.size);
    // Only the victim's one interrupted operation may be half done: at most one handoff whose
    // record and index disagree about the acknowledgement.
    const drift = state.handoffIndex.filter(l => l.acknowledged !== (state.handoffFiles.get(l.id)!.acknowledged_by !== undefined));
    assert.ok(drift.length <= 1, `at most one acknowledgement half done by the killed writer: ${JSON.stringify(drift)}`);
    // A torn last line (none expected from a single append, but tolerated) is not read as an entry.
    const read = await ws.read({ limit: 0 });
    assert.equal(read.total_count, state.blackboard.length);
    process.stdout.write(
      `# victim completed ${victimOps} operations before SIGKILL; survivors finished ${stalled} ms after the kill; torn tail: ${JSON.stringify(state.blackboardTail)}; stale locks left for the next writer: ${reclaimed.join(', ') || 'none'}\n`,
    );
  });

  test("while it holds a lock: the next writer takes the dead writer's lock over at once", async () => {
    const root = fixtureProject();
    const candidates = Object.fromEntries((['blackboard', 'registry', 'handoffs'] as LockKind[]).map(k => [tw(root, `${LOCK_FILES[k]}.lock`), k])) as Record<
      string,
      LockKind
    >;
    let left: string | undefined;
    const victims: Worker[] = [];
    // The owner is recorded just after the lock directory is made: a kill in between leaves a
    // lock without an owner (the 10 s rule, tested with twining-mcp's locks), so kill again.
    for (let attempt = 0; attempt < 20 && !left; attempt++) {
      const victim = startWorker({ mode: 'mix', root, name: `k${attempt}`, ops: 1_000_000, seed: 500 + attempt, retryLocked: true });
      victims.push(victim);
      await victim.waitFor(m => m.op !== undefined && m.i >= 10);
      const seen = killWhileLocking(victim, Object.keys(candidates));
      await victim.exited;
      if (seen && fs.existsSync(seen) && fs.existsSync(`${seen}.owner`)) left = seen;
      else if (seen && fs.existsSync(seen)) await reclaimLeftLocks(await openWorkspace(root, { warn: () => undefined }), root, Date.now());
    }
    assert.ok(left, 'a writer was killed while it held a lock whose owner it had recorded (20 attempts)');
    const owner = JSON.parse(fs.readFileSync(`${left}.owner`, 'utf8'));
    assert.equal(owner.pid, victims[victims.length - 1].child.pid, 'the owner record names the killed writer');
    const killedAt = Date.now();
    const which = candidates[left];

    // A new process-level client writes the file behind that lock.
    const ws = await openWorkspace(root, { warn: () => undefined });
    const { lockedErrors } = await writeUntilDone(ws, which, killedAt);
    const waited = Date.now() - killedAt;
    process.stdout.write(`# dead writer's ${which} lock: the next write completed ${waited} ms after the SIGKILL\n`);
    assert.equal(lockedErrors, 0, 'no LOCKED error: the lock of a dead process is taken over, not waited out');
    // Generous for a loaded 2-core machine; proper-lockfile's rule alone makes it 10 s (bench: median).
    assert.ok(waited < 3_000, `waited ${waited} ms`);
    const others = await reclaimLeftLocks(ws, root, killedAt);
    if (others.length) process.stdout.write(`# also reclaimed the dead ${others.join(', ')} lock(s)\n`);

    const state = loadFolder(root, { allowTornTail: true });
    assert.equal(state.blackboardTail, '', 'a single append is never torn by SIGKILL');
    checkReportedOps(
      state,
      reported(victims),
      victims.map((_, i) => `k${i}`),
    );
    assert.deepEqual(ownerRecords(root), [], 'no owner record is left once the locks are released');
    if (which === 'blackboard' || others.includes('blackboard')) assert.ok(state.blackboard.some(e => e.summary === 'after the crash'));
    if (which === 'registry' || others.includes('registry')) assert.ok(state.registry.some(a => a.agent_id === 'survivor'));
    if (which === 'handoffs' || others.includes('handoffs')) assert.equal(state.handoffFiles.get(FIXTURE_HANDOFFS[0])!.acknowledged_by, 'survivor');
  });

  test('a torn last line left by a killed writer does not swallow the next entry', async () => {
    // SIGKILL cannot tear a single small append, but a crash of another program (or a full disk)
    // can leave a last line without its "\n". The next append must not be glued onto it.
    const root = fixtureProject();
    const before = fs.readFileSync(tw(root, 'blackboard.jsonl'), 'utf8');
    const torn = '{"entry_type":"finding","summary":"cut sh';
    fs.appendFileSync(tw(root, 'blackboard.jsonl'), torn);
    const warnings: string[] = [];
    const ws = await openWorkspace(root, { warn: m => warnings.push(m) });
    assert.equal((await ws.read({ limit: 0 })).total_count, FIXTURE_ENTRIES, 'the torn line is not an entry');
    const posted = await ws.post({ entry_type: 'finding', summary: 'written after the torn line' });
    const fresh = await openWorkspace(root, { warn: m => warnings.push(m) });
    const all = await fresh.read({ limit: 0 });
    assert.ok(
      all.entries.some(e => e.id === posted.id),
      'the entry posted after a torn line is readable',
    );
    const text = fs.readFileSync(tw(root, 'blackboard.jsonl'), 'utf8');
    assert.ok(text.startsWith(before + torn), 'the torn bytes are kept, not overwritten');
  });
});

// ---------------------------------------------------------------------------------------------

describe('interop locking with a twining-mcp-style lock holder', () => {
  test("a post waits for a 1 s lock and then appends after the holder's line, both intact", async () => {
    const root = fixtureProject();
    const file = tw(root, 'blackboard.jsonl');
    const theirs = {
      entry_type: 'finding',
      summary: 'written by the lock holder',
      detail: '',
      tags: ['interop'],
      scope: 'project',
      agent_id: 'twining-mcp',
      id: '01M80HHKZZZZZZZZZZZZZZZZZZ',
      timestamp: '2026-11-22T02:32:13.000Z',
    };
    const holder = startWorker({ mode: 'hold', root, name: 'holder', files: [file], holdMs: 1000, appendLine: JSON.stringify(theirs) + '\n' });
    await holder.waitFor(m => m.appended === true);
    const ws = await openWorkspace(root);
    const started = Date.now();
    const ours = await ws.post({ entry_type: 'warning', summary: 'written while the file was locked', agent_id: 'us' });
    const finished = Date.now();
    const released = await holder.waitFor(m => m.released === true);
    assert.equal((await holder.exited).code, 0, holder.stderr);
    assert.ok(finished >= released.at, `the post finished (${finished}) only after the holder released (${released.at})`);
    assert.ok(finished - started >= 700, `the post waited ${finished - started} ms for the lock`);
    const lines = parseJsonl(file);
    assert.equal(lines.length, FIXTURE_ENTRIES + 2);
    assert.deepEqual(lines[FIXTURE_ENTRIES], theirs);
    assert.equal(lines[FIXTURE_ENTRIES + 1].id, ours.id);
    assert.deepEqual(lockDirs(root), []);
  });

  describe('a lock held longer than the retry period (~4.5 s)', () => {
    let root: string;
    let before_: Map<string, Buffer>;
    let after: Map<string, Buffer>;
    const outcomes: Record<string, { error?: any; ms: number }> = {};
    // Second folder: only blackboard.jsonl is held, so decide and handoff get past their own
    // locks and then fail on the blackboard entry they post last.
    let root2: string;
    let before2: Map<string, Buffer>;
    let after2: Map<string, Buffer>;
    const outcomes2: Record<string, { error?: any; value?: any; ms: number }> = {};

    async function blackboardOnly(): Promise<void> {
      root2 = fixtureProject();
      const holder = startWorker({ mode: 'hold', root: root2, name: 'holder2', files: [tw(root2, 'blackboard.jsonl')], holdMs: 7000 });
      await holder.waitFor(m => m.locked === true);
      before2 = snapshotTree(root2);
      const ws = await openWorkspace(root2);
      const attempt = async (name: string, work: () => Promise<unknown>) => {
        const t = Date.now();
        try {
          outcomes2[name] = { value: await work(), ms: Date.now() - t };
        } catch (error) {
          outcomes2[name] = { error, ms: Date.now() - t };
        }
      };
      await Promise.all([
        attempt('handoff', () => ws.handoff({ source_agent: 'a', summary: 'handed off while the blackboard is locked', results: [] })),
        attempt('decide', () => ws.decide({ domain: 'd', scope: 'src/', summary: 'decided while the blackboard is locked', context: 'c', rationale: 'r' })),
      ]);
      after2 = snapshotTree(root2);
      await holder.exited;
    }

    before(async () => {
      const second = blackboardOnly();
      root = fixtureProject();
      const files = ['blackboard.jsonl', 'agents/registry.json', 'handoffs/index.jsonl', 'decisions/index.json'].map(f => tw(root, f));
      const holder = startWorker({ mode: 'hold', root, name: 'holder', files, holdMs: 7000 });
      await holder.waitFor(m => m.locked === true);
      before_ = snapshotTree(root);
      const ws = await openWorkspace(root);
      const attempt = async (name: string, work: () => Promise<unknown>) => {
        const t = Date.now();
        try {
          await work();
          outcomes[name] = { ms: Date.now() - t };
        } catch (error) {
          outcomes[name] = { error, ms: Date.now() - t };
        }
      };
      await Promise.all([
        attempt('post', () => ws.post({ entry_type: 'finding', summary: 'never written' })),
        attempt('register', () => ws.register({ agent_id: 'never-registered', capabilities: ['x'] })),
        attempt('acknowledge', () => ws.acknowledge({ handoff_id: FIXTURE_HANDOFFS[0], agent_id: 'nobody' })),
        attempt('handoff', () => ws.handoff({ source_agent: 'a', summary: 'never handed off', results: [] })),
        attempt('decide', () => ws.decide({ domain: 'd', scope: 'src/', summary: 'never decided', context: 'c', rationale: 'r' })),
      ]);
      after = snapshotTree(root);
      await holder.exited;
      await second;
    });

    const cases: [string, string, (name: string) => boolean][] = [
      ['post', 'blackboard.jsonl', n => n === 'blackboard.jsonl'],
      ['register', path.join('agents', 'registry.json'), n => n.startsWith('agents/')],
      ['acknowledge', path.join('handoffs', 'index.jsonl'), n => n === `handoffs/${FIXTURE_HANDOFFS[0]}.json` || n === 'handoffs/index.jsonl'],
      ['handoff', path.join('handoffs', 'index.jsonl'), n => n.startsWith('handoffs/') && !n.startsWith(`handoffs/${FIXTURE_HANDOFFS[0]}`)],
      ['decide', path.join('decisions', 'index.json'), n => n.startsWith('decisions/')],
    ];
    for (const [op, fileName, touches] of cases) {
      test(`${op} fails with LOCKED naming ${fileName} after the retry period`, () => {
        const { error, ms } = outcomes[op];
        assert.ok(error, `${op} did not succeed`);
        assert.equal(error.code, 'LOCKED', error.message);
        assert.ok(error.message.includes(fileName), `the message names ${fileName}: ${error.message}`);
        assert.ok(ms >= 4000 && ms < 7000, `${op} gave up after ${ms} ms`);
      });
      test(`a LOCKED ${op} writes nothing`, () => {
        assert.deepEqual(changedFiles(before_, after).filter(touches), []);
      });
    }

    // An operation that reports LOCKED ("nothing was written") must not have written anything:
    // a caller that retries would otherwise record the handoff or decision twice.
    for (const op of ['handoff', 'decide']) {
      test(`${op} with only the blackboard locked: it either succeeds, or fails having written nothing`, () => {
        const { error, ms } = outcomes2[op];
        const changed = changedFiles(before2, after2).filter(n => (op === 'handoff' ? n.startsWith('handoffs/') : n.startsWith('decisions/')));
        if (!error) return assert.ok(changed.length > 0, `${op} succeeded and wrote its files`);
        assert.equal(error.code, 'LOCKED', error.message);
        assert.ok(ms >= 4000, `${op} waited ${ms} ms`);
        assert.deepEqual(changed, [], `${op} failed with "${error.message}" but wrote ${changed.join(', ')}`);
      });
    }
  });
});
