/**
 * The worker thread that reads decision records for the search index (record-reader.ts), bundled
 * on its own as dist/record-worker.js. It reads the files named in its workerData one after
 * another, with blocking calls (this thread has nothing else to do), and posts, file by file, the
 * fields search indexes, or null for a file it could not read as a JSON object: the engine then
 * reads that one itself and says what is wrong with it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'fs';
import { parentPort, workerData } from 'worker_threads';
import { isRecord, withoutBom } from '../store/files';
import { INDEXED_FIELDS, type IndexedFields } from './record-reader';

/** Larger files are left to the engine (it refuses them with a message). */
const MAX_BYTES = 16 * 1024 * 1024;

function read(file: string): IndexedFields | null {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO put where a record belongs must not hang the thread.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_BYTES) return null;
    text = readFileSync(fd, 'utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(withoutBom(text));
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const fields: Record<string, unknown> = {};
  for (const name of INDEXED_FIELDS) if (name in value) fields[name] = value[name];
  return fields;
}

const { files } = workerData as { files: string[] };
parentPort?.postMessage(files.map(read));
