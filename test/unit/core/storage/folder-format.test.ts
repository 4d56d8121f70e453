/**
 * Which layout a `.twining/` folder is in, by twining-mcp 2.x's own rules (src/storage/backend-resolve.ts
 * at 541c770e): files or sqlite, and what we refuse to write (the SQLite layout, `version` above 2,
 * format 3). And init saying `storage.backend: files`, so a twining-mcp 2.x opening the folder later
 * keeps sharing it.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import * as yaml from 'js-yaml';
import { execFileSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { detectFolderFormat } from '../../../../src/core/storage/folder-format';
import { isSqliteFolder } from '../../../../src/core/storage/sqlite/sqlite-detect';
import { changedFiles, fixtureProject, rejectsWith, snapshotTree, tempProject, tw } from '../../../support/tmp';

const hasNodeSqlite = (() => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('node:sqlite');
    return true;
  } catch {
    return false;
  }
})();

/** The 100-byte header a real SQLite database starts with (the magic string, then page size etc.). */
const SQLITE_HEADER = Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(84)]);

/** A folder as twining-mcp's init leaves it (empty 1.x files), with `config.yml` holding `config`. */
function emptyFolder(config = 'project_name: demo\n'): string {
  const root = tempProject();
  for (const dir of ['decisions', 'graph', 'agents', 'handoffs', 'archive', 'embeddings']) fs.mkdirSync(tw(root, dir), { recursive: true });
  fs.writeFileSync(tw(root, 'config.yml'), config);
  fs.writeFileSync(tw(root, 'blackboard.jsonl'), '');
  for (const file of ['decisions/index.json', 'graph/entities.json', 'graph/relations.json', 'agents/registry.json']) fs.writeFileSync(tw(root, file), '[]');
  return root;
}

const put = (root: string, rel: string, content: string | Buffer) => {
  fs.mkdirSync(path.dirname(tw(root, rel)), { recursive: true });
  fs.writeFileSync(tw(root, rel), content);
};

const post = async (root: string) => (await openWorkspace(root, { warn: () => undefined })).post({ entry_type: 'finding', summary: 'seen', agent_id: 'me' });

describe('auto: the folder decides', () => {
  test('1.x content (the reference folder) is the files layout, and writes go on as before', async () => {
    const root = fixtureProject();
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'files', reason: 'legacy-content', version: 1 });
    await post(root);
  });

  test('an empty folder is fresh (2.x would make it sqlite); our first write keeps it files', async () => {
    const root = emptyFolder();
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'sqlite', reason: 'fresh' });
    await post(root);
    assert.equal((await detectFolderFormat(tw(root))).backend, 'files');
  });

  test('a real twining.db (the SQLite header) means sqlite, even beside 1.x content', async () => {
    const root = fixtureProject();
    put(root, 'twining.db', SQLITE_HEADER);
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'sqlite', reason: 'sqlite-state', version: 1 });
  });

  test('a 0-byte or garbage twining.db is not state: 1.x content still means files, none means fresh', async () => {
    for (const junk of [Buffer.alloc(0), Buffer.from('SQLite format')]) {
      const legacy = fixtureProject();
      put(legacy, 'twining.db', junk);
      assert.equal((await detectFolderFormat(tw(legacy))).reason, 'legacy-content');
      const fresh = emptyFolder();
      put(fresh, 'twining.db', junk);
      assert.equal((await detectFolderFormat(tw(fresh))).reason, 'fresh');
    }
  });

  test('a FIFO named twining.db or blackboard.jsonl does not hang the look: not a database, and unreadable 1.x content counts', async () => {
    const root = emptyFolder();
    execFileSync('mkfifo', [tw(root, 'twining.db')]);
    assert.equal((await detectFolderFormat(tw(root))).reason, 'fresh');
    fs.rmSync(tw(root, 'blackboard.jsonl'));
    execFileSync('mkfifo', [tw(root, 'blackboard.jsonl')]);
    assert.equal((await detectFolderFormat(tw(root))).reason, 'legacy-content');
  });

  test('any file under records/, however deep, means sqlite; empty folders under it do not', async () => {
    const root = emptyFolder();
    fs.mkdirSync(tw(root, 'records', 'posts', '2026-11'), { recursive: true });
    assert.equal((await detectFolderFormat(tw(root))).reason, 'fresh');
    put(root, 'records/posts/2026-11/01KAYQ3W1Z8Q0S7V4XJ2N5M6PB.json', '{}\n');
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'sqlite', reason: 'sqlite-state' });
  });

  test('1.x content by twining-mcp`s list: a stray decision file, a malformed graph file, a blank-only blackboard is not', async () => {
    const stray = emptyFolder();
    put(stray, 'decisions/01KAYQ3W1Z8Q0S7V4XJ2N5M6PB.json', '{}');
    assert.equal((await detectFolderFormat(tw(stray))).reason, 'legacy-content');
    const malformed = emptyFolder();
    put(malformed, 'graph/relations.json', '[{');
    assert.equal((await detectFolderFormat(tw(malformed))).reason, 'legacy-content');
    const blank = emptyFolder();
    put(blank, 'blackboard.jsonl', '\n  \n');
    assert.equal((await detectFolderFormat(tw(blank))).reason, 'fresh');
    const entity = emptyFolder();
    put(entity, 'graph/entities.json', '[{"id":"x"}]');
    assert.equal((await detectFolderFormat(tw(entity))).reason, 'legacy-content');
  });
});

