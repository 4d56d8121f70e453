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
  next(predicate: (m: Record<string, any>) => boolean): Promise<Record<string, any>>;
  send(command: object): void;
}

const all = new Set<ChildProcess>();
process.on('exit', () => all.forEach(c => c.exitCode === null && c.kill('SIGKILL')));

function startClaimer(root: string, name: string): Claimer {
  const child = spawn(process.execPath, [PROCESS_JS, JSON.stringify({ root, name })], { stdio: ['pipe', 'pipe', 'pipe'] });
  all.add(child);
  const lines: Record<string, any>[] = [];
  const waiting: [(m: Record<string, any>) => boolean, (m: Record<string, any>) => void][] = [];
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', chunk => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.fatal) throw new Error(`${name}: ${message.fatal} ${stderr}`);
      lines.push(message);
      for (const w of waiting.splice(0)) {
        if (w[0](message)) w[1](message);
        else waiting.push(w);
      }
    }
  });
  child.stdin.on('error', () => undefined);
  return {
    name,
    child,
    lines,
    next: predicate =>
      new Promise(resolve => {
        const found = lines.find(predicate);
        if (found) resolve(found);
        else waiting.push([predicate, resolve]);
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
  { timeout: 240_000 },
  async () => {
    const root = tempProject();
    await (await openWorkspace(root, { warn: () => undefined })).init();
    const rand = prng(19);
    let claimers = Array.from({ length: 16 }, (_, i) => startClaimer(root, `agent-${i}`));
    await Promise.all(claimers.map(c => c.next(m => m.ready === true)));
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
      const answers = await Promise.all(claimers.map(c => c.next(m => m.round === round)));
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
      await Promise.all(claimers.map(c => c.next(m => m.released === round)));
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
      await Promise.all(survivors.map(c => c.next(m => m.round === round)));
      assertNoCollidingLiveClaims(root, `after SIGKILL ${kill}`);
      for (const c of survivors) c.send({ release: round });
      await Promise.all(survivors.map(c => c.next(m => m.released === round)));
      claimers = [...survivors, ...victims.map((_, k) => startClaimer(root, `agent-${16 + kill * 4 + k}`))];
      await Promise.all(claimers.map(c => c.next(m => m.ready === true)));
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
