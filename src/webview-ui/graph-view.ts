/**
 * The Show Graph page (bundled into dist/webview/graph.js): draws the laid-out graph
 * (present/decision-graph.ts) as SVG, each node a focusable button (Tab moves between them, Enter or
 * Space opens what it stands for) with a label that says how it relates to the decision.
 */
import './graph.css';
import { NODE_H, NODE_W, type DecisionGraph } from '../extension/present/decision-graph';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
const SVG = 'http://www.w3.org/2000/svg';
const app = document.getElementById('app')!;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function wrap(text: string, max: number): string[] {
  const words = text.split(/\s+/);
  const lines: string[] = [''];
  for (const w of words) {
    const last = lines[lines.length - 1];
    if ((last + ' ' + w).trim().length > max && last) {
      if (lines.length === 2) {
        lines[1] = `${last.slice(0, max - 1)}…`;
        return lines;
      }
      lines.push(w);
    } else lines[lines.length - 1] = (last + ' ' + w).trim();
  }
  return lines;
}

function render(graph: DecisionGraph): void {
  app.removeAttribute('aria-busy');
  const root = svg('svg', { width: graph.width, height: graph.height, role: 'group', 'aria-label': `Graph of the decision: ${graph.title}` });
  const defs = svg('defs', {});
  const marker = svg('marker', { id: 'head', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'head' }));
  defs.append(marker);
  root.append(defs);
  const at = new Map(graph.nodes.map(n => [n.id, n] as const));
  for (const e of graph.edges) {
    const a = at.get(e.from);
    const b = at.get(e.to);
    if (!a || !b) continue;
    const ax = a.x + NODE_W / 2;
    const bx = b.x + NODE_W / 2;
    const sameRow = a.y === b.y;
    const [x1, y1, x2, y2] = sameRow
      ? [a.x < b.x ? a.x + NODE_W : a.x, a.y + NODE_H / 2, a.x < b.x ? b.x : b.x + NODE_W, b.y + NODE_H / 2]
      : [ax, a.y < b.y ? a.y + NODE_H : a.y, bx, a.y < b.y ? b.y : b.y + NODE_H];
    root.append(svg('line', { x1, y1, x2, y2, class: `edge edge-${e.label.replace(/\W+/g, '-')}`, 'marker-end': 'url(#head)' }));
    const label = svg('text', { x: (x1 + x2) / 2 + 4, y: (y1 + y2) / 2 - 4, class: 'edge-label' });
    label.textContent = e.label;
    root.append(label);
  }
  for (const n of graph.nodes) {
    const g = svg('g', {
      class: `node node-${n.kind}${n.relation === 'this decision' ? ' focus' : ''}${n.status ? ` status-${n.status}` : ''}`,
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
    g.append(tip, svg('rect', { width: NODE_W, height: NODE_H, rx: 4 }));
    wrap(n.label, 34).forEach((line, i, all) => {
      const t = svg('text', { x: 8, y: NODE_H / 2 + (i - (all.length - 1) / 2) * 14 + 4 });
      t.textContent = line;
      g.append(t);
    });
    root.append(g);
  }
  const legend = document.createElement('p');
  legend.className = 'legend';
  legend.textContent =
    'Above: handoffs that carried it. Left: decisions it superseded; right: those that superseded or overrode it. Below: files and symbols it affects, then its knowledge graph neighbours.';
  app.replaceChildren(legend, root);
}

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
