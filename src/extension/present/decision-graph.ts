/**
 * The graph behind a decision, laid out for the Show Graph webview, without I/O and without
 * `vscode`: the decision in the middle; what it superseded to its left (oldest furthest) and what
 * superseded or overrode it to its right; the files and symbols it affects below; the handoffs
 * that carried it above; and its neighbours in the knowledge graph (`.twining/graph/`, when there
 * is one) in a band at the bottom. Each node says what a click opens.
 */
import type { DecisionRecord, HandoffIndexLine } from '../../core/records';

export type GraphOpen = { type: 'decision' | 'handoff'; id: string } | { type: 'file'; path: string };

export interface GraphNode {
  id: string;
  label: string;
  kind: 'decision' | 'file' | 'symbol' | 'handoff' | 'entity';
  /** How it relates to the decision in the middle (read out to screen readers). */
  relation: string;
  x: number;
  y: number;
  open?: GraphOpen;
  /** A decision's status. */
  status?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  label: string;
}

export interface DecisionGraph {
  title: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

/** What the engine's decision story gives (core/ops/decision-story-ops.ts). */
export interface StoryInput {
  record: DecisionRecord;
  supersedes: { id: string; summary?: string; status?: string; missing?: true }[];
  superseded_by: { id: string; summary?: string; status?: string; missing?: true }[];
  handoffs: HandoffIndexLine[];
}

/** `.twining/graph/`'s two files as twining-mcp writes them (entities.json, relations.json). */
export interface KnowledgeGraph {
  entities: { id: string; name: string; type: string }[];
  relations: { source: string; target: string; type: string }[];
}

export const NODE_W = 220;
export const NODE_H = 44;
const GAP_X = 70; // room for an edge's label between two nodes of a row
const GAP_Y = 40;
const NEIGHBOUR_LIMIT = 24;

/** A row of nodes centred on `cx` at height `y`. */
function row(nodes: Omit<GraphNode, 'x' | 'y'>[], cx: number, y: number): GraphNode[] {
  const total = nodes.length * NODE_W + Math.max(0, nodes.length - 1) * GAP_X;
  return nodes.map((n, i) => ({ ...n, x: cx - total / 2 + i * (NODE_W + GAP_X), y }));
}

/** A decision of the chain beside the focus; one the story could not read is shown but opens nothing. */
function chainNode(d: StoryInput['supersedes'][number], relation: string): Omit<GraphNode, 'x' | 'y'> {
  return {
    id: d.id,
    label: d.summary ?? d.id,
    kind: 'decision',
    relation,
    status: d.status,
    ...(d.missing ? {} : { open: { type: 'decision' as const, id: d.id } }),
  };
}

export function decisionGraph(story: StoryInput, graph?: KnowledgeGraph): DecisionGraph {
  const r = story.record;
  const focus = r.id;
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

  // The chain, on one line: older ... this ... newer.
  const older = [...story.supersedes].reverse();
  const newer = [...story.superseded_by];
  const overriddenBy = typeof r.overridden_by === 'string' && r.overridden_by ? r.overridden_by : undefined;
  const chain: Omit<GraphNode, 'x' | 'y'>[] = [
    ...older.map(d => chainNode(d, 'superseded by this decision')),
    {
      id: focus,
      label: String(r.summary ?? focus),
      kind: 'decision',
      relation: 'this decision',
      status: String(r.status ?? ''),
      open: { type: 'decision', id: focus },
    },
    ...newer.map(d => chainNode(d, 'supersedes this decision')),
  ];
  // Rows only for what there is: no empty band above when no handoff carried it.
  const top = 20;
  const handoffY = top;
  const chainY = story.handoffs.length ? top + NODE_H + GAP_Y * 1.5 : top;
  const affectsY = chainY + NODE_H + GAP_Y * 1.5;
  const neighbourY = affectsY + NODE_H + GAP_Y * 1.5;
  const centreIndex = older.length;
  const placed = row(chain, 0, chainY);
  const shift = -placed[centreIndex].x; // the decision itself at x = 0
  for (const n of placed) nodes.push({ ...n, x: n.x + shift });
  for (let i = 1; i < placed.length; i++) edges.push({ from: placed[i].id, to: placed[i - 1].id, label: 'supersedes' });
  if (overriddenBy) {
    nodes.push({
      id: `override:${focus}`,
      label: `Overridden by ${overriddenBy}${r.override_reason ? `: ${r.override_reason}` : ''}`,
      kind: 'entity',
      relation: 'overrode this decision',
      x: (placed.length - centreIndex) * (NODE_W + GAP_X),
      y: chainY,
    });
    edges.push({ from: `override:${focus}`, to: focus, label: 'overrode' });
  }

  // Above: the handoffs whose snapshot carried it.
  const handoffs = row(
    story.handoffs.map(h => ({
      id: `handoff:${h.id}`,
      label: `${h.source_agent} → ${h.target_agent ?? 'any agent'}: ${h.summary}`,
      kind: 'handoff' as const,
      relation: 'handoff that carried this decision',
      open: { type: 'handoff' as const, id: h.id },
    })),
    0,
    handoffY,
  );
  for (const n of handoffs) {
    nodes.push(n);
    edges.push({ from: n.id, to: focus, label: 'carried' });
  }

  // Below: the files and symbols it affects.
  const affects = row(
    [
      ...strings(r.affected_files).map(f => ({
        id: `file:${f}`,
        label: f,
        kind: 'file' as const,
        relation: 'file this decision affects',
        open: { type: 'file' as const, path: f },
      })),
      ...strings(r.affected_symbols).map(s => ({ id: `symbol:${s}`, label: s, kind: 'symbol' as const, relation: 'symbol this decision affects' })),
    ],
    0,
    affectsY,
  );
  for (const n of affects) {
    nodes.push(n);
    edges.push({ from: focus, to: n.id, label: 'affects' });
  }

  // The knowledge graph's neighbours of the decision's entity (named by its id), not already shown.
  const neighbours: Omit<GraphNode, 'x' | 'y'>[] = [];
  const neighbourEdges: GraphEdge[] = [];
  if (graph) {
    const byId = new Map(graph.entities.map(e => [e.id, e] as const));
    const self = graph.entities.find(e => e.name === focus);
    const shown = new Set(nodes.map(n => n.label));
    for (const rel of self ? graph.relations : []) {
      const otherId = rel.source === self!.id ? rel.target : rel.target === self!.id ? rel.source : undefined;
      const other = otherId ? byId.get(otherId) : undefined;
      if (!other || shown.has(other.name) || neighbours.length >= NEIGHBOUR_LIMIT) continue;
      shown.add(other.name);
      const id = `entity:${other.id}`;
      neighbours.push({
        id,
        label: `${other.name} (${other.type})`,
        kind: 'entity',
        relation: `${rel.type} in the knowledge graph`,
        ...(other.type === 'file' ? { open: { type: 'file' as const, path: other.name } } : {}),
      });
      neighbourEdges.push(rel.source === self!.id ? { from: focus, to: id, label: rel.type } : { from: id, to: focus, label: rel.type });
    }
  }
  nodes.push(...row(neighbours, 0, neighbourY));
  edges.push(...neighbourEdges);

  // Move everything right and down so the leftmost node starts at the margin.
  const minX = Math.min(...nodes.map(n => n.x));
  for (const n of nodes) n.x = Math.round(n.x - minX + 20);
  const width = Math.max(...nodes.map(n => n.x + NODE_W)) + 20;
  const height = Math.max(...nodes.map(n => n.y + NODE_H)) + 20;
  return { title: String(r.summary ?? focus), nodes, edges, width, height };
}
