/**
 * The timeline page's marks of its start (TimelineMark in ../shared/timeline-messages.ts): taken from
 * the moment the script runs to the frame after the first drawing, with the browser's own timings of
 * the page and its files, and sent once with the first paint report; the benchmark lays them beside
 * the extension's. A few array pushes; none are kept after that.
 */
import type { TimelineMark } from '../shared/timeline-messages';

const wall = (ms: number) => performance.timeOrigin + ms;
let marks: TimelineMark[] | undefined = [['page: script runs', wall(performance.now())]];
/** Marks a moment of the page's start (named "page: ..." beside the extension's marks). */
export function mark(name: string): void {
  marks?.push([`page: ${name}`, wall(performance.now())]);
}
/** The marks so far with the browser's own timings of the page and its files (then no more marks are kept). */
export function takeMarks(): TimelineMark[] | undefined {
  const taken = marks;
  marks = undefined;
  if (!taken) return undefined;
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  if (nav) taken.push(['page: fetch', wall(nav.fetchStart)], ['page: fetched', wall(nav.responseEnd)], ['page: parsed', wall(nav.domInteractive)]);
  for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
    const file = r.name
      .replace(/[?#].*$/, '')
      .split('/')
      .pop();
    taken.push([`page: ${file} fetch`, wall(r.startTime)], [`page: ${file} fetched`, wall(r.responseEnd)]);
  }
  return taken.sort((a, b) => a[1] - b[1]);
}
