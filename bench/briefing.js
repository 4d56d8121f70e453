#!/usr/bin/env node
/**
 * Benchmark of an agent's briefing and of its hooks (dist/; build first: `npm run bench` does), on
 * a folder of 100k blackboard entries and 10k decisions (bench/run.js's generator), as medians:
 *   - `assemble` warm (an engine that has read the folder once, as the MCP server keeps it): a file,
 *     and a folder, each repetition another one; target under 20 ms;
 *   - `twining hook <event>` from a new process, as an agent's host starts it, against `node -e 0`
 *     in the same run, interleaved (A/B), for PreToolUse on an edit, PostToolUse, Stop and
 *     SessionStart; target within 1.5x of `node -e 0`. SessionStart is measured twice: on a folder
 *     nobody wrote to since the agent's last briefing (answered from the briefing cache), and
 *     right after a write (the blackboard touched: the engine loads and assembles, as every start did before the cache);
 *     and a third time right after a post while `twining mcp` runs on the project (its engine answers
 *     over the local socket, as the extension's does), against `node -e 0` in that loop.
 * Prints a table and one line `BENCH_BRIEFING_JSON {...}`. Options: --size N (default 100000), --reps N (default 15).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { buildFolder } = require('./run');
const { arg, median, now, timed } = require('./measure');

const DIST = path.resolve(__dirname, '../dist');

/** One process run, timed from spawn to exit (what a host waits for). */
function run(args, input, cwd) {
  const t = now();
  const r = spawnSync(process.execPath, args, { input, cwd, encoding: 'utf8' });
  const ms = now() - t;
  if (r.status !== 0 && args[0] !== '-e') throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return [ms, r];
}

