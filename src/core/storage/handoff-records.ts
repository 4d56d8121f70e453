/**
 * Handoff records (`handoffs/{id}.json`, or a 2.x folder's rows), read on demand through the
 * storage interface (storage/storage.ts) and kept with the key they had when read or written (a
 * file's stat, a row's text). The key is how the engine tells its own writes from other
 * processes' writes: a record whose key is the one this engine last saw has not changed, whoever
 * reports it.
 */
import { isRecord, readJson } from './json-files';
import type { RecordSource, Storage } from './storage';
import type { Transaction } from './transaction';
import { TwiningError } from '../errors';
import { checkUlid } from '../schemas/schemas';
import type { HandoffRecord } from '../records';

export class HandoffRecords {
  /** By id: the stat key when last read or written, and the record (or why it could not be read). */
  private known = new Map<string, { key: string; record?: HandoffRecord; error?: unknown }>();
  /** Increases when a record this engine knows changed on disk, or when it wrote one. */
  version = 0;
  /** The same, per record. */
  private versions = new Map<string, number>();

  constructor(
    private readonly storage: Storage,
    private readonly source: RecordSource<HandoffRecord> = storage.handoffs,
  ) {}

  /**
   * A handoff record by id, or undefined when there is none. A record file that is not a JSON
   * object is a CORRUPT error that names the file (twining-mcp says "not found" for both).
   */
  async get(id: string): Promise<HandoffRecord | undefined> {
    checkUlid('handoff_id', id);
    const key = await this.source.key(id);
    if (key === undefined) return undefined;
    const cached = this.known.get(id);
    if (cached?.key === key) {
      if (cached.error !== undefined) throw cached.error as Error;
      return cached.record;
    }
    try {
      const record = await this.source.read(id);
      this.known.set(id, { key, record });
      return record;
    } catch (error) {
      // Remembered with its stat: the same torn file is not parsed (and waited for) again.
      this.known.set(id, { key, error });
      throw error;
    }
  }

  /** Reads a record afresh, bypassing the cache (under the index lock, before it is rewritten). */
  fresh(id: string): Promise<HandoffRecord | undefined> {
    return this.source.read(id);
  }

  /** Writes a record whole (as a step of `tx` when given) and remembers it with its new key: reports of this write change nothing. */
  async write(id: string, record: HandoffRecord, tx?: Transaction): Promise<void> {
    await this.storage.writeHandoff(id, record, tx);
    const key = await this.source.written(id, record);
    if (key !== undefined) this.known.set(id, { key, record });
    this.bump(id);
  }

  /** Whether a record is as this engine last read or wrote it (records never read count as current: nothing shows them). */
  async isCurrent(id: string): Promise<boolean> {
    const cached = this.known.get(id);
    if (!cached) return true;
    const key = await this.source.key(id).catch(() => undefined);
    return key !== undefined && key === cached.key;
  }

  /**
   * Which of these records differ from what this engine last read or wrote (another process wrote
   * them); bumps `version` when any did. Records never read are not looked at: nothing shows them.
   */
  async recheck(ids: Iterable<string>): Promise<string[]> {
    const changed: string[] = [];
    for (const id of ids) {
      if (await this.isCurrent(id)) continue;
      this.known.delete(id);
      changed.push(id);
      this.bump(id);
    }
    return changed;
  }

  /** How often record `id` changed in this engine's view (0: never since it was first read). */
  versionOf(id: string): number {
    return this.versions.get(id) ?? 0;
  }

  private bump(id: string): void {
    this.version++;
    this.versions.set(id, this.versionOf(id) + 1);
  }

  /** Every record this engine holds, rechecked (a refresh without hints). */
  recheckAll(): Promise<string[]> {
    return this.recheck([...this.known.keys()]);
  }
}

/** Reads `handoffs/{id}.json`: undefined when missing; CORRUPT (naming the file) when not a JSON object. */
export async function readHandoffRecord(file: string, id: string): Promise<HandoffRecord | undefined> {
  const record = await readJson(file, `Handoff ${id}`);
  if (record === undefined) return undefined;
  if (!isRecord(record)) throw new TwiningError('CORRUPT', `Handoff ${id} (${file}) is valid JSON but not an object; it was left untouched`);
  return record as HandoffRecord;
}
