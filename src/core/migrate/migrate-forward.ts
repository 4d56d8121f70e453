/**
 * `twining migrate`, files → sqlite (migrate-ops.ts says what it follows): twining-mcp's
 * src/migrate/forward.ts at 75b67af2 step by step, "export, then ordinary ingest":
 *
 *   1.x files ──records-dir.ts (twining-mcp's bytes and paths)──▶ records/ ──records-ingest.ts──▶ twining.db
 *
 * then every 1.x record checked to be in both, identical (its verify.ts: the 1.x side contained in
 * the sqlite side, so a re-run after sqlite-era writes checks clean), then config.yml flipped. The
 * 1.x files are never changed; they stay, frozen, beside the new state.
 */
import { promises as fs, existsSync, readFileSync } from 'fs';
import * as path from 'path';
import { TwiningError } from '../errors';
import { Layout } from '../storage/layout';
import { withLocks } from '../storage/lock';
import { ioError, readTextIfExists } from '../storage/json-files';
import { databaseFile, hasDatabaseHeader, openDatabase, sqliteMissingReason, SqliteDatabase } from '../storage/sqlite/sqlite-db';
import { RECORD_KINDS, RecordKind, StoredRecord, kindDir, recordFile, writeRecordFile } from '../storage/sqlite/records-dir';
import { recordText } from '../storage/sqlite/record-text';
import { LegacyRecords, readLegacyRecords } from '../storage/files/legacy-records';
import { ingestRecordsTree } from '../storage/sqlite/records-ingest';
import { TABLE } from '../storage/sqlite/sqlite-rows';
import { mapParallel } from '../storage/parallel-io';
import { addIgnores, backUpConfig, editConfigText, missingIgnores, writeConfig } from './migrate-config';
import { MigrateReport, checkFolder, describeConfigChange, files, oneXLockTargets, shown, stoppedError } from './migrate-common';

interface PlannedFile {
  kind: RecordKind;
  record: StoredRecord;
  file: string;
  /** new: no file yet; same: the file holds these bytes; differs: it holds others. */
  state: 'new' | 'same' | 'differs';
}

interface Plan {
  files: PlannedFile[];
  /** `kind/id` of records whose file differs and is kept (a re-run on a migrated folder). */
  kept: Set<string>;
  notes: string[];
}

/** What each 1.x record's file would be, compared with what records/ holds. */
async function planExport(dir: string, legacy: LegacyRecords, alreadySqlite: boolean): Promise<Plan> {
  const plan: Plan = { files: [], kept: new Set(), notes: [] };
  const candidates: { kind: RecordKind; record: StoredRecord }[] = [];
  for (const kind of RECORD_KINDS) {
    for (const record of legacy[kind]) {
      if (kind === 'posts' && (typeof record.timestamp !== 'string' || record.timestamp.length < 7)) {
        plan.notes.push(
          `post ${record.id} has no timestamp, so it has no month folder under records/posts/; it is not migrated (it stays in blackboard.jsonl)`,
        );
        continue;
      }
      candidates.push({ kind, record });
    }
  }
  // The record files as they are, many read at once (thousands of them in a field folder).
  const texts = await mapParallel(candidates, ({ kind, record }) => readTextIfExists(recordFile(dir, kind, record)).catch(() => null));
  candidates.forEach(({ kind, record }, i) => {
    const text = texts[i];
    const state = text === undefined ? 'new' : text === recordText(record) ? 'same' : 'differs';
    if (state === 'differs' && alreadySqlite) plan.kept.add(`${kind}/${record.id}`);
    plan.files.push({ kind, record, file: recordFile(dir, kind, record), state });
  });
  if (plan.kept.size)
    plan.notes.push(
      `${plan.kept.size} record file(s) under records/ differ from their frozen 1.x copy and were changed after the folder was migrated; they are kept as they are (${[...plan.kept].slice(0, 5).join(', ')}${plan.kept.size > 5 ? ', …' : ''})`,
    );
  return plan;
}

