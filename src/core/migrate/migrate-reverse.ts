/**
 * `twining migrate --reverse`, sqlite → files (migrate-ops.ts says what it follows): twining-mcp's
 * src/migrate/reverse.ts at dfd6adde. twining.db is first brought up to `records/` (the committed
 * truth; the files win, records-ingest.ts), unless `storage.export_records` is false (then the
 * database alone is complete); the 1.x layout is then written from the rows (`oneXFiles`, as
 * twining-mcp's own reverse writes them), under the 1.x locks (docs/format.md §Locking), after the 1.x
 * files it replaces were copied to `pre-reverse-backup/` (the last run's copy wins, as there); the
 * files are read back and compared with the rows; only then does config.yml say `files`, version 1.
 * twining.db and records/ stay, frozen. Without a database (a fresh clone) the rows are made from
 * records/ first, as twining-mcp's open does; the agents go to agents/registry.json (twining-mcp
 * leaves them in the database), merged with the agents the registry already lists.
 */
import { promises as fs, existsSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TwiningError } from '../errors';
import { Layout, ensureFolder } from '../storage/layout';
import { withLocks } from '../storage/lock';
import { isRecord, ioError, readJsonArray, toJsonText, writeAtomic } from '../storage/json-files';
import { databaseFile, hasDatabaseHeader, isOpenHere, openDatabase, sqliteMissingReason } from '../storage/sqlite/sqlite-db';
import { RECORD_KINDS, kindDir, recordsDir } from '../storage/sqlite/records-dir';
import { recordText } from '../storage/sqlite/record-text';
import { readLegacyRecords } from '../storage/files/legacy-records';
import { ingestRecordsTree, readRecordsTree } from '../storage/sqlite/records-ingest';
import { DbSource, Item, STATE_KINDS, StateKind, SqliteRecords } from '../storage/sqlite/sqlite-records';
import { indexEntryOf, indexLineOf } from '../storage/index-lines';
import type { HandoffRecord } from '../records';
import { copyItem } from '../storage/sqlite/sqlite-tables';
import { mapParallel } from '../storage/parallel-io';
import { backUpConfig, editConfigText, writeConfig } from './migrate-config';
import { MigrateReport, checkFolder, describeConfigChange, files, oneXLockTargets, shown, stoppedError } from './migrate-common';

/** What ingest would make of the rows, in memory (a dry run): each kind with a folder under records/ taken from its files. */
async function simulated(dir: string, state: SqliteRecords, warn: (m: string) => void): Promise<void> {
  const { state: tree } = await readRecordsTree(dir, warn);
  for (const kind of RECORD_KINDS) {
    if (!existsSync(kindDir(dir, kind))) continue;
    const rows = state.of(kind);
    for (const id of [...rows.keys()]) if (!tree.of(kind).has(id)) state.apply({ kind, id });
    for (const item of tree.sorted(kind)) {
      const row = rows.get(item.id);
      if (row && recordText(row.value) === recordText(item.value)) continue;
      state.apply({ kind, id: item.id, item: { ...copyItem(item), order: row?.order ?? item.order, index: undefined } });
    }
  }
}

/**
 * The 1.x files (docs/format.md) to write from the rows (path relative to `.twining/` → text), as
 * twining-mcp's own reverse writes them: first the decision and handoff records, each its JSON with
 * two spaces (written many at once), then, one after another and each record before the index that
 * names it as a 1.x writer does: the blackboard (each post's stored text on its own line, in row
 * order), the decision index made from the decision records, the graph, the handoff index (each
 * row's `index_data` as stored, made from the record when it has none) and the registry.
 */
