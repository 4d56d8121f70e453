/**
 * A process that syncs "twice" and then runs git (not a test file), for the git launcher's test.
 * Started with one argument, a repository; prints one JSON line: the helper's pid, its own pid,
 * the parent of the git that ran `rev-parse` and what it printed, what a fast-import made, and
 * whether any git call was started directly. Then it returns from main without closing
 * anything: the helper must neither keep it alive nor outlive it.
 */
import * as fs from 'fs';
import { gitHelperPid, syncEnded } from '../../src/core/sync/git-launcher';
import { runGit } from '../../src/core/sync/sync-git';
import { importCommit } from '../../src/core/sync/record-commit';
import { blobId } from '../../src/core/sync/record-tree';

const repo = process.argv[2];

async function main(): Promise<void> {
  syncEnded();
  syncEnded();
  for (let i = 0; i < 200 && !gitHelperPid(); i++) await new Promise(resolve => setTimeout(resolve, 10));
  await new Promise(resolve => setTimeout(resolve, 200)); // its channel is up
  // git's parent process, read by git itself through an alias (`!` runs a shell whose parent is git).
  const parent = await runGit(repo, ['-c', "alias.parent=!awk '{print $4}' /proc/$PPID/stat", 'parent']);
  const head = await runGit(repo, ['rev-parse', '--git-dir']);
  const bytes = Buffer.from('through the helper\n');
  const id = blobId(bytes, 'sha1');
  const made = await importCommit(
    { cwd: repo, gitDir: `${repo}/.git`, objectFormat: 'sha1' },
    {
      fromScratch: true,
      files: new Map([['a.txt', id]]),
      removed: [],
      blobs: new Map([[id, bytes]]),
      message: 'via helper',
      who: { name: 'Test', email: 'test@example.invalid' },
    },
  );
  await made.finish(['refs/twining/synced']);
  process.stdout.write(
    JSON.stringify({
      helper: gitHelperPid(),
      self: process.pid,
      gitParent: Number(parent.stdout.toString('utf8').trim()),
      gitDir: head.stdout.toString('utf8').trim(),
      commit: made.commit,
      proc: fs.existsSync('/proc/self/stat'),
    }) + '\n',
  );
}

main().catch(error => {
  process.stdout.write(JSON.stringify({ fatal: (error as Error).message }) + '\n');
  process.exit(1);
});
