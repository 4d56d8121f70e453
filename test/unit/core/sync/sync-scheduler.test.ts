/**
 * The background sync of a long-lived engine (core/sync/sync-scheduler.ts) on a real repository:
 * while sync is off, a write does not make it run git to look again (each look spawns git from
 * the engine's process, which holds up the calls it serves); the next interval looks, and once it
 * finds sync on (as a first `twining sync` in a terminal leaves it), a write syncs soon after.
 * Outside a repository, and in one where sync is off, the looks after the first spawn no git at
 * all (counted by a `git` on PATH that notes each run, then runs the real one); a repository made
 * around the folder later is still found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { openWorkspace, SyncScheduler } from '../../../../src/core';
import { git, newRepo } from '../../../support/git-repo';
import { tempProject, withEnv } from '../../../support/tmp';

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

test('background sync: no git look after a write while sync is off; the interval turns it on, then writes sync soon', async () => {
  const repo = newRepo();
  const engine = await openWorkspace(repo, { warn: () => undefined });
  await engine.init();
  let looks = 0;
  let syncs = 0;
  const errors: string[] = [];
  const scheduler = new SyncScheduler(
    {
      syncStatus: () => {
        looks++;
        return engine.syncStatus();
      },
      sync: options => {
        syncs++;
        return engine.sync(options);
      },
    },
    // The interval is long beside the pokes below, so that a loaded machine's slow timers cannot pass for a look a write caused.
    { intervalMs: 4000, afterWriteMs: 20, onError: error => errors.push(error.message) },
  ).start();
  try {
    // The first look (at most a second after the start) finds sync off.
    for (let i = 0; i < 100 && looks === 0; i++) await sleep(50);
    await sleep(200);
    assert.equal(looks, 1);
    for (let i = 0; i < 3; i++) {
      scheduler.poke();
      await sleep(100);
    }
    assert.equal(looks, 1, 'writes while sync is off look at git again');
    assert.equal(syncs, 0);
    // Sync turned on in this clone (what `twining sync` records); the next interval looks and finds it on.
    git(repo, 'config', '--local', 'twining.sync.enabled', 'true');
    for (let i = 0; i < 250 && syncs === 0; i++) await sleep(50);
    assert.equal(syncs, 1, 'the interval did not find sync on');
    // Let that sync (which fails: this repository has no remote, said through onError) finish, then a write syncs soon.
    for (let i = 0; i < 250 && errors.length === 0; i++) await sleep(50);
    assert.ok(errors.length >= 1, 'the sync without a remote said nothing');
    const before: number = syncs;
    scheduler.poke();
    for (let i = 0; i < 120 && syncs === before; i++) await sleep(25); // within 3 s: before the next interval (4 s)
    assert.equal(syncs, before + 1, 'a write with sync on did not sync soon');
  } finally {
    scheduler.stop();
  }
});

/** A folder with a `git` that writes its arguments to a log, then runs the real git; and that log's lines. */
function countingGit(): { bin: string; runs: () => string[] } {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = path.join(tempProject('git-counter'), 'bin');
  const log = path.join(bin, '..', 'git-runs.log');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return { bin, runs: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) };
}

/** Runs the background sync of `folder`'s engine over a few 1 s intervals; returns how many looks it made. */
async function looksOver(folder: string, ms: number): Promise<{ looks: number; statuses: string[] }> {
  const engine = await openWorkspace(folder, { warn: () => undefined });
  const statuses: string[] = [];
  let looks = 0;
  const scheduler = new SyncScheduler(
    {
      syncStatus: async () => {
        looks++;
        const status = await engine.syncStatus();
        statuses.push(status.message);
        return status;
      },
      sync: options => engine.sync(options),
    },
    { intervalMs: 1000 },
  ).start();
  try {
    await sleep(ms);
  } finally {
    scheduler.stop();
    engine.close();
  }
  return { looks, statuses };
}

test('background sync outside a git repository: git is asked once, not at every interval, until a repository appears', async () => {
  const counter = countingGit();
  const folder = tempProject('no-repo');
  await withEnv({ PATH: `${counter.bin}${path.delimiter}${process.env.PATH}` }, async () => {
    const first = await looksOver(folder, 4500);
    assert.ok(first.looks >= 3, `the scheduler looked ${first.looks} time(s)`);
    assert.ok(
      first.statuses.every(m => m.includes('is not in a git repository')),
      `the folder is outside every repository: ${first.statuses.join('; ')}`,
    );
    const revParses = counter.runs().filter(r => r.startsWith('rev-parse'));
    assert.equal(revParses.length, 1, `git runs over ${first.looks} looks: ${counter.runs().join('; ')}`);
    // A repository made around the folder later: the next look asks git again and finds it.
    execFileSync('git', ['init', '-q'], { cwd: folder });
    const second = await looksOver(folder, 1500);
    assert.ok(
      second.statuses.some(m => m.includes('sync is not set up: run `twining sync`')),
      `after git init: ${second.statuses.join('; ')}`,
    );
  });
});

test('background sync in a repository where sync was never turned on: no git after the first look', async () => {
  const counter = countingGit();
  const repo = newRepo();
  await withEnv({ PATH: `${counter.bin}${path.delimiter}${process.env.PATH}` }, async () => {
    const { looks, statuses } = await looksOver(repo, 4500);
    assert.ok(looks >= 3, `the scheduler looked ${looks} time(s)`);
    assert.ok(
      statuses.every(m => m.includes('sync is not set up')),
      statuses.join('; '),
    );
    // The first look asks where the repository is and reads its config; the later ones run nothing.
    assert.ok(counter.runs().length <= 2, `git runs over ${looks} looks: ${counter.runs().join('; ')}`);
  });
});
