/**
 * A full disk, for real: each project lives on a small tmpfs that is filled to within a few pages,
 * then an operation runs. Whatever page it runs out at, it either completes or fails with an IO
 * error naming the file and saying nothing was written, and then every byte of the folder is as
 * before. After each attempt, every file parses and records and indexes agree. Needs root to mount
 * (skipped with a message otherwise).
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { FIXTURE, changedFiles, snapshotTree, tw } from '../../../support/tmp';

const PAGE = 4096;
const mounts: string[] = [];

/** Mounts a tmpfs of `kb` KiB; undefined (and why) when this machine does not allow it. */
function mountTmpfs(kb: number): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', dir], { stdio: 'pipe' });
    mounts.push(dir);
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}

after(() => {
  for (const dir of mounts) {
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      fs.rmdirSync(dir);
    } catch (error) {
      process.stdout.write(`# could not unmount ${dir}: ${(error as Error).message}\n`);
    }
  }
});

const probe = mountTmpfs(64);
const skip = probe ? false : 'mounting a tmpfs is not allowed here (needs root): the full-disk tests are skipped';

/** A project on its own tmpfs with a copy of the reference folder. */
function projectOnTmpfs(): string {
  const mount = mountTmpfs(512)!;
  const root = path.join(mount, 'demo-project');
  fs.mkdirSync(root);
  fs.cpSync(FIXTURE, path.join(root, '.twining'), { recursive: true });
  return root;
}

