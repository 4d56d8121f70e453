'use strict';
/**
 * twining-mcp 2.x's SQLite folder against the same records in a 1.x folder, at --decisions (3000)
 * and --posts (20000), medians over --runs (default 5):
 *  - `twining why <file>` from a new process (the CLI, as an agent's shell runs it), 2.x against
 *    1.x, interleaved, and their ratio;
 *  - reopen, as a window reopening the folder does it: a new process (bench/reopen-runner.js) loads
 *    the engine, opens the folder and reads its first view (refresh, the decision list, the last
 *    50 entries, status); the open + first view after the engine's load, 2.x against 1.x, and
 *    their ratio, in wall time and in that thread's CPU time (Node 23.9+), which the machine's
 *    other load changes far less;
 *  - the same open again in this process (an engine closed and opened on the folder, each after
 *    the first: what a process keeps from its last read helps here and nowhere else);
 *  - one write by another process seen (a post: a row + its record file, or a 1.x line) through
 *    refresh(paths);
 *  - our own writes: an open engine's first post and the one after it, and `twining post` from a
 *    new process (the CLI, as a hook or an agent's shell runs it), 2.x against 1.x.
 * `--before DIR`: another build's dist/ (say, main's) measured in the same run, interleaved with
 * this one, for a before/after of the same rows. Prints os.loadavg() with the figures. Needs
 * node:sqlite (Node 22.13+): under an older Node it says so and measures nothing.
 *
 *   node bench/two-x.js [--decisions 3000] [--posts 20000] [--runs 5] [--before ../main/dist] [--only reopen]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { arg, median, timed, now } = require('./measure');

let DatabaseSync;
try {
  ({ DatabaseSync } = require('node:sqlite'));
} catch {
  console.log(`two-x: skipped, this Node (${process.version}) has no node:sqlite (run it with Node 22.13 or later)`);
  process.exit(0);
}

const DECISIONS = Number(arg('--decisions', 3000));
const POSTS = Number(arg('--posts', 20000));
const RUNS = Number(arg('--runs', 5));
/** `--only reopen`: the new-process reopen alone (the other figures take several minutes). */
const ONLY = arg('--only', undefined);
const BEFORE = arg('--before', undefined);
/** The builds measured: this one, and with --before another one's dist/. */
const BUILDS = [['this', path.join(__dirname, '..', 'dist')], ...(BEFORE ? [['before', path.resolve(BEFORE)]] : [])];
const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : '-');
const load = () =>
  os
    .loadavg()
    .map(n => n.toFixed(2))
    .join(' ');

const sorted = v =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map(k => [k, sorted(v[k])]),
        )
      : v;
const recordText = v => JSON.stringify(sorted(v), null, 2) + '\n';
const { ulid, fieldDecision, indexEntryOf } = require('./field-records');
const { firstView } = require('./reopen-runner');

function records() {
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const decisions = [];
  const posts = [];
  for (let i = 0; i < DECISIONS; i++) {
    decisions.push(fieldDecision(i, base + i * 60000));
  }
  for (let i = 0; i < POSTS; i++) {
    const t = base + i * 9000;
    posts.push({
      entry_type: ['finding', 'warning', 'status', 'need'][i % 4],
      summary: `Post ${i}`,
      detail: 'd'.repeat(100),
      tags: [],
      scope: `src/m${i % 50}/`,
      agent_id: 'bench',
      id: ulid(t, 1e6 + i),
      timestamp: new Date(t).toISOString(),
    });
  }
  return { decisions, posts };
}

function oneX(root, { decisions, posts }) {
  const dir = path.join(root, '.twining');
  fs.mkdirSync(path.join(dir, 'decisions'), { recursive: true });
  for (const sub of ['handoffs', 'agents', 'graph']) fs.mkdirSync(path.join(dir, sub));
  fs.writeFileSync(path.join(dir, 'config.yml'), 'version: 1\nproject_name: bench\nstorage:\n  backend: files\n');
  fs.writeFileSync(path.join(dir, 'blackboard.jsonl'), posts.map(p => JSON.stringify(p) + '\n').join(''));
  for (const d of decisions) fs.writeFileSync(path.join(dir, 'decisions', `${d.id}.json`), JSON.stringify(d, null, 2));
  const index = decisions.map(indexEntryOf);
  fs.writeFileSync(path.join(dir, 'decisions', 'index.json'), JSON.stringify(index, null, 2));
  fs.writeFileSync(path.join(dir, 'agents', 'registry.json'), '[]');
}

