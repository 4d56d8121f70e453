/**
 * The folder itself misbehaving: `.twining` or `config.yml` of the wrong kind, a stray `graph`
 * file, symbolic links leading out of `.twining/`, and a non-root user without write access
 * (run for real with setpriv; skipped with a message when the tests do not run as root).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { CLI_JS, changedFiles, fixtureProject, snapshotTree, tempProject, tw, rejectsWith as rejects } from '../../../support/tmp';

describe('entries of the wrong kind', () => {
  test('.twining as a file: a clear error naming it, and the file untouched', async () => {
    const root = tempProject();
    fs.writeFileSync(path.join(root, '.twining'), 'not a folder');
    const ws = await openWorkspace(root, { warn: () => undefined });
    await rejects(ws.post({ entry_type: 'finding', summary: 's' }), 'CORRUPT', /\.twining is a file, not a folder.*nothing was written/);
    await rejects(ws.init(), 'CORRUPT', /\.twining is a file/);
    assert.equal(fs.readFileSync(path.join(root, '.twining'), 'utf8'), 'not a folder');
  });

  test('a stray graph file blocks no write (the graph steps after one are skipped with a warning); init says what it could not add', async () => {
    const root = fixtureProject();
    fs.rmSync(tw(root, 'graph'), { recursive: true });
    fs.writeFileSync(tw(root, 'graph'), 'stray');
    const warnings: string[] = [];
    const ws = await openWorkspace(root, { warn: m => warnings.push(m) });
    await ws.post({ entry_type: 'finding', summary: 'written despite the stray file' });
    await ws.register({ agent_id: 'still-works' });
    assert.equal((await ws.agents()).agents.filter(a => a.agent_id === 'still-works').length, 1);
    // The post had no graph step (scope "project"); the registration's says why it was skipped.
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /knowledge graph was not updated after registering still-works: .*graph/);
    warnings.length = 0;
    await ws.init();
    assert.ok(
      warnings.some(w => /graph.*(EEXIST|ENOTDIR)/.test(w)),
      warnings.join('\n'),
    );
    assert.equal(fs.readFileSync(tw(root, 'graph'), 'utf8'), 'stray');
  });

  test('config.yml as a directory: the defaults, with a warning naming it', async () => {
    const root = fixtureProject();
    fs.rmSync(tw(root, 'config.yml'));
    fs.mkdirSync(tw(root, 'config.yml'));
    const warnings: string[] = [];
    const ws = await openWorkspace(root, { warn: m => warnings.push(m) });
    const d = await ws.delegate({ summary: 'help', required_capabilities: [] });
    assert.ok(d.entry_id);
    assert.ok(
      warnings.some(w => /config\.yml is a directory.*using the default configuration/.test(w)),
      warnings.join('\n'),
    );
  });
});

describe('symbolic links', () => {
  const cases: [string, string, (ws: Awaited<ReturnType<typeof openWorkspace>>) => Promise<unknown>][] = [
    ['blackboard.jsonl', 'blackboard.jsonl', ws => ws.post({ entry_type: 'finding', summary: 'never written' })],
    ['agents/registry.json', 'agents/registry.json', ws => ws.register({ agent_id: 'never' })],
    ['handoffs/', 'handoffs', ws => ws.handoff({ source_agent: 'a', summary: 'never', results: [] })],
    ['decisions/', 'decisions', ws => ws.decide({ domain: 'd', scope: 's', summary: 'never', context: 'c', rationale: 'r' })],
  ];
  for (const [what, rel, write] of cases) {
    test(`${what} linked out of .twining/: the write is refused by name and nothing outside changes`, async () => {
      const root = fixtureProject();
      const outside = path.join(path.dirname(root), `outside-${path.basename(rel)}`);
      fs.renameSync(tw(root, rel), outside);
      fs.symlinkSync(outside, tw(root, rel));
      const before = fs.statSync(outside).isDirectory()
        ? fs.readdirSync(outside).map(n => fs.readFileSync(path.join(outside, n), 'utf8'))
        : [fs.readFileSync(outside, 'utf8')];
      const snapshot = snapshotTree(root);
      const ws = await openWorkspace(root, { warn: () => undefined });
      await rejects(write(ws), 'CORRUPT', new RegExp(`${rel.replace('.', '\\.')} is a symbolic link to .*outside .*nothing was written`));
      const after = fs.statSync(outside).isDirectory()
        ? fs.readdirSync(outside).map(n => fs.readFileSync(path.join(outside, n), 'utf8'))
        : [fs.readFileSync(outside, 'utf8')];
      assert.deepEqual(after, before);
      assert.deepEqual(changedFiles(snapshot, snapshotTree(root)), []);
    });
  }

  test('.twining itself as a link to a folder elsewhere works as usual', async () => {
    const root = fixtureProject();
    const elsewhere = path.join(path.dirname(root), 'kept-elsewhere');
    fs.renameSync(tw(root), elsewhere);
    fs.symlinkSync(elsewhere, tw(root));
    const ws = await openWorkspace(root, { warn: () => undefined });
    const { id } = await ws.post({ entry_type: 'finding', summary: 'through a linked .twining' });
    await ws.handoff({ source_agent: 'a', summary: 'h', results: [] });
    assert.ok(fs.readFileSync(path.join(elsewhere, 'blackboard.jsonl'), 'utf8').includes(id));
  });
});

describe('a user without write access (setpriv, not root)', () => {
  const isRoot = process.getuid?.() === 0;
  const skip = isRoot ? false : 'the tests do not run as root, so they cannot act as another user: skipped';
  // The bundled CLI copied where that user can read it: the clone may sit under a folder only root
  // may enter (a fresh clone in \`mktemp -d\`, as CI's may be).
  let cli: string | undefined;
  const readableCli = (): string => {
    if (!cli) {
      const dir = tempProject('cli-for-others');
      for (const d of [path.dirname(dir), dir]) fs.chmodSync(d, 0o755);
      cli = path.join(dir, 'cli.js');
      fs.copyFileSync(CLI_JS, cli);
      fs.copyFileSync(path.join(path.dirname(CLI_JS), 'cli-main.js'), path.join(dir, 'cli-main.js')); // the whole CLI, which cli.js hands these commands to
    }
    return cli;
  };
  const asNobody = (root: string, args: string[]) =>
    spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, readableCli(), ...args, '--dir', root], {
      encoding: 'utf8',
    });

  test('an optional folder it cannot write (embeddings/) does not stop its writes', { skip }, () => {
    const root = fixtureProject();
    fs.chmodSync(path.dirname(root), 0o755);
    spawnSync('chown', ['-R', '65534:65534', root]);
    fs.mkdirSync(tw(root, 'embeddings'), { recursive: true });
    spawnSync('chown', ['0:0', tw(root, 'embeddings')]);
    fs.chmodSync(tw(root, 'embeddings'), 0o555);
    fs.rmSync(tw(root, 'archive'), { recursive: true, force: true });
    const r = asNobody(root, ['post', '--entry-type', 'finding', '--summary', 'written by nobody']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(fs.readFileSync(tw(root, 'blackboard.jsonl'), 'utf8').includes('written by nobody'));
    assert.equal(fs.existsSync(tw(root, 'archive')), false, 'an optional folder is not made by a write');
  });

  test('a registry it cannot write: exit 3, the file and the cause named, nothing written', { skip }, () => {
    const root = fixtureProject();
    fs.chmodSync(path.dirname(root), 0o755);
    spawnSync('chown', ['-R', '65534:65534', root]);
    spawnSync('chown', ['-R', '0:0', tw(root, 'agents')]);
    const before = fs.readFileSync(tw(root, 'agents/registry.json'), 'utf8');
    const r = asNobody(root, ['register', 'nobody-agent']);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /agents\/registry\.json.*permission denied \(EACCES\).*nothing was written/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(fs.readFileSync(tw(root, 'agents/registry.json'), 'utf8'), before);
  });
});

describe('config.yml that is not a regular file, from a new process', () => {
  // The folder's layout is decided from config.yml before anything else is read: a device or a
  // FIFO there must give a clear answer in bounded time and memory, never a read without end.
  const cases: [string, (file: string) => void][] = [
    ['a link to /dev/zero', file => fs.symlinkSync('/dev/zero', file)],
    ['a FIFO nobody writes to', file => spawnSync('mkfifo', [file])],
  ];
  for (const [what, make] of cases) {
    test(`twining status with config.yml ${what} ends at once, naming the file and the problem`, () => {
      const root = fixtureProject();
      fs.rmSync(tw(root, 'config.yml'));
      make(tw(root, 'config.yml'));
      const before = snapshotTree(root);
      const started = Date.now();
      const r = spawnSync(process.execPath, ['--max-old-space-size=256', CLI_JS, 'status'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 20_000,
        killSignal: 'SIGKILL',
      });
      assert.equal(r.signal, null, `ended by ${r.signal} after ${Date.now() - started} ms: it read without end`);
      assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
      assert.match(r.stderr, /config\.yml is a (device|FIFO).*not a regular file/, r.stderr);
      assert.deepEqual(changedFiles(before, snapshotTree(root)), [], 'nothing of the record was written');
    });
  }
});
