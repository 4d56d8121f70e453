/**
 * The timeline page's DOM around the canvas: the toolbar (range, zoom, scope, agent and kind
 * filters), the lane labels, the list of handoffs in view, the hover tooltip, a status line and a
 * live region that reads out the entry the keyboard moved to. Built with DOM calls only (no
 * innerHTML from data).
 */
import type { TimelineArrow, TimelineLane } from '../shared/timeline-layout';
import type { TimelineState } from '../shared/timeline-messages';

export interface Chrome {
  canvas: HTMLCanvasElement;
  /** The density of the whole history, above the lanes (a click moves the view there). */
  overview: HTMLCanvasElement;
  scroller: HTMLElement;
  labelWidth(): number;
  setLanes(lanes: readonly TimelineLane[], user: string): void;
  setAgents(ids: readonly string[]): void;
  setKinds(kinds: readonly string[]): void;
  setHandoffs(list: { arrow: TimelineArrow; ends: { x1: number; y1: number; x2: number; y2: number } }[]): void;
  setStatus(text: string): void;
  /** Marks the range button last chosen as pressed (none after a zoom or a scroll). */
  setRange(name: string | undefined): void;
  setActiveFile(path: string | undefined): void;
  tooltip(text: string | undefined, x: number, y: number): void;
  announce(text: string): void;
  ready(): void;
  empty(message: string): void;
}

