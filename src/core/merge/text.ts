/**
 * The three texts of a merge read as records, and the merged records written back in twining-mcp's
 * serialisation (FORMAT.md §2.3) with the core's own helpers.
 */
import { toJsonText } from '../store/files';
import { JsonObject, isObject } from './values';

export type Side = 'base' | 'ours' | 'theirs';

export interface Entry {
  value?: JsonObject;
  raw: string;
}

/** A line left behind by an earlier merge that was resolved by hand. */
export const isConflictMarker = (line: string) => /^(<{7}|={7}|>{7}|\|{7})( |\r?$)/.test(line);

/** Every non-blank line of a JSONL text (a last line without `\n` included), parsed where it can be. */
export function readJsonl(text: string, file: string, side: Side, notes: string[]): Entry[] {
  const out: Entry[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    } catch {
      value = undefined;
    }
    if (isObject(value)) out.push({ value, raw });
    else {
      out.push({ raw });
      if (side !== 'base') {
        const what = isConflictMarker(raw) ? 'a conflict marker left by an earlier merge' : 'not a JSON object';
        notes.push(`${file}: ${side} line ${i + 1} is ${what}; it is kept verbatim: ${JSON.stringify(raw.slice(0, 80))}`);
      }
    }
  });
  return out;
}

export function writeJsonl(lines: { raw: string }[]): string {
  return lines.map(l => (l.raw.endsWith('\n') ? l.raw : `${l.raw}\n`)).join('');
}

export class Unparseable extends Error {
  constructor(readonly side: Side, readonly reason: string) {
    super(`${side} ${reason}`);
  }
}

/** A `.json` array file: its items (non-objects kept as text). Empty text is an empty array. */
export function readJsonArray(text: string, side: Side): Entry[] {
  const value = parseJson(text, side);
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Unparseable(side, 'is valid JSON but not an array');
  return value.map(item => (isObject(item) ? { value: item, raw: JSON.stringify(item) } : { raw: JSON.stringify(item) }));
}

/** A `.json` file holding one object; undefined for an empty text (a file added on both sides has no base). */
export function readJsonObject(text: string, side: Side): JsonObject | undefined {
  const value = parseJson(text, side);
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new Unparseable(side, 'is valid JSON but not an object');
  return value;
}

function parseJson(text: string, side: Side): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const marker = text.split('\n').findIndex(isConflictMarker);
    const why = marker >= 0 ? `holds a conflict marker from an earlier merge (line ${marker + 1})` : `does not parse as JSON (${(error as Error).message})`;
    throw new Unparseable(side, why);
  }
}

export function writeJsonArray(items: { value?: JsonObject; raw: string }[]): string {
  return toJsonText(items.map(i => i.value ?? JSON.parse(i.raw)));
}

export const writeJsonObject = (value: JsonObject): string => toJsonText(value);

/**
 * Both sides in full between git's conflict markers (with the base, as diff3 shows it), for a file
 * that cannot be merged by record: nothing is dropped, and git records the path as conflicted.
 */
export function conflictText(base: string, ours: string, theirs: string, size = 7): string {
  const block = (t: string) => (t === '' || t.endsWith('\n') ? t : `${t}\n`);
  return `${'<'.repeat(size)} ours\n${block(ours)}${'|'.repeat(size)} base\n${block(base)}${'='.repeat(size)}\n${block(theirs)}${'>'.repeat(size)} theirs\n`;
}
