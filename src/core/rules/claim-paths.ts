/**
 * What a claim covers and when two claims collide: pure functions over claim targets. A target is
 *  - a file path (`src/auth/jwt.ts`),
 *  - a folder prefix ending in "/" (`src/auth/`: everything under it),
 *  - a glob (`src/**\/*.sql`: `*` and `?` within one path segment, `**` any number of segments,
 *    `[abc]` one character of a set),
 *  - or a delegation (`delegation:<entry id>`), which collides only with itself.
 * Paths are relative to the project root with "/" separators. Two targets collide when some file
 * could be covered by both: prefix against prefix both ways, a glob against a path or a prefix,
 * and glob against glob segment by segment (conservatively: when it cannot tell, they collide).
 * No imports: the hook's check (a new process per tool call) loads this and little else.
 */

export const DELEGATION_PREFIX = 'delegation:';

/** Whether `target` has glob characters. */
export function isGlob(target: string): boolean {
  return /[*?[]/.test(target);
}

/**
 * The canonical form of a path or glob relative to the project: "/" separators, no "./" or empty
 * segments, no leading "/". Returns an error text for what cannot be a claim target.
 */
export function normaliseTarget(raw: string): { target: string } | { error: string } {
  const trimmed = raw.trim();
  if (trimmed.startsWith(DELEGATION_PREFIX)) {
    const id = trimmed.slice(DELEGATION_PREFIX.length);
    return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id) ? { target: trimmed } : { error: `"${raw}": a delegation target is "delegation:" and the need's ULID` };
  }
  const slashed = trimmed.replace(/\\/g, '/');
  const folder = slashed.endsWith('/');
  const segments = slashed.split('/').filter(s => s !== '' && s !== '.');
  if (segments.length === 0) return { error: `"${raw}": a claim names a file, a folder or a glob inside the project (use "**" for everything)` };
  if (segments.includes('..')) return { error: `"${raw}": a claim must stay inside the project (no ".." segments)` };
  return { target: segments.join('/') + (folder ? '/' : '') };
}

/** Each target's segments, kept: a check compares one target with every live claim's, each time. */
const segmentCache = new Map<string, string[]>();
function segmentsOf(target: string): string[] {
  let segments = segmentCache.get(target);
  if (!segments) {
    if (segmentCache.size >= 20_000) segmentCache.clear();
    segments = target.split('/').filter(s => s !== '');
    segmentCache.set(target, segments);
  }
  return segments;
}

/**
 * Whether two targets' first segments are different literal names (`src` and `docs`): then they
 * cannot collide, which is told without splitting either (most pairs of a check end here).
 */
function firstSegmentsDiffer(a: string, b: string): boolean {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i) && a.charCodeAt(i) !== 47 /* / */) i++;
  const endA = i === a.length || a.charCodeAt(i) === 47;
  const endB = i === b.length || b.charCodeAt(i) === 47;
  if (endA && endB) return false;
  const first = (t: string) => {
    const slash = t.indexOf('/');
    return slash < 0 ? t : t.slice(0, slash);
  };
  return !isGlob(first(a)) && !isGlob(first(b));
}

const regExpCache = new Map<string, RegExp>();
/** A regular expression for one glob segment (no "/" in it), compiled once. */
function segmentRegExp(segment: string): RegExp {
  let known = regExpCache.get(segment);
  if (!known) {
    if (regExpCache.size >= 5_000) regExpCache.clear();
    regExpCache.set(segment, (known = compileSegment(segment)));
  }
  return known;
}

function compileSegment(segment: string): RegExp {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        const body = segment.slice(i + 1, end).replace(/\\/g, '\\\\');
        out += body.startsWith('!') ? `[^${body.slice(1)}]` : `[${body}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

const literalEnds = (segment: string) => {
  const first = segment.search(/[*?[]/);
  const last = Math.max(segment.lastIndexOf('*'), segment.lastIndexOf('?'), segment.lastIndexOf(']'));
  return { head: first < 0 ? segment : segment.slice(0, first), tail: first < 0 ? segment : segment.slice(last + 1) };
};

/** Whether two single segments can name the same file or folder. */
function segmentsMeet(a: string, b: string): boolean {
  const ga = isGlob(a);
  const gb = isGlob(b);
  if (!ga && !gb) return a === b;
  if (!gb) return segmentRegExp(a).test(b);
  if (!ga) return segmentRegExp(b).test(a);
  // Both wildcards: they can meet unless their literal beginnings or endings disagree.
  const x = literalEnds(a);
  const y = literalEnds(b);
  const heads = x.head.startsWith(y.head) || y.head.startsWith(x.head);
  const tails = x.tail.endsWith(y.tail) || y.tail.endsWith(x.tail);
  return heads && tails;
}

/**
 * Whether segment lists `a` and `b` can describe a common file. `openA` / `openB`: the list is a
 * folder prefix, so anything may follow its last segment.
 */
function meet(a: string[], i: number, openA: boolean, b: string[], j: number, openB: boolean): boolean {
  for (;;) {
    if (i === a.length && j === b.length) return true;
    if (i === a.length) return openA || b.slice(j).every(s => s === '**');
    if (j === b.length) return openB || a.slice(i).every(s => s === '**');
    if (a[i] === '**') return meet(a, i + 1, openA, b, j, openB) || meet(a, i, openA, b, j + 1, openB);
    if (b[j] === '**') return meet(a, i, openA, b, j + 1, openB) || meet(a, i + 1, openA, b, j, openB);
    if (!segmentsMeet(a[i], b[j])) return false;
    i++;
    j++;
  }
}

/** Whether two (normalised) targets could cover a common file, or are the same delegation. */
export function targetsOverlap(a: string, b: string): boolean {
  const da = a.startsWith(DELEGATION_PREFIX);
  const db = b.startsWith(DELEGATION_PREFIX);
  if (da || db) return a === b;
  if (firstSegmentsDiffer(a, b)) return false;
  return meet(segmentsOf(a), 0, a.endsWith('/'), segmentsOf(b), 0, b.endsWith('/'));
}
