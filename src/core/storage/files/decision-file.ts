/** A decision record's file (`decisions/{id}.json`, docs/format.md), read as a record. */
import { isRecord, readJson } from '../json-files';
import { TwiningError } from '../../errors';
import type { DecisionRecord } from '../../records';

/** The record in `file`, or undefined when missing; CORRUPT (naming the file) when it is not a JSON object. */
export async function readDecisionFile(file: string, id: string): Promise<DecisionRecord | undefined> {
  const record = await readJson(file, `Decision ${id}`);
  if (record === undefined) return undefined;
  if (!isRecord(record)) throw new TwiningError('CORRUPT', `Decision ${id} (${file}) is valid JSON but not an object; it was left untouched`);
  return record as unknown as DecisionRecord;
}
