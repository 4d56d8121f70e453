#!/usr/bin/env node
/**
 * Benchmark of every agent hook event the product handles, as Claude Code runs them: the command
 * `twining setup` writes into .claude/settings.json (`node <project>/.agents/twining/hook.js
 * <Event> --host claude-code`), a new process with the event's JSON on standard input (docs/hooks.md,
 * "Claude Code input"), on a folder of 100k blackboard entries and 10k decisions (bench/run.js's
 * generator), each timed from spawn to exit against `node -e 0` started just before it (A/B pairs
 * in one loop, so a busy moment of a shared machine weighs on both).
 *
 * One session runs through every event each repetition (SessionStart on a folder nobody wrote to
 * since its last briefing, UserPromptSubmit, PreToolUse on an edit of a file with decisions and
 * warnings, PostToolUse of that edit, Notification, SubagentStop, Stop); target: each within 1.5x
 * of `node -e 0`. Then "SessionStart after another agent's write, no engine running": before each
 * repetition another process (the CLI, as another agent's hook or shell would) posts or decides,
 * then the session starts; target within 3x.
 * Each process also says the processor time it used (user + system, `process.cpuUsage()` at its
 * exit, through a preload the bench puts in NODE_OPTIONS for hook and `node -e 0` alike): on a
 * shared machine the wall time of a 100 ms process swings with the load, its processor time much less.
 * Prints the events the settings name, a table, the load average and `BENCH_HOOKS_JSON {...}`.
 * Options: --size N (default 100000), --reps N (default 15), --before DIR (another build, a checkout with
 * dist/ built or its dist/: its hooks run on a project of their own, alternately with this build's, and
 * the table gives both).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { buildFolder } = require('./run');
const { arg, median, now } = require('./measure');

const DIST = path.resolve(__dirname, '../dist');

/**
 * The preload that makes a process say its processor time on standard error as it exits; only the
 * process started with TWINING_BENCH_CPU says it (its children, such as a detached registration, do not).
 */
const CPU_PRELOAD = [
  'if (process.env.TWINING_BENCH_CPU) {',
  '  delete process.env.TWINING_BENCH_CPU;',
  "  process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, `\\nBENCH_CPU_MS ${(u.user + u.system) / 1000}\\n`); });",
  '}',
  '',
].join('\n');
let cpuPreload;

