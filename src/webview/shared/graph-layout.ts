/**
 * Where the Show Graph nodes go and how their edges run, without I/O and without `vscode`
 * (decision-graph.ts says what the nodes are). Rows of nodes: the handoffs above, the chain in
 * the middle, the files and symbols below, the knowledge graph's neighbours at the bottom, each
 * band wrapped into rows of a few nodes with a gap in the middle, so that the edges of the bands
 * below run down that gap (a trunk) and along a rail above their row instead of across other
 * nodes. Every label is wrapped to its node's width from a character-width estimate: the decision
 * in the middle is wider and shown whole, the others on up to three lines (the rest in their
 * tooltip and screen-reader label). Only the chain's edges carry a label, in the gap between two
 * nodes; each band has a caption instead of a label per edge.
 */

/** Width of a character of the 12px label font, generously estimated (an average is about 6.5). */
export const CHAR_W = 7;
export const LINE_H = 15;
export const NODE_W = 220;
const FOCUS_W = 340;
const PAD = 8;
/** Room for a tag line (the kind of node) above the label. */
const TAG_H = 14;
const GAP_X = 84; // between two nodes of a row: room for "supersedes" on a chain edge
const TRUNK_GAP = 60; // the middle of a band's rows, where the edges to the bands below run
const ROW_GAP = 44; // between two rows of one band: their rail runs in it
const BAND_GAP = 64; // between bands: the caption and the rail
const PER_SIDE = 3;
const MARGIN = 20;

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Sized {
  id: string;
  label: string;
  /** A short line above the label: what kind of node this is. */
  tag: string;
  focus?: boolean;
}

export interface Placed extends Box {
  lines: string[];
}

export interface Route {
  from: string;
  to: string;
  points: [number, number][];
  /** A label drawn at `labelAt` (the chain's edges only). */
  label?: string;
  labelAt?: [number, number];
}

export interface Caption {
  text: string;
  x: number;
  y: number;
}

/** `text` in lines of at most `max` characters (words kept whole where they fit), at most `lines` of them, the last cut with an ellipsis. */
export function wrapText(text: string, max: number, lines: number): string[] {
  const out: string[] = [];
  let line = '';
  const words = text.split(/\s+/).filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    let w = words[i];
    while (w.length > max) {
      // A word longer than a line (an id, a path) is broken.
      if (line) out.push(line);
      out.push(w.slice(0, max));
      w = w.slice(max);
      line = '';
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= max) line += ` ${w}`;
    else {
      out.push(line);
      line = w;
    }
  }
  if (line) out.push(line);
  if (out.length <= lines) return out.length ? out : [''];
  const kept = out.slice(0, lines);
  const last = kept[lines - 1];
  kept[lines - 1] = `${(last.length >= max ? last.slice(0, max - 1) : last).trimEnd()}…`;
  return kept;
}

/** A node's size and lines: the decision in the middle whole (up to 12 lines), others on up to 3. */
export function size(n: Sized): { w: number; h: number; lines: string[] } {
  const w = n.focus ? FOCUS_W : NODE_W;
  const lines = wrapText(n.label, Math.floor((w - 2 * PAD) / CHAR_W), n.focus ? 12 : 3);
  return { w, h: PAD + TAG_H + lines.length * LINE_H + PAD, lines };
}

export interface Band {
  caption: string;
  nodes: (Sized & { sized: { w: number; h: number; lines: string[] } })[];
}

/** Rows of one band from `y` on, centred on `cx`; `gap`: leave the middle free for the edges of the bands below. */
function placeBand(band: Band, cx: number, y: number, gap: boolean): { rows: (Placed & { id: string })[][]; bottom: number } {
  const rows: (Placed & { id: string })[][] = [];
  const perRow = gap ? 2 * PER_SIDE : 2 * PER_SIDE + 1;
  let top = y;
  for (let i = 0; i < band.nodes.length; i += perRow) {
    const chunk = band.nodes.slice(i, i + perRow);
    const h = Math.max(...chunk.map(n => n.sized.h));
    const row: (Placed & { id: string })[] = [];
    if (gap) {
      const left = chunk.slice(0, Math.ceil(chunk.length / 2));
      const right = chunk.slice(left.length);
      let x = cx - TRUNK_GAP / 2;
      for (const n of [...left].reverse()) {
        x -= n.sized.w;
        row.unshift({ id: n.id, x, y: top, w: n.sized.w, h: n.sized.h, lines: n.sized.lines });
        x -= GAP_X;
      }
      x = cx + TRUNK_GAP / 2;
      for (const n of right) {
        row.push({ id: n.id, x, y: top, w: n.sized.w, h: n.sized.h, lines: n.sized.lines });
        x += n.sized.w + GAP_X;
      }
    } else {
      const total = chunk.reduce((sum, n) => sum + n.sized.w, 0) + (chunk.length - 1) * GAP_X;
      let x = cx - total / 2;
      for (const n of chunk) {
        row.push({ id: n.id, x, y: top, w: n.sized.w, h: n.sized.h, lines: n.sized.lines });
        x += n.sized.w + GAP_X;
      }
    }
    rows.push(row);
    top += h + ROW_GAP;
  }
  return { rows, bottom: rows.length ? top - ROW_GAP : y };
}

