/**
 * Draws the visible window of the timeline on a canvas. The page holds only what the extension
 * sent for its window (at most one marker per lane and column, spans merged into bars:
 * webview/shared/timeline-window.ts), and draws what of it falls inside the view (two binary searches),
 * so a frame costs the same at 100,000 entries zoomed out as at 100 zoomed in. Colours are the
 * theme's (`--vscode-*` variables), read again when the theme changes.
 */
import { firstAtOrAfter, type TimelineArrow, type TimelineItem, type TimelineLink } from '../shared/timeline-layout';
import type { Density, TimelineBar } from '../shared/timeline-window';

export const AXIS = 26;
export const LANE_H = 30;

export interface Scene {
  width: number;
  height: number;
  start: number;
  span: number;
  now: number;
  rows: Map<string, number>;
  /** The markers sent for the window, sorted by time. */
  items: readonly TimelineItem[];
  bars: readonly TimelineBar[];
  arrows: readonly TimelineArrow[];
  links: readonly TimelineLink[];
  /** Where the decisions at the ends of supersession links are, by record id. */
  decisions: ReadonlyMap<string, { t: number; lane: string }>;
  focus?: string;
}

export interface Theme {
  fg: string;
  muted: string;
  border: string;
  stripe: string;
  focus: string;
  kinds: Record<string, string>;
}

export function readTheme(): Theme {
  const css = getComputedStyle(document.body);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const fg = v('--vscode-foreground', '#888');
  return {
    fg,
    muted: v('--vscode-descriptionForeground', fg),
    border: v('--vscode-panel-border', v('--vscode-contrastBorder', '#8884')),
    stripe: v('--vscode-list-hoverBackground', '#8881'),
    focus: v('--vscode-focusBorder', '#09f'),
    kinds: {
      decision: v('--vscode-charts-purple', '#b180d7'),
      warning: v('--vscode-charts-red', '#f14c4c'),
      finding: v('--vscode-charts-blue', '#3794ff'),
      delegation: v('--vscode-charts-orange', '#d18616'),
      need: v('--vscode-charts-orange', '#d18616'),
      handoff: v('--vscode-charts-green', '#89d185'),
      claim: v('--vscode-charts-yellow', '#cca700'),
      session: v('--vscode-textLink-foreground', '#3794ff'),
    },
  };
}

export const xOf = (s: Scene, t: number) => ((t - s.start) / s.span) * s.width;
export const yOf = (s: Scene, lane: string | undefined) =>
  lane !== undefined && s.rows.has(lane) ? AXIS + s.rows.get(lane)! * LANE_H + LANE_H / 2 : undefined;
export const colourOf = (theme: Theme, kind: string) => theme.kinds[kind] ?? theme.muted;

/** Where an arrow's ends are: at its creation on the source lane, and at its acknowledgement (or creation) on the target lane. */
export function arrowEnds(s: Scene, a: TimelineArrow): { x1: number; y1: number; x2: number; y2: number } | undefined {
  const y1 = yOf(s, a.from);
  if (y1 === undefined) return undefined;
  const y2 = yOf(s, a.to) ?? y1 + LANE_H * 0.8;
  return { x1: xOf(s, a.t), y1, x2: xOf(s, a.ackAt ?? a.t), y2 };
}

const TICKS = [60e3, 5 * 60e3, 15 * 60e3, 3600e3, 3 * 3600e3, 6 * 3600e3, 86400e3, 7 * 86400e3, 30 * 86400e3];

function tickLabel(t: number, step: number): string {
  const d = new Date(t);
  if (step >= 86400e3) return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return d.getHours() === 0 && d.getMinutes() === 0 ? d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' }) : time;
}