async function main() {
  const { openWorkspace } = require(path.join(DIST, 'core.js'));
  const size = Number(arg('--size', 100000));
  const reps = Number(arg('--reps', 15));
  const decisions = Math.min(size, 10000);
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-briefing-'));
  try {
    const root = path.join(parent, 'project');
    fs.mkdirSync(root);
    await (await openWorkspace(root)).init();
    buildFolder(root, size, decisions, 1000);
    const warn = () => undefined;
    const file = (i, j) => `src/mod${i % 50}/file${j % 20}.ts`;

    // As the MCP server and the extension keep it: decision records read in the background after the first briefing.
    const ws = await openWorkspace(root, { warn, keepRecordsWarm: true });
    const [coldMs] = await timed(() => ws.assemble({ task: 'warm up', scope: file(0, 0), agent_id: 'bench' }));
    // The engine reads the other decision records in the background after its first briefing; let it finish.
    await new Promise(resolve => setTimeout(resolve, 5000));
    const fileMs = [];
    const folderMs = [];
    const items = [];
    for (let r = 1; r <= reps; r++) {
      const [t, b] = await timed(() => ws.assemble({ task: 'change the parser', scope: file(r * 7, r * 3), agent_id: `bench-${r}` }));
      fileMs.push(t);
      items.push(b.active_decisions.length + b.active_warnings.length + b.open_needs.length + b.recent_findings.length);
      folderMs.push((await timed(() => ws.assemble({ task: 'change the parser', scope: `src/mod${r % 50}/`, agent_id: `bench-f${r}` })))[0]);
    }

    const result = {
      size,
      decisions,
      reps,
      assemble_cold_ms: +coldMs.toFixed(2),
      assemble_file_warm_ms: median(fileMs),
      assemble_folder_warm_ms: median(folderMs),
      items_per_briefing: median(items),
    };
    const rows = [
      ['assemble, first (new engine reads the folder) (ms)', result.assemble_cold_ms],
      ['assemble of a file, warm (ms)', result.assemble_file_warm_ms],
      ['assemble of a folder, warm (ms)', result.assemble_folder_warm_ms],
      ['  items per briefing of a file (median)', result.items_per_briefing],
    ];

    // Hooks from a new process, A/B against `node -e 0`.
    // What `twining hooks-setup` writes into the hosts' settings: dist/hook.js itself (through dist/cli.js
    // a hook would also pay for parsing the whole CLI bundle).
    const hook = path.join(DIST, 'hook.js');
    if (fs.existsSync(hook)) {
      const sessionId = 'bench-session';
      const common = { session_id: sessionId, transcript_path: '/dev/null', cwd: root, permission_mode: 'default' };
      const events = {
        SessionStart: { ...common, hook_event_name: 'SessionStart', source: 'startup' },
        PreToolUse: {
          ...common,
          hook_event_name: 'PreToolUse',
          tool_name: 'Edit',
          tool_input: { file_path: path.join(root, file(3, 3)), old_string: 'a', new_string: 'b' },
          tool_use_id: 't1',
        },
        PostToolUse: {
          ...common,
          hook_event_name: 'PostToolUse',
          tool_name: 'Edit',
          tool_input: { file_path: path.join(root, file(3, 3)) },
          tool_response: {},
          tool_use_id: 't1',
        },
        Stop: { ...common, hook_event_name: 'Stop', stop_hook_active: true, last_assistant_message: 'done' },
        SessionStartAfterWrite: { ...common, hook_event_name: 'SessionStart', source: 'startup' },
      };
      const eventOf = name => (name === 'SessionStartAfterWrite' ? 'SessionStart' : name);
      const blackboard = path.join(root, '.twining', 'blackboard.jsonl');
      // A hook that waits on a loaded machine is still measured (the default 8 s would give up).
      const slow = ['--timeout-ms', '300000'];
      const bare = [];
      const per = Object.fromEntries(Object.keys(events).map(k => [k, []]));
      run([hook, 'SessionStart', '--agent', 'bench-agent', ...slow], JSON.stringify(events.SessionStart), root);
      for (let r = 0; r < reps; r++) {
        bare.push(run(['-e', '0'])[0]);
        for (const [name, input] of Object.entries(events)) {
          if (name === 'SessionStartAfterWrite') fs.utimesSync(blackboard, new Date(), new Date(Date.now() + r + 1));
          per[name].push(run([hook, eventOf(name), '--agent', 'bench-agent', ...slow], JSON.stringify(input), root)[0]);
        }
      }
      result.node_e_0_ms = median(bare);
      rows.push(['`node -e 0` (ms)', result.node_e_0_ms]);
      for (const name of Object.keys(events)) {
        result[`hook_${name}_ms`] = median(per[name]);
        result[`hook_${name}_ratio`] = +(median(per[name]) / result.node_e_0_ms).toFixed(2);
        rows.push([`hook ${name}, new process of dist/hook.js (ms; ratio to node -e 0)`, `${result[`hook_${name}_ms`]} (${result[`hook_${name}_ratio`]}x)`]);
      }

      // SessionStart right after a real write (a post) while an engine runs on the project, as the
      // extension's or `twining mcp`'s does: answered over the local socket. The hook measured is a
      // copy of the hook's bundles (hook.js and those it loads beside it: hook-start.js, hook-yaml.js)
      // without dist/core.js, so it cannot have loaded the engine itself.
      const aloneDir = fs.mkdtempSync(path.join(parent, 'hook-alone-'));
      for (const f of fs.readdirSync(DIST).filter(f => /^hook(-[\w-]+)?\.js$/.test(f))) fs.copyFileSync(path.join(DIST, f), path.join(aloneDir, f));
      const alone = path.join(aloneDir, 'hook.js');
      const server = spawn(process.execPath, [path.join(DIST, 'cli.js'), 'mcp', '--dir', root], { stdio: ['pipe', 'ignore', 'inherit'] });
      try {
        const input = JSON.stringify(events.SessionStart);
        for (let tries = 0; ; tries++) {
          await new Promise(r => setTimeout(r, 200));
          const warm = spawnSync(process.execPath, [alone, 'SessionStart', '--agent', 'bench-served', ...slow], { input, cwd: root, encoding: 'utf8' });
          if (warm.status === 0) break;
          if (tries > 100) throw new Error(`twining mcp did not answer SessionStart: ${warm.stderr}`);
        }
        const bareServed = [];
        const served = [];
        for (let r = 0; r < reps; r++) {
          bareServed.push(run(['-e', '0'])[0]);
          await ws.post({ entry_type: 'finding', summary: `Bench write ${r}`, scope: file(r, r), agent_id: 'bench-writer' });
          served.push(run([alone, 'SessionStart', '--agent', 'bench-served', ...slow], input, root)[0]);
          // The server keeps the briefing for the next start after it answered: let it finish before the next pair.
          await new Promise(r => setTimeout(r, 300));
        }
        result.node_e_0_served_ms = median(bareServed);
        result.hook_SessionStartServed_ms = median(served);
        result.hook_SessionStartServed_ratio = +(median(served) / median(bareServed)).toFixed(2);
        rows.push([
          'hook SessionStart after a post, `twining mcp` running (ms; ratio to node -e 0 in the same loop)',
          `${result.hook_SessionStartServed_ms} (${result.hook_SessionStartServed_ratio}x)`,
        ]);
      } finally {
        server.stdin.end();
        server.kill();
      }
    }

    const width = Math.max(...rows.map(r => r[0].length));
    result.load_average = +os.loadavg()[0].toFixed(1);
    console.log(
      `Briefing and hooks: node ${process.version}, ${os.cpus().length} CPU(s) at load average ${result.load_average}, ${size.toLocaleString('en')} entries, ${decisions.toLocaleString('en')} decisions, medians of ${reps}`,
    );
    for (const [label, value] of rows) console.log(`| ${label.padEnd(width)} | ${String(value).padStart(14)} |`);
    const met = result.assemble_file_warm_ms < 20 && result.assemble_folder_warm_ms < 20;
    console.log(
      `\n${met ? 'MET   ' : 'MISSED'} assemble warm < 20 ms: ${result.assemble_file_warm_ms} ms (file), ${result.assemble_folder_warm_ms} ms (folder)`,
    );
    for (const name of ['PreToolUse', 'PostToolUse', 'Stop', 'SessionStart', 'SessionStartAfterWrite', 'SessionStartServed']) {
      const ratio = result[`hook_${name}_ratio`];
      if (ratio !== undefined) console.log(`${ratio <= 1.5 ? 'MET   ' : 'MISSED'} hook ${name} within 1.5x of node -e 0: ${ratio}x`);
    }
    console.log(`BENCH_BRIEFING_JSON ${JSON.stringify(result)}`);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

main().catch(error => {
  console.error(error.stack || error);
  process.exit(1);
});
