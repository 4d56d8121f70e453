/**
 * The background sync of a long-lived engine (core/sync/sync-scheduler.ts) on a real repository:
 * while sync is off, a write does not make it run git to look again (each look spawns git from
 * the engine's process, which holds up the calls it serves); the next interval looks, and once it
 * finds sync on (as a first `twining sync` in a terminal leaves it), a write syncs soon after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace, SyncScheduler } from '../../../../src/core';
import { git, newRepo } from '../../../support/git-repo';

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