interface Actions {
  range(name: string): void;
  zoom(factor: number): void;
  filterChanged(): void;
  openHandoff(id: string): void;
  /** A click on the overview, at this fraction of its width. */
  overview(fraction: number): void;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string>> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

export function buildChrome(app: HTMLElement, state: TimelineState, act: Actions): Chrome {
  app.textContent = '';
  app.removeAttribute('aria-busy');
  const toolbar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Timeline controls' });
  for (const [name, label] of [
    ['hour', 'Last hour'],
    ['day', 'Last day'],
    ['week', 'Last week'],
    ['all', 'All'],
  ]) {
    const b = el('button', { type: 'button', 'data-range': name, 'aria-pressed': 'false' }, label);
    b.addEventListener('click', () => act.range(name));
    toolbar.append(b);
  }
  const zoomIn = el('button', { type: 'button', 'aria-label': 'Zoom in', title: 'Zoom in (+)' }, '+');
  const zoomOut = el('button', { type: 'button', 'aria-label': 'Zoom out', title: 'Zoom out (−)' }, '−');
  zoomIn.addEventListener('click', () => act.zoom(0.5));
  zoomOut.addEventListener('click', () => act.zoom(2));
  const scope = el('input', {
    id: 'scope',
    type: 'search',
    placeholder: 'Scope: a file or folder, e.g. src/auth/',
    'aria-label': 'Filter by scope (a file or folder)',
  });
  scope.value = state.filter.scope ?? '';
  scope.addEventListener('change', () => {
    state.filter.scope = scope.value.trim() || undefined;
    state.filter.activeFile = undefined;
    activeBox.checked = false;
    act.filterChanged();
  });
  const activeBox = el('input', { type: 'checkbox', id: 'active-file' });
  activeBox.checked = !!state.filter.activeFile;
  activeBox.addEventListener('change', () => {
    state.filter.activeFile = activeBox.checked || undefined;
    act.filterChanged();
  });
  const activeLabel = el('label', { for: 'active-file', title: '' }, activeBox, ' Active file');
  const agent = el('select', { id: 'agent', 'aria-label': 'Filter by agent' });
  agent.addEventListener('change', () => {
    state.filter.agents = agent.value ? [agent.value] : undefined;
    act.filterChanged();
  });
  const kinds = el('span', { class: 'kinds', role: 'group', 'aria-label': 'Kinds shown' });
  toolbar.append(zoomIn, zoomOut, scope, activeLabel, agent, kinds);

  const labels = el('ol', { class: 'lanes', 'aria-label': 'Lanes, one per agent' });
  const canvas = el('canvas', {
    class: 'chart',
    tabindex: '0',
    role: 'img',
    'aria-label':
      'Timeline. Arrow keys move between entries (left and right in a lane, up and down between lanes), Enter opens, plus and minus zoom, Page Up and Page Down scroll in time, G shows a decision’s graph.',
  });
  const overview = el('canvas', {
    class: 'overview',
    role: 'img',
    'aria-label': 'How many entries there are over the whole history, the part in view marked; a click moves the view there.',
  });
  overview.addEventListener('click', e => act.overview(e.offsetX / Math.max(1, overview.clientWidth)));
  const scroller = el('div', { class: 'scroller' }, labels, el('div', { class: 'plot' }, canvas));
  const handoffs = el('ul', { class: 'handoffs', 'aria-label': 'Handoffs in view' });
  const status = el('div', { class: 'status', role: 'status' });
  const live = el('div', { class: 'sr-only', 'aria-live': 'polite' });
  const tip = el('div', { class: 'tooltip', role: 'tooltip', hidden: '' });
  const message = el('div', { class: 'message', hidden: '' });
  app.append(toolbar, message, overview, scroller, el('h2', {}, 'Handoffs in view'), handoffs, status, live, tip);

  let kindsKey = '';
  let lanesKey = '';
  let handoffsKey = '';
  let agentsKey = '';
  return {
    canvas,
    overview,
    scroller,
    labelWidth: () => labels.getBoundingClientRect().width,
    setLanes(lanes, user) {
      const key = `${user}\n${lanes.map(l => `${l.id}\u0000${l.role ?? ''}`).join('\n')}`;
      if (key === lanesKey) return;
      lanesKey = key;
      labels.replaceChildren(
        ...lanes.map(l =>
          el(
            'li',
            { class: `lane${l.isUser ? ' user' : ''}`, 'data-lane': l.id, title: l.role ? `${l.id} (${l.role})` : l.id },
            l.id === user ? `${l.id} (you)` : l.id,
          ),
        ),
      );
    },
    setAgents(ids) {
      const key = ids.join('\n');
      if (key === agentsKey) return;
      agentsKey = key;
      agent.replaceChildren(el('option', { value: '' }, 'All agents'), ...ids.map(id => el('option', { value: id }, id)));
      agent.value = state.filter.agents?.[0] ?? '';
    },
    setKinds(list) {
      const key = list.join(',');
      if (key === kindsKey) return;
      kindsKey = key;
      kinds.replaceChildren(
        ...list.map(kind => {
          const box = el('input', { type: 'checkbox', 'data-kind': kind });
          box.checked = !state.filter.hiddenKinds?.includes(kind);
          box.addEventListener('change', () => {
            const hidden = new Set(state.filter.hiddenKinds ?? []);
            if (box.checked) hidden.delete(kind);
            else hidden.add(kind);
            state.filter.hiddenKinds = [...hidden];
            act.filterChanged();
          });
          return el('label', { class: `kind kind-${kind}` }, box, ` ${kind}`);
        }),
      );
    },
    setHandoffs(list) {
      // Rebuilt only when the handoffs in view or what they say change; otherwise only where their
      // middles are (every frame while scrolling).
      const labelOf = (a: TimelineArrow) =>
        `${a.from} → ${a.to ?? 'any agent'}: ${a.summary}${a.acknowledged ? ' · acknowledged' : ' · not acknowledged'}${a.continues ? ' · continues an earlier handoff' : ''}`;
      const key = list.map(({ arrow: a }) => `${a.id}\u0000${labelOf(a)}`).join('\n');
      if (key !== handoffsKey) {
        handoffsKey = key;
        handoffs.replaceChildren(
          ...list.map(({ arrow: a }) => {
            const b = el('button', { type: 'button', class: 'handoff', 'data-id': a.id }, labelOf(a));
            b.addEventListener('click', () => act.openHandoff(a.id));
            return el('li', {}, b);
          }),
        );
      }
      list.forEach(({ ends }, i) => {
        const b = handoffs.children[i]?.firstElementChild;
        b?.setAttribute('data-x', String(Math.round((ends.x1 + ends.x2) / 2)));
        b?.setAttribute('data-y', String(Math.round((ends.y1 + ends.y2) / 2)));
      });
    },
    setRange(name) {
      toolbar.querySelectorAll('button[data-range]').forEach(b => b.setAttribute('aria-pressed', String(b.getAttribute('data-range') === name)));
    },
    setStatus(text) {
      status.textContent = text;
    },
    setActiveFile(path) {
      activeLabel.title = path ? `Only what bears on ${path}` : 'No file is open';
    },
    tooltip(text, x, y) {
      if (!text) {
        tip.hidden = true;
        return;
      }
      tip.textContent = text;
      tip.hidden = false;
      tip.style.left = `${Math.min(x + 12, window.innerWidth - tip.offsetWidth - 4)}px`;
      tip.style.top = `${y + 14}px`;
    },
    announce(text) {
      live.textContent = text;
    },
    ready() {
      message.hidden = true;
    },
    empty(text) {
      message.textContent = text;
      message.hidden = false;
    },
  };
}
