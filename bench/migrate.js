'use strict';
/**
 * `twining migrate` on a 1.x folder of --decisions (3000) decisions and --posts (20000) posts,
 * twining-mcp's field sizes: the dry run, the migration to sqlite (export to records/, ingest
 * into twining.db, verify, config), a second run on the migrated folder (nothing to write), and the
 * way back (--reverse). Medians of --runs (default 3), each on a fresh copy. Needs node:sqlite
 * (Node 22.13+): under an older Node it says so and measures nothing.
 *
 *   node bench/migrate.js [--decisions 3000] [--posts 20000] [--runs 3]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { arg, median, timed } = require('./measure');
const { migrate } = require('../dist/core.js');

try {
  require('node:sqlite');
} catch {
  console.log(`migrate: skipped, this Node (${process.version}) has no node:sqlite (run it with Node 22.13 or later)`);
  process.exit(0);
}

const DECISIONS = Number(arg('--decisions', 3000));
const POSTS = Number(arg('--posts', 20000));
const RUNS = Number(arg('--runs', 3));
const { ulid, fieldDecision, indexEntryOf } = require('./field-records');

/** A 1.x folder as docs/format.md lays it out. */
function oneX(root) {
  const dir = path.join(root, '.twining');
  for (const sub of ['decisions', 'handoffs', 'agents', 'graph']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.yml'), 'version: 1\nproject_name: bench\n');
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const posts = [];
  for (let i = 0; i < POSTS; i++) {
    const t = base + i * 9000;
    posts.push({
      id: ulid(t, 1e6 + i),
      timestamp: new Date(t).toISOString(),
      agent_id: 'bench',
      entry_type: ['finding', 'warning', 'status', 'need'][i % 4],
      tags: [],
      scope: `src/m${i % 50}/`,
      summary: `Post ${i}`,
      detail: 'd'.repeat(100),
    });
  }
  fs.writeFileSync(path.join(dir, 'blackboard.jsonl'), posts.map(p => JSON.stringify(p) + '\n').join(''));
  const index = [];
  for (let i = 0; i < DECISIONS; i++) {
    const t = base + i * 60000;
    const d = fieldDecision(i, t);
    fs.writeFileSync(path.join(dir, 'decisions', `${d.id}.json`), JSON.stringify(d, null, 2));
    index.push(indexEntryOf(d));
  }
  fs.writeFileSync(path.join(dir, 'decisions', 'index.json'), JSON.stringify(index, null, 2));
  fs.writeFileSync(
    path.join(dir, 'agents', 'registry.json'),
    JSON.stringify(
      [
        {
          agent_id: 'bench',
          capabilities: [],
          role: 'bench',
          description: '',
          registered_at: new Date(base).toISOString(),
          last_active: new Date(base).toISOString(),
        },
      ],
      null,
      2,
    ),
  );
}

async function main() {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-bench-migrate-'));
  const times = { dry: [], forward: [], again: [], reverse: [] };
  try {
    const template = path.join(parent, 'template');
    fs.mkdirSync(template);
    oneX(template);
    for (let run = 0; run < RUNS; run++) {
      const root = path.join(parent, `run-${run}`);
      fs.cpSync(template, root, { recursive: true });
      const step = async (name, options) => {
        const [ms, report] = await timed(() => migrate(root, options));
        if (!report.dry_run && !report.finalized) throw new Error(`${name} did not finish: ${JSON.stringify(report.notes)}`);
        times[name].push(ms);
      };
      await step('dry', { dry_run: true });
      await step('forward', {});
      await step('again', {});
      await step('reverse', { reverse: true });
      fs.rmSync(root, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
  console.log(`migrate at ${DECISIONS} decisions and ${POSTS} posts, medians of ${RUNS} (ms):`);
  console.log(
    `  dry run ${median(times.dry)}  files → sqlite ${median(times.forward)}  again (nothing to write) ${median(times.again)}  sqlite → files ${median(times.reverse)}`,
  );
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
