/**
 * The decision document's "Dependencies" (the core's `trace`, upstream and downstream, with each
 * decision's status) and "Knowledge graph" (`neighbors` of each affected file the graph holds)
 * sections, as Markdown lines.
 */
import type { TwiningEngine } from '../../core';
import { strings } from '../present/format';

const row = (d: { id: string; summary: string; status: string }) => `- [${d.status}] ${d.summary} (${d.id})`;

export async function dependencySections(engine: TwiningEngine, decision: { id: string; depends_on?: unknown; affected_files?: unknown }): Promise<string[]> {
  // One trace both ways (it reads every decision record once), split here: upstream is what the
  // decision's depends_on reach through the chain, the rest is downstream; both in the chain's order.
  const { chain } = await engine.trace({ decision_id: decision.id, direction: 'both' });
  const byId = new Map(chain.map(d => [d.id, d] as const));
  const upstream = new Set<string>();
  const queue = strings(decision.depends_on);
  while (queue.length) {
    const id = queue.shift()!;
    const d = byId.get(id);
    if (!d || upstream.has(id)) continue;
    upstream.add(id);
    queue.push(...d.depends_on);
  }
  const up = chain.filter(d => upstream.has(d.id));
  const down = chain.filter(d => !upstream.has(d.id));
  const out = [`## Dependencies (${up.length} upstream, ${down.length} downstream)`, ''];
  out.push(up.length ? 'It depends on (nearest first):' : 'It depends on no other decision.', ...up.map(row), '');
  out.push(down.length ? 'Depending on it (nearest first):' : 'No decision depends on it.', ...down.map(row), '');
  const graphLines: string[] = [];
  for (const file of strings(decision.affected_files)) {
    // A file the graph does not hold is left out: the section shows what the graph knows.
    const found = await engine.neighbors({ entity: file }).catch(() => undefined);
    if (!found || found.neighbors.length === 0) continue;
    graphLines.push(`- \`${file}\` (${found.center.type})`);
    for (const n of found.neighbors) {
      const arrow = n.direction === 'outgoing' ? `${n.relation.type} →` : `← ${n.relation.type}`;
      graphLines.push(`  - ${arrow} ${n.entity.name} (${n.entity.type})`);
    }
  }
  if (graphLines.length) out.push('## Knowledge graph', '', ...graphLines, '');
  return out;
}
