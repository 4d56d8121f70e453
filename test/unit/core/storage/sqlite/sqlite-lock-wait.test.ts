/**
 * Waiting for twining.db's write lock (storage/sqlite/sqlite-db.ts beginImmediate) never blocks the thread:
 * node:sqlite is synchronous, and in the extension host a 5 s busy timeout inside `BEGIN IMMEDIATE`
 * would freeze every extension while twining-mcp holds the lock. While another connection holds
 * it, timers keep firing; when it lets go, the lock is taken; when it does not, the wait ends with
 * SQLite's own "database is locked" after the given time. Runs under a Node with node:sqlite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { beginImmediate, openDatabase } from '../../../../../src/core/storage/sqlite/sqlite-db';

function twoConnections() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-lock-wait-'));
  const holder = openDatabase(dir, { create: true });
  const waiter = openDatabase(dir);
  return { holder, waiter };
}

test('another writer holds the lock for 400 ms: the wait lets timers run, then takes the lock', async () => {
  const { holder, waiter } = twoConnections();
  holder.exec('BEGIN IMMEDIATE;');
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  setTimeout(() => holder.exec('COMMIT;'), 400);
  const started = Date.now();
  try {
    await beginImmediate(waiter, 5000);
    const waited = Date.now() - started;
    assert.ok(waited >= 350, `waited ${waited} ms for the other writer`);
    assert.ok(ticks >= 10, `the event loop ran meanwhile (${ticks} ticks of 10 ms)`);
    waiter.exec("INSERT INTO agents (agent_id, data) VALUES ('a', '{}');");
    waiter.exec('COMMIT;');
    assert.equal(Number(waiter.prepare('SELECT COUNT(*) AS n FROM agents').get()?.n), 1);
  } finally {
    clearInterval(ticker);
    holder.close();
    waiter.close();
  }
});

test('a lock that is never released: SQLite\'s "database is locked" after the time given, and the busy timeout is back', async () => {
  const { holder, waiter } = twoConnections();
  holder.exec('BEGIN IMMEDIATE;');
  try {
    const started = Date.now();
    await assert.rejects(beginImmediate(waiter, 300), /locked/i);
    assert.ok(Date.now() - started >= 290);
    assert.equal(Number(waiter.prepare('PRAGMA busy_timeout;').get()?.timeout), 5000);
  } finally {
    holder.exec('ROLLBACK;');
    holder.close();
    waiter.close();
  }
});
