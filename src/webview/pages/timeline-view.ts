/**
 * The timeline webview's page (bundled by esbuild for the browser into dist/webview/timeline.js):
 * toolbar, lane labels, the overview, the canvas (timeline-draw.ts), hover, click and keyboard,
 * and the list of handoffs in view (for screen readers and keyboard users, and a second way to
 * open them). It holds only the window it shows: it asks the extension for a range three views
 * wide (so scrolling a little needs no new answer) cut into columns of three pixels, and asks
 * again when the view leaves it, the zoom changes or the filter does. It keeps its filters and
 * window with setState.
 */
import './timeline.css';
import { arrowVisible, firstAtOrAfter, type TimelineArrow, type TimelineItem, type TimelineLane, type TimelineLink } from '../shared/timeline-layout';
import { newerState, type FromWebview, type TimelineState, type ToWebview } from '../shared/timeline-messages';
import { mark, takeMarks } from './timeline-marks';
import type { Density, TimelineBar } from '../shared/timeline-window';
import { AXIS, LANE_H, arrowEnds, draw, drawDensity, readTheme, type Scene } from './timeline-draw';
import { describe, hitTest } from './timeline-hit';
import { buildChrome, type Chrome } from './timeline-chrome';
import { unpackItems } from '../shared/timeline-packing';

declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void; getState(): TimelineState | undefined; setState(s: TimelineState): void };
const vscode = acquireVsCodeApi();

const HOUR = 3600e3;
const RANGES: Record<string, number> = { hour: HOUR, day: 24 * HOUR, week: 7 * 24 * HOUR };
/** Pixels per column of a query (markers are 6 to 12 pixels wide: one per column is all that shows). */
const COLUMN_PX = 3;

/** The window the extension sent, and what it was asked with. */
interface Window {
  start: number;
  end: number;
  column: number;
  key: string;
  items: TimelineItem[];
  counts: Map<string, number>;
  bars: TimelineBar[];
  density: Density;
}

const app = document.getElementById('app')!;
/** The state the extension kept, where a revived panel's is newer than the workbench's (timeline-panel.ts). */
const kept = app.dataset.state ? (JSON.parse(app.dataset.state) as TimelineState) : undefined;
const state: TimelineState = newerState(vscode.getState(), kept) ?? { filter: {} };
let user = '';
let now = Date.now();
let first: number | undefined;
let total = 0;
let allLanes: TimelineLane[] = [];
let lanes: TimelineLane[] = [];
let kinds: string[] = [];
let arrows: TimelineArrow[] = [];
let links: TimelineLink[] = [];
let decisions = new Map<string, { t: number; lane: string }>();
let win: Window | undefined;
let activeFile: string | undefined;
let focus: TimelineItem | undefined;
let pending: { reason: string; since: number } | undefined;
let theme = readTheme();
let loaded = false;
// Queries: the one on its way (its seq and key) and whether another is wanted when it comes back.
let seq = 0;
let asked: { seq: number; start: number; end: number; column: number; key: string } | undefined;
let inFlight = false;

const chrome: Chrome = buildChrome(app, state, {
  range: name => setRange(name),
  zoom: factor => zoom(factor, 0.5),
  filterChanged: () => {
    save();
    relane();
    render();
  },
  openHandoff: id => open({ type: 'handoff', id }),
  overview: fraction => {
    if (!win) return;
    const d = win.density;
    const s = scene();
    state.view = { start: d.start + (d.end - d.start) * fraction - s.span / 2, span: s.span, follow: false };
    state.range = undefined;
    save();
    render();
  },
});
const canvas = chrome.canvas;
const g = canvas.getContext('2d')!;
const og = chrome.overview.getContext('2d')!;
chrome.setRange(state.range);

function save(): void {
  state.id ??= Math.random().toString(36).slice(2) + Date.now().toString(36);
  state.rev = (state.rev ?? 0) + 1;
  vscode.setState(state);
  vscode.postMessage({ type: 'state', state });
}

function filter() {
  return { ...state.filter, activeFile: undefined, scope: state.filter.activeFile ? activeFile || '\u0000none' : state.filter.scope };
}

/** The lanes shown: every lane, or the one the agent filter keeps. */
function relane(): void {
  const wanted = state.filter.agents?.length ? new Set(state.filter.agents) : undefined;
  lanes = allLanes.filter(l => !wanted || wanted.has(l.id));
  chrome.setLanes(lanes, user);
  chrome.setAgents(allLanes.map(l => l.id));
  chrome.setKinds([...kinds, 'handoff']);
}

/** The window from the first entry to now (with a margin on both sides), following now. */
function fitAll(): NonNullable<TimelineState['view']> {
  const start = Math.min(first ?? now - RANGES.day, arrows[0]?.t ?? now);
  return { start: 0, span: Math.max(HOUR, (now - start) * 1.08), follow: true };
}