export function draw(g: CanvasRenderingContext2D, s: Scene, theme: Theme): number {
  g.clearRect(0, 0, s.width, s.height);
  g.font = '11px var(--vscode-font-family, sans-serif)';
  // Lanes.
  for (const [, row] of s.rows) {
    if (row % 2) continue;
    g.fillStyle = theme.stripe;
    g.fillRect(0, AXIS + row * LANE_H, s.width, LANE_H);
  }
  // Axis and grid.
  const step = TICKS.find(t => (t / s.span) * s.width >= 90) ?? TICKS[TICKS.length - 1];
  g.strokeStyle = theme.border;
  g.fillStyle = theme.muted;
  g.lineWidth = 1;
  for (let t = Math.ceil(s.start / step) * step; t <= s.start + s.span; t += step) {
    const x = Math.round(xOf(s, t)) + 0.5;
    g.beginPath();
    g.moveTo(x, AXIS - 6);
    g.lineTo(x, s.height);
    g.stroke();
    g.fillText(tickLabel(t, step), x + 3, 14);
  }
  const nowX = xOf(s, s.now);
  g.strokeStyle = theme.focus;
  g.beginPath();
  g.moveTo(nowX, AXIS - 6);
  g.lineTo(nowX, s.height);
  g.stroke();
  const end = s.start + s.span;
  // Spans: warnings standing until resolved or dismissed, delegations until they expire, merged
  // by the extension into bars per lane and kind (thousands of standing warnings are a few bars).
  g.globalAlpha = 0.35;
  for (const bar of s.bars) {
    const stop = bar.standing ? Math.max(bar.t2, s.now) : bar.t2;
    if (stop < s.start || bar.t1 > end) continue;
    const y = yOf(s, bar.lane);
    if (y === undefined) continue;
    const x1 = Math.max(0, xOf(s, bar.t1));
    const x2 = Math.min(s.width, xOf(s, stop));
    g.fillStyle = colourOf(theme, bar.kind);
    g.fillRect(x1, y + 6, Math.max(2, x2 - x1), 4);
  }
  g.globalAlpha = 1;
  // Supersession: from the newer decision back to the one it replaced.
  g.setLineDash([2, 3]);
  for (const link of s.links) {
    if (link.kind !== 'supersedes') continue;
    const a = s.decisions.get(link.from);
    const b = s.decisions.get(link.to);
    const ya = a && yOf(s, a.lane);
    const yb = b && yOf(s, b.lane);
    if (!a || !b || ya === undefined || yb === undefined) continue;
    g.strokeStyle = colourOf(theme, 'decision');
    curve(g, xOf(s, b.t), yb, xOf(s, a.t), ya, -12);
  }
  g.setLineDash([]);
  // Items: one marker per lane and pixel column, gathered by kind and drawn as one path per kind
  // (one fill for thousands of markers).
  let drawn = 0;
  const lastX = new Map<string, number>();
  const buckets = new Map<string, { kind: string; hollow: boolean; points: number[] }>();
  let focused: [number, number] | undefined;
  for (let i = firstAtOrAfter(s.items, s.start - (s.span / s.width) * 6), n = s.items.length; i < n; i++) {
    const it = s.items[i];
    if (it.t > end + (s.span / s.width) * 6) break;
    const y = yOf(s, it.lane);
    if (y === undefined) continue;
    const x = Math.round(xOf(s, it.t));
    if (lastX.get(it.lane) === x && it.id !== s.focus) continue;
    lastX.set(it.lane, x);
    // A decision no longer in force is drawn hollow.
    const hollow = it.status === 'superseded' || it.status === 'overridden';
    const key = `${it.kind}${hollow ? '/hollow' : ''}`;
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = { kind: it.kind, hollow, points: [] }));
    bucket.points.push(x, y);
    drawn++;
    if (it.id === s.focus) focused = [x, y];
  }
  for (const b of buckets.values()) markers(g, b.kind, b.points, b.hollow, colourOf(theme, b.kind));
  if (focused) ring(g, focused[0], focused[1], theme.focus);
  // Handoffs: arrows from the source lane to the target's; dashed until acknowledged.
  const handoffColour = colourOf(theme, 'handoff');
  const byId = new Map(s.arrows.map(a => [a.id, a] as const));
  for (const a of s.arrows) {
    const e = arrowEnds(s, a);
    if (!e || Math.max(e.x1, e.x2) < -20 || Math.min(e.x1, e.x2) > s.width + 20) continue;
    g.strokeStyle = g.fillStyle = handoffColour;
    g.lineWidth = a.id === s.focus ? 3 : 1.5;
    g.setLineDash(a.acknowledged ? [] : [5, 3]);
    g.beginPath();
    g.moveTo(e.x1, e.y1);
    g.lineTo(e.x2, e.y2);
    g.stroke();
    g.setLineDash([]);
    head(g, e.x1, e.y1, e.x2, e.y2);
    g.beginPath();
    g.arc(e.x1, e.y1, 3, 0, Math.PI * 2);
    g.fill();
    const previous = a.continues ? byId.get(a.continues) : undefined;
    const p = previous && arrowEnds(s, previous);
    if (p) {
      // The chain: from where the previous handoff arrived to where this one leaves.
      g.lineWidth = 1;
      g.setLineDash([1, 3]);
      curve(g, p.x2, p.y2, e.x1, e.y1, 10);
      g.setLineDash([]);
    }
    g.lineWidth = 1;
  }
  return drawn;
}