function twoX(root, { decisions, posts }) {
  const dir = path.join(root, '.twining');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.yml'), 'version: 2\nproject_name: bench\nstorage:\n  backend: sqlite\n');
  const db = new DatabaseSync(path.join(dir, 'twining.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
  db.exec(`CREATE TABLE blackboard (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, entry_type TEXT NOT NULL, scope TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE decisions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, status TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE entities (id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE relations (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, source TEXT NOT NULL, target TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE agents (agent_id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE handoffs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, data TEXT NOT NULL, index_data TEXT NOT NULL);
PRAGMA user_version = 1;`);
  db.exec('BEGIN');
  const p = db.prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)');
  for (const e of posts) p.run(e.id, e.entry_type, e.scope, e.timestamp, JSON.stringify(e));
  const d = db.prepare('INSERT INTO decisions (id, status, timestamp, data) VALUES (?, ?, ?, ?)');
  for (const x of decisions) d.run(x.id, x.status, x.timestamp, JSON.stringify(x));
  db.exec('COMMIT');
  db.close();
  for (const e of posts) {
    const file = path.join(dir, 'records', 'posts', e.timestamp.slice(0, 7), `${e.id}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, recordText(e));
  }
  fs.mkdirSync(path.join(dir, 'records', 'decisions'), { recursive: true });
  for (const x of decisions) fs.writeFileSync(path.join(dir, 'records', 'decisions', `${x.id}.json`), recordText(x));
}

async function writeSeen(root, engine, kind, i) {
  const dir = path.join(root, '.twining');
  const t = Date.parse('2027-01-01T00:00:00.000Z') + i * 1000;
  const e = {
    entry_type: 'warning',
    summary: `Late ${i}`,
    detail: '',
    tags: [],
    scope: 'src/',
    agent_id: 'other',
    id: ulid(t, 9e6 + i),
    timestamp: new Date(t).toISOString(),
  };
  let paths;
  if (kind === '1.x') {
    fs.appendFileSync(path.join(dir, 'blackboard.jsonl'), JSON.stringify(e) + '\n');
    paths = ['.twining/blackboard.jsonl'];
  } else {
    const db = new DatabaseSync(path.join(dir, 'twining.db'));
    db.exec('PRAGMA busy_timeout = 5000;');
    db.prepare('INSERT INTO blackboard (id, entry_type, scope, timestamp, data) VALUES (?, ?, ?, ?, ?)').run(
      e.id,
      e.entry_type,
      e.scope,
      e.timestamp,
      JSON.stringify(e),
    );
    db.close();
    const file = path.join(dir, 'records', 'posts', e.timestamp.slice(0, 7), `${e.id}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, recordText(e));
    paths = ['.twining/twining.db-wal', path.relative(root, file).split(path.sep).join('/')];
  }
  const [ms] = await timed(async () => {
    await engine.refresh(paths);
    const last = (await engine.read({ limit: 1 })).entries[0];
    if (last?.id !== e.id) throw new Error(`${kind}: the write was not seen`);
  });
  return ms;
}

/** `twining why <file>` run by a new process of `dist`'s CLI in `root`: milliseconds until it exits. */
function whyProcess(dist, root, file) {
  const t = now();
  const r = spawnSync(process.execPath, [path.join(dist, 'cli.js'), 'why', file], { cwd: root, encoding: 'utf8' });
  const ms = now() - t;
  if (r.status !== 0 || !r.stdout.includes('Decision 7')) throw new Error(`twining why in ${root} failed (${r.status}): ${r.stderr || r.stdout}`);
  return ms;
}

(async () => {
  const data = records();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-2x-'));
  // A build from before issue 27 keeps a copy of 2.x records in a cache folder (TWINING_CACHE_DIR):
  // one of this run, removed with it.
  process.env.TWINING_CACHE_DIR ??= path.join(base, 'cache');
  const one = path.join(base, 'one');
  const two = path.join(base, 'two');
  const clone = path.join(base, 'clone');
  oneX(one, data);
  twoX(two, data);
  fs.mkdirSync(path.join(clone, '.twining'), { recursive: true });
  fs.cpSync(path.join(two, '.twining', 'records'), path.join(clone, '.twining', 'records'), { recursive: true });
  fs.copyFileSync(path.join(two, '.twining', 'config.yml'), path.join(clone, '.twining', 'config.yml'));
  console.log(`two-x: ${DECISIONS} decisions, ${POSTS} posts, ${RUNS} runs (medians); load average before ${load()}`);
  const file = 'src/m7/f7.ts';
  const layouts = [
    ['1.x files', one, '1.x'],
    ['2.x twining.db', two, '2.x'],
    ['2.x records/ only', clone, undefined],
  ];
  if (ONLY !== 'reopen') whyRows(one, two, file);
  reopenRows(layouts);
  if (ONLY !== 'reopen') {
    await againRows(layouts);
    await writeRows(layouts);
  }
  console.log(`  load average after ${load()}`);
  fs.rmSync(base, { recursive: true, force: true });
})().catch(error => {
  console.error(error);
  process.exit(1);
});

/** `twining why <file>` from a new process on each layout. */
function whyRows(one, two, file) {
  // The first runs: the files in the page cache.
  for (const [, dist] of BUILDS) {
    whyProcess(dist, one, file);
    whyProcess(dist, two, file);
  }
  // `twining why` from a new process, every build and layout in turn in each round.
  const why = new Map();
  for (let r = 0; r < RUNS; r++)
    for (const [name, dist] of BUILDS)
      for (const [layout, root] of [
        ['1.x', one],
        ['2.x', two],
      ]) {
        const key = `${name} ${layout}`;
        why.set(key, [...(why.get(key) ?? []), whyProcess(dist, root, file)]);
      }
  for (const [name] of BUILDS) {
    const a = median(why.get(`${name} 2.x`));
    const b = median(why.get(`${name} 1.x`));
    console.log(`  ${name.padEnd(6)} twining why ${file} (new process): 2.x ${a} ms, 1.x ${b} ms, ratio ${ratio(a, b)}`);
  }
}

/** The reopen from a new process, as a window reopening the folder. */
function reopenRows(layouts) {
  // Reopen: a new process per open + first view, every build and layout in turn in each round.
  const reopens = new Map();
  const runner = path.join(__dirname, 'reopen-runner.js');
  for (let r = 0; r < RUNS + 1; r++)
    for (const [name, dist] of BUILDS)
      for (const [label, root] of layouts) {
        const child = spawnSync(process.execPath, [runner, dist, root], { encoding: 'utf8' });
        if (child.status !== 0) throw new Error(`reopen of ${root} failed (${child.status}): ${child.stderr}`);
        if (r === 0) continue; // the first round: the files in the page cache
        const key = `${name} ${label}`;
        reopens.set(key, [...(reopens.get(key) ?? []), JSON.parse(child.stdout)]);
      }
  for (const [name] of BUILDS) {
    const of = (label, field) => median(reopens.get(`${name} ${label}`).map(x => x[field] ?? NaN));
    for (const [label] of layouts)
      console.log(
        `  ${name.padEnd(6)} ${label.padEnd(18)} reopen (new process: open + first view) ${of(label, 'openMs')} ms, thread CPU ${of(label, 'cpuMs')} ms (the engine's load before it ${of(label, 'loadMs')} ms)`,
      );
    const [a, b] = [of('2.x twining.db', 'openMs'), of('1.x files', 'openMs')];
    const [ca, cb] = [of('2.x twining.db', 'cpuMs'), of('1.x files', 'cpuMs')];
    const cpu = Number.isNaN(ca) ? '' : `; thread CPU ${ca} ms against ${cb} ms, ratio ${ratio(ca, cb)}`;
    console.log(`  ${name.padEnd(6)} reopen (new process) 2.x / 1.x: ${a} ms against ${b} ms, ratio ${ratio(a, b)}${cpu}`);
  }
}

/** The same open again in this process, then another process's post seen by the open engine. */
async function againRows(layouts) {
  // The same open again in this process (engines closed between opens); then another process's post seen.
  const opens = new Map();
  const cpus = new Map();
  const seens = new Map();
  // The engine thread's CPU time (Node 23.9+): on a machine other processes load, wall time says as
  // much of them as of the open.
  const threadCpu = () => {
    const u = process.threadCpuUsage?.();
    return u ? (u.user + u.system) / 1000 : NaN;
  };
  let round = 0;
  for (let r = 0; r < RUNS + 1; r++)
    for (const [name, dist] of BUILDS) {
      const core = require(path.join(dist, 'core.js'));
      for (const [label, root, kind] of layouts) {
        const key = `${name} ${label}`;
        const cpu = threadCpu();
        const [ms, engine] = await timed(() => firstView(core, root));
        opens.set(key, [...(opens.get(key) ?? []), ms]);
        cpus.set(key, [...(cpus.get(key) ?? []), Math.round((threadCpu() - cpu) * 10) / 10]);
        if (kind) seens.set(key, [...(seens.get(key) ?? []), await writeSeen(root, engine, kind, round++)]);
        engine.close?.();
      }
    }
  for (const [name] of BUILDS) {
    for (const [label, , kind] of layouts) {
      const key = `${name} ${label}`;
      const open = opens.get(key);
      console.log(
        `  ${name.padEnd(6)} ${label.padEnd(18)} open again in this process ${median(open.slice(1))} ms (the first open: ${Math.round(open[0] * 100) / 100} ms)${kind ? `; another process's post seen ${median(seens.get(key))} ms` : ''}`,
      );
    }
    const a = median(opens.get(`${name} 2.x twining.db`).slice(1));
    const b = median(opens.get(`${name} 1.x files`).slice(1));
    const ca = median(cpus.get(`${name} 2.x twining.db`).slice(1));
    const cb = median(cpus.get(`${name} 1.x files`).slice(1));
    const cpu = Number.isNaN(ca) ? '' : `; thread CPU ${ca} ms against ${cb} ms, ratio ${ratio(ca, cb)}`;
    console.log(`  ${name.padEnd(6)} open again in this process 2.x / 1.x ratio ${ratio(a, b)}${cpu}`);
  }
}

/** Our own posts: an open engine's first and next, and `twining post` from a new process. */
async function writeRows(layouts) {
  // Our own writes: an engine's first post (a 2.x folder's first write of the process) and the next one, then a new process's post.
  const writes = new Map();
  const note = (key, ms) => writes.set(key, [...(writes.get(key) ?? []), ms]);
  let n = 0;
  for (let r = 0; r < RUNS + 1; r++)
    for (const [name, dist] of BUILDS) {
      const core = require(path.join(dist, 'core.js'));
      for (const [label, root] of layouts.slice(0, 2)) {
        const engine = await firstView(core, root);
        const entry = () => ({ entry_type: 'finding', summary: `Ours ${n++}`, scope: 'src/', agent_id: 'bench' });
        const [first] = await timed(() => engine.post(entry()));
        const [next] = await timed(() => engine.post(entry()));
        engine.close?.();
        const t = now();
        const cli = spawnSync(process.execPath, [path.join(dist, 'cli.js'), 'post', '--entry-type', 'finding', '--summary', `Ours ${n++}`], {
          cwd: root,
          encoding: 'utf8',
        });
        const ms = now() - t;
        if (cli.status !== 0) throw new Error(`twining post in ${root} failed (${cli.status}): ${cli.stderr}`);
        if (r === 0) continue; // the first round warms the caches (and lays a kept copy out)
        note(`${name} ${label} first`, first);
        note(`${name} ${label} next`, next);
        note(`${name} ${label} cli`, ms);
      }
    }
  for (const [name] of BUILDS)
    for (const [label] of layouts.slice(0, 2)) {
      const m = kind => median(writes.get(`${name} ${label} ${kind}`));
      console.log(
        `  ${name.padEnd(6)} ${label.padEnd(18)} post: an engine's first ${m('first')} ms, the next ${m('next')} ms; \`twining post\` (new process) ${m('cli')} ms`,
      );
    }
}
