/**
 * The git merge driver: `twining merge BASE OURS THEIRS PATH [MARKER_SIZE]` (git's `%O %A %B %P
 * %L`). Merges by record (see merge-file.ts), writes the result over OURS and exits 0, or 1 where it had
 * to leave conflict markers for a person. Files without record rules go to `git merge-file`, the
 * same text merge git would have done. Git runs the driver at the top of the work tree with
 * temporary files as arguments, so nothing here depends on the current folder beyond them.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'fs';
import { spawnSync } from 'child_process';
import { MergeOutcome, mergeTwiningTexts } from './merge-file';

export const DRIVER_ARGS = '%O %A %B %P %L';

function readSide(file: string, side: string): Buffer {
  try {
    // One read (the promise API reads in chunks, slower for a large blackboard); merge-text.ts decodes it when text is needed.
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && side === 'base') return Buffer.alloc(0);
    throw new Error(`cannot read the ${side} version (${file}): ${(error as Error).message}`);
  }
}

export function runMergeDriver(args: string[], err: NodeJS.WritableStream): number {
  const [base, ours, theirs, filePath = ours, markerArg] = args;
  if (!base || !ours || !theirs) {
    err.write('twining merge: usage: twining merge BASE OURS THEIRS [PATH] [MARKER_SIZE] (git passes %O %A %B %P %L)\n');
    return 2;
  }
  const markerSize = Number(markerArg) > 0 ? Number(markerArg) : 7;
  let outcome;
  try {
    outcome = mergeTwiningTexts(
      filePath,
      { base: () => readSide(base, 'base'), ours: () => readSide(ours, 'ours'), theirs: () => readSide(theirs, 'theirs') },
      markerSize,
    );
  } catch (error) {
    err.write(`twining merge: ${filePath}: ${(error as Error).message}; ${ours} was left as it was\n`);
    return 2;
  }
  if (!outcome) return textMerge(base, ours, theirs, filePath, markerSize, err);
  write(ours, outcome);
  err.write(`twining merge: ${outcome.summary}\n`);
  for (const note of outcome.notes) err.write(`twining merge: ${note}\n`);
  return outcome.clean ? 0 : 1;
}

/** Writes the result over OURS; a large JSONL file in parts, never as one more copy in memory. */
function write(file: string, outcome: MergeOutcome): void {
  const fd = openSync(file, 'w');
  try {
    if (outcome.parts) for (const part of outcome.parts) writeSync(fd, part);
    else if (!outcome.lines) writeSync(fd, outcome.text);
    else for (let i = 0; i < outcome.lines.length; i += 4096) writeSync(fd, `${outcome.lines.slice(i, i + 4096).join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
}

/** git's own line merge, in place over OURS: for config.yml and anything without record rules. */
function textMerge(base: string, ours: string, theirs: string, filePath: string, markerSize: number, err: NodeJS.WritableStream): number {
  const r = spawnSync('git', ['merge-file', `--marker-size=${markerSize}`, '-L', 'ours', '-L', 'base', '-L', 'theirs', ours, base, theirs], {
    encoding: 'utf8',
  });
  if (r.error || r.status === null || r.status < 0 || r.status > 127) {
    err.write(`twining merge: ${filePath}: git merge-file failed (${r.error?.message ?? r.stderr.trim() ?? `exit ${r.status}`})\n`);
    return 2;
  }
  if (r.status > 0) err.write(`twining merge: ${filePath}: ${r.status} conflict(s) in a text merge; resolve them by hand\n`);
  return r.status > 0 ? 1 : 0;
}