function plotWidth(): number {
  return Math.max(200, Math.floor(chrome.scroller.getBoundingClientRect().width - chrome.labelWidth()));
}

function scene(): Scene {
  const width = plotWidth();
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
    items: win?.items ?? [],
    bars: win?.bars ?? [],
    arrows: arrows.filter(a => arrowVisible(a, f)),
    links,
    decisions,
    focus: focus?.id,
  };
}

/** Asks for the window around the view when what is held does not cover it at this zoom, with this filter. */
function askIfNeeded(s: Scene): void {
  if (!loaded) return;
  const column = (s.span / s.width) * COLUMN_PX;
  const key = JSON.stringify([filter(), focus?.id]);
  const held = inFlight ? asked : win;
  const covers = held && held.key === key && held.start <= s.start && held.end >= s.start + s.span && held.column / column < 1.5 && column / held.column < 1.5;
  if (covers) return;
  if (inFlight) return; // asked again when the answer comes
  const start = s.start - s.span;
  const end = s.start + 2 * s.span;
  const columns = Math.ceil((end - start) / column);
  asked = { seq: ++seq, start, end, column: (end - start) / columns, key };
  inFlight = true;
  mark('query sent');
  vscode.postMessage({ type: 'query', seq: asked.seq, start, end, columns, filter: filter(), ...(focus ? { focus: focus.id } : {}) });
}

let frame = 0;
function render(): void {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    const s = scene();
    askIfNeeded(s);
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
    if (pending && win) mark('drawn');
    if (win) drawDensity(og, chrome.overview, win.density, s, theme);
    chrome.setHandoffs(s.arrows.map(a => ({ arrow: a, ends: arrowEnds(s, a) })).filter(a => a.ends && a.ends.x2 >= 0 && a.ends.x1 <= s.width) as never);
    let inView = 0;
    for (let i = firstAtOrAfter(s.items, s.start); i < s.items.length && s.items[i].t <= s.start + s.span; i++) inView += win?.counts.get(s.items[i].id) ?? 1;
    const shown = win?.density.shown ?? 0;
    chrome.setStatus(
      `${shown.toLocaleString()} of ${total.toLocaleString()} entries, ${inView.toLocaleString()} in view as ${drawn.toLocaleString()} markers; ${s.arrows.length} handoffs`,
    );
    if (pending && win) {
      const p = pending;
      pending = undefined;
      // The frame after this one is when the drawing is on the screen.
      requestAnimationFrame(() => {
        if (p.reason === 'first paint') mark('next frame');
        const taken = p.reason === 'first paint' ? takeMarks() : undefined;
        vscode.postMessage({ type: 'painted', items: total, ms: performance.now() - p.since, drawMs, reason: p.reason, ...(taken ? { marks: taken } : {}) });
      });
    }
  });
}

function setRange(name: string): void {
  if (name === 'all') state.view = fitAll();
  else if (name === 'now') state.view = { ...(state.view ?? { span: RANGES.day, start: 0 }), follow: true };
  else state.view = { start: now - RANGES[name], span: RANGES[name] * 1.03, follow: true };
  state.range = name === 'now' ? state.range : name;
  chrome.setRange(state.range);
  save();
  render();
}

function moved(view: NonNullable<TimelineState['view']>): void {
  state.view = view;
  state.range = undefined;
  chrome.setRange(undefined);
  save();
  render();
}

/** Zooms by `factor` around the point at `at` (0..1 of the width). */
function zoom(factor: number, at: number): void {
  const s = scene();
  const t = s.start + s.span * at;
  const span = Math.min(400 * 24 * HOUR, Math.max(60e3, s.span * factor));
  moved({ start: t - span * at, span, follow: false });
}

function pan(fraction: number): void {
  const s = scene();
  moved({ start: s.start + s.span * fraction, span: s.span, follow: false });
}

function open(ref: { type: 'entry' | 'decision' | 'handoff'; id: string }): void {
  vscode.postMessage({ type: 'open', ref });
}