/**
 * The overview: the entries the filter keeps over the whole history as a histogram, with the
 * part in view outlined.
 */
export function drawDensity(g: CanvasRenderingContext2D, canvas: HTMLCanvasElement, d: Density, s: Scene, theme: Theme): void {
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(100, canvas.clientWidth);
  const height = 18;
  if (canvas.width !== width * dpr || canvas.height !== height * dpr) {
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    canvas.style.height = `${height}px`;
  }
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, width, height);
  const max = Math.max(1, ...d.counts);
  const slice = width / d.counts.length;
  g.fillStyle = theme.muted;
  g.globalAlpha = 0.6;
  d.counts.forEach((n, i) => {
    if (!n) return;
    const h = Math.max(1, (n / max) * (height - 2));
    g.fillRect(i * slice, height - h, Math.max(1, slice - 0.5), h);
  });
  g.globalAlpha = 1;
  const x = (t: number) => ((t - d.start) / (d.end - d.start)) * width;
  const x1 = Math.max(0, Math.min(width - 2, x(s.start)));
  const x2 = Math.max(x1 + 2, Math.min(width, x(s.start + s.span)));
  g.strokeStyle = theme.focus;
  g.lineWidth = 1.5;
  g.strokeRect(x1 + 0.75, 0.75, x2 - x1 - 1.5, height - 1.5);
}

function markers(g: CanvasRenderingContext2D, kind: string, points: number[], hollow: boolean, colour: string): void {
  g.fillStyle = g.strokeStyle = colour;
  g.beginPath();
  for (let i = 0; i < points.length; i += 2) {
    const x = points[i];
    const y = points[i + 1];
    if (kind === 'decision') {
      g.moveTo(x, y - 6);
      g.lineTo(x + 6, y);
      g.lineTo(x, y + 6);
      g.lineTo(x - 6, y);
      g.closePath();
    } else if (kind === 'warning') {
      g.moveTo(x, y - 6);
      g.lineTo(x + 6, y + 5);
      g.lineTo(x - 6, y + 5);
      g.closePath();
    } else if (kind === 'delegation' || kind === 'need' || kind === 'claim') {
      g.rect(x - 4.5, y - 4.5, 9, 9);
    } else {
      const r = kind === 'status' ? 3 : 4.5;
      g.moveTo(x + r, y);
      g.arc(x, y, r, 0, Math.PI * 2);
    }
  }
  if (hollow) g.stroke();
  else g.fill();
}

function ring(g: CanvasRenderingContext2D, x: number, y: number, colour: string): void {
  g.strokeStyle = colour;
  g.lineWidth = 2;
  g.beginPath();
  g.arc(x, y, 9, 0, Math.PI * 2);
  g.stroke();
  g.lineWidth = 1;
}

function head(g: CanvasRenderingContext2D, x1: number, y1: number, x2: number, y2: number): void {
  const angle = Math.atan2(y2 - y1, x2 - x1);
  g.beginPath();
  g.moveTo(x2, y2);
  g.lineTo(x2 - 8 * Math.cos(angle - 0.4), y2 - 8 * Math.sin(angle - 0.4));
  g.lineTo(x2 - 8 * Math.cos(angle + 0.4), y2 - 8 * Math.sin(angle + 0.4));
  g.closePath();
  g.fill();
}

function curve(g: CanvasRenderingContext2D, x1: number, y1: number, x2: number, y2: number, bend: number): void {
  g.beginPath();
  g.moveTo(x1, y1);
  g.quadraticCurveTo((x1 + x2) / 2, (y1 + y2) / 2 + bend, x2, y2);
  g.stroke();
}

/** Distance from a point to a segment (hit-testing arrows). */
export function segmentDistance(px: number, py: number, x1: number, y1: number, x2: number, y2: number): number {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const len = dx * dx + dy * dy;
  const k = len ? Math.max(0, Math.min(1, ((px - x1) * dx + (py - y1) * dy) / len)) : 0;
  return Math.hypot(px - (x1 + k * dx), py - (y1 + k * dy));
}
