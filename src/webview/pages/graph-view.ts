/**
 * The Show Graph page (bundled into dist/webview/graph.js): draws the laid-out graph
 * (webview/shared/decision-graph.ts) as SVG, each node a focusable button (Tab moves between them, Enter or
 * Space opens what it stands for) with a label that says how it relates to the decision.
 */
import './graph.css';
import type { DecisionGraph } from '../shared/decision-graph';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
const SVG = 'http://www.w3.org/2000/svg';
const app = document.getElementById('app')!;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function render(graph: DecisionGraph): void {
  app.removeAttribute('aria-busy');
  const root = svg('svg', {
    width: graph.width,
    height: graph.height,
    viewBox: `0 0 ${graph.width} ${graph.height}`,
    role: 'group',
    'aria-label': `Graph of the decision: ${graph.title}`,
  });
  const defs = svg('defs', {});
  const marker = svg('marker', { id: 'head', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'head' }));
  defs.append(marker);
  root.append(defs);
  // Edges first (under the nodes): polylines laid out to run between the nodes, not across them.
  for (const e of graph.edges) {
    root.append(
      svg('polyline', {
        points: e.points.map(p => p.join(',')).join(' '),
        class: `edge edge-${e.label.replace(/\W+/g, '-')}`,
        'marker-end': 'url(#head)',
        'aria-hidden': 'true',
      }),
    );
    if (e.labelAt) {
      const label = svg('text', { x: e.labelAt[0], y: e.labelAt[1], class: 'edge-label', 'text-anchor': 'middle', 'aria-hidden': 'true' });
      label.textContent = e.label;
      root.append(label);
    }
  }
  for (const c of graph.captions) {
    const caption = svg('text', { x: c.x, y: c.y, class: 'caption', 'aria-hidden': 'true' });
    caption.textContent = c.text;
    root.append(caption);
  }
  for (const n of graph.nodes) {
    const focus = n.relation === 'this decision';
    const g = svg('g', {
      class: `node node-${n.kind}${focus ? ' focus' : ''}${n.status ? ` status-${n.status}` : ''}`,
      transform: `translate(${n.x},${n.y})`,
      'data-id': n.id,
    });
    const title = `${n.relation}: ${n.label}${n.status && n.kind === 'decision' ? ` (${n.status})` : ''}`;
    if (n.open) {
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      const open = n.open;
      g.addEventListener('click', () => vscode.postMessage({ type: 'open', open }));
      g.addEventListener('keydown', e => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          vscode.postMessage({ type: 'open', open });
        }
      });
    } else g.setAttribute('role', 'img');
    g.setAttribute('aria-label', title);
    const tip = svg('title', {});
    tip.textContent = title;
    g.append(tip, svg('rect', { width: n.w, height: n.h, rx: 4 }));
    const tag = svg('text', { x: 8, y: 18, class: 'tag' });
    tag.textContent = n.tag;
    g.append(tag);
    n.lines.forEach((line, i) => {
      const t = svg('text', { x: 8, y: 18 + 15 * (i + 1), class: focus ? 'label strong' : 'label' });
      t.textContent = line;
      g.append(t);
    });
    root.append(g);
  }
  const legend = document.createElement('p');
  legend.className = 'legend';
  legend.textContent =
    'Above: handoffs that carried it. Left: decisions it superseded; right: those that superseded or overrode it. Below: files and symbols it affects, then its knowledge graph neighbours. Tab moves between them; Enter opens.';
  app.replaceChildren(legend, root);
  shown = { root, width: graph.width, height: graph.height };
  fit();
}

/**
 * A graph wider than the page is shrunk to fit, but never below 70% (smaller text would not be
 * readable): beyond that the page scrolls.
 */
let shown: { root: SVGSVGElement; width: number; height: number } | undefined;
function fit(): void {
  if (!shown) return;
  const scale = Math.max(0.7, Math.min(1, (app.clientWidth - 4) / shown.width));
  shown.root.setAttribute('width', String(Math.round(shown.width * scale)));
  shown.root.setAttribute('height', String(Math.round(shown.height * scale)));
}
new ResizeObserver(() => fit()).observe(app);

window.addEventListener('message', (event: MessageEvent<{ type: string; graph?: DecisionGraph; message?: string; state?: unknown }>) => {
  const m = event.data;
  if (m.type === 'graph' && m.graph) {
    vscode.setState(m.state);
    render(m.graph);
  } else if (m.type === 'empty') {
    app.removeAttribute('aria-busy');
    app.textContent = m.message ?? '';
  }
});
vscode.postMessage({ type: 'ready' });
