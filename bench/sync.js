#!/usr/bin/env node
/**
 * Benchmark of `twining sync` (dist/cli.js and dist/core.js; build first): a clone whose record
 * holds --entries blackboard entries (default 100,000, about 40 MB) syncs with a bare remote on
 * this machine; then, --reps times (default 5), each of these in turn, interleaved:
 *
 *   - bare git: a commit of 10 entries' bytes on a plain branch of the same clone (not timed), then
 *     `git fetch` + `git push` of it to the same remote (timed inside a shell, so git is started
 *     from a small process as from a terminal);
 *   - library: 10 posts, then `engine.sync()` on the warm engine that posted them (the automatic
 *     sync a user gets from the extension and `twining mcp`);
 *   - CLI: 10 posts, then `twining sync` as a new process (timed inside a shell, as the bare exchange is).
 *
 * Medians of each, their ratios to bare git (target: at most 2x), and what each incremental sync
 * added to the remote (objects and bytes: only the new part, its tree, the root tree and the
 * commit). Prints os.loadavg() with the figures (the machine is shared) and one line
 * `BENCH_SYNC_JSON {...}`.
 *
 * `--latency-ms N` puts the remote behind a connection that takes N ms to open (git's ext:: transport
 * running a script that waits, then the remote's upload-pack or receive-pack), as a remote across a
 * network does: each exchange with it (a fetch, a push) pays it once, the bare exchange twice.
 *
 * `--baseline DIR` (a `dist/` built from another commit, e.g. copied aside before a change) adds
 * the same incremental sync by that build's CLI, and by that build's own warm engine (its
 * core.js, opened on the same clone), to every round, interleaved: before and after in one run,
 * on the same clone, with their ratio.
 */
'use strict';
const { arg, median, now } = require('./measure');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const CLI = path.resolve(__dirname, '../dist/cli.js');
const CORE = path.resolve(__dirname, '../dist/core.js');

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function objectsIn(repo) {
  // Loose objects and their bytes (a small push is unpacked into loose objects by the remote).
  const out = git(repo, 'count-objects', '-v');
  const get = k => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(out)[1]);
  return { objects: get('count') + get('in-pack'), kib: get('size') + get('size-pack') };
}

/**
 * The bytes a push of `to` sends to a remote that has `from`: the pack git push makes (it runs
 * `git pack-objects --all-progress-implied --revs --stdout --thin --delta-base-offset` with the remote's
 * tips as the objects not to send), made again here the same way and counted. The remote's own growth
 * (objectsIn) is larger: a push of fewer than 100 objects is stored unpacked, each object whole.
 */
