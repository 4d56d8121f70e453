/**
 * The three texts of a merge read as records, and the merged records written back in twining-mcp's
 * serialisation (docs/format.md §Serialisation) with the core's own helpers.
 */
import { isAscii } from 'buffer';
import { toJsonText } from '../storage/json-files';
import { JsonObject, isObject } from './json-values';
import type { Entry, Side, Sides } from './record-collection';

/** A line left behind by an earlier merge that was resolved by hand. */
export const isConflictMarker = (line: string) => /^(<{7}|={7}|>{7}|\|{7})( |\r?$)/.test(line);

function parseLine(raw: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `…,"id":"<ULID>","timestamp":"<24 characters>"}`: how every blackboard line of twining-mcp and of
 * this project ends. In valid JSON that tail can only be the top-level object's last two members.
 */
export function quickIdTime(raw: string): { id: string; time: string } | undefined {
  const end = raw.length - (raw.endsWith('\r') ? 1 : 0);
  const tail = raw.slice(end - 74, end);
  if (tail.length !== 74 || !tail.startsWith(',"id":"') || tail.slice(33, 48) !== '","timestamp":"' || !tail.endsWith('"}')) return undefined;
  return { id: tail.slice(7, 33), time: tail.slice(48, 72) };
}

/** A copy of a line that does not keep the whole text it was cut from alive. */
const detach = (line: string) => Buffer.from(line, 'utf8').toString('utf8');

/**
 * The three sides of a JSONL file, read one after the other. A side's line equal to a base line
 * shares its entry and string, so a side's text can go once split (`texts.ours` and `texts.theirs`
 * are emptied): at most the base and one side are held as whole texts. A line found
 * byte for byte in all three was kept by everyone and is not parsed again (with `blackboardTail`,
 * its id and time come from its tail); every other line is parsed, and a side's new line that does
 * not parse is reported with its number.
 */
/** A side's text, or a function reading it (text or bytes) when first needed (the driver reads one side at a time). */
export type SideText = string | (() => string | Buffer);

/** A side's text. ASCII bytes (nearly every blackboard) decode as Latin-1 to the same string, a third faster than UTF-8. */
export function textOf(t: SideText): string {
  const value = typeof t === 'function' ? t() : t;
  if (typeof value === 'string') return value;
  return typeof isAscii === 'function' && isAscii(value) ? value.toString('latin1') : value.toString('utf8');
}

/** A side's bytes (UTF-8). */
export function bytesOf(t: SideText): Buffer {
  const value = typeof t === 'function' ? t() : t;
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

export function readJsonlSides(texts: Record<Side, SideText>, file: string, notes: string[], blackboardTail: boolean): Sides {
  const known = new Map<string, Entry>();
  const lists = {} as Record<Side, Entry[]>;
  const fresh: { side: Side; line: number; entry: Entry }[] = [];
  (['base', 'ours', 'theirs'] as const).forEach((side, bit) => {
    const list: Entry[] = [];
    textOf(texts[side])
      .split('\n')
      .forEach((line, i) => {
        if (line === '' || line === '\r' || (line.charCodeAt(0) <= 32 && line.trim() === '')) return;
        let e = known.get(line);
        if (!e) {
          e = { raw: side === 'base' ? line : detach(line), seen: 0 };
          known.set(e.raw, e);
          if (side !== 'base') fresh.push({ side, line: i + 1, entry: e });
        }
        if (e.seen & (1 << bit)) counted(e, list);
        e.seen |= 1 << bit;
        list.push(e);
      });
    lists[side] = list;
    if (side !== 'base') texts[side] = '';
  });
  for (const e of known.values()) {
    const quick = blackboardTail && e.seen === 7 ? quickIdTime(e.raw) : undefined;
    if (quick) e.quick = quick;
    else e.value = parseLine(e.raw) ?? null;
  }
  for (const { side, line, entry } of fresh) {
    if (entry.value !== null) continue;
    const what = isConflictMarker(entry.raw) ? 'a conflict marker left by an earlier merge' : 'not a JSON object';
    notes.push(`${file}: ${side} line ${line} is ${what}; it is kept verbatim: ${JSON.stringify(entry.raw.slice(0, 80))}`);
  }
  return { entries: [...known.values()], lists };
}

/** A text met again on the same side: remember the most repeats any side has. */
function counted(e: Entry, list: Entry[]): void {
  const times = list.filter(x => x === e).length;
  e.repeats = Math.max(e.repeats ?? 0, times);
}

export function writeJsonl(lines: { raw: string }[]): string {
  return lines.length === 0 ? '' : `${lines.map(l => l.raw).join('\n')}\n`;
}

export class Unparseable extends Error {
  constructor(
    readonly side: Side,
    readonly reason: string,
  ) {
    super(`${side} ${reason}`);
  }
}

/** The three sides of a `.json` array file, as distinct item texts (non-objects kept as text). */
export function readJsonArraySides(texts: Record<Side, string>, file: string, notes: string[]): Sides {
  const known = new Map<string, Entry>();
  const lists = {} as Record<Side, Entry[]>;
  (['base', 'ours', 'theirs'] as const).forEach((side, bit) => {
    let items: unknown[] = [];
    try {
      const value = parseJson(texts[side], side);
      if (value !== undefined && !Array.isArray(value)) throw new Unparseable(side, 'is valid JSON but not an array');
      items = (value as unknown[] | undefined) ?? [];
    } catch (error) {
      if (!(error instanceof Unparseable) || side !== 'base') throw error;
      notes.push(`${file}: the merge base ${error.reason}; merged as if both sides had added everything, so a record one side removed may come back`);
    }
    lists[side] = items.map(item => {
      const raw = JSON.stringify(item);
      let e = known.get(raw);
      if (!e) known.set(raw, (e = { raw, seen: 0, value: isObject(item) ? item : null }));
      else if (e.seen & (1 << bit)) e.repeats = 1;
      e.seen |= 1 << bit;
      return e;
    });
  });
  return { entries: [...known.values()], lists };
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

export function writeJsonArray(items: { value?: JsonObject | null; raw: string }[]): string {
  return toJsonText(items.map(i => i.value ?? (JSON.parse(i.raw) as unknown)));
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