function oneXFiles(state: SqliteRecords): { records: Map<string, string>; files: Map<string, string> } {
  const records = new Map<string, string>();
  for (const d of state.sorted('decisions')) records.set(path.join('decisions', `${d.id}.json`), toJsonText(d.value));
  for (const h of state.sorted('handoffs')) records.set(path.join('handoffs', `${h.id}.json`), toJsonText(h.value));
  const lines = (items: readonly Item[], line: (item: Item) => string) => items.map(i => line(i) + '\n').join('');
  const values = (kind: StateKind) => toJsonText(state.sorted(kind).map(i => i.value));
  const handoffLine = (h: Item) => h.index ?? JSON.stringify(indexLineOf(h.value as unknown as HandoffRecord, h.value.acknowledged_by !== undefined));
  const files = new Map<string, string>();
  files.set(
    'blackboard.jsonl',
    lines(state.sorted('posts'), p => p.text),
  );
  files.set(path.join('decisions', 'index.json'), toJsonText(state.sorted('decisions').map(d => indexEntryOf(d.value))));
  files.set(path.join('graph', 'entities.json'), values('entities'));
  files.set(path.join('graph', 'relations.json'), values('relations'));
  files.set(path.join('handoffs', 'index.jsonl'), lines(state.sorted('handoffs'), handoffLine));
  files.set(path.join('agents', 'registry.json'), values('agents'));
  return { records, files };
}

