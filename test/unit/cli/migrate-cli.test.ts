/**
 * `twining migrate` where the runtime has no node:sqlite (the CLI on Node 20): it refuses, naming
 * the Node version and writing nothing, while `--dry-run` still says what a run would write; and
 * the config.yml edit both directions make (src/core/migrate/migrate-config.ts): only the two values
 * change in the text, as twining-mcp's config-edit.ts sets them (75b67af2). Runs under any Node:
 * the CLI is started without node:sqlite (`--no-experimental-sqlite` where the Node has it).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as yaml from 'js-yaml';
import { spawnSync } from 'child_process';
import { editConfigText } from '../../../src/core/migrate/migrate-config';
import { CLI_JS, changedFiles, fixtureProject, snapshotTree, tempProject, tw } from '../../support/tmp';
import { hasSqlite, twoXFrom1x } from '../../support/twining-mcp-2x';

/** The CLI on this Node with node:sqlite switched off. */
function cliWithoutSqlite(...args: string[]) {
  const flags = hasSqlite ? ['--no-experimental-sqlite'] : [];
  return spawnSync(process.execPath, [...flags, CLI_JS, ...args], { encoding: 'utf8' });
}

describe('twining migrate without node:sqlite', () => {
  test('a run is refused naming the Node version, and nothing is written; a dry run says what a run would write', () => {
    const root = fixtureProject();
    const before = snapshotTree(root);
    const run = cliWithoutSqlite('migrate', '--dir', root);
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(`was not migrated: this Node \\(v\\d+\\.\\d+\\.\\d+\\) has no node:sqlite.*Node 22\\.13 or later.*nothing was written`),
    );
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
    const dry = cliWithoutSqlite('migrate', '--dry-run', '--dir', root);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /files → sqlite \(dry run\)/);
    assert.match(dry.stdout, /posts: 14 {2}decisions: 4 {2}entities: 23 {2}relations: 18 {2}handoffs: 2 {2}agents: 4/);
    assert.match(dry.stdout, /records\/posts\/: 14 files \(14 new\)/);
    assert.match(dry.stdout, /config\.yml: storage\.backend: \(not set\) → sqlite, version: 1 → 2/);
    assert.match(dry.stdout, /a real run needs node:sqlite: this Node \(v\d+/);
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
  });

  test("--reverse is refused the same way; its dry run counts a fresh clone's records/", () => {
    const one = fixtureProject();
    const clone = tempProject('demo-project');
    twoXFrom1x(tw(one), tw(clone), { withDb: false });
    const before = snapshotTree(clone);
    const run = cliWithoutSqlite('migrate', '--reverse', '--dir', clone);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /was not migrated back: this Node \(v\d+\.\d+\.\d+\) has no node:sqlite/);
    const dry = cliWithoutSqlite('migrate', '--reverse', '--dry-run', '--json', '--dir', clone);
    assert.equal(dry.status, 0, dry.stderr);
    const report = JSON.parse(dry.stdout);
    assert.deepEqual(report.counts, { posts: 14, decisions: 4, entities: 23, relations: 18, handoffs: 2, agents: 0 });
    assert.equal(report.config_change, 'storage.backend: sqlite → files, version: 2 → 1');
    assert.deepEqual(changedFiles(before, snapshotTree(clone)), []);
  });

  test('usage: unknown options and a missing folder are named', () => {
    const bad = cliWithoutSqlite('migrate', '--revers');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /migrate: unknown option --revers/);
    const none = cliWithoutSqlite('migrate', '--dry-run', '--dir', tempProject());
    assert.equal(none.status, 2);
    assert.match(none.stderr, /\.twining does not exist: there is nothing to migrate/);
    const help = cliWithoutSqlite('migrate', '--help');
    assert.match(help.stdout, /twining migrate \[--reverse\] \[--dry-run\]/);
    assert.match(cliWithoutSqlite('--help').stdout, / {2}migrate {7}Convert \.twining\//);
  });
});

describe('the config.yml edit', () => {
  const F = 'config.yml';
  test('only the two values change; comments, order and other keys stay', () => {
    const text =
      '# team settings\nversion: 1 # the format\nproject_name: demo\nstorage:\n  export_records: true\n  backend: files # shared\ntools:\n  mode: full\n';
    const edit = editConfigText(F, text, 'sqlite', 2);
    assert.equal(
      edit.text,
      '# team settings\nversion: 2 # the format\nproject_name: demo\nstorage:\n  export_records: true\n  backend: sqlite # shared\ntools:\n  mode: full\n',
    );
    assert.equal(edit.dumped, false);
    assert.equal(edit.backendBefore, 'files');
    assert.equal(edit.versionBefore, 1);
  });

  test('a missing storage block or backend key is added; a missing version too; CRLF stays CRLF', () => {
    assert.equal(editConfigText(F, 'version: 2\nproject_name: x\n', 'files', 1).text, 'version: 1\nproject_name: x\nstorage:\n  backend: files\n');
    assert.equal(
      editConfigText(F, 'storage:\n    auto_migrate: false\n', 'sqlite', 2).text,
      'version: 2\nstorage:\n    backend: sqlite\n    auto_migrate: false\n',
    );
    assert.equal(editConfigText(F, 'version: 1\r\nname: x\r\n', 'sqlite', 2).text, 'version: 2\r\nname: x\r\nstorage:\r\n  backend: sqlite\r\n');
    assert.equal(editConfigText(F, undefined, 'sqlite', 2).text, 'version: 2\nstorage:\n  backend: sqlite\n');
  });

  test('a layout that cannot be edited line by line is written anew (and says so); a file that is not a mapping is refused', () => {
    const edit = editConfigText(F, 'version: 1\nstorage: {backend: files, export_records: true}\n', 'sqlite', 2);
    assert.equal(edit.dumped, true);
    assert.deepEqual(yaml.load(edit.text), { version: 2, storage: { backend: 'sqlite', export_records: true } });
    assert.throws(() => editConfigText(F, '- a\n- b\n', 'sqlite', 2), /config\.yml is not a YAML mapping; nothing was migrated/);
    assert.throws(() => editConfigText(F, 'a: [\n', 'sqlite', 2), /config\.yml is not valid YAML/);
  });

  test('the fixture config.yml of twining-mcp 1.9 keeps its every line', () => {
    const root = fixtureProject();
    const text = fs.readFileSync(tw(root, 'config.yml'), 'utf8');
    const edit = editConfigText(F, text, 'sqlite', 2);
    assert.equal(edit.text, text.replace(/^version: 1$/m, 'version: 2') + 'storage:\n  backend: sqlite\n');
  });
});
