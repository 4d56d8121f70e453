/**
 * The CLI's text for twining-mcp's catching-up, dependency, archive, export and graph tools
 * (operations/trace-ops.ts, change-ops.ts, archive-ops.ts, export-ops.ts, graph-ops.ts). Fields are read
 * defensively, as in cli-text.ts; undefined means "no text renderer: print the JSON".
 */
type Row = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '?' : (JSON.stringify(v) ?? '?'));
const rows = (v: unknown): Row[] => (Array.isArray(v) ? v.filter((x): x is Row => x !== null && typeof x === 'object') : []);
const list = (items: Row[], line: (r: Row) => string, none: string) => (items.length ? items.map(line).join('\n') : none);

export function renderHistoryText(op: string, result: unknown): string | undefined {
  const r = (result !== null && typeof result === 'object' ? result : {}) as Row;
  switch (op) {
    case 'trace':
      return list(
        rows(r.chain),
        d =>
          `${str(d.status).padEnd(11)} ${str(d.id)}: ${str(d.summary)} (depends on ${Array.isArray(d.depends_on) ? d.depends_on.length : 0}, ${Array.isArray(d.dependents) ? d.dependents.length : 0} dependent(s))`,
        'No dependencies either way.',
      );
    case 'what_changed': {
      const section = (title: string, items: Row[], line: (x: Row) => string) =>
        items.length ? [`${title} (${items.length}):`, ...items.map(x => `  ${line(x)}`)] : [];
      const lines = [
        ...section('New decisions', rows(r.new_decisions), d => `${str(d.id)}: ${str(d.summary)}`),
        ...section('Overridden', rows(r.overridden_decisions), d => `${str(d.id)}: ${str(d.summary)} (${str(d.reason)})`),
        ...section('Provisional (reconsidered or conflicting)', rows(r.reconsidered_decisions), d => `${str(d.id)}: ${str(d.summary)}`),
        ...section('New entries', rows(r.new_entries), e => `${str(e.entry_type).padEnd(10)} ${str(e.id)}: ${str(e.summary)}`),
      ];
      return lines.length ? lines.join('\n') : 'Nothing changed.';
    }
    case 'summarize':
      return `${str(r.scope)}: ${str(r.active_decisions)} active and ${str(r.provisional_decisions)} provisional decisions, ${str(r.open_needs)} open needs, ${str(r.active_warnings)} warnings, ${str(r.unanswered_questions)} questions.\n${str(r.recent_activity_summary)}`;
    case 'recent':
      return list(rows(r.entries), e => `${str(e.timestamp)} ${str(e.entry_type).padEnd(10)} ${str(e.id)} ${str(e.scope)}: ${str(e.summary)}`, 'No entries.');
    case 'commits':
      return list(rows(r.decisions), d => `${str(d.id)} [${str(d.domain)}] ${str(d.scope)}: ${str(d.summary)}`, 'No decision is linked to this commit.');
    case 'link_commit':
      return `Linked to: ${str(r.decision_summary)}`;
    case 'archive':
      return r.archived_count ? `Archived ${str(r.archived_count)} entries to ${str(r.archive_file)}` : 'Nothing to archive.';
    case 'export':
      return str(r.markdown);
    case 'add_entity':
    case 'add_relation':
      return `Saved ${str(r.id)}`;
    case 'neighbors':
      return list(
        rows(r.neighbors),
        n => {
          const e = (n.entity ?? {}) as Row;
          const rel = (n.relation ?? {}) as Row;
          return `${n.direction === 'incoming' ? '<-' : '->'} ${str(rel.type).padEnd(11)} ${str(e.name)} (${str(e.type)})`;
        },
        'No neighbours.',
      );
    case 'graph_query':
      return list(rows(r.entities), e => `${str(e.type).padEnd(10)} ${str(e.name)} ${str(e.id)}`, 'No entities match.');
    case 'prune_graph':
      return `${r.dry_run ? 'Would remove' : 'Removed'} ${rows(r.pruned).length} of ${str(r.total_orphans_found)} entities without relations`;
    case 'verify_scope': {
      const checks = Object.entries((r.checks ?? {}) as Record<string, Row>);
      const lines = checks.map(([name, c]) => {
        const items = rows(c.uncovered ?? c.ignored_details ?? c.blind_decisions ?? c.stale ?? c.failed);
        const detail = items
          .map(i => `\n    ${str(i.decision_id ?? i.id ?? i.constraint_id)}: ${str(i.summary)}${i.affected_file ? ` (${str(i.affected_file)})` : ''}`)
          .join('');
        return `${name.padEnd(14)} ${str(c.status)}${typeof c.reason === 'string' ? ` (${c.reason})` : ''}${detail}`;
      });
      return `Verified ${str(r.scope)}${r.failed ? ' (FAILED)' : ''}\n${lines.join('\n')}`;
    }
    default:
      return undefined;
  }
}