function counts(legacy: LegacyRecords) {
  return {
    posts: legacy.posts.length,
    decisions: legacy.decisions.length,
    entities: legacy.entities.length,
    relations: legacy.relations.length,
    handoffs: legacy.handoffs.length,
    agents: legacy.agents.length,
  };
}

/** One line per kind: where its files go and how many are new, rewritten or already there. */
function writeLines(dir: string, plan: Plan): string[] {
  return RECORD_KINDS.map(kind => {
    const of = plan.files.filter(f => f.kind === kind);
    const n = (s: PlannedFile['state']) => of.filter(f => f.state === s && !plan.kept.has(`${kind}/${f.record.id}`)).length;
    const kept = of.filter(f => plan.kept.has(`${kind}/${f.record.id}`)).length;
    const parts = [
      `${n('new')} new`,
      `${n('differs') ? `${n('differs')} rewritten` : ''}`,
      `${n('same') ? `${n('same')} already there` : ''}`,
      kept ? `${kept} kept` : '',
    ];
    return `${shown(dir, kindDir(dir, kind))}/: ${files(of.length)} (${parts.filter(Boolean).join(', ')})`;
  });
}

/** Every 1.x record in twining.db and in its record file, identical (the kept ones aside). */
function verify(db: SqliteDatabase, dir: string, legacy: LegacyRecords, plan: Plan): { missing: string[]; mismatched: string[] } {
  const missing: string[] = [];
  const mismatched: string[] = [];
  for (const f of plan.files) {
    const key = `${f.kind}/${f.record.id}`;
    if (plan.kept.has(key)) continue;
    const row = db.prepare(`SELECT data FROM ${TABLE[f.kind]} WHERE id = ?`).get(f.record.id);
    const want = recordText(f.record);
    let got: string | undefined;
    try {
      got = row ? recordText(JSON.parse(String(row.data))) : undefined;
    } catch {
      got = '';
    }
    if (got === undefined) missing.push(key);
    else if (got !== want) mismatched.push(key);
    else if (!existsSync(f.file) || readFileSync(f.file, 'utf8') !== want) mismatched.push(`${key} (${shown(dir, f.file)})`);
  }
  for (const agent of legacy.agents) {
    if (!db.prepare('SELECT 1 AS x FROM agents WHERE agent_id = ?').get(String(agent.agent_id))) missing.push(`agents/${String(agent.agent_id)}`);
  }
  return { missing, mismatched };
}