canvas.addEventListener('mousemove', e => {
  const hit = hitTest(scene(), e.offsetX, e.offsetY);
  canvas.style.cursor = hit ? 'pointer' : 'default';
  chrome.tooltip(hit ? (hit.type === 'item' ? describe(hit.item, win?.counts.get(hit.item.id)) : hit.summary) : undefined, e.clientX, e.clientY);
});
canvas.addEventListener('mouseleave', () => chrome.tooltip(undefined, 0, 0));
canvas.addEventListener('click', e => {
  const hit = hitTest(scene(), e.offsetX, e.offsetY);
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
window.addEventListener('mouseup', () => {
  if (drag) save();
  drag = undefined;
});
window.addEventListener('mousemove', e => {
  if (!drag || Math.abs(e.clientX - drag.x) < 3) return;
  const s = scene();
  state.view = { start: drag.start - ((e.clientX - drag.x) / s.width) * s.span, span: s.span, follow: false };
  state.range = undefined;
  chrome.setRange(undefined);
  render();
});

/**
 * Keyboard: ←/→ previous/next entry in the lane, ↑/↓ the nearest entry in the lane above or below,
 * Enter opens, G shows a decision's graph, +/− zoom, PageUp/PageDown pan, End: now. The moves are
 * answered by the extension, which holds every entry: each one is reachable, also where one
 * marker stands for many.
 */
canvas.addEventListener('keydown', e => {
  const s = scene();
  const centre = focus?.t ?? s.start + s.span / 2;
  const row = focus ? lanes.findIndex(l => l.id === focus!.lane) : -1;
  if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
    // Along the focused entry's lane; with none focused, the entry nearest the middle in the first lane that has one.
    const order = focus ? [focus.lane] : lanes.map(l => l.id);
    const dir = !focus ? 'near' : e.key === 'ArrowRight' ? 'next' : 'prev';
    if (order.length) vscode.postMessage({ type: 'step', lanes: order, from: { t: centre, ...(focus ? { id: focus.id } : {}) }, dir, filter: filter() });
  } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    // The nearest entry in the next lane that way with one (empty lanes are passed over).
    const ids = lanes.map(l => l.id);
    const order = row < 0 ? ids : e.key === 'ArrowDown' ? ids.slice(row + 1) : ids.slice(0, row).reverse();
    if (order.length) vscode.postMessage({ type: 'step', lanes: order, from: { t: centre }, dir: 'near', filter: filter() });
    else chrome.announce('No further lane that way.');
  } else if (e.key === 'Enter' && focus) open(focus.open);
  else if (e.key === '+' || e.key === '=') zoom(0.5, 0.5);
  else if (e.key === '-') zoom(2, 0.5);
  else if (e.key === 'PageDown') pan(0.5);
  else if (e.key === 'PageUp') pan(-0.5);
  else if (e.key === 'End') setRange('now');
  else if ((e.key === 'g' || e.key === 'G') && focus?.open.type === 'decision') vscode.postMessage({ type: 'showGraph', decisionId: focus.open.id });
  else return;
  e.preventDefault();
});

function stepped(item: TimelineItem | undefined): void {
  if (!item) {
    chrome.announce(focus ? 'No further entry that way.' : 'No entry in view: the filter keeps none.');
    return;
  }
  focus = item;
  const s = scene();
  if (item.t < s.start || item.t > s.start + s.span) moved({ start: item.t - s.span / 2, span: s.span, follow: false });
  chrome.announce(describe(item, win?.counts.get(item.id)));
  render();
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const m = event.data;
  const since = performance.now();
  mark(`${m.type} in`);
  switch (m.type) {
    case 'reset':
      user = m.user;
      now = m.now;
      first = m.first;
      total = m.total;
      loaded = true;
      if (state.folder !== m.folder) {
        if (state.folder !== undefined) focus = undefined;
        state.folder = m.folder;
      }
      save();
      win = undefined;
      pending = { reason: 'first paint', since };
      chrome.ready();
      render();
      break;
    case 'window': {
      if (m.reason === 'query' && m.seq === asked?.seq) inFlight = false;
      // An answer to an older question (another is on its way), or a part of a window not held.
      if (m.seq !== asked?.seq || (m.partial && !win && m.reason !== 'query')) break;
      // An answer in part: the newest columns while the extension lays out the rest (the whole window follows).
      const newest = m.partial && m.reason === 'query';
      now = m.now;
      total = m.total;
      const fresh = unpackItems(m.items);
      // A part (after appends): the markers held before its start stay.
      const kept = m.partial && !newest && win ? win.items.slice(0, firstAtOrAfter(win.items, m.start)) : [];
      const counts = new Map<string, number>();
      for (const item of kept) counts.set(item.id, win!.counts.get(item.id) ?? 1);
      fresh.forEach((item, i) => counts.set(item.id, m.counts[i]));
      const items = kept.length ? kept.concat(fresh) : fresh;
      win = {
        start: newest ? asked.start : m.partial && win ? win.start : m.start,
        end: m.end,
        column: asked.column,
        key: asked.key,
        items,
        counts,
        bars: m.bars,
        density: m.density,
      };
      if (focus) focus = counts.has(focus.id) ? items.find(i => i.id === focus!.id) : focus;
      allLanes = m.lanes;
      kinds = m.kinds;
      relane();
      if (m.reason === 'change' && !pending) pending = { reason: 'update after an append', since };
      render();
      break;
    }
    case 'relations':
      arrows = m.arrows;
      links = m.links;
      decisions = new Map(m.decisions.map(([id, t, lane]) => [id, { t, lane }] as const));
      render();
      break;
    case 'stepped':
      stepped(m.item);
      break;
    case 'activeFile':
      activeFile = m.path;
      chrome.setActiveFile(activeFile);
      if (state.filter.activeFile) render();
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
mark('ready sent');
vscode.postMessage({ type: 'ready' });
