/**
 * The CLI's text for twining-mcp 2.x's resolve, triage, archive_stale, unarchive and housekeeping
 * (core/operations/resolve-ops.ts, triage-ops.ts, stale-ops.ts, housekeeping-ops.ts). Fields are read defensively, as in
 * cli-text.ts; undefined means "no text renderer: print the JSON".
 */
type Row = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '?' : (JSON.stringify(v) ?? '?'));
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);
const rows = (v: unknown): Row[] => (Array.isArray(v) ? v.filter((x): x is Row => x !== null && typeof x === 'object') : []);
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const also = (label: string, v: unknown) => (strs(v).length ? `; ${label}: ${strs(v).join(', ')}` : '');

export function renderOpenItemsText(op: string, result: unknown): string | undefined {
  const r = (result !== null && typeof result === 'object' ? result : {}) as Row;
  switch (op) {
    case 'resolve':
      return `Resolved ${strs(r.resolved).length}${also('not found', r.not_found)}`;
    case 'triage': {
      const counts = (r.counts ?? {}) as Row;
      const total = (k: string) => str(((counts[k] ?? {}) as Row).total);
      const line = (i: Row) => `  ${str(i.kind).padEnd(9)} ${str(i.id)}: ${str(i.summary)} (${str(i.scope)}, ${str(i.agent_id)})`;
      const lines: string[] = [];
      if (Array.isArray(r.open)) lines.push(`Open (${total('open')}), oldest first:`, ...(r.open.length ? rows(r.open).map(line) : ['  nothing open']));
      if (r.open_cursor) lines.push(`  more: --open-after ${str(r.open_cursor)}`);
      if (Array.isArray(r.recent))
        lines.push(`Recent (${total('recent')}), newest first:`, ...(r.recent.length ? rows(r.recent).map(line) : ['  nothing recent']));
      return lines.join('\n');
    }
    case 'archive_stale': {
      const text = `Archived ${str(r.total_archived)}: ${plural(strs(r.archived_decisions).length, 'decision', 'decisions')}, ${plural(strs(r.archived_entries).length, 'entry', 'entries')}${also('not found', r.not_found)}`;
      return r.warning ? `${text}\n${str(r.warning)}` : text;
    }
    case 'unarchive':
      return `Restored ${strs(r.restored).length}${also('not archived', r.not_archived)}${also('not found', r.not_found)}`;
    case 'housekeeping': {
      const items = (k: string) => rows(((r[k] ?? {}) as Row).items);
      const lines = [str(r.summary)];
      for (const d of items('stale_provisionals')) lines.push(`  stale provisional ${str(d.id)} (${str(d.age_days)} days): ${str(d.summary)}`);
      for (const w of items('dangling_warnings')) lines.push(`  open warning ${str(w.id)} (${str(w.age_days)} days): ${str(w.summary)}`);
      const repair = (r.index_repair ?? undefined) as Row | undefined;
      if (repair && strs(repair.ids).length)
        lines.push(
          `  decisions missing from decisions/index.json: ${strs(repair.ids).join(', ')}${repair.skipped_invalid ? ` (${str(repair.skipped_invalid)} other files left alone)` : ''}`,
        );
      if (r.index_repair_error) lines.push(`  index repair: ${str(r.index_repair_error)}`);
      if (strs(r.not_run).length) lines.push(`Not run here: ${strs(r.not_run).join(', ')}`);
      if (r.dry_run === true) lines.push('A preview: run again with --execute to apply.');
      return lines.join('\n');
    }
    case 'amend':
      return r.unchanged
        ? `Unchanged: decision ${str(r.id)} already has every file and symbol given`
        : `Amended ${str(r.id)}: added ${[...strs(r.added_files), ...strs(r.added_symbols)].join(', ')}`;
    case 'migrate_status': {
      const storage = (r.storage ?? {}) as Row;
      const lines = [`Format ${str(r.format)} (${str(storage.backend)}, ${str(storage.reason)}); migration to format 3: ${str(r.migration)}`, str(r.note)];
      if (r.next_command) lines.push(`Next: ${str(r.next_command)}`);
      return lines.join('\n');
    }
    case 'exchange_status': {
      const sync = (r.sync ?? {}) as Row;
      if (sync.state !== 'set_up') return `Sync: ${str(sync.message)}.`;
      const outbox = (r.outbox ?? {}) as Row;
      return [
        `Sync: ${str(sync.message)}`,
        `  outbound pending: ${str(outbox.depth)}`,
        ...rows(r.gaps).map(g => `  gap ${str(g.kind)}: ${str(g.detail)}`),
      ].join('\n');
    }
    default:
      return undefined;
  }
}