function packKiB(repo, from, to) {
  const r = spawnSync('git', ['pack-objects', '--revs', '--stdout', '--thin', '--delta-base-offset', '-q'], {
    cwd: repo,
    input: `${to}\n${from ? `^${from}\n` : ''}`,
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`git pack-objects: ${r.stderr}`);
  return +(r.stdout.length / 1024).toFixed(2);
}

const recordTip = remote => git(remote, 'rev-parse', '--verify', '-q', 'refs/heads/twining/record');

function entryLine(i, t) {
  const id = `01M8${String(i).padStart(22, '0')}`.slice(0, 26).replace(/[ILOU]/g, '0');
  return JSON.stringify({
    id,
    entry_type: ['finding', 'warning', 'status', 'need'][i % 4],
    summary: `Entry ${i}: the handler in src/mod${i % 50}/file${i % 7}.ts retries on a timeout without a backoff`,
    detail: `Seen while working on ticket ${i}; the retry loop spins when the upstream returns 503 and nothing records it.`,
    tags: ['bench', `mod${i % 50}`],
    scope: `src/mod${i % 50}/file${i % 7}.ts`,
    agent_id: `agent-${i % 20}`,
    timestamp: new Date(t + i * 1000).toISOString(),
  });
}

async function main() {
  for (const f of [CLI, CORE]) if (!fs.existsSync(f)) throw new Error(`${f} is missing; build first (node esbuild.js)`);
  const entries = Number(arg('--entries', 100000));
  const reps = Number(arg('--reps', 5));
  const latencyMs = Number(arg('--latency-ms', 0));
  const baselineDir = arg('--baseline', undefined);
  const baselineCli = baselineDir ? path.resolve(baselineDir, 'cli.js') : undefined;
  if (baselineCli && !fs.existsSync(baselineCli)) throw new Error(`${baselineCli} is missing`);
  const baselineCore = baselineDir ? path.resolve(baselineDir, 'core.js') : undefined;
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-sync-'));
  try {
    const remote = path.join(top, 'remote.git');
    git(top, 'init', '-q', '--bare', '-b', 'main', remote);
    const a = path.join(top, 'a');
    git(top, 'init', '-q', '-b', 'main', a);
    git(a, 'config', 'user.email', 'bench@example.com');
    git(a, 'config', 'user.name', 'Bench');
    git(a, 'config', 'commit.gpgsign', 'false');
    fs.writeFileSync(path.join(a, 'README.md'), '# bench\n');
    git(a, 'add', '-A');
    git(a, 'commit', '-q', '-m', 'code');
    if (latencyMs > 0) {
      // ext::<command> <arguments> with %s the service (upload-pack, receive-pack); allowed in this clone only.
      const slow = path.join(top, 'slow-remote');
      fs.writeFileSync(slow, `#!/bin/sh\nsleep ${latencyMs / 1000}\nexec git "$1" "$2"\n`, { mode: 0o755 });
      git(a, 'config', 'protocol.ext.allow', 'always');
      git(a, 'remote', 'add', 'origin', `ext::${slow} %s ${remote}`);
    } else git(a, 'remote', 'add', 'origin', remote);
    git(a, 'push', '-q', '-u', 'origin', 'main');
    const core = require(CORE);
    const ws = await core.openWorkspace(a, { warn: () => undefined });
    await ws.init();
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    // A long history kept whole: archiving off (0), else the first post would move it to archive/
    // (config's default, 500 entries) and every sync after it would carry a blackboard of a few entries.
    const config = path.join(a, '.twining', 'config.yml');
    const configText = fs.readFileSync(config, 'utf8');
    if (!/max_blackboard_entries_before_archive: \d+/.test(configText)) throw new Error(`${config} has no archive threshold to turn off`);
    fs.writeFileSync(config, configText.replace(/max_blackboard_entries_before_archive: \d+/, 'max_blackboard_entries_before_archive: 0'));
    const lines = [];
    for (let i = 0; i < entries; i++) lines.push(entryLine(i, t0));
    fs.writeFileSync(path.join(a, '.twining', 'blackboard.jsonl'), lines.join('\n') + '\n');
    const size = fs.statSync(path.join(a, '.twining', 'blackboard.jsonl')).size;
    let t = now();
    const first = spawnSync(process.execPath, [CLI, 'sync', '--json'], { cwd: a, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (first.status !== 0) throw new Error(first.stderr);
    const firstMs = now() - t;
    // The plain branch for the bare exchange, pushed once.
    git(a, 'worktree', 'add', '-q', '-b', 'bench-plain', path.join(top, 'plain'));
    const plain = path.join(top, 'plain');
    git(plain, 'push', '-q', 'origin', 'bench-plain');
    const baseWs = baselineCore ? await require(baselineCore).openWorkspace(a, { warn: () => undefined }) : undefined;
    const baselineLibraryMs = [];
    const syncMs = [];
    const libraryMs = [];
    const baselineMs = [];
    const bareMs = [];
    const bareSentKiB = [];
    const added = [];
    // A new process timed inside a shell, as from a terminal (see the bare exchange below): started from this
    // process, which holds the engines and a 40 MB record, it would first pay for copying this one's memory map.
    const out = path.join(top, 'cli-out.json');
    const cliTimed = cli => {
      t = now();
      const r = spawnSync('sh', ['-c', 's=$(date +%s%N); "$0" "$@" > "$OUT"; c=$?; echo $s $(date +%s%N) $c', process.execPath, cli, 'sync', '--json'], {
        cwd: a,
        encoding: 'utf8',
        env: { ...process.env, OUT: out },
        maxBuffer: 1 << 26,
      });
      const outside = now() - t;
      const [from, to, code] = r.stdout.trim().split(' ').map(Number);
      if (r.status !== 0 || code !== 0) throw new Error(`${cli} sync: ${r.stderr}`);
      return { ms: Number.isFinite(to - from) && to > from ? (to - from) / 1e6 : outside, stdout: fs.readFileSync(out, 'utf8') };
    };
    const post10 = async (rep, label) => {
      const fresh = [];
      for (let i = 0; i < 10; i++) {
        const e = await ws.post({
          entry_type: 'finding',
          summary: `rep ${rep}${label} new entry ${i}: the cache key misses the locale`,
          scope: `src/mod${i}/`,
          agent_id: 'bench',
        });
        fresh.push(JSON.stringify(e));
      }
      return fresh;
    };
    for (let rep = 0; rep < reps; rep++) {
      if (baselineCli) {
        await post10(rep, ' (baseline)');
        baselineMs.push(cliTimed(baselineCli).ms);
        await post10(rep, ' (baseline library)');
        t = now();
        await baseWs.sync();
        baselineLibraryMs.push(now() - t);
      }
      await post10(rep, ' (library)');
      let before = objectsIn(remote);
      let tipBefore = recordTip(remote);
      t = now();
      const lib = await ws.sync();
      libraryMs.push(now() - t);
      let after = objectsIn(remote);
      added.push({
        by: 'library',
        objects: after.objects - before.objects,
        kib: after.kib - before.kib,
        sent_kib: packKiB(a, tipBefore, recordTip(remote)),
        new_blobs: lib.new_blobs,
      });
      const fresh = await post10(rep, '');
      before = objectsIn(remote);
      tipBefore = recordTip(remote);
      const r = cliTimed(CLI);
      syncMs.push(r.ms);
      after = objectsIn(remote);
      added.push({
        by: 'cli',
        objects: after.objects - before.objects,
        kib: after.kib - before.kib,
        sent_kib: packKiB(a, tipBefore, recordTip(remote)),
        new_blobs: JSON.parse(r.stdout).new_blobs,
      });
      // The same bytes through plain git: a commit (not timed), then fetch + push (timed).
      fs.writeFileSync(path.join(plain, `rep-${rep}.jsonl`), fresh.join('\n') + '\n');
      git(plain, 'add', '-A');
      git(plain, 'commit', '-q', '-m', `rep ${rep}`);
      bareSentKiB.push(packKiB(plain, git(plain, 'rev-parse', 'HEAD~1'), git(plain, 'rev-parse', 'HEAD')));
      // Timed inside a shell, as a person would run them: started from this process, which holds the
      // engines and a 40 MB record, each git would first pay for copying its memory map (fork).
      t = now();
      const bare = spawnSync('sh', ['-c', 's=$(date +%s%N) && git fetch -q origin && git push -q origin bench-plain && echo $s $(date +%s%N)'], {
        cwd: plain,
        encoding: 'utf8',
      });
      const outside = now() - t;
      if (bare.status !== 0) throw new Error(`bare fetch + push: ${bare.stderr}`);
      const [from, to] = bare.stdout.trim().split(' ').map(Number);
      bareMs.push(Number.isFinite(to - from) && to > from ? (to - from) / 1e6 : outside); // date without %N (macOS): timed from here
    }
    const result = {
      entries,
      latency_ms: latencyMs,
      blackboard_mb: +(size / 1e6).toFixed(1),
      first_sync_ms: Math.round(firstMs),
      library_sync_ms: median(libraryMs),
      sync_ms: median(syncMs),
      bare_fetch_push_ms: median(bareMs),
      library_ratio: +(median(libraryMs) / median(bareMs)).toFixed(2),
      ratio: +(median(syncMs) / median(bareMs)).toFixed(2),
      ...(baselineCli
        ? {
            baseline_sync_ms: median(baselineMs),
            baseline_ratio: +(median(baselineMs) / median(bareMs)).toFixed(2),
            baseline_library_sync_ms: median(baselineLibraryMs),
            baseline_library_ratio: +(median(baselineLibraryMs) / median(bareMs)).toFixed(2),
          }
        : {}),
      sent_kib: median(added.map(x => x.sent_kib)),
      bare_sent_kib: median(bareSentKiB),
      added_to_remote: added,
      loadavg: os.loadavg().map(x => +x.toFixed(2)),
    };
    console.log(
      `sync at ${entries} entries (${result.blackboard_mb} MB blackboard)${latencyMs ? `, a remote ${latencyMs} ms away` : ''}, medians of ${reps}, load average ${result.loadavg.join(' ')}`,
    );
    console.log(`  first sync (everything out):                 ${result.first_sync_ms} ms`);
    console.log(`  bare git fetch + push of the same 10 entries: ${result.bare_fetch_push_ms} ms`);
    console.log(`  incremental engine.sync() after 10 posts:     ${result.library_sync_ms} ms (${result.library_ratio}x bare; target at most 2x)`);
    console.log(`  incremental \`twining sync\` after 10 posts:  ${result.sync_ms} ms (${result.ratio}x bare)`);
    if (baselineCli) {
      console.log(`  the same by the --baseline build's engine:    ${result.baseline_library_sync_ms} ms (${result.baseline_library_ratio}x bare)`);
      console.log(`  the same by the --baseline build's CLI:       ${result.baseline_sync_ms} ms (${result.baseline_ratio}x bare)`);
    }
    console.log(`  sent per sync (the pack git push makes), median: ${result.sent_kib} KiB; the bare push of the same entries: ${result.bare_sent_kib} KiB`);
    console.log(`  added to the remote per sync (stored unpacked): ${added.map(x => `${x.by} ${x.objects} objects / ${x.kib} KiB`).join(', ')}`);
    console.log(`BENCH_SYNC_JSON ${JSON.stringify(result)}`);
  } finally {
    if (!process.env.TWINING_KEEP_TMP) fs.rmSync(top, { recursive: true, force: true });
  }
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
