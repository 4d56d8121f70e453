/**
 * Claims across real processes: 16 processes claim colliding paths at the same instant, round
 * after round. Each round every collision has exactly one winner, every loser is told a winner of
 * that round, the claims file never holds colliding live claims of two agents, and processes
 * SIGKILLed in the middle of claiming leave no lock behind. Run `node esbuild.js --tests` first
 * (the processes load dist/core.js).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn, ChildProcess } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { targetsOverlap } from '../../../../src/core/rules/claim-paths';
import { isClaim, viewOf } from '../../../../src/core/rules/claims';
import { readClaimLogSync } from '../../../../src/core/storage/claim-log';
import { lockDirs, ownerRecords, tempProject } from '../../../support/tmp';
import { prng } from '../../../support/prng';

const PROCESS_JS = path.resolve(__dirname, 'claim-process.js');
const POOL = ['src/', 'src/auth/', 'src/auth/jwt.ts', 'src/**/*.sql', 'src/db/a.sql', 'src/db/', 'docs/', 'docs/a.md', 'lib/*.ts', 'lib/x.ts'];

interface Claimer {
  name: string;
  child: ChildProcess;
  lines: Record<string, any>[];
  /** The first line (printed so far or to come) that `predicate` accepts; rejects naming `what` when the process ends or stays silent for WAIT_MS. */
  next(what: string, predicate: (m: Record<string, any>) => boolean): Promise<Record<string, any>>;
  send(command: object): void;
}

/**
 * How long one answer may take. A claim is bounded (store/lock.ts: about 35 s at most before
 * LOCKED), so a process silent for longer is stuck: the wait fails naming the process, what it was
 * waiting for and what the process printed, instead of waiting until the test's own timeout.
 */
const WAIT_MS = 90_000;

const all = new Set<ChildProcess>();
/**
 * Every claiming process is killed when the test ends, passed or failed: one left alive keeps its
 * pipes open, and with them this test file's process (node:test does not exit while they are
 * open), which then hangs at zero CPU after reporting the failure, the `exit` handler below never
 * running. The `exit` handler stays for a run stopped some other way.
 */
const killAll = () => all.forEach(c => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL'));
process.on('exit', killAll);

function startClaimer(root: string, name: string): Claimer {
  const child = spawn(process.execPath, [PROCESS_JS, JSON.stringify({ root, name })], { stdio: ['pipe', 'pipe', 'pipe'] });
  all.add(child);
  const lines: Record<string, any>[] = [];
  interface Waiter {
    predicate: (m: Record<string, any>) => boolean;
    resolve: (m: Record<string, any>) => void;
    reject: (error: Error) => void;
  }
  const waiting: Waiter[] = [];
  let buffer = '';
  let stderr = '';
  /** Set once the process can print nothing more (it ended, or printed something that is not an answer). */
  let ended: string | undefined;
  const describe = () =>
    `its last lines: ${
      lines
        .slice(-3)
        .map(l => JSON.stringify(l))
        .join(' ') || 'none'
    }; its stderr: ${stderr.trim().slice(-2000) || 'empty'}`;
  const end = (why: string) => {
    if (ended !== undefined) return;
    ended = why;
    for (const w of waiting.splice(0)) w.reject(new Error(`${name} ${why} before printing what the test waits for; ${describe()}`));
  };
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0 && ended === undefined; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message: Record<string, any>;
      try {
        message = JSON.parse(line);
      } catch {
        end(`printed a line that is not JSON (${line.slice(0, 200)})`);
        return;
      }
      if (message.fatal) {
        end(`failed (${message.fatal})`);
        return;
      }
      lines.push(message);
      for (const w of waiting.splice(0)) {
        if (w.predicate(message)) w.resolve(message);
        else waiting.push(w);
      }
    }
  });
  // 'close': after the process exited and its output was read to the end.
  child.on('close', (code, signal) => end(`ended (${signal ?? `exit code ${code}`})`));
  child.on('error', error => end(`could not be run (${error.message})`));
  child.stdin.on('error', () => undefined);
  return {
    name,
    child,
    lines,
    next: (what, predicate) =>
      new Promise((resolve, reject) => {
        const found = lines.find(predicate);
        if (found) return resolve(found);
        if (ended !== undefined) return reject(new Error(`${name} ${ended}; it never printed ${what}; ${describe()}`));
        const timer = setTimeout(() => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          reject(new Error(`${name} did not print ${what} within ${WAIT_MS / 1000} s (stuck?); ${describe()}`));
        }, WAIT_MS);
        timer.unref();
        const waiter: Waiter = {
          predicate,
          resolve: m => (clearTimeout(timer), resolve(m)),
          reject: e => (clearTimeout(timer), reject(e)),
        };
        waiting.push(waiter);
      }),
    send: command => child.stdin.write(JSON.stringify(command) + '\n'),
  };
}