export async function migrateForward(projectRoot: string, dryRun: boolean, warn: (m: string) => void): Promise<MigrateReport> {
  const layout = new Layout(projectRoot);
  const dir = layout.dir;
  const { configText, backend, exportRecords } = await checkFolder(dir);
  if (backend === 'sqlite' && exportRecords === false)
    throw new TwiningError(
      'INVALID_INPUT',
      `${layout.config} says storage.backend: sqlite with storage.export_records: false: the records written since have no file under records/, and migrating again would delete their rows; nothing was migrated (set export_records to true first)`,
    );
  const already = backend === 'sqlite';
  const missingSqlite = sqliteMissingReason();
  if (missingSqlite && !dryRun)
    throw new TwiningError(
      'INVALID_INPUT',
      `${dir} was not migrated: ${missingSqlite}; nothing was written (run twining migrate under Node 22.13 or later; --dry-run works here)`,
    );
  const edit = editConfigText(layout.config, configText, 'sqlite', 2);
  const dbBefore = hasDatabaseHeader(databaseFile(dir));
  const report = (legacy: LegacyRecords, plan: Plan, ignores: string[]): MigrateReport => ({
    direction: 'files → sqlite',
    dry_run: dryRun,
    folder: dir,
    counts: counts(legacy),
    writes: [
      ...writeLines(dir, plan),
      `twining.db: ${dbBefore ? 'existing' : 'new'}, the rows of every file under records/ and the ${legacy.agents.length} agent(s) of agents/registry.json it lacks`,
      `config.yml: ${describeConfigChange(edit, 'sqlite', 2)} (backup: config.yml.pre-migrate.bak, unless one exists)`,
      ...(ignores.length ? [`.gitignore: + ${ignores.join(', ')}`] : []),
    ],
    config_change: describeConfigChange(edit, 'sqlite', 2),
    verified: false,
    finalized: false,
    missing: [],
    mismatched: [],
    notes: [
      ...legacy.notes,
      ...plan.notes,
      'the 1.x files are left as they are, frozen: after the migration twining-mcp 2.x and Twining read twining.db and records/',
      'archive/, metrics and the session files are the same in both layouts and are not touched; embeddings are not migrated (twining-mcp rebuilds them)',
      'stop other Twining and twining-mcp sessions on this folder first: they keep using the layout they opened with',
      ...(dryRun && missingSqlite ? [`a real run needs node:sqlite: ${missingSqlite}`] : []),
    ],
  });
  if (dryRun) {
    const legacy = await readLegacyRecords(dir);
    return report(legacy, await planExport(dir, legacy, already), await missingIgnores(dir));
  }
  const backup = await backUpConfig(layout.config);
  if (configText !== undefined && backend !== 'files' && backend !== 'sqlite')
    await writeConfig(layout.config, editConfigText(layout.config, configText, 'files'));
  // The 1.x files a writer locks (docs/format.md §Which lock for which write), those whose folder exists.
  const targets = oneXLockTargets(layout).filter(([file]) => existsSync(path.dirname(file)));
  return withLocks(targets, async () => {
    const legacy = await readLegacyRecords(dir);
    const plan = await planExport(dir, legacy, already);
    const created: string[] = [];
    const dbExisted = hasDatabaseHeader(databaseFile(dir));
    let dbMade = false;
    let verdict: { missing: string[]; mismatched: string[] };
    try {
      // Many at once; after a failure no more are started, and the error is thrown once those in flight are done.
      let failed = false;
      const toWrite = plan.files.filter(f => f.state !== 'same' && !plan.kept.has(`${f.kind}/${f.record.id}`));
      await mapParallel(toWrite, async f => {
        if (failed) return;
        try {
          await writeRecordFile(f.file, f.record);
        } catch (error) {
          failed = true;
          throw ioError(error, f.file, 'it was not written');
        }
        if (f.state === 'new') created.push(f.file);
      });
      dbMade = !dbExisted;
      const db = openDatabase(dir, { create: true });
      try {
        const first = Object.fromEntries(RECORD_KINDS.map(k => [k, legacy[k].map(r => r.id)]));
        await ingestRecordsTree(db, dir, warn, { first, agents: legacy.agents });
        verdict = verify(db, dir, legacy, plan);
      } finally {
        db.close();
      }
    } catch (error) {
      throw stoppedError(error, await undo(dir, created, dbMade, already));
    }
    const result = report(legacy, plan, await missingIgnores(dir));
    result.missing = verdict.missing;
    result.mismatched = verdict.mismatched;
    if (verdict.missing.length || verdict.mismatched.length) {
      result.notes.push('verification failed: config.yml was not changed, so the folder stays on files; the record files and rows written stay for a re-run');
      return result;
    }
    await writeConfig(layout.config, edit);
    await addIgnores(dir, await missingIgnores(dir));
    result.verified = true;
    result.finalized = true;
    result.config_backup = backup;
    return result;
  });
}

/** After a failure half-way: the record files this run created removed, and the database when it made it. Says what was and was not written. */
async function undo(dir: string, created: string[], dbMade: boolean, already: boolean): Promise<string> {
  const left: string[] = [];
  for (const file of created) await fs.rm(file, { force: true }).catch(() => left.push(shown(dir, file)));
  if (dbMade) for (const f of ['', '-wal', '-shm']) await fs.rm(databaseFile(dir) + f, { force: true }).catch(() => left.push(`twining.db${f}`));
  const stays = already
    ? 'config.yml still says storage.backend: sqlite'
    : 'config.yml says storage.backend: files, so the folder stays on its 1.x files, which were not changed';
  return (
    `Nothing was migrated: ${stays}; the ${files(created.length)} this run had made under records/ ${left.length ? `were removed except ${left.join(', ')}` : 'were removed again'}` +
    `${dbMade ? ' and so was the twining.db it made' : ''}; run twining migrate again once the cause is fixed`
  );
}
