/**
 * Three-way merge of one `.twining/` file by record, as pure functions over the three texts (git's
 * merge base, ours and theirs). `mergeTwiningFile` picks the rules by the file's path and returns
 * the merged text, or `undefined` for a file it has no record rules for (config.yml and others:
 * git's ordinary text merge). The result is the same whichever side is "ours".
 */
import { Family, Sides, mergeEntries } from './record-collection';
import { blackboardEntries } from './blackboard-merge';
import { handoffIndexLines, mergeHandoffRecord } from './handoff-merge';
import { decisionIndexEntries, mergeDecision } from './decision-merge';
import { registryAgents } from './registry-merge';
import { graphItems } from './graph-merge';
import { claimRecords, readClaimLogSides } from './claim-merge';
import type { Side } from './record-collection';
import {
  SideText,
  textOf,
  Unparseable,
  conflictText,
  readJsonArraySides,
  readJsonObject,
  readJsonlSides,
  writeJsonArray,
  writeJsonObject,
  writeJsonl,
} from './merge-text';
import { JsonObject, same } from './json-values';
import { recordFileKind } from './records-merge';

export { STATUS_PRECEDENCE } from './decision-merge';

export interface MergeOutcome {
  /** The merged file. */
  readonly text: string;
  /** For JSONL: the merged lines without their `\n` (`text` joins them), to write a large file in parts. */
  lines?: readonly string[];
  /** False when the file was left with conflict markers for a person to resolve. */
  clean: boolean;
  /** One line saying what was merged. */
  summary: string;
  /** Everything worth a person's attention: unparseable lines kept, records changed on both sides … */
  notes: string[];
}

type Kind =
  | { shape: 'jsonl' | 'array'; family: Family; what: string; read?: (texts: Record<Side, SideText>, file: string, notes: string[]) => Sides }
  | {
      shape: 'object';
      merge: (base: JsonObject | undefined, a: JsonObject, b: JsonObject, notes: string[]) => JsonObject;
      what: string;
      /** The merged record's text (default: docs/format.md §Serialisation's 2-space JSON; records/ files: twining-mcp 2.x's sorted keys). */
      write?: (value: JsonObject) => string;
    };

/** The path inside `.twining/` (`%P` is relative to the repository, with `/` on every platform). */
export function twiningRelative(filePath: string): string {
  const p = filePath.replace(/\\/g, '/');
  const at = p.lastIndexOf('.twining/');
  return at >= 0 ? p.slice(at + '.twining/'.length) : p;
}

export function kindOf(filePath: string): Kind | undefined {
  const rel = twiningRelative(filePath);
  if (rel.startsWith('records/')) return recordFileKind(rel);
  if (rel === 'blackboard.jsonl' || /^archive\/[^/]+\.jsonl$/.test(rel)) return { shape: 'jsonl', family: blackboardEntries, what: 'entries' };
  if (rel === 'handoffs/index.jsonl') return { shape: 'jsonl', family: handoffIndexLines, what: 'handoffs' };
  if (rel === 'decisions/index.json') return { shape: 'array', family: decisionIndexEntries, what: 'decisions' };
  if (rel === 'agents/registry.json') return { shape: 'array', family: registryAgents, what: 'agents' };
  if (rel === 'graph/entities.json' || rel === 'graph/relations.json') return { shape: 'array', family: graphItems, what: 'items' };
  if (rel === 'claims/claims.jsonl') return { shape: 'jsonl', family: claimRecords, what: 'claims', read: readClaimLogSides };
  const record = /^(handoffs|decisions)\/([^/]+)\.json$/.exec(rel);
  if (record?.[1] === 'handoffs') return { shape: 'object', merge: mergeHandoffRecord, what: `handoff ${record[2]}` };
  if (record?.[1] === 'decisions')
    return { shape: 'object', merge: (b, x, y, n) => mergeDecision(b, x, y, n, `decision ${record[2]}`), what: `decision ${record[2]}` };
  return undefined;
}