/** The claims file never holds live claims of two agents that collide. */
function assertNoCollidingLiveClaims(root: string, label: string): void {
  const items = readClaimLogSync(path.join(root, '.twining', 'claims', 'claims.jsonl'));
  const now = { now: new Date() };
  const live = items.filter(isClaim).filter(c => viewOf(c, now).state === 'live');
  for (const a of live)
    for (const b of live)
      if (a.agent_id < b.agent_id && targetsOverlap(a.target, b.target))
        assert.fail(`${label}: ${a.agent_id} holds ${a.target} and ${b.agent_id} holds ${b.target}`);
}

test(
  '16 processes claiming colliding paths at once: one winner per collision, losers told the winner, no lock left after SIGKILLs',
  // A hang fails here, in bounded time, and `killAll` then lets the file's process end.
  { timeout: 240_000 },
  async t => {
    t.after(killAll);
    const root = tempProject();
    await (await openWorkspace(root, { warn: () => undefined })).init();
    const rand = prng(19);
    let claimers = Array.from({ length: 16 }, (_, i) => startClaimer(root, `agent-${i}`));
    await Promise.all(claimers.map(c => c.next('{"ready":true}', m => m.ready === true)));
    const ROUNDS = 8;
    let contested = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const asked = new Map<string, string[]>();
      for (const c of claimers) {
        const paths = [POOL[Math.floor(rand() * POOL.length)]];
        if (rand() < 0.3) paths.push(POOL[Math.floor(rand() * POOL.length)]);
        asked.set(c.name, paths);
      }
      // The same instant: every command is written before any answer is awaited.
      for (const c of claimers) c.send({ round, paths: asked.get(c.name) });
      const answers = await Promise.all(claimers.map(c => c.next(`its answer to round ${round}`, m => m.round === round)));
      const winners = new Map<string, string[]>();
      answers.forEach((a, i) => {
        assert.equal(a.error, undefined, `${claimers[i].name}: ${a.error}`);
        if (a.result.granted)
          winners.set(
            claimers[i].name,
            a.result.claims.map((c: any) => c.target),
          );
      });
      assert.ok(winners.size >= 1, `round ${round}: someone wins`);
      // Winners never collide with each other.
      for (const [a, ta] of winners)
        for (const [b, tb] of winners)
          if (a < b) for (const x of ta) for (const y of tb) assert.ok(!targetsOverlap(x, y), `round ${round}: ${a} (${x}) and ${b} (${y}) both won`);
      // Every loser is told a holder that won this round, with a claim that collides with what it asked.
      answers.forEach((a, i) => {
        if (a.result.granted) return;
        contested++;
        assert.ok(a.result.conflicts.length >= 1);
        for (const conflict of a.result.conflicts)
          for (const holder of conflict.held_by) {
            assert.ok(
              winners.get(holder.agent_id)?.includes(holder.target),
              `round ${round}: ${claimers[i].name} was told ${holder.agent_id} holds ${holder.target}`,
            );
            assert.ok(targetsOverlap(holder.target, conflict.target));
            assert.match(conflict.message, new RegExp(`${holder.agent_id} holds .* since .* until .* \\(round ${round}\\)`));
          }
      });
      assertNoCollidingLiveClaims(root, `round ${round}`);
      for (const c of claimers) c.send({ release: round });
      await Promise.all(claimers.map(c => c.next(`{"released":${round}}`, m => m.released === round)));
    }
    assert.ok(contested > ROUNDS, `the rounds were contested (${contested} refusals)`);

    // SIGKILL four processes in the middle of a round of claims; the others finish it.
    for (let kill = 0; kill < 2; kill++) {
      const round = 100 + kill;
      for (const c of claimers) c.send({ round, paths: [POOL[Math.floor(rand() * POOL.length)]] });
      await new Promise(resolve => setTimeout(resolve, 5 + Math.floor(rand() * 40)));
      const victims = claimers.slice(0, 4);
      for (const v of victims) v.child.kill('SIGKILL');
      const survivors = claimers.slice(4);
      await Promise.all(survivors.map(c => c.next(`its answer to round ${round}`, m => m.round === round)));
      assertNoCollidingLiveClaims(root, `after SIGKILL ${kill}`);
      for (const c of survivors) c.send({ release: round });
      await Promise.all(survivors.map(c => c.next(`{"released":${round}}`, m => m.released === round)));
      claimers = [...survivors, ...victims.map((_, k) => startClaimer(root, `agent-${16 + kill * 4 + k}`))];
      await Promise.all(claimers.map(c => c.next('{"ready":true}', m => m.ready === true)));
    }
    for (const c of claimers) c.child.kill('SIGKILL');
    await new Promise(resolve => setTimeout(resolve, 100));
    assert.deepEqual(lockDirs(root), [], 'no lock directory left');
    assert.deepEqual(ownerRecords(root), [], 'no lock owner record left');
    // Nothing is stuck: a new claimer gets an uncontested path at once.
    const started = Date.now();
    const ws = await openWorkspace(root, { warn: () => undefined });
    assert.equal((await ws.claim({ agent_id: 'late', paths: ['fresh/'], reason: 'after the storm' })).granted, true);
    assert.ok(Date.now() - started < 5000, `claimed in ${Date.now() - started} ms`);
    assert.deepEqual(
      fs.readdirSync(path.join(root, '.twining', 'claims')).filter(n => n.endsWith('.tmp')),
      [],
    );
  },
);
