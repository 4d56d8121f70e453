/**
 * The graph behind a decision for the Show Graph webview, without I/O and without `vscode`: the
 * decision in the middle; what it superseded to its left (oldest furthest) and what superseded or
 * overrode it to its right; the files and symbols it affects below; the handoffs that carried it
 * above; and its neighbours in the knowledge graph (`.twining/graph/`, when there is one) in a
 * band at the bottom, named by their summaries (a decision's entity is named by its id). Each
 * node says what a click opens; graph-layout.ts places them.
 */
import type { DecisionRecord, HandoffIndexLine } from '../../core/records';
import { layOut, size, type Band, type Caption, type Sized } from './graph-layout';

export { NODE_W } from './graph-layout';

export type GraphOpen = { type: 'decision' | 'handoff'; id: string } | { type: 'file'; path: string };

export interface GraphNode {
  id: string;
  label: string;
  kind: 'decision' | 'file' | 'symbol' | 'handoff' | 'entity';
  /** How it relates to the decision in the middle (read out to screen readers). */
  relation: string;
  /** A short line above the label: what kind of node it is (and its relation, for a neighbour). */
  tag: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** The label as drawn, wrapped to the node's width. */
  lines: string[];
  open?: GraphOpen;
  /** A decision's status. */
  status?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  label: string;
  /** The line, in order (drawn from the first point to the last). */
  points: [number, number][];
  /** Where the label is drawn, when it is (the chain's edges). */
  labelAt?: [number, number];
}

export interface DecisionGraph {
  title: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  captions: Caption[];
  width: number;
  height: number;
}

/** What the engine's decision story gives (core/operations/decision-story-ops.ts). */
export interface StoryInput {
  record: DecisionRecord;
  supersedes: { id: string; summary?: string; status?: string; missing?: true }[];
  superseded_by: { id: string; summary?: string; status?: string; missing?: true }[];
  handoffs: HandoffIndexLine[];
}

/** `.twining/graph/`'s two files as twining-mcp writes them (entities.json, relations.json). */
export interface KnowledgeGraph {
  entities: { id: string; name: string; type: string; properties?: Record<string, unknown> }[];
  relations: { source: string; target: string; type: string }[];
}

const NEIGHBOUR_LIMIT = 24;

type Node = Omit<GraphNode, 'x' | 'y' | 'w' | 'h' | 'lines'>;

/** A decision of the chain beside the focus; one the story could not read is shown but opens nothing. */
function chainNode(d: StoryInput['supersedes'][number], relation: string): Node {
  return {
    id: d.id,
    label: d.summary ?? d.id,
    tag: `decision${d.status && d.status !== 'active' ? ` · ${d.status}` : ''}`,
    kind: 'decision',
    relation,
    status: d.status,
    ...(d.missing ? {} : { open: { type: 'decision' as const, id: d.id } }),
  };
}

const band = (caption: string, nodes: Node[], focus?: string): Band & { all: Node[] } => ({
  caption,
  all: nodes,
  nodes: nodes.map(n => {
    const sized: Sized = { id: n.id, label: n.label, tag: n.tag, ...(n.id === focus ? { focus: true } : {}) };
    return { ...sized, sized: size(sized) };
  }),
});

/**
 * The graph of one decision. `summaries` (decision id -> summary, from the decision index) names
 * knowledge graph entities that are decisions when the entity carries no summary of its own.
 */
