/**
 * The decision document's "Dependencies" (the core's `trace`, upstream and downstream, with each
 * decision's status) and "Knowledge graph" (`neighbors` of each affected file the graph holds)
 * sections, as Markdown lines.
 */
import type { TwiningEngine } from '../../core';
import { strings } from '../present/format';

const row = (d: { id: string; summary: string; status: string }) => `- [${d.status}] ${d.summary} (${d.id})`;

export async function dependencySections(engine: TwiningEngine, decision: { id: string; affected_files?: unknown }): Promise<string[]> {
  const [up, down] = await Promise.all([
    engine.trace({ decision_id: decision.id, direction: 'upstream' }),
    engine.trace({ decision_id: decision.id, direction: 'downstream' }),
  ]);
  const out = [`## Dependencies (${up.chain.length} upstream, ${down.chain.length} downstream)`, ''];
  out.push(up.chain.length ? 'It depends on (nearest first):' : 'It depends on no other decision.', ...up.chain.map(row), '');
  out.push(down.chain.length ? 'Depending on it (nearest first):' : 'No decision depends on it.', ...down.chain.map(row), '');
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