describe('config.yml decides', () => {
  test('storage.backend: files wins over records/ and a database', async () => {
    const root = fixtureProject();
    fs.appendFileSync(tw(root, 'config.yml'), 'storage:\n  backend: files\n');
    put(root, 'twining.db', SQLITE_HEADER);
    put(root, 'records/decisions/01KAYQ3W1Z8Q0S7V4XJ2N5M6PB.json', '{}\n');
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'files', reason: 'configured', configured: 'files', version: 1 });
    await post(root);
  });

  test('storage.backend: sqlite wins over 1.x content', async () => {
    const root = fixtureProject();
    fs.appendFileSync(tw(root, 'config.yml'), 'storage:\n  backend: sqlite\n');
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'sqlite', reason: 'configured', configured: 'sqlite', version: 1 });
  });

  test('storage.backend: auto resolves as a missing key does', async () => {
    const root = emptyFolder('version: 2\nstorage:\n  backend: auto\n');
    put(root, 'twining.db', SQLITE_HEADER);
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'sqlite', reason: 'sqlite-state', configured: 'auto', version: 2 });
  });
});

describe('the synchronous look the hooks take (sqlite-detect.ts)', () => {
  // It parses config.yml only when the text could name the backend that overturns the files' answer;
  // every spelling YAML allows must still be read as detectFolderFormat reads it.
  const configs = [
    undefined,
    'project_name: demo\n',
    'storage:\n  backend: files\n',
    'storage:\n  backend: sqlite\n',
    'storage: {backend: "sqlite"}\n',
    'storage:\n  backend: "sq\\x6cite"\n',
    'storage:\n  backend: "fi\\x6ces"\n',
    "storage:\n  'backend': 'files'\n",
    'storage:\n  backend: auto\n',
    '# not sqlite, not files\nproject_name: demo\n',
  ];
  for (const config of configs)
    for (const state of ['none', 'database', 'record'] as const)
      test(`${JSON.stringify(config)} with ${state === 'none' ? 'no state' : `a ${state}`}: as detectFolderFormat decides`, async () => {
        const root = emptyFolder(config ?? '');
        if (config === undefined) fs.rmSync(tw(root, 'config.yml'));
        if (state === 'database') put(root, 'twining.db', SQLITE_HEADER);
        if (state === 'record') put(root, 'records/decisions/01KAYQ3W1Z8Q0S7V4XJ2N5M6PB.json', '{}\n');
        // A fresh folder (nothing in it yet) is read in the files layout until something says otherwise.
        const format = await detectFolderFormat(tw(root));
        assert.equal(isSqliteFolder(tw(root)), format.backend === 'sqlite' && format.reason !== 'fresh');
      });
});