/** Fills the file system holding `root` so that `pages` pages stay free; returns the filler's path. */
function fillLeaving(root: string, pages: number): string {
  const filler = path.join(path.dirname(root), 'filler');
  fs.rmSync(filler, { force: true });
  const st = fs.statfsSync(root);
  const free = st.bavail * st.bsize;
  const size = Math.max(0, free - pages * PAGE);
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 120);
  let written = 0;
  try {
    while (written < size) written += fs.writeSync(fd, chunk, 0, Math.min(chunk.length, size - written));
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** Every file parses, no temporary file, lock or owner record is left, and records and indexes agree. */
function assertConsistent(root: string): { entries: number; handoffs: number; decisions: number } {
  const names = [...snapshotTree(root).keys()];
  assert.deepEqual(
    names.filter(n => n.endsWith('.tmp') || n.endsWith('.lock/') || n.includes('.lock.owner')),
    [],
    'nothing temporary is left',
  );
  const bb = fs.readFileSync(tw(root, 'blackboard.jsonl'), 'utf8');
  assert.ok(bb === '' || bb.endsWith('\n'), 'blackboard.jsonl ends with a complete line');
  const entries = bb
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l));
  const index = fs
    .readFileSync(tw(root, 'handoffs/index.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l));
  const records = fs.readdirSync(tw(root, 'handoffs')).filter(n => n !== 'index.jsonl');
  assert.deepEqual(new Set(index.map(l => `${l.id}.json`)), new Set(records), 'one index line per handoff record, and a record per line');
  for (const line of index) {
    const record = JSON.parse(fs.readFileSync(tw(root, 'handoffs', `${line.id}.json`), 'utf8'));
    assert.equal(line.acknowledged, record.acknowledged_by !== undefined, `handoff ${line.id}: record and index agree`);
  }
  const decisions = JSON.parse(fs.readFileSync(tw(root, 'decisions/index.json'), 'utf8'));
  const decisionFiles = fs.readdirSync(tw(root, 'decisions')).filter(n => n !== 'index.json');
  assert.deepEqual(new Set(decisions.map((d: { id: string }) => `${d.id}.json`)), new Set(decisionFiles), 'one index entry per decision record');
  for (const d of decisions)
    assert.equal(JSON.parse(fs.readFileSync(tw(root, 'decisions', `${d.id}.json`), 'utf8')).status, d.status, `decision ${d.id}: record and index agree`);
  JSON.parse(fs.readFileSync(tw(root, 'agents/registry.json'), 'utf8'));
  return { entries: entries.length, handoffs: index.length, decisions: decisions.length };
}

/**
 * Runs `attempt` with 0, 1, 2 … `maxPages` pages free. A failure must be ENOSPC named with its
 * file, leave every byte as it was and say so; a success must add what `added` expects.
 */
async function ladder(
  name: string,
  maxPages: number,
  attempt: (root: string, k: number) => Promise<unknown>,
  added: (before: ReturnType<typeof assertConsistent>, after: ReturnType<typeof assertConsistent>, root: string, result: unknown) => void,
  setup: (root: string) => void | Promise<void> = () => undefined,
) {
  const root = projectOnTmpfs();
  await setup(root);
  let failures = 0;
  let successes = 0;
  for (let k = 0; k <= maxPages; k++) {
    const state = assertConsistent(root);
    const filler = fillLeaving(root, k);
    const before = snapshotTree(root);
    try {
      const result = await attempt(root, k);
      successes++;
      fs.rmSync(filler);
      added(state, assertConsistent(root), root, result);
    } catch (error) {
      const e = error as { code?: string; message: string };
      failures++;
      assert.equal(e.code, 'IO', `${name} with ${k} page(s) free: ${e.message}`);
      assert.match(e.message, /ENOSPC/);
      assert.match(e.message, /\.twining\//, 'the message names the file');
      assert.match(e.message, /nothing was written/);
      assert.doesNotMatch(e.message, /could not all be undone/);
      assert.deepEqual(
        changedFiles(before, snapshotTree(root)).filter(n => !n.startsWith('../')),
        [],
        `${name} with ${k} page(s) free changed nothing`,
      );
      fs.rmSync(filler);
      assert.deepEqual(assertConsistent(root), state);
    }
  }
  process.stdout.write(`# ${name}: ${failures} attempt(s) failed cleanly on a full disk, ${successes} completed\n`);
  assert.ok(failures > 0, `${name} ran out of space at least once`);
  return root;
}

describe('a full disk (tmpfs filled to the last pages)', { skip }, () => {
  test('post: a line that does not fit leaves blackboard.jsonl exactly as it was', async () => {
    await ladder(
      'post',
      20,
      async root => (await openWorkspace(root, { warn: () => undefined })).post({ entry_type: 'finding', summary: 'big', detail: 'x'.repeat(60_000) }),
      (before, after) => assert.equal(after.entries, before.entries + 1),
    );
  });

  test('register: the registry is replaced whole or not at all', async () => {
    let n = 0;
    const capabilities = Array.from({ length: 100 }, (_, i) => `capability-number-${i}-${'y'.repeat(60)}`);
    await ladder(
      'register',
      4,
      async root => (await openWorkspace(root, { warn: () => undefined })).register({ agent_id: `agent-${n++}`, capabilities }),
      (_before, _after, root) => {
        // The agent just registered is in the registry file, with every capability.
        const registry = JSON.parse(fs.readFileSync(tw(root, 'agents/registry.json'), 'utf8')) as { agent_id: string; capabilities: string[] }[];
        const agent = registry.find(a => a.agent_id === `agent-${n - 1}`);
        assert.ok(agent, `agent-${n - 1} is in agents/registry.json`);
        assert.deepEqual(agent.capabilities, capabilities);
      },
    );
  });

  test('handoff: record, index line and status entry are written together or not at all', async () => {
    await ladder(
      'handoff',
      8,
      async root =>
        (await openWorkspace(root, { warn: () => undefined })).handoff({
          source_agent: 'a',
          summary: 's'.repeat(4000),
          results: [{ description: 'd'.repeat(2000), status: 'completed', notes: 'n'.repeat(4000) }],
        }),
      (before, after) => assert.equal(after.handoffs, before.handoffs + 1),
    );
  });

  test('acknowledge: the record and the index change together or not at all', async () => {
    await ladder(
      'acknowledge',
      24,
      async root => {
        const ws = await openWorkspace(root, { warn: () => undefined });
        const open = (await ws.handoffs({ acknowledged: false, limit: 1 })).handoffs[0];
        return ws.acknowledge({ handoff_id: open.id, agent_id: 'taker' });
      },
      (_before, _after, root, result) => {
        // The record says who took it, and its index line says acknowledged.
        const id = (result as { id: string }).id;
        const record = JSON.parse(fs.readFileSync(tw(root, 'handoffs', `${id}.json`), 'utf8'));
        assert.equal(record.acknowledged_by, 'taker');
        const line = fs
          .readFileSync(tw(root, 'handoffs/index.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(l => JSON.parse(l))
          .find(l => l.id === id);
        assert.equal(line?.acknowledged, true, `handoff ${id} is acknowledged in the index`);
      },
      // Many long handoffs make the index span several pages, so its rewrite can fail after the record's.
      async root => {
        const ws = await openWorkspace(root, { warn: () => undefined });
        for (let i = 0; i < 16; i++) await ws.handoff({ source_agent: 'a', summary: `${i} ${'s'.repeat(3000)}`, results: [], auto_snapshot: false });
      },
    );
  });

  test('decide (superseding, conflicting): records, index and blackboard entries together or not at all', async () => {
    let n = 0;
    await ladder(
      'decide',
      24,
      async root => {
        const ws = await openWorkspace(root, { warn: () => undefined });
        const active = (await ws.decisions({ status: 'active', limit: 1 })).decisions[0];
        return ws.decide({
          domain: active.domain,
          scope: active.scope,
          summary: `decision ${n++}`,
          context: 'c'.repeat(20_000),
          rationale: 'r'.repeat(8_000),
          supersedes: active.id,
        });
      },
      (before, after) => assert.equal(after.decisions, before.decisions + 1),
    );
  });
});
