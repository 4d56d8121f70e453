#!/usr/bin/env node
/**
 * Before/after of `npm run bench` in one run: every benchmark of package.json's "bench" script, for
 * another commit's build ("before") and this checkout's ("after", dist/ as built here), interleaved.
 *
 *   npm run bench:compare -- <rev> [--only run,hooks] [--rounds N] [--pass "--reps 5"] [--checkout DIR] [--keep] [--reread DIR]
 *
 * <rev> is checked out in a throwaway `git worktree add --detach` under the system's temp folder,
 * installed (`npm ci`) and built (`node esbuild.js`), and removed at the end (`--keep` leaves it;
 * `--checkout DIR` uses a checkout already built instead, and leaves it). Then, per benchmark:
 *
 *   - where the benchmark takes another build itself (hooks, mcp, merge, sync, timeline, two-x: their
 *     --before / --baseline), this checkout's script runs once per round with the old build as that
 *     option, and measures both interleaved in one process; where it cannot drive the old build (it
 *     calls what <rev> did not have), it runs again for this build alone and the table says why;
 *   - otherwise each round runs the old checkout's own script on its own build and this checkout's
 *     script on this build, one after the other, the order alternating per round (A B, then B A).
 *     Where the script did not exist at <rev>, this checkout's script is copied into the old checkout
 *     (bench-current/, so that its `../dist` is the old build) and run there; so is it where the old
 *     script fails on its own build. The table says so.
 *
 * The benchmarks' figures are read from their `BENCH_*_JSON` lines (two-x and migrate print none:
 * their text lines are read). A row measured on one side only is shown with "-" and a note,
 * never a figure made up for the other side. --rounds N (default 1) repeats everything N times:
 * the figures are then medians of the rounds' figures and the spread is the range of the rounds.
 *
 * A row is marked slower when after / before > 1.10, the difference is more than 0.5 (ms, or the
 * row's unit) and, with two rounds or more, every round of after is above every round of before
 * (the spreads do not overlap). With one round there is no spread: the mark is "slower?", to be
 * confirmed by running that benchmark alone with --rounds 3. Rows that time `node -e 0` or a bare
 * git exchange are the machine's reference, shown but not marked.
 *
 * Prints a Markdown table, the load average at the start and end of each benchmark, the logs'
 * folder (every benchmark's whole output, kept), and one line `BENCH_COMPARE_JSON {...}`.
 * `--reread DIR` reads such a folder again instead of running anything (after a change to the reading).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync, spawn } = require('child_process');

const REPO = path.resolve(__dirname, '..');

// -----------------------------------------------------------------------------------------------
// Reading the benchmarks' output

/** The object on the last line of `text` that starts with `tag ` (e.g. BENCH_HOOKS_JSON), or undefined. */
function jsonLine(text, tag) {
  const lines = text.split('\n').filter(l => l.startsWith(tag + ' '));
  if (!lines.length) return undefined;
  return JSON.parse(lines[lines.length - 1].slice(tag.length + 1));
}

/** Is this key a time in milliseconds (`cold_ms`, `openToPaintMs`, `ms`, `median_ms`)? */
const isTimeKey = key => /(^ms$|_ms$|Ms$)/.test(key);

/**
 * The time figures of a benchmark's JSON object, flattened to rows named by their path
 * ("events.PreToolUse.ms"); arrays of objects are named by an element's size/server/event/label
 * where it has one; arrays of numbers (raw runs) are left out; `skip` names keys not followed.
 */
function timeRows(value, skip = [], prefix = '') {
  const rows = {};
  if (!value || typeof value !== 'object') return rows;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (!item || typeof item !== 'object') return;
      const id = ['size', 'server', 'event', 'label', 'q'].map(k => item[k]).filter(v => v !== undefined);
      Object.assign(rows, timeRows(item, skip, `${prefix}${id.length ? id.join(' ') : i}.`));
    });
    return rows;
  }
  for (const [key, v] of Object.entries(value)) {
    if (skip.includes(key)) continue;
    if (typeof v === 'number' && isTimeKey(key)) rows[prefix + key] = v;
    else if (v && typeof v === 'object') Object.assign(rows, timeRows(v, skip, `${prefix}${key}.`));
  }
  return rows;
}