/** One process, timed from spawn to exit (what a host waits for), with its processor time; fails loudly on a hook error. */
function run(args, input, cwd, env) {
  const withCpu = { ...env, TWINING_BENCH_CPU: '1', NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(cpuPreload)}`.trim() };
  const t = now();
  const r = spawnSync(process.execPath, args, { input, cwd, env: withCpu, encoding: 'utf8' });
  const ms = now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu = /\nBENCH_CPU_MS (\S+)\n/.exec(r.stderr);
  if (!cpu) throw new Error(`node ${args.join(' ')} did not say its processor time: ${r.stderr}`);
  return { ms, cpu: Number(cpu[1]), stdout: r.stdout };
}

/** The hook commands `twining setup` wrote for Claude Code, by event: node's arguments, the project in place of $CLAUDE_PROJECT_DIR. */
function hookCommands(root) {
  const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8'));
  const out = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    const command = groups.flatMap(g => g.hooks).find(h => h.type === 'command' && h.command.includes('.agents/twining/hook.js')).command;
    const words = command.replace('"${CLAUDE_PROJECT_DIR:-.}"', root).split(' ');
    if (words[0] !== 'node') throw new Error(`unexpected hook command for ${event}: ${command}`);
    out[event] = words.slice(1);
  }
  return out;
}

/**
 * A project of `size` entries set up by the build in `dist` (its own per-user config folder, so
 * the launcher runs that build), and its hooks by event.
 */
function project(parent, name, dist, size, decisions) {
  const root = path.join(parent, name);
  fs.mkdirSync(root);
  // The per-user pointer to the installation the launcher follows, in the bench's own config folder.
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(parent, `${name}-config`), APPDATA: path.join(parent, `${name}-config`) };
  delete env.TWINING_AGENT_ID;
  delete env.TWINING_NOW;
  const cli = (...a) => {
    const r = spawnSync(process.execPath, [path.join(dist, 'cli.js'), ...a], { cwd: root, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`twining ${a.join(' ')} (${dist}): ${r.stderr}`);
  };
  cli('setup', '--yes', '--host', 'claude-code');
  buildFolder(root, size, decisions, 1000);
  const commands = hookCommands(root);
  const file = path.join(root, 'src', 'mod3', 'file3.ts');
  const common = { session_id: 'a1b2c3d4-bench', transcript_path: path.join(parent, 'transcript.jsonl'), cwd: root, permission_mode: 'default' };
  const edit = { tool_name: 'Edit', tool_input: { file_path: file, old_string: 'a', new_string: 'b' }, tool_use_id: 'toolu_1' };
  const inputs = {
    SessionStart: { ...common, hook_event_name: 'SessionStart', source: 'startup' },
    UserPromptSubmit: { ...common, hook_event_name: 'UserPromptSubmit', prompt: 'change the cache retry' },
    PreToolUse: { ...common, hook_event_name: 'PreToolUse', ...edit },
    PostToolUse: { ...common, hook_event_name: 'PostToolUse', ...edit, tool_response: { filePath: file, success: true } },
    Notification: { ...common, hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt' },
    SubagentStop: { ...common, hook_event_name: 'SubagentStop', stop_hook_active: false },
    Stop: { ...common, hook_event_name: 'Stop', stop_hook_active: false },
  };
  // A hook that waits on a loaded machine is still measured (the default 8 s would give up).
  const hook = event => run([...commands[event], '--timeout-ms', '600000'], JSON.stringify(inputs[event]), root, env);
  return { root, env, cli, commands, inputs, file, hook };
}

/** Another agent's write: a post, or a decision every third time. */
function otherWrite(p, r) {
  if (r % 3 === 2)
    p.cli(
      'decide',
      '--agent-id',
      'other-agent',
      '--domain',
      'api',
      '--scope',
      `src/mod${r % 50}/`,
      '--summary',
      `Other decision ${r}`,
      '--context',
      'c',
      '--rationale',
      'r',
    );
  else p.cli('post', '--agent-id', 'other-agent', '--entry-type', 'finding', '--scope', `src/mod${r % 50}/file1.ts`, '--summary', `Other finding ${r}`);
}

async function main() {
  const size = Number(arg('--size', 100000));
  const reps = Number(arg('--reps', 15));
  // --before DIR: another build (a checkout with dist/ built, or its dist/), run alternately with this one.
  const beforeArg = arg('--before', undefined);
  const beforeDist = beforeArg && (fs.existsSync(path.join(beforeArg, 'dist', 'hook.js')) ? path.join(beforeArg, 'dist') : path.resolve(beforeArg));
  const decisions = Math.min(size, 10000);
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-hooks-'));
  cpuPreload = path.join(parent, 'cpu-preload.js');
  fs.writeFileSync(cpuPreload, CPU_PRELOAD);
  try {
    const builds = { this: project(parent, 'project', DIST, size, decisions) };
    if (beforeDist) builds.before = project(parent, 'project-before', beforeDist, size, decisions);
    const labels = Object.keys(builds);
    const { commands, inputs, file } = builds.this;
    const events = Object.keys(inputs).filter(e => commands[e]);
    const unmeasured = Object.keys(commands).filter(e => !inputs[e]);
    if (unmeasured.length) throw new Error(`the settings name hook events this bench has no input for: ${unmeasured.join(', ')}`);

    // The session's first start assembles its briefing (and writes the hook index and the briefing cache).
    for (const b of labels) builds[b].hook('SessionStart');
    const bare = [];
    const bareCpu = [];
    const times = Object.fromEntries(labels.map(b => [b, Object.fromEntries(events.map(e => [e, []]))]));
    const cpus = Object.fromEntries(labels.map(b => [b, Object.fromEntries(events.map(e => [e, []]))]));
    const answers = {};
    for (let r = 0; r < reps + 1; r++) {
      for (const event of events) {
        const b = run(['-e', '0'], '', builds.this.root, builds.this.env);
        // Each build in turn, in an order that alternates, so that neither always runs first.
        for (const label of r % 2 ? [...labels].reverse() : labels) {
          const { ms, cpu, stdout } = builds[label].hook(event);
          if (r === 0) continue; // warm-up: the file system cache, the session's state files
          times[label][event].push(ms);
          cpus[label][event].push(cpu);
          if (label === 'this') answers[event] = stdout;
        }
        if (r > 0) {
          bare.push(b.ms);
          bareCpu.push(b.cpu);
        }
      }
    }
    if (!/DECISION/.test(answers.PreToolUse)) throw new Error(`PreToolUse named no decision for ${file}: ${answers.PreToolUse}`);

    // Another agent writes (a post, or a decision every third time), then this session starts again: no engine runs.
    const afterBare = [];
    const afterBareCpu = [];
    const after = Object.fromEntries(labels.map(b => [b, []]));
    const afterCpu = Object.fromEntries(labels.map(b => [b, []]));
    for (let r = 0; r < reps; r++) {
      for (const label of labels) otherWrite(builds[label], r);
      const b = run(['-e', '0'], '', builds.this.root, builds.this.env);
      afterBare.push(b.ms);
      afterBareCpu.push(b.cpu);
      for (const label of r % 2 ? [...labels].reverse() : labels) {
        const { ms, cpu, stdout } = builds[label].hook('SessionStart');
        if (!stdout.includes('additionalContext')) throw new Error(`SessionStart after a write gave no briefing (${label}): ${stdout.slice(0, 300)}`);
        after[label].push(ms);
        afterCpu[label].push(cpu);
      }
    }

    const bareMs = median(bare);
    const afterBareMs = median(afterBare);
    const bareCpuMs = median(bareCpu);
    const afterBareCpuMs = median(afterBareCpu);
    const result = {
      size,
      decisions,
      reps,
      node: process.version,
      loadavg: os.loadavg().map(x => +x.toFixed(2)),
      node_e_0_ms: +bareMs.toFixed(1),
      node_e_0_cpu_ms: +bareCpuMs.toFixed(1),
      events: {},
    };
    if (beforeDist) result.before = { dist: beforeDist, events: {} };
    for (const label of labels) {
      const into = label === 'this' ? result.events : result.before.events;
      for (const event of events) {
        const ms = median(times[label][event]);
        const cpu = median(cpus[label][event]);
        into[event] = { ms: +ms.toFixed(1), ratio: +(ms / bareMs).toFixed(2), target: 1.5, cpu_ms: +cpu.toFixed(1), cpu_ratio: +(cpu / bareCpuMs).toFixed(2) };
      }
      into.SessionStartAfterWrite = {
        ms: +median(after[label]).toFixed(1),
        ratio: +(median(after[label]) / afterBareMs).toFixed(2),
        target: 3,
        node_e_0_ms: +afterBareMs.toFixed(1),
        cpu_ms: +median(afterCpu[label]).toFixed(1),
        cpu_ratio: +(median(afterCpu[label]) / afterBareCpuMs).toFixed(2),
        node_e_0_cpu_ms: +afterBareCpuMs.toFixed(1),
      };
    }

    console.log(
      `Hooks as Claude Code runs them (.claude/settings.json: ${Object.keys(commands).join(', ')}): node ${process.version}, ${os.cpus().length} CPU(s), load average ${result.loadavg.join(' ')}, ${size.toLocaleString('en')} entries, ${decisions.toLocaleString('en')} decisions, medians of ${reps}${beforeDist ? `, alternating with the build in ${beforeDist}` : ''}`,
    );
    console.log(
      `| event | ms | node -e 0 (ms) | ratio | target | | CPU ms | node -e 0 CPU | CPU ratio |${beforeDist ? ' before (ms) | before ratio | before CPU ms | before CPU ratio |' : ''}`,
    );
    console.log(`|---|--:|--:|--:|--:|---|--:|--:|--:|${beforeDist ? '--:|--:|--:|--:|' : ''}`);
    for (const [event, m] of Object.entries(result.events)) {
      const b = result.before?.events[event];
      console.log(
        `| ${event} | ${m.ms} | ${m.node_e_0_ms ?? result.node_e_0_ms} | ${m.ratio}x | ${m.target}x | ${m.ratio <= m.target ? 'MET' : 'MISSED'} | ${m.cpu_ms} | ${m.node_e_0_cpu_ms ?? result.node_e_0_cpu_ms} | ${m.cpu_ratio}x |${b ? ` ${b.ms} | ${b.ratio}x | ${b.cpu_ms} | ${b.cpu_ratio}x |` : ''}`,
      );
    }
    console.log(`BENCH_HOOKS_JSON ${JSON.stringify(result)}`);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

main().catch(error => {
  console.error(error.stack || error);
  process.exit(1);
});
