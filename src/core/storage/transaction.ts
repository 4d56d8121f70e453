/**
 * All or nothing for operations that write several files (docs/format.md §Which lock for which write lists them): a handoff
 * (record, index line, status entry), an acknowledgement (record, index), a decision (superseded
 * record, new record, index, blackboard entries). Each step is undone if a later one fails, so a
 * full disk or a vanished folder half-way leaves the files as they were:
 *  - a whole-file replacement keeps the previous file as a hard link until the end, and is undone
 *    by renaming that link back (no data to write, so it works on a full disk);
 *  - a new file is undone by removing it;
 *  - an append is undone by cutting the file back to its previous length.
 * Callers hold the locks of every file they write. A writer killed half-way leaves what it wrote
 * (and its links, swept as temporary files); the next open repairs records and indexes.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { appendLineSafely, ioError, writeAtomic } from './json-files';
import { TwiningError, isTwiningError } from '../errors';

interface Step {
  file: string;
  undo: () => Promise<void>;
}

export class Transaction {
  private readonly steps: Step[] = [];
  private readonly links: string[] = [];

  /** Writes `target` whole (temporary file + rename), creating it or replacing it. */
  async replace(target: string, content: string): Promise<void> {
    const previous = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const existed = await fs.link(target, previous).then(
      () => true,
      error => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw ioError(error, target, `${path.basename(target)} is unchanged (nothing was written)`);
      },
    );
    try {
      await writeAtomic(target, content);
    } catch (error) {
      if (existed) await fs.rm(previous, { force: true }).catch(() => undefined);
      throw error;
    }
    if (existed) {
      this.links.push(previous);
      this.steps.push({ file: target, undo: () => fs.rename(previous, target) });
    } else {
      this.steps.push({ file: target, undo: () => fs.rm(target, { force: true }) });
    }
  }

  /** Appends complete lines (appendLineSafely: a failed append leaves the file as it was). */
  async append(target: string, text: string): Promise<void> {
    const size = await fs.stat(target).then(
      st => st.size,
      () => 0,
    );
    await appendLineSafely(target, text);
    this.steps.push({ file: target, undo: () => fs.truncate(target, size) });
  }

  /** Undoes every step, last first; returns the files that could not be put back. */
  async rollback(): Promise<string[]> {
    const failed: string[] = [];
    for (const step of this.steps.reverse()) await step.undo().catch(() => failed.push(step.file));
    this.steps.length = 0;
    await this.finish();
    return failed;
  }

  /** Drops the links to the previous versions (after success, or after a rollback). */
  async finish(): Promise<void> {
    await Promise.all(this.links.map(link => fs.rm(link, { force: true }).catch(() => undefined)));
    this.links.length = 0;
  }
}

/**
 * Runs `work` with a transaction: on success its previous versions are dropped; on failure every
 * step is undone and the error is rethrown (its message already says its own file is unchanged).
 * Steps that could not be undone are added to the message by name, with what repairs them.
 */
export async function allOrNothing<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  const tx = new Transaction();
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    const failed = await tx.rollback();
    if (failed.length === 0) throw error;
    const message = `${(error as Error).message}; the steps already written could not all be undone (${failed.join(', ')}): the next open of the folder brings records and indexes back in step`;
    throw new TwiningError(isTwiningError(error) ? error.code : 'IO', message, (error as TwiningError).details);
  }
  await tx.finish();
  return result;
}