describe('what is not written', () => {
  const refused = async (root: string, pattern: RegExp) => {
    const before = snapshotTree(root);
    await rejectsWith(post(root), 'INVALID_INPUT', pattern);
    await rejectsWith(
      openWorkspace(root, { warn: () => undefined }).then(ws => ws.init()),
      'INVALID_INPUT',
      pattern,
    );
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
  };

  // With node:sqlite (Node 22.13+) these folders are written: sqlite-folder.test.ts.
  test('a SQLite folder without node:sqlite: a write is refused naming the layout and why, and nothing changes', { skip: hasNodeSqlite }, async () => {
    const root = emptyFolder('version: 2\nstorage:\n  backend: sqlite\n');
    await refused(root, /SQLite layout and this Node \(v[\d.]+\) has no node:sqlite.*nothing was written/);
    const found = emptyFolder();
    put(found, 'records/handoffs/01KAYQ3W1Z8Q0S7V4XJ2N5M6PB.json', '{}\n');
    await refused(found, /SQLite layout and this Node \(v[\d.]+\) has no node:sqlite.*nothing was written/);
  });

  test('version above 2, even in the files layout: refused, naming config.yml and the version', async () => {
    const root = fixtureProject();
    fs.writeFileSync(tw(root, 'config.yml'), 'version: 3\nstorage:\n  backend: files\n');
    await refused(root, /config\.yml says version 3: a format newer than the 1 and 2.*nothing was written/);
  });

  test('format 3 (records/RECORDS-FROZEN.md, or an events/ folder): refused, naming the marker', async () => {
    const frozen = fixtureProject();
    fs.writeFileSync(tw(frozen, 'config.yml'), 'storage:\n  backend: files\n');
    put(frozen, 'records/RECORDS-FROZEN.md', '# frozen\n');
    await refused(frozen, /records\/RECORDS-FROZEN\.md: it is in twining-mcp's format 3.*nothing was written/);
    const events = fixtureProject();
    fs.mkdirSync(tw(events, 'events'));
    await refused(events, /an events\/ folder: it is in twining-mcp's format 3/);
  });

  test('an unknown storage.backend is refused rather than guessed', async () => {
    const root = fixtureProject();
    fs.appendFileSync(tw(root, 'config.yml'), 'storage:\n  backend: postgres\n');
    await refused(root, /storage\.backend is "postgres", not files, sqlite or auto/);
  });
});

describe('one engine, the folder changing between its writes', () => {
  // The engine keeps a format config.yml names while config.yml and the format 3 markers keep
  // their version stamps (engine/folder-store.ts folderFormat): each change below is a new stamp.
  test('config.yml, records/RECORDS-FROZEN.md or events/ changed after a post: the next post is refused; put back, it goes through', async () => {
    const root = fixtureProject();
    const config = 'version: 1\nstorage:\n  backend: files\n';
    fs.writeFileSync(tw(root, 'config.yml'), config);
    const ws = await openWorkspace(root, { warn: () => undefined });
    const write = () => ws.post({ entry_type: 'finding', summary: 'seen', agent_id: 'me' });
    await write();
    const changes: [string, () => void, () => void, RegExp][] = [
      // The same size as before: the stamp's times tell the rewrite.
      [
        'version 3',
        () => fs.writeFileSync(tw(root, 'config.yml'), config.replace('1', '3')),
        () => fs.writeFileSync(tw(root, 'config.yml'), config),
        /says version 3/,
      ],
      [
        'sqlite',
        () => fs.writeFileSync(tw(root, 'config.yml'), config.replace('files', 'sqlite')),
        () => fs.writeFileSync(tw(root, 'config.yml'), config),
        /SQLite layout/,
      ],
      ['frozen', () => put(root, 'records/RECORDS-FROZEN.md', '# frozen\n'), () => fs.rmSync(tw(root, 'records'), { recursive: true }), /RECORDS-FROZEN\.md/],
      ['events', () => fs.mkdirSync(tw(root, 'events')), () => fs.rmdirSync(tw(root, 'events')), /an events\/ folder/],
    ];
    for (const [what, change, undo, pattern] of changes) {
      change();
      const before = fs.readFileSync(tw(root, 'blackboard.jsonl'), 'utf8');
      await rejectsWith(write(), 'INVALID_INPUT', pattern);
      assert.equal(fs.readFileSync(tw(root, 'blackboard.jsonl'), 'utf8'), before, `${what}: nothing was written`);
      undo();
      await write();
    }
  });

  test('a folder whose config.yml names no backend: a twining.db that appears between two posts refuses the second', async () => {
    const root = emptyFolder();
    const ws = await openWorkspace(root, { warn: () => undefined });
    await ws.post({ entry_type: 'finding', summary: 'first', agent_id: 'me' });
    put(root, 'twining.db', SQLITE_HEADER);
    await rejectsWith(ws.post({ entry_type: 'finding', summary: 'second', agent_id: 'me' }), 'INVALID_INPUT', /SQLite layout/);
  });
});

describe('init says storage.backend: files', () => {
  test('a new folder: config.yml has it, so twining-mcp 2.x reads the same files', async () => {
    const root = tempProject();
    await (await openWorkspace(root)).init();
    const config = yaml.load(fs.readFileSync(tw(root, 'config.yml'), 'utf8')) as any;
    assert.deepEqual(config.storage, { backend: 'files' });
    assert.deepEqual(await detectFolderFormat(tw(root)), { backend: 'files', reason: 'configured', configured: 'files', version: 1 });
  });

  test('an existing config.yml without the key gets it added, its text (comments) kept', async () => {
    const root = fixtureProject();
    const text = `# our settings\n${fs.readFileSync(tw(root, 'config.yml'), 'utf8')}`;
    fs.writeFileSync(tw(root, 'config.yml'), text);
    await (await openWorkspace(root)).init();
    assert.equal(fs.readFileSync(tw(root, 'config.yml'), 'utf8'), `${text}storage:\n  backend: files\n`);
    // A second init adds nothing.
    await (await openWorkspace(root)).init();
    assert.equal(fs.readFileSync(tw(root, 'config.yml'), 'utf8'), `${text}storage:\n  backend: files\n`);
  });

  test('a config.yml that already has a storage key is left as it is', async () => {
    const root = fixtureProject();
    fs.appendFileSync(tw(root, 'config.yml'), 'storage:\n  export_records: true\n');
    const text = fs.readFileSync(tw(root, 'config.yml'), 'utf8');
    await (await openWorkspace(root)).init();
    assert.equal(fs.readFileSync(tw(root, 'config.yml'), 'utf8'), text);
  });
});

describe('reading a folder in a layout we do not read', () => {
  test(
    'a SQLite folder without node:sqlite: its records are read from records/, and the first read says once what is not done',
    { skip: hasNodeSqlite },
    async () => {
      const root = emptyFolder('version: 2\nstorage:\n  backend: sqlite\n');
      const decision = {
        id: '01KAYQ3W1Z8Q0S7V4XJ2N5M6PB',
        timestamp: '2026-11-20T10:00:00.000Z',
        domain: 'api',
        scope: 'src/',
        summary: 'Use JWT',
        status: 'active',
      };
      put(root, 'records/decisions/01KAYQ3W1Z8Q0S7V4XJ2N5M6PB.json', JSON.stringify(decision));
      const warnings: string[] = [];
      const ws = await openWorkspace(root, { warn: m => warnings.push(m) });
      await ws.refresh();
      await ws.refresh();
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(
        warnings[0],
        /is in twining-mcp 2\.x's SQLite layout and this Node .* has no node:sqlite.*read from records\/, its agents .* are not shown, and nothing is written/,
      );
      assert.deepEqual(
        (await ws.decisions({})).decisions.map(d => d.summary),
        ['Use JWT'],
      );
      await rejectsWith(ws.agents({}), 'NOT_FOUND', /keeps its agents only in twining-mcp 2\.x's twining\.db/);
    },
  );

  test('a files folder says nothing', async () => {
    const warnings: string[] = [];
    const ws = await openWorkspace(fixtureProject(), { warn: m => warnings.push(m) });
    await ws.refresh();
    assert.deepEqual(warnings, []);
  });
});
