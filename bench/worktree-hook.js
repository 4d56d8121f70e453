#!/usr/bin/env node
/**
 * Benchmark of the PreToolUse hook (dist/hook.js, as Claude Code runs it: a new process with the
 * event's JSON on standard input) in a linked git worktree against the same hook in the primary
 * worktree, interleaved in one run, as medians and their ratio. In the linked worktree the hook
 * finds the shared record by reading the `.git` file and git's `commondir`
 * (src/core/git/record-location.ts), never by running git; the budget is 1.25x the primary.
 * The repository: the reference fixture's .twining/ committed on main, a live claim of another
 * agent on the file edited (so both hooks read the claims and answer "ask"), and the linked
 * worktree beside the repository. Prints a table and `BENCH_WORKTREE_HOOK_JSON {...}`.
 * Options: --reps N (default 21).
 */
'use strict';
const { arg, median, now } = require('./measure');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const HOOK = path.resolve(__dirname, '../dist/hook.js');
const CLI = path.resolve(__dirname, '../dist/cli.js');
const FIXTURE = path.resolve(__dirname, '../test/fixtures/reference-twining');

function main() {
  if (!fs.existsSync(HOOK)) throw new Error('dist/hook.js is missing; build first (node esbuild.js)');
  const reps = Number(arg('--reps', '21'));
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-worktree-'));
  try {
    const primary = path.join(parent, 'shop');
    const linked = path.join(parent, 'agent-b');
    fs.mkdirSync(path.join(primary, 'src', 'auth'), { recursive: true });
    fs.cpSync(FIXTURE, path.join(primary, '.twining'), { recursive: true });
    fs.writeFileSync(path.join(primary, 'src', 'auth', 'jwt.ts'), 'export const jwt = 1;\n');
    const git = (cwd, ...args) =>
      execFileSync('git', ['-c', 'user.email=bench@example.com', '-c', 'user.name=Bench', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'ignore' });
    git(primary, 'init', '-q', '-b', 'main');
    git(primary, 'add', '-A');
    git(primary, 'commit', '-q', '-m', 'base');
    git(primary, 'worktree', 'add', '-q', '-b', 'agent-b', linked);
    execFileSync(process.execPath, [CLI, 'claim', '--agent-id', 'alice', '--paths', 'src/auth/jwt.ts', '--reason', 'bench'], { cwd: primary, stdio: 'ignore' });
    const input = root =>
      JSON.stringify({
        session_id: 'bench',
        transcript_path: path.join(root, 'transcript.jsonl'),
        cwd: root,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: path.join(root, 'src', 'auth', 'jwt.ts'), old_string: 'a', new_string: 'b', replace_all: false },
        tool_use_id: 'toolu_bench',
      });
    const run = root => {
      const s = now();
      const r = spawnSync(process.execPath, [HOOK, 'PreToolUse', '--agent', 'bob'], { cwd: root, input: input(root), encoding: 'utf8' });
      const ms = now() - s;
      if (r.status !== 0 || !/"permissionDecision":"ask"/.test(r.stdout)) throw new Error(`the hook in ${root} did not ask: ${r.stdout} ${r.stderr}`);
      return ms;
    };
    const inPrimary = [];
    const inLinked = [];
    run(primary);
    run(linked);
    for (let i = 0; i < reps; i++) {
      // Interleaved, the order alternating, so a busy spell of the machine falls on both.
      if (i % 2) {
        inPrimary.push(run(primary));
        inLinked.push(run(linked));
      } else {
        inLinked.push(run(linked));
        inPrimary.push(run(primary));
      }
    }
    const result = {
      reps,
      primary_ms: median(inPrimary),
      linked_ms: median(inLinked),
      ratio: +(median(inLinked) / median(inPrimary)).toFixed(2),
      loadavg: os.loadavg().map(n => +n.toFixed(2)),
    };
    console.log(`PreToolUse hook (dist/hook.js) on an edit of a claimed file, medians of ${reps}, load average ${result.loadavg.join(' ')}`);
    console.log(`  in the primary worktree       ${result.primary_ms} ms`);
    console.log(`  in a linked worktree          ${result.linked_ms} ms   (${result.ratio}x the primary; budget 1.25x)`);
    console.log(`BENCH_WORKTREE_HOOK_JSON ${JSON.stringify(result)}`);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

main();
