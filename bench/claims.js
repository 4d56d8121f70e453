#!/usr/bin/env node
/**
 * Benchmark of claims (dist/core.js; build it first: `npm run bench` does), at 1,000 live claims
 * of 100 agents, as medians:
 *   - claim and release a path, warm (one engine): the lock, a read of what was appended to the
 *     claims log since, the collision check against every live claim, one append (the log is
 *     compacted now and then: those rounds are in the medians' population too);
 *   - check a path, warm: `claims({path})` through the engine, and `checkPath` (the hook's read path);
 *   - the check from a new process, as a hook runs it: a bundle of src/core/storage/claims-file.ts alone
 *     (built here with esbuild), and the hook itself (dist/hook.js PreToolUse) on an edit of a claimed file,
 *     each against `node -e 0`. The hooks issue's budget is 1.5x a bare start.
 * The claim's CPU time is printed beside its wall time: on a busy machine most of a claim is
 * waiting for the lock's and the log's file system calls, not work.
 * Prints a table and one line `BENCH_CLAIMS_JSON {...}`. Options: --claims N (default 1000),
 * --reps N (default 40). Target: claim and check under 5 ms warm.
 */
'use strict';
const { median, now } = require('./measure');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const CORE = path.resolve(__dirname, '../dist/core.js');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main() {
  if (!fs.existsSync(CORE)) throw new Error('dist/core.js is missing; build first (node esbuild.js)');
  const core = require(CORE);
  const count = arg('--claims', 1000);
  const reps = arg('--reps', 40);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-claims-'));
  try {
    const ws = await core.openWorkspace(root, { warn: () => undefined });
    await ws.init();
    // 1,000 live claims of 100 registered agents, written as the engine writes them.
    const t = new Date();
    const iso = t.toISOString();
    const until = new Date(t.getTime() + 3600_000).toISOString();
    const agents = Array.from({ length: 100 }, (_, i) => ({ agent_id: `agent-${i}`, capabilities: [], registered_at: iso, last_active: iso }));
    fs.writeFileSync(path.join(root, '.twining', 'agents', 'registry.json'), JSON.stringify(agents, null, 2));
    const claims = Array.from({ length: count }, (_, i) => ({
      id: `01M80HHK${String(i).padStart(18, '0')}`,
      agent_id: `agent-${i % 100}`,
      target: i % 10 === 0 ? `pkg${i}/` : i % 10 === 1 ? `pkg${i}/**/*.sql` : `pkg${i}/src/file${i}.ts`,
      reason: `work item ${i}`,
      claimed_at: iso,
      renewed_at: iso,
      expires_at: until,
    }));
    fs.mkdirSync(path.join(root, '.twining', 'claims'));
    fs.writeFileSync(path.join(root, '.twining', 'claims', 'claims.jsonl'), claims.map(c => JSON.stringify(c) + '\n').join(''));

    const claimMs = [];
    const claimCpuMs = [];
    const releaseMs = [];
    const checkMs = [];
    const hookInProcessMs = [];
    for (let i = 0; i < reps + 3; i++) {
      let s = now();
      const cpu = process.cpuUsage();
      const r = await ws.claim({ agent_id: 'bench', paths: [`free/${i}.ts`], reason: 'bench' });
      const c = now() - s;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      if (!r.granted) throw new Error('the bench claim was refused');
      s = now();
      await ws.release({ agent_id: 'bench' });
      const rel = now() - s;
      s = now();
      const held = await ws.claims({ path: `pkg${(i * 10) % count}/src/x.sql` });
      const chk = now() - s;
      if (held.claims.length === 0) throw new Error('the check found no claim where one is');
      s = now();
      core.checkPath(root, `pkg${(i * 10 + 1) % count}/src/db/a.sql`, 'someone');
      const hook = now() - s;
      if (i < 3) continue;
      claimMs.push(c);
      claimCpuMs.push(cpuMs);
      releaseMs.push(rel);
      checkMs.push(chk);
      hookInProcessMs.push(hook);
    }

    // The check from a new process: claims-file.ts bundled alone, as a hook entry point would bundle it.
    const bundle = path.join(root, 'check.js');
    require('esbuild').buildSync({
      entryPoints: [path.resolve(__dirname, '../src/core/storage/claims-file.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'silent',
    });
    fs.appendFileSync(bundle, `\nconst c = module.exports.checkPath(process.argv[2], process.argv[3], 'someone');\nif (c.length === 0) process.exit(5);\n`);
    const spawnMs = (argv, input) => {
      const s = now();
      const r = spawnSync(process.execPath, argv, { encoding: 'utf8', cwd: root, input });
      if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
      return [now() - s, r.stdout];
    };
    // The real hook: dist/hook.js (what `twining hooks-setup` writes into the hosts' settings) on
    // PreToolUse for an edit of a claimed file (it asks), as Claude Code runs it.
    const hookJs = path.resolve(__dirname, '../dist/hook.js');
    const edit = JSON.stringify({
      session_id: 'bench',
      transcript_path: path.join(root, 'transcript.jsonl'),
      cwd: root,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: path.join(root, 'pkg10', 'src', 'db', 'a.sql'), old_string: 'a', new_string: 'b', replace_all: false },
      tool_use_id: 'toolu_bench',
    });
    const bare = [];
    const check = [];
    const hookRuns = [];
    for (let i = 0; i < 21; i++) {
      bare.push(spawnMs(['-e', '0'])[0]);
      check.push(spawnMs([bundle, root, 'pkg10/src/db/a.sql'])[0]);
      const [ms, out] = spawnMs([hookJs, 'PreToolUse', '--agent', 'someone'], edit);
      if (!/"permissionDecision":"ask"/.test(out)) throw new Error(`the hook did not ask before an edit of a claimed file: ${out}`);
      hookRuns.push(ms);
    }
    const result = {
      claims: count,
      claim_ms: median(claimMs),
      claim_cpu_ms: median(claimCpuMs),
      release_ms: median(releaseMs),
      check_engine_ms: median(checkMs),
      check_in_process_ms: median(hookInProcessMs),
      node_e0_ms: median(bare),
      check_new_process_ms: median(check),
      ratio: +(median(check) / median(bare)).toFixed(2),
      hook_pretooluse_ms: median(hookRuns),
      hook_ratio: +(median(hookRuns) / median(bare)).toFixed(2),
    };
    console.log(`claims at ${count} live claims (medians)`);
    console.log(
      `  claim a path, warm            ${result.claim_ms} ms   (target < 5 ms; ${result.claim_cpu_ms} ms of it on the CPU, the rest waiting on the file system)`,
    );
    console.log(`  release it, warm              ${result.release_ms} ms`);
    console.log(`  check a path (engine), warm   ${result.check_engine_ms} ms   (target < 5 ms)`);
    console.log(`  check a path (checkPath)      ${result.check_in_process_ms} ms`);
    console.log(`  node -e 0                     ${result.node_e0_ms} ms`);
    console.log(`  check from a new process      ${result.check_new_process_ms} ms   (${result.ratio}x; budget 1.5x)`);
    console.log(`  hook PreToolUse (dist/hook.js) ${result.hook_pretooluse_ms} ms   (${result.hook_ratio}x; budget 1.5x; an edit of a claimed file: it asks)`);
    console.log(`BENCH_CLAIMS_JSON ${JSON.stringify(result)}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