/** A number printed in a line, after `label` (a regular expression source), or undefined. */
function numberAfter(text, label) {
  const m = new RegExp(label + '\\s*(-?[0-9.]+)').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** bench/two-x.js's lines for one build ("this" or "before"): its rows by name. */
function twoXRows(text, build) {
  const rows = {};
  const put = (name, v) => v !== undefined && !Number.isNaN(v) && (rows[name] = v);
  for (const line of text.split('\n')) {
    const m = new RegExp(`^\\s+${build}\\s+(.*)$`).exec(line);
    if (!m) continue;
    const rest = m[1];
    let x;
    if ((x = /twining why (\S+) \(new process\): 2\.x ([0-9.]+) ms, 1\.x ([0-9.]+) ms/.exec(rest))) {
      put('why (new process) 2.x', Number(x[2]));
      put('why (new process) 1.x', Number(x[3]));
    } else if ((x = /^(.+?)\s+reopen \(new process: open \+ first view\) ([0-9.]+) ms, thread CPU ([0-9.]+|NaN) ms/.exec(rest))) {
      put(`reopen (new process) ${x[1]}`, Number(x[2]));
      put(`reopen (new process) ${x[1]}, thread CPU`, Number(x[3]));
    } else if ((x = /^(.+?)\s+open again in this process ([0-9.]+) ms.*?(?:another process's post seen ([0-9.]+) ms)?$/.exec(rest))) {
      put(`open again in this process ${x[1]}`, Number(x[2]));
      if (x[3] !== undefined) put(`another process's post seen ${x[1]}`, Number(x[3]));
    } else if ((x = /^(.+?)\s+post: an engine's first ([0-9.]+) ms, the next ([0-9.]+) ms; `twining post` \(new process\) ([0-9.]+) ms/.exec(rest))) {
      put(`post, an engine's first ${x[1]}`, Number(x[2]));
      put(`post, the next ${x[1]}`, Number(x[3]));
      put(`twining post (new process) ${x[1]}`, Number(x[4]));
    }
  }
  return rows;
}

/** bench/migrate.js's summary line. */
function migrateRows(text) {
  const rows = {};
  for (const [name, label] of [
    ['dry run', 'dry run'],
    ['files → sqlite', 'files → sqlite'],
    ['again (nothing to write)', 'again \\(nothing to write\\)'],
    ['sqlite → files', 'sqlite → files'],
  ]) {
    const v = numberAfter(text, `  ${label}`);
    if (v !== undefined) rows[name] = v;
  }
  return rows;
}

/** The rows of one side of an "own" benchmark's JSON whose other side is in `before` (or is named by a prefix). */
const ownJson = (tag, split) => text => {
  const json = jsonLine(text, tag);
  if (!json) return undefined;
  return split(json);
};

/**
 * The benchmarks of `npm run bench`, in its order. `rows(text)` gives { row: value } for an
 * A/B benchmark; an own-before one gives { before, after }. `own(old)` is the option naming the old build.
 */
const BENCHES = [
  { name: 'run', rows: t => timeRows(jsonLine(t, 'BENCH_JSON')?.results) },
  { name: 'context', rows: t => timeRows(jsonLine(t, 'BENCH_CONTEXT_JSON')) },
  { name: 'search', rows: t => timeRows(jsonLine(t, 'BENCH_SEARCH_JSON')?.result, ['queries']) },
  {
    name: 'merge',
    own: old => ['--before', path.join(old, 'dist', 'cli.js')],
    rows: ownJson('BENCH_MERGE_JSON', j => ({ after: pick(j, MERGE_KEYS), before: j.before && pick(j.before, MERGE_KEYS) })),
  },
  { name: 'recovery', rows: t => timeRows(jsonLine(t, 'BENCH_RECOVERY_JSON')) },
  {
    name: 'activation',
    rows: t => {
      const j = jsonLine(t, 'BENCH_ACTIVATION_JSON');
      if (!j) return undefined;
      const rows = {};
      for (const [k, s] of Object.entries(j.stats ?? {})) if (isTimeKey(k)) rows[k] = s.median;
      // The work per change while 200 handoffs are listed: milliseconds until the extension is idle again.
      for (const w of j.work?.find(b => b.build === 'this build')?.work ?? []) if (typeof w.ms === 'number') rows[`until idle: ${w.name}`] = w.ms;
      return rows;
    },
  },
  {
    name: 'mcp',
    own: old => ['--before', path.join(old, 'dist', 'cli.js')],
    rows: ownJson('BENCH_MCP_JSON', j => {
      // Each row named by its size alone (its server and label say which build).
      const side = key =>
        timeRows(j.rows.filter(r => r.server === key).map(r => Object.fromEntries(Object.entries(r).filter(([k]) => k === 'size' || isTimeKey(k)))));
      return { after: side('ours'), before: side('before') };
    }),
  },
  {
    name: 'tool-list',
    rows: t => {
      const j = jsonLine(t, 'BENCH_TOOL_LIST_JSON');
      if (!j) return undefined;
      return Object.fromEntries(j.rows.filter(r => r.server === 'twining mcp').map(r => [`${r.settings}: tokens`, r.tokens]));
    },
  },
  { name: 'claims', rows: t => timeRows(jsonLine(t, 'BENCH_CLAIMS_JSON')) },
  { name: 'worktree-hook', rows: t => timeRows(jsonLine(t, 'BENCH_WORKTREE_HOOK_JSON')) },
  { name: 'briefing', rows: t => timeRows(jsonLine(t, 'BENCH_BRIEFING_JSON')) },
  { name: 'hook-launcher', rows: t => timeRows(jsonLine(t, 'BENCH_HOOK_LAUNCHER_JSON')) },
  {
    name: 'hooks',
    own: old => ['--before', path.join(old, 'dist')],
    rows: ownJson('BENCH_HOOKS_JSON', j => ({
      after: { ...timeRows(j.events), node_e_0_ms: j.node_e_0_ms },
      before: j.before && { ...timeRows(j.before.events), node_e_0_ms: j.node_e_0_ms },
    })),
  },
  {
    name: 'two-x',
    sqlite: true,
    own: old => ['--before', path.join(old, 'dist')],
    rows: t => (/^\s+this\s/m.test(t) ? { after: twoXRows(t, 'this'), before: twoXRows(t, 'before') } : undefined),
  },
  { name: 'migrate', sqlite: true, rows: t => (/^migrate at /m.test(t) ? migrateRows(t) : undefined) },
  {
    name: 'sync',
    own: old => ['--baseline', path.join(old, 'dist')],
    rows: ownJson('BENCH_SYNC_JSON', j => ({
      after: { sync_ms: j.sync_ms, library_sync_ms: j.library_sync_ms, bare_fetch_push_ms: j.bare_fetch_push_ms },
      before:
        j.baseline_sync_ms === undefined
          ? undefined
          : { sync_ms: j.baseline_sync_ms, library_sync_ms: j.baseline_library_sync_ms, bare_fetch_push_ms: j.bare_fetch_push_ms },
    })),
  },
  {
    name: 'timeline',
    own: old => ['--before', old],
    rows: ownJson('BENCH_TIMELINE_JSON', j => {
      const { before, ...after } = j;
      return { after: timeRows(after, ['runs']), before: before && timeRows(before, ['runs']) };
    }),
  },
];
const MERGE_KEYS = ['medianWallMs', 'maxWallMs', 'medianCpuMs', 'medianPeakRssMB'];
const pick = (o, keys) => Object.fromEntries(keys.filter(k => typeof o[k] === 'number').map(k => [k, o[k]]));

/** Rows that time the machine, not the build: shown, never marked. */
const isReference = row => /node_e_?0|bare_|^bare|baseline_parse/.test(row);

// -----------------------------------------------------------------------------------------------
// Comparing

const median = values => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The verdict on one row from the rounds' figures of each side: { before, after, ratio, mark }.
 * mark: 'slower' (beyond noise, see the header), 'slower?' (one round: not confirmed), '' otherwise.
 */
function judge(row, beforeValues, afterValues) {
  const before = median(beforeValues);
  const after = median(afterValues);
  const ratio = before > 0 ? after / before : NaN;
  let mark = '';
  if (!isReference(row) && ratio > 1.1 && after - before > 0.5) {
    if (beforeValues.length < 2 || afterValues.length < 2) mark = 'slower?';
    else if (Math.min(...afterValues) > Math.max(...beforeValues)) mark = 'slower';
  }
  return { before, after, ratio, mark };
}

/** The table's rows for one benchmark: rounds = [{ before: {row: v} | undefined, after: … }, …]. */
function compareRounds(rounds) {
  const names = [];
  for (const r of rounds) for (const side of ['before', 'after']) for (const k of Object.keys(r[side] ?? {})) if (!names.includes(k)) names.push(k);
  return names.map(row => {
    const values = side => rounds.map(r => r[side]?.[row]).filter(v => typeof v === 'number' && !Number.isNaN(v));
    const b = values('before');
    const a = values('after');
    if (!b.length || !a.length)
      return {
        row,
        before: b.length ? median(b) : undefined,
        after: a.length ? median(a) : undefined,
        mark: '',
        note: !b.length ? 'not measured before' : 'not measured after',
      };
    return { row, ...judge(row, b, a), spreadBefore: [Math.min(...b), Math.max(...b)], spreadAfter: [Math.min(...a), Math.max(...a)] };
  });
}

const fmt = v => (v === undefined ? '-' : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const spread = s => (s && s[0] !== s[1] ? `${fmt(s[0])}-${fmt(s[1])}` : '');

/** The Markdown table of every benchmark's rows. */
function table(results, rounds) {
  const out = ['| benchmark | row | before | after | after / before | spread before; after | |', '|---|---|--:|--:|--:|---|---|'];
  for (const r of results) {
    if (r.error && !r.rows.length) {
      out.push(`| ${r.name} | - | - | - | - | | ${r.error} |`);
      continue;
    }
    r.rows.forEach((x, i) => {
      const s = x.spreadBefore && rounds > 1 ? `${spread(x.spreadBefore) || 'one value'}; ${spread(x.spreadAfter) || 'one value'}` : '';
      const note = [x.mark && `**${x.mark}**`, x.note, i === 0 && r.note, i === 0 && r.error].filter(Boolean).join('; ');
      out.push(
        `| ${i === 0 ? r.name : ''} | ${x.row} | ${fmt(x.before)} | ${fmt(x.after)} | ${x.ratio === undefined || Number.isNaN(x.ratio) ? '-' : x.ratio.toFixed(2) + 'x'} | ${s} | ${note} |`,
      );
    });
  }
  return out.join('\n');
}

// -----------------------------------------------------------------------------------------------
// Running

const load = () =>
  os
    .loadavg()
    .map(n => n.toFixed(2))
    .join(' ');

function sh(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', process.stderr, process.stderr] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} in ${cwd} failed (exit ${r.status})`);
}

/** Runs one benchmark process; its output goes to `log` and is returned. */
/** An earlier run's log, as runBench would have returned it (its exit status unknown: 0 when the log exists). */
function readLog(log) {
  return fs.existsSync(log) ? { text: fs.readFileSync(log, 'utf8'), code: 0, seconds: 0 } : { text: '', code: `no log ${path.basename(log)}`, seconds: 0 };
}

function runBench(node, script, args, cwd, log) {
  return new Promise(resolve => {
    const started = Date.now();
    const child = spawn(node, [script, ...args], { cwd, env: { ...process.env, TWINING_BENCH_CORE: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const out = fs.createWriteStream(log);
    const take = chunk => {
      text += chunk;
      out.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', code => {
      out.end();
      resolve({ text, code, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** The first error a benchmark's output names, shortened for the table (", Error: …"), or "". */
function reason(text) {
  const m = /\b(\w*Error: [^\n]*)/.exec(text);
  return m ? `: ${m[1].replace(/\|/g, '/').slice(0, 140)}` : '';
}

/** The benchmarks an npm "bench" script runs, in its order (`node bench/x.js`, `node scripts/sqlite-node.js bench/x.js`). */
const benchList = script => [...script.matchAll(/bench\/([\w-]+)\.js/g)].map(m => m[1]);

/** A benchmark's rows from its output, or undefined (the reason added to `errors`). */
function readRows(bench, text, errors, side) {
  try {
    return bench.rows(text);
  } catch (error) {
    errors.add(`${side}: its output could not be read: ${error.message}`);
    return undefined;
  }
}

function argValue(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
}

async function main() {
  const argv = process.argv.slice(2);
  const rev = argv[0];
  if (!rev || rev.startsWith('--'))
    throw new Error('usage: node bench/compare.js <rev> [--only run,hooks] [--rounds N] [--pass "ARGS"] [--checkout DIR] [--keep]');
  const rounds = Number(argValue(argv, '--rounds', 1));
  const only = argValue(argv, '--only', undefined)?.split(',');
  const pass = (argValue(argv, '--pass', '') ?? '').split(' ').filter(Boolean);
  const unknown = (only ?? []).filter(n => !BENCHES.some(b => b.name === n));
  if (unknown.length) throw new Error(`no benchmark named ${unknown.join(', ')} (there are: ${BENCHES.map(b => b.name).join(', ')})`);
  const listed = benchList(JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts.bench);
  if (listed.join() !== BENCHES.map(b => b.name).join())
    throw new Error(`package.json's bench script runs ${listed.join(', ')}; this tool knows ${BENCHES.map(b => b.name).join(', ')}: teach it the difference`);
  const benches = BENCHES.filter(b => !only || only.includes(b.name));
  if (!fs.existsSync(path.join(REPO, 'dist', 'core.js'))) throw new Error(`no build in ${path.join(REPO, 'dist')}: run node esbuild.js first`);

  const sha = spawnSync('git', ['rev-parse', '--short', rev], { cwd: REPO, encoding: 'utf8' }).stdout.trim();
  if (!sha) throw new Error(`git does not know ${rev}`);
  const here = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).stdout.trim();
  // --reread DIR: the logs of an earlier run read again (after a change to how they are read), nothing run.
  const reread = argValue(argv, '--reread', undefined);
  const given = argValue(argv, '--checkout', undefined) ?? (reread && os.tmpdir());
  const exec = reread ? (node, file, args, cwd, log) => readLog(path.join(reread, path.basename(log))) : runBench;
  const temp = given ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'twining-compare-'));
  const old = given ? path.resolve(given) : path.join(temp, 'tree');
  const logs = reread ? path.resolve(reread) : fs.mkdtempSync(path.join(os.tmpdir(), 'twining-compare-logs-'));
  const cleanUp = () => {
    if (given && !reread) fs.rmSync(path.join(old, 'bench-current'), { recursive: true, force: true });
    if (!temp || argv.includes('--keep')) return;
    spawnSync('git', ['worktree', 'remove', '--force', old], { cwd: REPO, stdio: 'ignore' });
    fs.rmSync(temp, { recursive: true, force: true });
    spawnSync('git', ['worktree', 'prune'], { cwd: REPO, stdio: 'ignore' });
  };
  process.on('SIGINT', () => {
    cleanUp();
    process.exit(130);
  });
  const results = [];
  const startLoad = load();
  try {
    if (!given) {
      process.stderr.write(`compare: checking out ${sha} in ${old}\n`);
      sh('git', ['worktree', 'add', '--detach', old, sha], REPO);
      sh('npm', ['ci', '--no-audit', '--no-fund'], old);
      sh(process.execPath, ['esbuild.js'], old);
    }
    const { sqliteNode } = require(path.join(REPO, 'scripts', 'sqlite-node.js'));
    // This checkout's scripts, for the benchmarks <rev> did not have: in the old checkout, so that `../dist` is its build.
    const copied = path.join(old, 'bench-current');
    if (!reread) fs.cpSync(path.join(REPO, 'bench'), copied, { recursive: true });

    for (const bench of benches) {
      const node = bench.sqlite ? sqliteNode() : process.execPath;
      const script = `${bench.name}.js`;
      const result = { name: bench.name, rows: [], loadStart: load() };
      const perRound = [];
      const notes = new Set();
      const errors = new Set();
      for (let r = 0; r < rounds; r++) {
        if (bench.own) {
          process.stderr.write(`compare: ${bench.name} (both builds, --${bench.own(old)[0].slice(2)}) round ${r + 1}/${rounds}, load ${load()}\n`);
          const log = path.join(logs, `${bench.name}-${r + 1}.log`);
          const run = await exec(node, path.join(REPO, 'bench', script), [...bench.own(old), ...pass], REPO, log);
          let rows = readRows(bench, run.text, errors, 'both');
          if (run.code !== 0) errors.add(`exit ${run.code} (${path.basename(log)}${reason(run.text)})`);
          notes.add("this checkout's script, both builds in one process");
          if (!rows?.after || !Object.keys(rows.after).length) {
            // The script could not drive the old build (it calls what <rev> did not have): this build alone, for its figures.
            const alone = await exec(node, path.join(REPO, 'bench', script), pass, REPO, log.replace(/\.log$/, '-after-alone.log'));
            const after = readRows(bench, alone.text, errors, 'after alone');
            if (alone.code !== 0) errors.add(`after alone: exit ${alone.code}${reason(alone.text)}`);
            rows = { before: undefined, after: after?.after };
            notes.add('the old build could not be measured by it: this build alone');
          } else if (!rows.before || !Object.keys(rows.before).length) errors.add(`the old build measured nothing (${path.basename(log)})`);
          perRound.push(rows);
          continue;
        }
        const sides = {};
        const order = r % 2 ? ['after', 'before'] : ['before', 'after'];
        for (const side of order) {
          let cwd = REPO;
          let file = path.join(REPO, 'bench', script);
          if (side === 'before') {
            cwd = old;
            file = path.join(old, 'bench', script);
            if (spawnSync('git', ['cat-file', '-e', `${sha}:bench/${script}`], { cwd: REPO }).status !== 0) {
              file = path.join(copied, script);
              notes.add(`not at ${sha}: this checkout's script on the old build`);
            }
          }
          process.stderr.write(`compare: ${bench.name} (${side}) round ${r + 1}/${rounds}, load ${load()}\n`);
          const log = path.join(logs, `${bench.name}-${side}-${r + 1}.log`);
          let run = await exec(node, file, pass, cwd, log);
          let rows = readRows(bench, run.text, errors, side);
          if (side === 'before' && !rows && file !== path.join(copied, script)) {
            // The old script could not drive its build: this checkout's script on the old build.
            errors.add(`the old script failed (exit ${run.code}, ${path.basename(log)}${reason(run.text)})`);
            notes.add(`this checkout's script on the old build`);
            run = await exec(node, path.join(copied, script), pass, cwd, log.replace(/\.log$/, '-current.log'));
            rows = readRows(bench, run.text, errors, side);
          }
          if (run.code !== 0 || !rows) errors.add(`${side}: exit ${run.code}${rows ? '' : ', no figures'} (${path.basename(log)}${reason(run.text)})`);
          sides[side] = rows;
        }
        perRound.push(sides);
      }
      result.rows = compareRounds(perRound);
      result.loadEnd = load();
      result.note = [...notes].join('; ');
      result.error = [...errors].join('; ');
      results.push(result);
      process.stderr.write(`compare: ${bench.name} done, load ${result.loadEnd}\n`);
    }
  } finally {
    cleanUp();
  }
  const slower = results.flatMap(r => r.rows.filter(x => x.mark).map(x => `${r.name}: ${x.row} (${x.ratio.toFixed(2)}x)`));
  console.log(`\nnpm run bench, ${sha} (before) against ${here} (after), ${rounds} round(s); load average at the start ${startLoad}, at the end ${load()}`);
  console.log(`${os.cpus().length} CPU(s), node ${process.version}; every benchmark's output is in ${logs}\n`);
  console.log(table(results, rounds));
  console.log('\nload average per benchmark (start; end): ' + results.map(r => `${r.name} ${r.loadStart}; ${r.loadEnd}`).join(' | '));
  console.log(slower.length ? `\nslower beyond the rule: ${slower.join(', ')}` : '\nno row slower beyond the rule');
  console.log(`BENCH_COMPARE_JSON ${JSON.stringify({ before: sha, after: here, rounds, loadavg: { start: startLoad, end: load() }, logs, results })}`);
}

module.exports = { reason, benchList, jsonLine, timeRows, twoXRows, migrateRows, judge, compareRounds, table, BENCHES };

if (require.main === module)
  main().catch(error => {
    console.error(`compare: ${error.message}`);
    process.exit(1);
  });