export async function migrateReverse(projectRoot: string, dryRun: boolean, warn: (m: string) => void): Promise<MigrateReport> {
  const layout = new Layout(projectRoot);
  const dir = layout.dir;
  const { configText, backend, exportRecords } = await checkFolder(dir);
  if (backend === 'files')
    throw new TwiningError(
      'INVALID_INPUT',
      `${layout.config} already says storage.backend: files: there is nothing to reverse (twining migrate, without --reverse, goes to sqlite)`,
    );
  const hasDb = hasDatabaseHeader(databaseFile(dir));
  const hasTree = existsSync(recordsDir(dir));
  if (!hasDb && !hasTree) throw new TwiningError('NOT_FOUND', `${dir} has neither twining.db nor records/: there is no sqlite state to reverse`);
  const missingSqlite = sqliteMissingReason();
  if (missingSqlite && !dryRun)
    throw new TwiningError(
      'INVALID_INPUT',
      `${dir} was not migrated back: ${missingSqlite}; nothing was written (run twining migrate --reverse under Node 22.13 or later; --dry-run works here)`,
    );
  const edit = editConfigText(layout.config, configText, 'files', 1);
  const exportOff = exportRecords === false;
  const notes: string[] = [];
  if (exportOff) notes.push('storage.export_records is false: records/ is not read; the 1.x files are written from twining.db alone');
  const state = new SqliteRecords();
  if (dryRun) {
    if (hasDb && !missingSqlite) {
      // Read from a copy: even a read-only connection to a WAL database makes its -wal and -shm files.
      // A database this process holds open has them already, and copying its files would open them
      // beside SQLite (docs/twining-2.md §Locks held by a process): it is read where it is.
      const held = isOpenHere(databaseFile(dir));
      const copy = held ? undefined : await fs.mkdtemp(path.join(os.tmpdir(), 'twining-migrate-'));
      try {
        if (copy) for (const suffix of ['', '-wal']) await fs.copyFile(databaseFile(dir) + suffix, databaseFile(copy) + suffix).catch(() => undefined);
        const db = openDatabase(copy ?? dir, { readOnly: true });
        try {
          await new DbSource(db, warn).load(state, STATE_KINDS);
        } finally {
          db.close();
        }
      } finally {
        if (copy) await fs.rm(copy, { recursive: true, force: true });
      }
    } else if (hasDb) notes.push(`twining.db is not read (${missingSqlite}): the counts are records/'s, and its agents are unknown`);
    if (!exportOff && hasTree) await simulated(dir, state, warn);
  } else {
    const db = openDatabase(dir, { create: true });
    try {
      if (!exportOff && hasTree) await ingestRecordsTree(db, dir, warn);
      await new DbSource(db, warn).load(state, STATE_KINDS);
    } finally {
      db.close();
    }
  }
  // Agents the registry lists and the database lacks stay in the registry, after the database's.
  const registered = (await readJsonArray(layout.registry, 'agent registry').catch(() => [] as unknown[])).filter(isRecord);
  for (const agent of registered) {
    const id = String(agent.agent_id);
    if (!state.of('agents').has(id))
      state.apply({ kind: 'agents', id, item: { id, order: `~${id}`, text: JSON.stringify(agent), value: agent as Item['value'] } });
  }
  const planned = oneXFiles(state);
  const counts = {
    posts: state.of('posts').size,
    decisions: state.of('decisions').size,
    entities: state.of('entities').size,
    relations: state.of('relations').size,
    handoffs: state.of('handoffs').size,
    agents: state.of('agents').size,
  };
  const report: MigrateReport = {
    direction: 'sqlite → files',
    dry_run: dryRun,
    folder: dir,
    counts,
    writes: [
      `blackboard.jsonl: ${counts.posts} line(s)`,
      `decisions/: ${files(counts.decisions)} and index.json`,
      `graph/entities.json, graph/relations.json: ${counts.entities} entities, ${counts.relations} relations`,
      `handoffs/: ${files(counts.handoffs)} and index.jsonl`,
      `agents/registry.json: ${counts.agents} agent(s)`,
      'pre-reverse-backup/: a copy of the 1.x files these replace',
      ...(hasDb ? [] : ['twining.db: made from records/ first (a fresh clone has none)']),
      `config.yml: ${describeConfigChange(edit, 'files', 1)} (backup: config.yml.pre-migrate.bak, unless one exists)`,
    ],
    config_change: describeConfigChange(edit, 'files', 1),
    verified: false,
    finalized: false,
    missing: [],
    mismatched: [],
    notes: [
      ...notes,
      'twining.db and records/ are left in place but frozen: before going back to sqlite run twining migrate again (or remove records/), or twining-mcp would take the old records/ for the truth',
      'stop other Twining and twining-mcp sessions on this folder first: they keep using the layout they opened with',
      ...(dryRun && missingSqlite ? [`a real run needs node:sqlite: ${missingSqlite}`] : []),
    ],
  };
  if (dryRun) return report;
  const backup = await backUpConfig(layout.config);
  await ensureFolder(layout, { complete: false });
  await fs.mkdir(layout.graphDir, { recursive: true });
  const copy = path.join(dir, 'pre-reverse-backup');
  for (const rel of ['blackboard.jsonl', 'decisions', 'graph', 'handoffs', path.join('agents', 'registry.json')]) {
    const from = path.join(dir, rel);
    if (existsSync(from)) await fs.cp(from, path.join(copy, rel), { recursive: true, force: true });
  }
  return withLocks(oneXLockTargets(layout), async () => {
    const written: string[] = [];
    const put = async (rel: string, text: string) => {
      const file = path.join(dir, rel);
      await writeAtomic(file, text).catch(error => {
        throw ioError(error, file, 'it was not written');
      });
      written.push(rel);
    };
    try {
      let failed = false;
      await mapParallel([...planned.records], async ([rel, text]) => {
        if (failed) return;
        await put(rel, text).catch(error => {
          failed = true;
          throw error;
        });
      });
      for (const [rel, text] of planned.files) await put(rel, text);
    } catch (error) {
      const shownWritten = written.slice(0, 5).join(', ') + (written.length > 5 ? ', …' : '');
      throw stoppedError(
        error,
        `Nothing was migrated back: config.yml still says sqlite, so the folder is read from twining.db and records/, which were not changed; ` +
          `${written.length} of the ${planned.records.size + planned.files.size} 1.x files had been written (${shownWritten || 'none'}); the 1.x files as they were are in ${shown(dir, copy)}/`,
      );
    }
    // Read back through the same reader the forward migration uses, and compare with the rows.
    const back = await readLegacyRecords(dir);
    for (const kind of RECORD_KINDS) {
      const found = new Map(back[kind].map(r => [r.id, r]));
      for (const item of state.of(kind).values()) {
        const r = found.get(item.id);
        if (!r) report.missing.push(`${kind}/${item.id}`);
        else if (recordText(r) !== recordText(item.value)) report.mismatched.push(`${kind}/${item.id}`);
      }
    }
    const agents = new Set(back.agents.map(a => String(a.agent_id)));
    for (const id of state.of('agents').keys()) if (!agents.has(id)) report.missing.push(`agents/${id}`);
    if (report.missing.length || report.mismatched.length) {
      report.notes.push(
        'verification failed: config.yml was not changed, so the folder stays on sqlite; the 1.x files written are in place, their earlier copies in pre-reverse-backup/',
      );
      return report;
    }
    await writeConfig(layout.config, edit);
    report.verified = true;
    report.finalized = true;
    report.config_backup = backup;
    return report;
  });
}
