/**
 * The timeline webview's page (bundled by esbuild for the browser into dist/webview/timeline.js):
 * toolbar, lane labels, the canvas (timeline-draw.ts), hover, click and keyboard, and the list of
 * handoffs in view (for screen readers and keyboard users, and a second way to open them). It keeps
 * its filters and window with setState, asks for everything on load, then applies deltas.
 */
import './timeline.css';
import {
  arrowVisible,
  firstAtOrAfter,
  itemVisible,
  lanesOf,
  mergeByTime,
  type TimelineData,
  type TimelineItem,
  type TimelineLane,
} from '../extension/present/timeline-layout';
import type { FromWebview, TimelineState, ToWebview } from '../extension/webview/timeline-messages';
import { AXIS, LANE_H, arrowEnds, draw, readTheme, segmentDistance, xOf, yOf, type Scene } from './timeline-draw';
import { buildChrome, type Chrome } from './timeline-chrome';
import { unpackItems } from '../extension/present/timeline-packing';

declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void; getState(): TimelineState | undefined; setState(s: TimelineState): void };
const vscode = acquireVsCodeApi();

const HOUR = 3600e3;
const RANGES: Record<string, number> = { hour: HOUR, day: 24 * HOUR, week: 7 * 24 * HOUR };

const state: TimelineState = vscode.getState() ?? { filter: {} };
let data: TimelineData = { lanes: [], items: [], arrows: [], links: [] };
let agents: { id: string; role?: string }[] = [];
let user = '';
let now = Date.now();
let activeFile: string | undefined;
let shown: TimelineItem[] = [];
let spans: TimelineItem[] = [];
let lanes: TimelineLane[] = [];
let byId = new Map<string, TimelineItem>();
let decisions = new Map<string, TimelineItem>();
let focus: string | undefined;
let pending: { reason: string; since: number } | undefined;
let theme = readTheme();

const chrome: Chrome = buildChrome(document.getElementById('app')!, state, {
  range: name => setRange(name),
  zoom: factor => zoom(factor, 0.5),
  filterChanged: () => {
    save();
    refilter();
  },
  openHandoff: id => open({ type: 'handoff', id }),
});
const canvas = chrome.canvas;
const g = canvas.getContext('2d')!;

function save(): void {
  vscode.setState(state);
}

function filter() {
  return { ...state.filter, scope: state.filter.activeFile ? activeFile || '\u0000none' : state.filter.scope };
}

/** The shown items, spans and lanes for the current filter (once per filter change, not per frame). */
function refilter(): void {
  const f = filter();
  shown = data.items.filter(i => itemVisible(i, f));
  spans = shown.filter(i => i.end !== undefined || i.standing);
  const wanted = f.agents?.length ? new Set(f.agents) : undefined;
  lanes = data.lanes.filter(l => !wanted || wanted.has(l.id));
  chrome.setLanes(lanes, user);
  chrome.setAgents(data.lanes.map(l => l.id));
  chrome.setKinds([...new Set(data.items.map(i => i.kind)), 'handoff']);
  render();
}

function scene(): Scene {
  const rect = chrome.scroller.getBoundingClientRect();
  const width = Math.max(200, Math.floor(rect.width - chrome.labelWidth()));
  const height = AXIS + Math.max(1, lanes.length) * LANE_H + 8;
  const view = state.view ?? fitAll();
  if (view.follow) view.start = now - view.span * 0.97;
  const f = filter();
  return {
    width,
    height,
    start: view.start,
    span: view.span,
    now,
    rows: new Map(lanes.map((l, i) => [l.id, i] as const)),
    items: shown,
    spans,
    arrows: data.arrows.filter(a => arrowVisible(a, f)),
    links: data.links,
    decisions,
    focus,
  };
}

let frame = 0;
function render(): void {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    const s = scene();
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== s.width * dpr || canvas.height !== s.height * dpr) {
      canvas.width = s.width * dpr;
      canvas.height = s.height * dpr;
      canvas.style.width = `${s.width}px`;
      canvas.style.height = `${s.height}px`;
    }
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const d0 = performance.now();
    const drawn = draw(g, s, theme);
    const drawMs = performance.now() - d0;
    chrome.setHandoffs(s.arrows.map(a => ({ arrow: a, ends: arrowEnds(s, a) })).filter(a => a.ends && a.ends.x2 >= 0 && a.ends.x1 <= s.width) as never);
    chrome.setStatus(
      `${shown.length.toLocaleString()} of ${data.items.length.toLocaleString()} entries, ${drawn.toLocaleString()} drawn; ${s.arrows.length} handoffs`,
    );
    if (pending) {
      const p = pending;
      pending = undefined;
      // The frame after this one is when the drawing is on the screen.
      requestAnimationFrame(() => vscode.postMessage({ type: 'painted', items: data.items.length, ms: performance.now() - p.since, drawMs, reason: p.reason }));
    }
  });
}

