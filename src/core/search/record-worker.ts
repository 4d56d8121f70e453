/**
 * The worker thread that reads decision records for the search index (record-reader.ts), bundled
 * on its own as dist/record-worker.js. It reads the files named in its workerData one after
 * another, with blocking calls (this thread has nothing else to do), and posts, file by file, the
 * fields search indexes, or null for a file it could not read as a JSON object: the engine then
 * reads that one itself and says what is wrong with it.
 */
import { readTextSync } from '../storage/read-file';
import { parentPort, workerData } from 'worker_threads';
import { isRecord } from '../storage/json-files';
import { INDEXED_FIELDS, type IndexedFields } from './record-reader';

function read(file: string): IndexedFields | null {
  let text: string | undefined;
  try {
    // Bounded (storage/read-file.ts): a FIFO, a device or an oversized file where a record belongs
    // is left to the engine, which refuses it with a message.
    text = readTextSync(file, 'record');
  } catch {
    return null;
  }
  if (text === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
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
