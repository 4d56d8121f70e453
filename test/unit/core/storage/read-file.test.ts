/**
 * Bounded reads of the record (src/core/storage/read-file.ts) on real faults: a FIFO made with
 * mkfifo, a link to /dev/zero, a file larger than its kind's limit (a real file of that size,
 * made sparse with truncate), a link out of `.twining/`; each refused at once with a message that
 * names the file, the problem and that nothing was written; and the readers that go through it
 * (the engine, the hook from a new process) ending in bounded time on the same faults.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync, spawnSync } from 'child_process';
import { READ_LIMITS, readKindOfPath, readBytes, readText, readTextSync } from '../../../../src/core/storage/read-file';
import { readTextIfExists } from '../../../../src/core/storage/json-files';
import { claude } from '../../../support/hook-inputs';
import { CLI_JS, changedFiles, fixtureProject, snapshotTree, tempProject, tw } from '../../../support/tmp';

/** A `.twining/` folder of a new project, with `name` made by `make`. */
function folderWith(name: string, make: (file: string) => void): string {
  const dir = path.join(tempProject(), '.twining');
  fs.mkdirSync(path.join(dir, path.dirname(name)), { recursive: true });
  make(path.join(dir, name));
  return path.join(dir, name);
}

const fifo = (file: string) => execFileSync('mkfifo', [file]);
const zero = (file: string) => fs.symlinkSync('/dev/zero', file);
const sized = (bytes: number) => (file: string) => {
  fs.writeFileSync(file, '');
  fs.truncateSync(file, bytes);
};

/** Asserts the call fails at once with a CORRUPT error whose message matches `problem` and names the file. */
async function refused(file: string, read: () => unknown, problem: RegExp): Promise<void> {
  const started = Date.now();
  await assert.rejects(Promise.resolve().then(read), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'CORRUPT', error.message);
    assert.ok(error.message.includes(file), `the file is named: ${error.message}`);
    assert.match(error.message, problem);
    assert.match(error.message, /nothing was written/);
    return true;
  });
  assert.ok(Date.now() - started < 2000, `refused in ${Date.now() - started} ms`);
}

describe('read-file: what is not a regular file of the record is refused, at once', () => {
  for (const [what, make, problem] of [
    ['a FIFO nobody writes to', fifo, /is a FIFO \(named pipe\), not a regular file/],
    ['a link to /dev/zero', zero, /is a device, not a regular file/],
    ['a directory', (file: string) => fs.mkdirSync(file), /is a directory, not a regular file/],
  ] as const)
    test(`${what}: sync and async, every kind`, async () => {
      const file = folderWith('blackboard.jsonl', make);
      await refused(file, () => readTextSync(file, 'log'), problem);
      await refused(file, () => readText(file, 'log'), problem);
      await refused(file, () => readBytes(file, 'log', 0, 10), problem);
      await refused(file, () => readTextIfExists(file), problem);
    });

  test('a file larger than its kind allows: refused before a byte is read, with its size and the limit', async () => {
    const config = folderWith('config.yml', sized(READ_LIMITS.config + 1));
    await refused(
      config,
      () => readTextSync(config, 'config'),
      new RegExp(`too large to read \\(${READ_LIMITS.config + 1} bytes; the limit for this file is ${READ_LIMITS.config}\\)`),
    );
    await refused(config, () => readTextIfExists(config), /too large to read/);
    const index = folderWith('decisions/index.json', sized(READ_LIMITS.index + 1));
    assert.equal(readKindOfPath(index), 'index');
    await refused(index, () => readText(index, 'index'), /too large to read/);
    // Just under the limit is read.
    const small = folderWith('config.yml', sized(1000));
    assert.equal(readTextSync(small, 'config')?.length, 1000);
  });

  test('a link out of .twining/ is refused; a link inside it, and .twining itself as a link, are followed', async () => {
    const root = tempProject();
    const outside = path.join(path.dirname(root), 'secret.json');
    fs.writeFileSync(outside, '{"private": true}');
    fs.mkdirSync(tw(root, 'decisions'), { recursive: true });
    fs.symlinkSync(outside, tw(root, 'decisions', 'index.json'));
    await refused(tw(root, 'decisions', 'index.json'), () => readText(tw(root, 'decisions', 'index.json'), 'index'), /is a symbolic link to .*outside/);
    await refused(tw(root, 'decisions', 'index.json'), () => readTextSync(tw(root, 'decisions', 'index.json'), 'index'), /is a symbolic link to .*outside/);

    fs.writeFileSync(tw(root, 'real.json'), '[1]');
    fs.symlinkSync(tw(root, 'real.json'), tw(root, 'linked.json'));
    assert.equal(await readText(tw(root, 'linked.json'), 'record'), '[1]');

    const elsewhere = path.join(path.dirname(root), 'folder-elsewhere');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'config.yml'), 'version: 1\n');
    const other = tempProject();
    fs.symlinkSync(elsewhere, tw(other));
    assert.equal(readTextSync(tw(other, 'config.yml'), 'config'), 'version: 1\n');
  });

  test('a missing file is undefined; a byte-order mark goes; a range reads only its bytes', async () => {
    const file = folderWith('blackboard.jsonl', f => fs.writeFileSync(f, '\uFEFF{"a":1}\n{"b":2}\n'));
    assert.equal(readTextSync(path.join(path.dirname(file), 'missing.json'), 'record'), undefined);
    assert.equal(await readText(path.join(path.dirname(file), 'missing.json'), 'record'), undefined);
    assert.equal(readTextSync(file, 'log'), '{"a":1}\n{"b":2}\n');
    assert.equal((await readBytes(file, 'log', 11, 19))?.toString(), '{"b":2}\n');
  });
});

describe('readers of the record on the same faults, from a new process', () => {
  const edit = (root: string) =>
    claude(root, 'faults', 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'src/auth/jwt.ts') }, tool_use_id: 't' });
  const run = (root: string, args: string[], input?: unknown) => {
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--max-old-space-size=256', CLI_JS, ...args], {
      cwd: root,
      input: input === undefined ? '' : JSON.stringify(input),
      encoding: 'utf8',
      timeout: 20_000,
      killSignal: 'SIGKILL',
    });
    assert.equal(r.signal, null, `ended by ${r.signal} after ${Date.now() - started} ms`);
    return r;
  };

  for (const [what, rel, make] of [
    ['blackboard.jsonl a FIFO', 'blackboard.jsonl', fifo],
    ['claims/claims.jsonl a link to /dev/zero', 'claims/claims.jsonl', zero],
    ['decisions/index.json a FIFO', 'decisions/index.json', fifo],
  ] as const)
    test(`the PreToolUse hook with ${what} ends, and writes nothing of the record`, () => {
      const root = fixtureProject();
      fs.mkdirSync(path.dirname(tw(root, rel)), { recursive: true });
      fs.rmSync(tw(root, rel), { force: true });
      make(tw(root, rel));
      const before = snapshotTree(root);
      const r = run(root, ['hook', 'PreToolUse'], edit(root));
      assert.ok(r.status === 0 || r.status === 1, `exit ${r.status}: ${r.stderr}`);
      const after = snapshotTree(root);
      assert.deepEqual(
        changedFiles(before, after).filter(f => !f.startsWith('sessions/')),
        [],
      );
    });

  test('twining status with a decision index larger than any real one: a clear error naming it, at once', () => {
    const root = fixtureProject();
    fs.truncateSync(tw(root, 'decisions/index.json'), READ_LIMITS.index + 1);
    const before = snapshotTree(root);
    const r = run(root, ['status']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /decisions[\\/]index\.json is too large to read .*nothing was written/);
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
  });
});
