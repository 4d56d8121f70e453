/**
 * The whole state as one Markdown document, with the sections, tables and order of twining-mcp
 * 1.9's export (src/engine/exporter.ts at commit 4846d7048cd84fe6771ff8c51aac1a29cc96d02b):
 * a summary, the decisions (newest first, with context, rationale and rejected alternatives), the
 * blackboard (newest first) and the knowledge graph. With a scope: entries and decisions whose
 * scope overlaps it (decisions also by an affected file), entities whose name or a property
 * contains it, and the relations touching those.
 */
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import { overlaps } from '../scope';
import type { BlackboardEntry, DecisionRecord } from '../records';
import { allDecisionRecords } from './trace-ops';
import { readGraph } from './graph-ops';

export interface ExportResult {
  markdown: string;
  stats: { blackboard_entries: number; decisions: number; graph_entities: number; graph_relations: number; scope: string };
}

/** A table cell: a "|" or a line break would end the cell or the row. */
const cell = (value: unknown) =>
  (typeof value === 'string' ? value : value === undefined || value === null ? '' : (JSON.stringify(value) ?? '')).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export async function exportMarkdown(ctx: FolderStore, input: InputOf<'export'> = {}): Promise<ExportResult> {
  const args = ctx.validate('export', input);
  const scope = args.scope || undefined;
  await ctx.blackboard.refresh();
  const [records, graph] = await Promise.all([allDecisionRecords(ctx), readGraph(ctx)]);
  const inScope = (s: unknown) => !scope || (typeof s === 'string' && overlaps(s, scope));
  const entries: BlackboardEntry[] = ctx.blackboard.entries.filter(e => inScope(e.scope));
  const decisions: DecisionRecord[] = [...records.values()].filter(
    d => inScope(d.scope) || (!!scope && Array.isArray(d.affected_files) && d.affected_files.some(f => overlaps(f, scope))),
  );
  const entities = scope
    ? graph.entities.filter(e => e.name.includes(scope) || Object.values(e.properties ?? {}).some(v => String(v).includes(scope)))
    : graph.entities.slice();
  const included = new Set(entities.map(e => e.id));
  const relations = scope ? graph.relations.filter(r => included.has(r.source) || included.has(r.target)) : graph.relations;
  decisions.sort((a, b) => b.timestamp.localeCompare(a.timestamp) || b.id.localeCompare(a.id));
  entries.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
  entities.sort((a, b) => a.name.localeCompare(b.name));
  const nameOf = new Map(graph.entities.map(e => [e.id, e.name]));
  const counts = { active: 0, provisional: 0, superseded: 0, overridden: 0 } as Record<string, number>;
  for (const d of decisions) counts[d.status] = (counts[d.status] ?? 0) + 1;

  const out: string[] = ['# Twining State Export', '', `*Exported: ${ctx.timestamp()}*`];
  if (scope) out.push(`*Scope: ${scope}*`);
  out.push('', '## Summary', '', `- Blackboard entries: ${entries.length}`);
  out.push(
    `- Decisions: ${decisions.length} (${counts.active} active, ${counts.provisional} provisional, ${counts.superseded} superseded, ${counts.overridden} overridden)`,
  );
  out.push(`- Graph entities: ${entities.length}`, `- Graph relations: ${relations.length}`, '', '## Decisions', '');
  if (!decisions.length) out.push('*No decisions recorded.*', '');
  for (const d of decisions) {
    out.push(`### ${d.summary}`, '', '| Field | Value |', '|-------|-------|');
    out.push(`| ID | ${d.id} |`, `| Domain | ${cell(d.domain)} |`, `| Scope | ${cell(d.scope)} |`, `| Status | ${d.status} |`);
    out.push(
      `| Confidence | ${d.confidence} |`,
      `| Timestamp | ${d.timestamp} |`,
      `| Commits | ${d.commit_hashes?.length ? d.commit_hashes.join(', ') : 'none'} |`,
      '',
    );
    out.push(`**Context:** ${d.context}`, '', `**Rationale:** ${d.rationale}`, '');
    if (d.alternatives?.length) {
      out.push('**Alternatives considered:**');
      for (const alt of d.alternatives) out.push(`- ${alt.option}: ${alt.reason_rejected}`);
      out.push('');
    }
    out.push('---', '');
  }
  out.push('## Blackboard', '');
  if (!entries.length) out.push('*No blackboard entries.*', '');
  else {
    out.push('| Timestamp | Type | Summary | Scope |', '|-----------|------|---------|-------|');
    for (const e of entries) out.push(`| ${e.timestamp} | ${e.entry_type} | ${cell(e.summary)} | ${cell(e.scope)} |`);
    out.push('');
  }
  out.push('## Knowledge Graph', '', '### Entities', '');
  if (!entities.length) out.push('*No entities.*', '');
  else {
    out.push('| Name | Type | Properties |', '|------|------|------------|');
    for (const e of entities) out.push(`| ${cell(e.name)} | ${e.type} | ${cell(JSON.stringify(e.properties))} |`);
    out.push('');
  }
  out.push('### Relations', '');
  if (!relations.length) out.push('*No relations.*', '');
  else {
    out.push('| Source | Relation | Target |', '|--------|----------|--------|');
    for (const r of relations) out.push(`| ${cell(nameOf.get(r.source) ?? r.source)} | ${r.type} | ${cell(nameOf.get(r.target) ?? r.target)} |`);
    out.push('');
  }
  return {
    markdown: out.join('\n'),
    stats: {
      blackboard_entries: entries.length,
      decisions: decisions.length,
      graph_entities: entities.length,
      graph_relations: relations.length,
      scope: scope ?? 'all',
    },
  };
}
