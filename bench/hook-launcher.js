#!/usr/bin/env node
/**
 * Benchmark of the committed hook launcher (`node .agents/twining/hook.js`, written by
 * `twining setup`; src/agents/setup/launcher.ts) against running the installed dist/hook.js
 * directly and against a bare `node -e 0`, interleaved in one loop, each a new process with
 * PreToolUse's JSON on standard input (an edit of a file with a decision), as a host runs it.
 * Target: the launcher within 1.5x of `node -e 0`. Prints medians, ratios, the load average and
 * one line `BENCH_HOOK_LAUNCHER_JSON {...}`. Options: --reps N (default 25).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { arg, median, now } = require('./measure');

const DIST = path.resolve(__dirname, '../dist');

function run(args, input, cwd, env) {
  const t = now();
  const r = spawnSync(process.execPath, args, { input, cwd, env, encoding: 'utf8' });
  const ms = now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function main() {
  const reps = Number(arg('--reps', 25));
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-launcher-'));
  const root = path.join(parent, 'shop');
  fs.mkdirSync(root);
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(parent, 'config'), APPDATA: path.join(parent, 'config') };
  const cli = (...a) => {
    const r = spawnSync(process.execPath, [path.join(DIST, 'cli.js'), ...a], { cwd: root, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`twining ${a.join(' ')}: ${r.stderr}`);
  };
  try {
    cli('setup', '--yes', '--host', 'vscode');
    cli(
      'decide',
      '--agent-id',
      'bench',
      '--domain',
      'api',
      '--scope',
      'src/api.ts',
      '--summary',
      'Keep the API stateless',
      '--context',
      'c',
      '--rationale',
      'r',
    );
    const input = JSON.stringify({
      timestamp: new Date().toISOString(),
      cwd: root,
      sessionId: 'bench-launcher',
      hookEventName: 'PreToolUse',
      transcript_path: path.join(parent, 't.json'),
      tool_name: 'replace_string_in_file',
      tool_input: { filePath: path.join(root, 'src', 'api.ts'), oldString: 'a', newString: 'b' },
    });
    const times = { bare: [], direct: [], launcher: [] };
    for (let i = 0; i < reps + 2; i++) {
      const bare = run(['-e', '0'], '', root, env);
      const direct = run([path.join(DIST, 'hook.js'), 'PreToolUse', '--host', 'vscode'], input, root, env);
      const launcher = run(['.agents/twining/hook.js', 'PreToolUse', '--host', 'vscode'], input, root, env);
      if (i < 2) continue; // warm-up
      times.bare.push(bare);
      times.direct.push(direct);
      times.launcher.push(launcher);
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, +median(v).toFixed(1)]));
    const result = {
      reps,
      loadavg: os.loadavg().map(x => +x.toFixed(2)),
      bare_ms: m.bare,
      direct_ms: m.direct,
      launcher_ms: m.launcher,
      launcher_ratio_to_bare: +(m.launcher / m.bare).toFixed(2),
      direct_ratio_to_bare: +(m.direct / m.bare).toFixed(2),
      launcher_ratio_to_direct: +(m.launcher / m.direct).toFixed(2),
    };
    console.log(`Hook launcher, PreToolUse on an edit (medians of ${reps}, interleaved; load average ${result.loadavg.join(' ')}):`);
    console.log(`  node -e 0                              ${m.bare} ms`);
    console.log(`  node dist/hook.js (installed, direct)  ${m.direct} ms  (${result.direct_ratio_to_bare}x)`);
    console.log(
      `  node .agents/twining/hook.js (launcher) ${m.launcher} ms  (${result.launcher_ratio_to_bare}x; ${result.launcher_ratio_to_direct}x the direct run)`,
    );
    console.log(`${result.launcher_ratio_to_bare <= 1.5 ? 'MET   ' : 'MISSED'} hook launcher within 1.5x of node -e 0: ${result.launcher_ratio_to_bare}x`);
    console.log(`BENCH_HOOK_LAUNCHER_JSON ${JSON.stringify(result)}`);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

main();