export function decisionGraph(story: StoryInput, graph?: KnowledgeGraph, summaries?: ReadonlyMap<string, string>): DecisionGraph {
  const r = story.record;
  const focus = r.id;
  const edges: Omit<GraphEdge, 'points'>[] = [];
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

  // The chain, on one line: older ... this ... newer (and who overrode it).
  const older = [...story.supersedes].reverse();
  const newer = [...story.superseded_by];
  const overriddenBy = typeof r.overridden_by === 'string' && r.overridden_by ? r.overridden_by : undefined;
  const status = String(r.status ?? '');
  const chain: Node[] = [
    ...older.map(d => chainNode(d, 'superseded by this decision')),
    {
      id: focus,
      label: String(r.summary ?? focus),
      tag: `this decision${status && status !== 'active' ? ` · ${status}` : ''}`,
      kind: 'decision',
      relation: 'this decision',
      status,
      open: { type: 'decision', id: focus },
    },
    ...newer.map(d => chainNode(d, 'supersedes this decision')),
  ];
  for (let i = 1; i < chain.length; i++) edges.push({ from: chain[i].id, to: chain[i - 1].id, label: 'supersedes' });
  if (overriddenBy) {
    chain.push({
      id: `override:${focus}`,
      label: `${overriddenBy}${r.override_reason ? `: ${r.override_reason}` : ''}`,
      tag: 'overridden by',
      kind: 'entity',
      relation: 'overrode this decision',
    });
    edges.push({ from: `override:${focus}`, to: focus, label: 'overrode' });
  }

  // Above: the handoffs whose snapshot carried it.
  const handoffs: Node[] = story.handoffs.map(h => ({
    id: `handoff:${h.id}`,
    label: `${h.source_agent} → ${h.target_agent ?? 'any agent'}: ${h.summary}`,
    tag: 'handoff',
    kind: 'handoff' as const,
    relation: 'handoff that carried this decision',
    open: { type: 'handoff' as const, id: h.id },
  }));
  for (const n of handoffs) edges.push({ from: n.id, to: focus, label: 'carried' });

  // Below: the files and symbols it affects.
  const affects: Node[] = [
    ...strings(r.affected_files).map(f => ({
      id: `file:${f}`,
      label: f,
      tag: 'file',
      kind: 'file' as const,
      relation: 'file this decision affects',
      open: { type: 'file' as const, path: f },
    })),
    ...strings(r.affected_symbols).map(s => ({
      id: `symbol:${s}`,
      label: s,
      tag: 'symbol',
      kind: 'symbol' as const,
      relation: 'symbol this decision affects',
    })),
  ];
  for (const n of affects) edges.push({ from: focus, to: n.id, label: 'affects' });

  // The knowledge graph's neighbours of the decision's entity (named by its id), not already shown.
  const neighbours: Node[] = [];
  if (graph) {
    const byId = new Map(graph.entities.map(e => [e.id, e] as const));
    const self = graph.entities.find(e => e.name === focus);
    const shown = new Set([...chain, ...affects].flatMap(n => [n.id, n.label]));
    for (const rel of self ? graph.relations : []) {
      const otherId = rel.source === self!.id ? rel.target : rel.target === self!.id ? rel.source : undefined;
      const other = otherId ? byId.get(otherId) : undefined;
      if (!other || shown.has(other.name) || shown.has(`file:${other.name}`) || neighbours.length >= NEIGHBOUR_LIMIT) continue;
      shown.add(other.name);
      const id = `entity:${other.id}`;
      const summary = typeof other.properties?.summary === 'string' ? other.properties.summary : summaries?.get(other.name);
      const isDecision = summaries?.has(other.name) ?? false;
      const outgoing = rel.source === self!.id;
      neighbours.push({
        id,
        label: summary || other.name,
        tag: `${outgoing ? '' : '← '}${rel.type.replace(/_/g, ' ')}${outgoing ? ' →' : ''} · ${isDecision ? 'decision' : other.type}`,
        kind: isDecision ? 'decision' : 'entity',
        relation: outgoing
          ? `this decision ${rel.type.replace(/_/g, ' ')} it, in the knowledge graph`
          : `${rel.type.replace(/_/g, ' ')} this decision, in the knowledge graph`,
        ...(isDecision
          ? { open: { type: 'decision' as const, id: other.name } }
          : other.type === 'file'
            ? { open: { type: 'file' as const, path: other.name } }
            : {}),
      });
      edges.push(outgoing ? { from: focus, to: id, label: rel.type } : { from: id, to: focus, label: rel.type });
    }
  }

  const bands = {
    above: band('Carried by handoffs', handoffs),
    chain: band('', chain, focus),
    affects: band('Affects', affects),
    kg: band('Knowledge graph', neighbours),
  };
  const chainEdges = edges.filter(e => e.label === 'supersedes' || e.label === 'overrode');
  const other = new Map(edges.filter(e => !chainEdges.includes(e)).map(e => [e.from === focus ? e.to : e.from, e] as const));
  const layout = layOut(bands.above, bands.chain, focus, chainEdges, [bands.affects, bands.kg], id => other.get(id)!);
  const nodes: GraphNode[] = [...bands.above.all, ...bands.chain.all, ...bands.affects.all, ...bands.kg.all].map(n => {
    const box = layout.boxes.get(n.id)!;
    return { ...n, x: box.x, y: box.y, w: box.w, h: box.h, lines: box.lines };
  });
  const routed: GraphEdge[] = layout.routes.map(route => {
    const e = edges.find(x => x.from === route.from && x.to === route.to)!;
    return { ...e, points: route.points, ...(route.labelAt ? { labelAt: route.labelAt } : {}) };
  });
  return { title: String(r.summary ?? focus), nodes, edges: routed, captions: layout.captions, width: layout.width, height: layout.height };
}