export interface Layout {
  boxes: Map<string, Placed>;
  routes: Route[];
  captions: Caption[];
  width: number;
  height: number;
}

/**
 * Lays out: `above` (edges from each to the focus), the `chain` (left to right; `chainEdges`
 * between neighbours of the row, labelled), and `below` bands (edges from the focus to each).
 */
export function layOut(
  above: Band,
  chain: Band,
  focus: string,
  chainEdges: { from: string; to: string; label: string }[],
  below: Band[],
  edgesOf: (id: string) => { from: string; to: string },
): Layout {
  const boxes = new Map<string, Placed>();
  const routes: Route[] = [];
  const captions: Caption[] = [];
  // The chain first, to know where the focus is; the focus's centre is x = 0 until the final shift.
  const chainH = Math.max(...chain.nodes.map(n => n.sized.h));
  const focusAt = chain.nodes.findIndex(n => n.id === focus);
  let x = -chain.nodes[focusAt].sized.w / 2;
  for (let i = focusAt - 1; i >= 0; i--) x -= chain.nodes[i].sized.w + GAP_X;
  const aboveTop = 0;
  const aboveRows = above.nodes.length ? placeBand(above, 0, aboveTop, above.nodes.length > 2 * PER_SIDE + 1) : { rows: [], bottom: aboveTop - BAND_GAP };
  const chainY = aboveRows.bottom + BAND_GAP;
  const centreY = chainY + chainH / 2;
  for (const n of chain.nodes) {
    boxes.set(n.id, { x, y: centreY - n.sized.h / 2, w: n.sized.w, h: n.sized.h, lines: n.sized.lines });
    x += n.sized.w + GAP_X;
  }
  for (const e of chainEdges) {
    const a = boxes.get(e.from)!;
    const b = boxes.get(e.to)!;
    const [l, r] = a.x < b.x ? [a, b] : [b, a];
    const x1 = a === l ? l.x + l.w : r.x;
    const x2 = a === l ? r.x : l.x + l.w;
    routes.push({
      ...e,
      points: [
        [x1, centreY],
        [x2, centreY],
      ],
      labelAt: [(l.x + l.w + r.x) / 2, centreY - 6],
    });
  }
  const f = boxes.get(focus)!;
  // Above: each handoff down to a rail under its row, along it to the middle, down to the focus.
  for (const row of aboveRows.rows) {
    for (const n of row) {
      boxes.set(n.id, n);
      const rail = n.y + n.h + (row === aboveRows.rows[aboveRows.rows.length - 1] ? BAND_GAP / 2 : ROW_GAP / 2);
      routes.push({
        ...edgesOf(n.id),
        points: [
          [n.x + n.w / 2, n.y + n.h],
          [n.x + n.w / 2, rail],
          [0, rail],
          [0, f.y],
        ],
      });
    }
  }
  if (aboveRows.rows.length) captions.push({ text: above.caption, x: Math.min(...aboveRows.rows[0].map(n => n.x)), y: aboveTop - 6 });
  // Below: bands one under the other; each node's edge comes down the trunk to its rail.
  let y = chainY + chainH + BAND_GAP;
  below.forEach((band, b) => {
    if (!band.nodes.length) return;
    const placed = placeBand(band, 0, y, below.slice(b + 1).some(later => later.nodes.length > 0) || band.nodes.length > 2 * PER_SIDE + 1);
    captions.push({ text: band.caption, x: Math.min(...placed.rows[0].map(n => n.x)), y: y - 6 });
    for (const row of placed.rows) {
      const rail = row[0].y - (row === placed.rows[0] ? 22 : ROW_GAP / 2);
      for (const n of row) {
        boxes.set(n.id, n);
        routes.push({
          ...edgesOf(n.id),
          points: [
            [0, f.y + f.h],
            [0, rail],
            [n.x + n.w / 2, rail],
            [n.x + n.w / 2, n.y],
          ],
        });
      }
    }
    y = placed.bottom + BAND_GAP;
  });
  // Everything moved right and down so the top-left node starts at the margin (captions stay above their rows).
  const all = [...boxes.values()];
  const minX = Math.min(...all.map(n => n.x), ...captions.map(c => c.x));
  const minY = Math.min(...all.map(n => n.y), ...captions.map(c => c.y - 12));
  const dx = MARGIN - minX;
  const dy = MARGIN - minY;
  for (const n of all) [n.x, n.y] = [Math.round(n.x + dx), Math.round(n.y + dy)];
  for (const r of routes) {
    r.points = r.points.map(([px, py]) => [Math.round(px + dx), Math.round(py + dy)]);
    if (r.labelAt) r.labelAt = [Math.round(r.labelAt[0] + dx), Math.round(r.labelAt[1] + dy)];
  }
  for (const c of captions) [c.x, c.y] = [Math.round(c.x + dx), Math.round(c.y + dy)];
  const width = Math.max(...all.map(n => n.x + n.w)) + MARGIN;
  const height = Math.max(...all.map(n => n.y + n.h)) + MARGIN;
  return { boxes, routes, captions, width, height };
}