/** The window from the first entry to now (with a margin on both sides), following now. */
function fitAll(): NonNullable<TimelineState['view']> {
  const first = Math.min(data.items[0]?.t ?? now - RANGES.day, data.arrows[0]?.t ?? now);
  return { start: 0, span: Math.max(HOUR, (now - first) * 1.08), follow: true };
}

function setRange(name: string): void {
  const now0 = now;
  if (name === 'all') state.view = fitAll();
  else if (name === 'now') {
    state.view = { ...(state.view ?? { span: RANGES.day, start: 0 }), follow: true };
  } else state.view = { start: now0 - RANGES[name], span: RANGES[name] * 1.03, follow: true };
  save();
  render();
}

/** Zooms by `factor` around the point at `at` (0..1 of the width). */
function zoom(factor: number, at: number): void {
  const s = scene();
  const t = s.start + s.span * at;
  const span = Math.min(400 * 24 * HOUR, Math.max(60e3, s.span * factor));
  state.view = { start: t - span * at, span, follow: false };
  save();
  render();
}

function pan(fraction: number): void {
  const s = scene();
  state.view = { start: s.start + s.span * fraction, span: s.span, follow: false };
  save();
  render();
}

type Hit = { type: 'item'; item: TimelineItem } | { type: 'arrow'; id: string; summary: string };

function hitTest(x: number, y: number): Hit | undefined {
  const s = scene();
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
  for (let i = firstAtOrAfter(shown, t0); i < shown.length && shown[i].t <= t1; i++) {
    const it = shown[i];
    const iy = yOf(s, it.lane);
    if (iy === undefined) continue;
    const d = Math.hypot(xOf(s, it.t) - x, iy - y);
    if (d < bestD) [best, bestD] = [{ type: 'item', item: it }, d];
  }
  return best;
}

function describe(it: TimelineItem): string {
  const when = new Date(it.t).toLocaleString();
  const status = it.status && it.status !== 'active' ? ` (${it.status})` : '';
  const span = it.standing ? ', standing' : it.end ? `, until ${new Date(it.end).toLocaleString()}` : '';
  return `${it.kind}${status} by ${it.lane}, ${when}${span}: ${it.summary} [${it.scope}]`;
}

function open(ref: { type: 'entry' | 'decision' | 'handoff'; id: string }): void {
  vscode.postMessage({ type: 'open', ref });
}

canvas.addEventListener('mousemove', e => {
  const hit = hitTest(e.offsetX, e.offsetY);
  canvas.style.cursor = hit ? 'pointer' : 'default';
  chrome.tooltip(hit ? (hit.type === 'item' ? describe(hit.item) : hit.summary) : undefined, e.clientX, e.clientY);
});
canvas.addEventListener('mouseleave', () => chrome.tooltip(undefined, 0, 0));
canvas.addEventListener('click', e => {
  const hit = hitTest(e.offsetX, e.offsetY);
  if (!hit) return;
  if (hit.type === 'arrow') open({ type: 'handoff', id: hit.id });
  else open(hit.item.open);
});
canvas.addEventListener(
  'wheel',
  e => {
    e.preventDefault();
    if (e.ctrlKey || e.metaKey) zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX / canvas.clientWidth);
    else if (Math.abs(e.deltaX) > Math.abs(e.deltaY) || e.shiftKey) pan((e.deltaX || e.deltaY) / 1000);
    else chrome.scroller.scrollTop += e.deltaY;
  },
  { passive: false },
);
let drag: { x: number; start: number } | undefined;
canvas.addEventListener('mousedown', e => (drag = { x: e.clientX, start: scene().start }));
window.addEventListener('mouseup', () => (drag = undefined));
window.addEventListener('mousemove', e => {
  if (!drag || Math.abs(e.clientX - drag.x) < 3) return;
  const s = scene();
  state.view = { start: drag.start - ((e.clientX - drag.x) / s.width) * s.span, span: s.span, follow: false };
  render();
});

