/**
 * What is under the pointer on the timeline's canvas (a handoff's arrow or a marker), and what a
 * marker says when hovered or reached with the keyboard.
 */
import { firstAtOrAfter, type TimelineItem } from '../shared/timeline-layout';
import { arrowEnds, segmentDistance, xOf, yOf, type Scene } from './timeline-draw';

export type Hit = { type: 'item'; item: TimelineItem } | { type: 'arrow'; id: string; summary: string };

export function hitTest(s: Scene, x: number, y: number): Hit | undefined {
  let best: Hit | undefined;
  let bestD = 7;
  for (const a of s.arrows) {
    const e = arrowEnds(s, a);
    const d = e ? segmentDistance(x, y, e.x1, e.y1, e.x2, e.y2) : Infinity;
    if (d < bestD)
      [best, bestD] = [
        {
          type: 'arrow',
          id: a.id,
          summary: `Handoff ${a.from} → ${a.to ?? 'any agent'}: ${a.summary}${a.acknowledged ? ' (acknowledged)' : ' (not acknowledged)'}`,
        },
        d,
      ];
  }
  const t0 = s.start + ((x - 8) / s.width) * s.span;
  const t1 = s.start + ((x + 8) / s.width) * s.span;
  for (let i = firstAtOrAfter(s.items, t0); i < s.items.length && s.items[i].t <= t1; i++) {
    const it = s.items[i];
    const iy = yOf(s, it.lane);
    if (iy === undefined) continue;
    const d = Math.hypot(xOf(s, it.t) - x, iy - y);
    if (d < bestD) [best, bestD] = [{ type: 'item', item: it }, d];
  }
  return best;
}

/** What hovering or the keyboard says of a marker; `count`: how many entries it stands for. */
export function describe(it: TimelineItem, count = 1): string {
  const when = new Date(it.t).toLocaleString();
  const status = it.status && it.status !== 'active' ? ` (${it.status})` : '';
  const span = it.standing ? ', standing' : it.end ? `, until ${new Date(it.end).toLocaleString()}` : '';
  const more = count - 1;
  const others = more > 0 ? ` (and ${more.toLocaleString()} more here: zoom in to see them)` : '';
  return `${it.kind}${status} by ${it.lane}, ${when}${span}: ${it.summary} [${it.scope}]${others}`;
}