/** Merges one file; `undefined` when the path has no record rules. Never throws on bad content. */
export function mergeTwiningFile(filePath: string, base: string, ours: string, theirs: string, markerSize = 7): MergeOutcome | undefined {
  return mergeTwiningTexts(filePath, { base, ours, theirs }, markerSize);
}

/**
 * The same, taking the texts (or functions reading them) in an object it may empty: a JSONL
 * side's text is read when needed and let go once split.
 */
export function mergeTwiningTexts(filePath: string, texts: Record<Side, SideText>, markerSize = 7): MergeOutcome | undefined {
  const kind = kindOf(filePath);
  if (!kind) return undefined;
  const notes: string[] = [];
  const [base, ours, theirs] = kind.shape === 'jsonl' ? ['', '', ''] : [textOf(texts.base), textOf(texts.ours), textOf(texts.theirs)];
  try {
    if (kind.shape === 'object') return mergeRecordFile(kind, filePath, base, ours, theirs, notes);
    const sides: Sides =
      kind.shape === 'jsonl'
        ? (kind.read?.(texts, filePath, notes) ?? readJsonlSides(texts, filePath, notes, kind.family === blackboardEntries))
        : readJsonArraySides({ base, ours, theirs }, filePath, notes);
    const { items, stats } = mergeEntries(sides, kind.family, notes);
    for (const item of items)
      if (item.value === null && kind.shape === 'array')
        notes.push(`${filePath}: kept an item that is not a ${kind.family.noun} record: ${item.raw.slice(0, 80)}`);
    const summary = `${filePath}: merged by record: ${stats.result} ${kind.what} (${stats.addedByOurs} new on ours, ${stats.addedByTheirs} new on theirs, ${stats.removed} removed, ${stats.combined} changed on both sides)`;
    if (kind.shape === 'array') return { text: writeJsonArray(items), clean: true, summary, notes };
    return {
      lines: items.map(i => i.raw),
      get text() {
        return writeJsonl(items);
      },
      clean: true,
      summary,
      notes,
    };
  } catch (error) {
    if (!(error instanceof Unparseable)) throw error;
    return unmergeable(filePath, error, base, ours, theirs, markerSize, notes);
  }
}

function mergeRecordFile(
  kind: Extract<Kind, { shape: 'object' }>,
  filePath: string,
  base: string,
  ours: string,
  theirs: string,
  notes: string[],
): MergeOutcome {
  let b: JsonObject | undefined;
  try {
    b = readJsonObject(base, 'base');
  } catch (error) {
    if (!(error instanceof Unparseable)) throw error;
    notes.push(`${filePath}: the merge base ${error.reason}; merged as two new versions`);
  }
  const o = readJsonObject(ours, 'ours');
  const t = readJsonObject(theirs, 'theirs');
  if (!o || !t) {
    // A side that emptied the file: nothing to merge by record; keep the side that has content.
    const kept = o ?? t;
    if (kept === undefined) return { text: '', clean: true, summary: `${filePath}: empty on both sides`, notes };
    notes.push(`${filePath}: ${o ? 'theirs' : 'ours'} is empty; kept the other side's ${kind.what}`);
    return { text: (kind.write ?? writeJsonObject)(kept), clean: true, summary: `${filePath}: kept ${kind.what}`, notes };
  }
  // One side unchanged (git calls the driver for whitespace changes too): the other side as written.
  const merged = same(o, t) || same(t, b) ? o : same(o, b) ? t : kind.merge(b, o, t, notes);
  return { text: (kind.write ?? writeJsonObject)(merged), clean: true, summary: `${filePath}: merged ${kind.what} field by field`, notes };
}

function unmergeable(filePath: string, error: Unparseable, base: string, ours: string, theirs: string, markerSize: number, notes: string[]): MergeOutcome {
  notes.push(
    `${filePath}: ${error.side} ${error.reason}, so it cannot be merged by record. Both sides are left in full between conflict markers; nothing was dropped. Fix the file, then \`git add\` it.`,
  );
  return { text: conflictText(base, ours, theirs, markerSize), clean: false, summary: `${filePath}: CONFLICT (${error.side} ${error.reason})`, notes };
}