/** Keyboard: ←/→ previous/next entry in the lane, ↑/↓ other lanes, Enter opens, +/− zoom, PageUp/PageDown pan, End: now. */
canvas.addEventListener('keydown', e => {
  const s = scene();
  const current = focus ? byId.get(focus) : undefined;
  const laneOf = (id: string | undefined) => shown.filter(i => i.lane === id);
  const centre = current?.t ?? s.start + s.span / 2;
  let next: TimelineItem | undefined;
  if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
    const inLane = laneOf(current?.lane ?? lanes[0]?.id);
    const at = current ? inLane.indexOf(current) : firstAtOrAfter(inLane, centre) - (e.key === 'ArrowRight' ? 1 : 0);
    next = inLane[e.key === 'ArrowRight' ? at + 1 : Math.max(0, at - 1)];
  } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    const row = current ? lanes.findIndex(l => l.id === current.lane) : -1;
    const lane = lanes[Math.max(0, Math.min(lanes.length - 1, row + (e.key === 'ArrowDown' ? 1 : -1)))];
    const inLane = laneOf(lane?.id);
    next = inLane.reduce<TimelineItem | undefined>((b, i) => (!b || Math.abs(i.t - centre) < Math.abs(b.t - centre) ? i : b), undefined);
  } else if (e.key === 'Enter' && current) open(current.open);
  else if (e.key === '+' || e.key === '=') zoom(0.5, 0.5);
  else if (e.key === '-') zoom(2, 0.5);
  else if (e.key === 'PageDown') pan(0.5);
  else if (e.key === 'PageUp') pan(-0.5);
  else if (e.key === 'End') setRange('now');
  else if (e.key === 'g' && current?.open.type === 'decision') vscode.postMessage({ type: 'showGraph', decisionId: current.open.id });
  else return;
  e.preventDefault();
  if (!next) return;
  focus = next.id;
  if (next.t < s.start || next.t > s.start + s.span) state.view = { start: next.t - s.span / 2, span: s.span, follow: false };
  chrome.announce(describe(next));
  render();
});

function index(): void {
  byId = new Map(data.items.map(i => [i.id, i] as const));
  decisions = new Map(data.items.filter(i => i.open.type === 'decision').map(i => [i.open.id, i] as const));
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const m = event.data;
  const since = performance.now();
  switch (m.type) {
    case 'reset':
      data = { ...m.data, items: unpackItems(m.items) };
      agents = m.agents;
      user = m.user;
      now = m.now;
      if (state.folder !== m.folder) state.folder = m.folder;
      save();
      index();
      pending = { reason: 'first paint', since };
      chrome.ready();
      refilter();
      break;
    case 'append': {
      now = m.now;
      const added = unpackItems(m.items);
      mergeByTime(data.items, added);
      for (const i of added) byId.set(i.id, i);
      for (const i of added) if (i.open.type === 'decision') decisions.set(i.open.id, i);
      for (const r of m.resolved) {
        const w = byId.get(r.id);
        if (w) [w.end, w.standing] = [r.end, undefined];
      }
      const known = new Set(data.lanes.map(l => l.id));
      const f = filter();
      if (added.some(i => !known.has(i.lane))) {
        data.lanes = lanesOf(user, agents as never, data.items, data.arrows);
        pending = { reason: 'update after an append', since };
        refilter();
        break;
      }
      const visible = added.filter(i => itemVisible(i, f));
      mergeByTime(shown, visible);
      for (const i of visible) if (i.end !== undefined || i.standing) spans.push(i);
      pending = { reason: 'update after an append', since };
      render();
      break;
    }
    case 'relations':
      data.arrows = m.arrows;
      data.links = m.links;
      if (m.arrows.some(a => !data.lanes.some(l => l.id === a.from) || (a.to && !data.lanes.some(l => l.id === a.to)))) {
        data.lanes = lanesOf(user, agents as never, data.items, data.arrows);
        refilter();
      } else render();
      break;
    case 'decisions':
      for (const p of m.patches) {
        const it = byId.get(p.id);
        if (!it) continue;
        it.open = p.open;
        it.status = p.status;
        decisions.set(p.open.id, it);
      }
      render();
      break;
    case 'activeFile':
      activeFile = m.path;
      chrome.setActiveFile(activeFile);
      if (state.filter.activeFile) refilter();
      break;
    case 'empty':
      chrome.empty(m.message);
      break;
  }
});

new MutationObserver(() => {
  theme = readTheme();
  render();
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });
new ResizeObserver(() => render()).observe(chrome.scroller);
// The clock moves on: a window that follows now slides with it.
setInterval(() => {
  now += 15000;
  if (state.view?.follow !== false) render();
}, 15000);
vscode.postMessage({ type: 'ready' });
