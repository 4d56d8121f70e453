/**
 * Text for the views: relative and absolute times, lists, scores. No `vscode` import, so the
 * unit tests can check it.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "4 min", "2 h", "3 days", "<1 min": a duration in words, rounded the way a person would. */
export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < MINUTE) return '<1 min';
  if (abs < HOUR) return `${Math.floor(abs / MINUTE)} min`;
  if (abs < DAY) {
    const h = Math.floor(abs / HOUR);
    const m = Math.floor((abs % HOUR) / MINUTE);
    return h < 10 && m > 0 ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(abs / DAY);
  return d === 1 ? '1 day' : `${d} days`;
}

/** "3 min ago", "in 4 min", "just now". */
export function relative(time: string | number | undefined, now: Date): string {
  const at = typeof time === 'number' ? time : typeof time === 'string' ? Date.parse(time) : NaN;
  if (Number.isNaN(at)) return 'unknown time';
  const delta = at - now.getTime();
  if (Math.abs(delta) < MINUTE) return delta > 0 ? 'in <1 min' : 'just now';
  return delta > 0 ? `in ${duration(delta)}` : `${duration(delta)} ago`;
}

/** "expires in 4 min" / "expired 2 min ago". */
export function expiry(expiresAt: string, now: Date): string {
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return 'no valid expiry';
  const delta = at - now.getTime();
  return delta > 0 ? `expires in ${duration(delta)}` : `expired ${duration(delta)} ago`;
}

/** The stored timestamp, readable: "2026-11-22 02:32:11 UTC". */
export function absolute(time: string | undefined): string {
  if (!time) return 'unknown';
  const at = Date.parse(time);
  if (Number.isNaN(at)) return time;
  return new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}

/** Both, for tooltips: "2026-11-22 02:32:11 UTC (3 min ago)". */
export function when(time: string | undefined, now: Date): string {
  return `${absolute(time)} (${relative(time, now)})`;
}

/** A score from 0 to 1 with two decimals: "0.65". */
export function score(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '?';
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The strings of a value read from disk (which may not be the array it should be). */
export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function list(items: readonly string[], empty = 'none'): string {
  return items.length ? items.join(', ') : empty;
}

/** Cuts a text to one line of at most `max` characters. */
export function oneLine(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Escapes text for a MarkdownString (people and agents write these texts): inline markup, HTML,
 * theme icons (`$(...)`) and what would start a block at the beginning of a line.
 */
export function md(text: string): string {
  return text.replace(/[\\`*_[\]<>|~$]/g, ch => `\\${ch}`).replace(/^(\s*)([#>+-]|\d+\.)/gm, (_, space: string, mark: string) => `${space}\\${mark}`);
}

/** How each result status shows: a codicon and its colour (views, pickers), a mark (documents). */
export const RESULT_STATUS_LOOK: Record<string, { icon: string; color: string; mark: string }> = {
  completed: { icon: 'pass', color: 'charts.green', mark: '✅' },
  partial: { icon: 'pie-chart', color: 'charts.yellow', mark: '◐' },
  blocked: { icon: 'circle-slash', color: 'charts.orange', mark: '⛔' },
  failed: { icon: 'error', color: 'charts.red', mark: '❌' },
};
