/**
 * The CLI's human-readable output, one renderer per operation. Records come from files other
 * programs write, so every field is read defensively: a record that lacks a field, or holds the
 * wrong type, prints as `?` (or its JSON) instead of crashing the command, so the text output
 * survives whatever the `--json` output survives.
 */
import type { OperationName } from '../core/schemas/schemas';
import type { VerifyResult } from '../core/records';
import { driftItems } from '../core/text/drift-text';
import { renderHistoryText } from './cli-text-history';
import { renderOpenItemsText } from './cli-text-open-items';
import { briefingText } from '../core/text/briefing-text';
import type { AssembledContext } from '../core/operations/assemble-ops';

type Row = Record<string, unknown>;

/** A field as text: strings as they are, nothing as `?`, anything else as JSON. */
const str = (value: unknown, missing = '?'): string =>
  typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? missing
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);
/** A list field as text items (a lone string counts as one item). */
const strs = (value: unknown): string[] => (Array.isArray(value) ? value.map(v => str(v)) : value === undefined || value === null ? [] : [str(value)]);
const rows = (value: unknown): Row[] => (Array.isArray(value) ? value.map(v => (v !== null && typeof v === 'object' ? (v as Row) : { value: v })) : []);
const row = (value: unknown): Row => (value !== null && typeof value === 'object' ? (value as Row) : {});
const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);

function ago(iso: unknown, now: Date): string {
  const ms = now.getTime() - Date.parse(str(iso, ''));
  if (Number.isNaN(ms)) return str(iso);
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : s < 86400 ? `${Math.round(s / 3600)}h` : `${Math.round(s / 86400)}d`;
  return ms >= 0 ? `${text} ago` : `in ${text}`;
}

function score(a: Row): string {
  const total = typeof a.total_score === 'number' ? a.total_score.toFixed(2) : '?';
  return `${str(a.agent_id)} ${total} (${str(a.liveness)}; ${strs(a.matched_capabilities).join(', ') || 'no matching capabilities'})`;
}

export function renderText(op: OperationName | 'init', result: unknown, now: Date): string {
  const r = row(result);
  switch (op) {
    case 'init':
      return r.created ? `Created ${str(r.dir)}` : `${str(r.dir)} already exists; missing entries were added`;
    case 'register':
      return `Registered ${str(r.agent_id)} [${strs(r.capabilities).join(', ')}]`;
    case 'agents': {
      const agents = rows(r.agents);
      if (agents.length === 0) return 'No agents registered.';
      const lines = agents.map(
        a =>
          `${str(a.liveness).padEnd(7)} ${str(a.agent_id)}${a.role ? ` (${str(a.role)})` : ''} [${strs(a.capabilities).join(', ')}] last active ${ago(a.last_seen, now)}`,
      );
      return `${lines.join('\n')}\n${str(r.active_count)} active of ${str(r.total_registered)}`;
    }
    case 'discover':
      return rows(r.agents).map(score).join('\n') || 'No agents.';
    case 'delegate':
      return `Posted delegation ${str(r.entry_id)}, expires ${str(r.expires_at)}\nSuggested: ${rows(r.suggested_agents).map(score).join('; ') || 'nobody available'}`;
    case 'delegations': {
      const lines = rows(r.delegations).map(d => {
        const suggested = rows(d.suggested_agents);
        const head = d.expired ? 'EXPIRED' : str(d.urgency).toUpperCase().padEnd(7);
        return `${head} ${str(d.entry_id)} ${str(d.summary)} [${strs(d.required_capabilities).join(', ')}] ${d.expired ? 'expired' : 'expires'} ${ago(d.expires_at, now)}${suggested.length ? `\n        suggested: ${suggested.slice(0, 3).map(score).join('; ')}` : ''}`;
      });
      return [...lines, `${str(r.open_count)} open, ${str(r.expired_count)} expired`].join('\n');
    }
    case 'handoff': {
      const s = row(r.context_snapshot);
      return `Handoff ${str(r.id)} created (${count(s.decision_ids)} decisions, ${count(s.warning_ids)} warnings, ${count(s.finding_ids)} findings in the snapshot)`;
    }
    case 'handoffs': {
      const list = rows(r.handoffs);
      if (list.length === 0) return 'No handoffs.';
      const lines = list.map(
        h =>
          `${h.acknowledged === true ? 'ack ' : 'NEW '} ${str(h.id)} ${str(h.source_agent)} → ${str(h.target_agent, 'any')} [${str(h.result_status)}] ${str(h.summary)}`,
      );
      return lines.join('\n') + (Number(r.total_count) > list.length ? `\n(${list.length} of ${str(r.total_count)})` : '');
    }
    case 'acknowledge':
      return `Acknowledged ${str(r.id)} as ${str(r.acknowledged_by)}`;
    case 'post':
      return `Posted ${str(r.id)}`;
    case 'read': {
      const entries = rows(r.entries);
      const lines = entries.map(e => `${str(e.timestamp)} ${str(e.entry_type).padEnd(10)} ${str(e.scope)}: ${str(e.summary)} (${str(e.agent_id)})`);
      return [...lines, `${entries.length} of ${str(r.total_count)}`].join('\n');
    }
    case 'decide': {
      const conflicts = rows(r.conflicts);
      return `Recorded decision ${str(r.id)}${Array.isArray(r.conflicts) ? ` as provisional: it conflicts with ${conflicts.map(c => `${str(c.id)} "${str(c.summary)}"`).join(', ')}` : ''}`;
    }
    case 'decisions':
      return (
        rows(r.decisions)
          .map(d => `${str(d.status).padEnd(11)} ${str(d.id)} [${str(d.domain)}] ${str(d.scope)}: ${str(d.summary)}`)
          .join('\n') || 'No decisions.'
      );
    case 'status': {
      const record = r.record as { reason?: unknown; note?: unknown; checked_out_copy_changes?: unknown } | undefined;
      const folded = record?.checked_out_copy_changes ? `\nWorktree copy: ${str(record.checked_out_copy_changes)}` : '';
      const where = record ? `\nRecord: ${str(record.reason)}${record.note ? `\nNote: ${str(record.note)}` : ''}${folded}` : '';
      return `${str(r.summary)}\nDelegations: ${str(r.open_delegations)} open, ${str(r.expired_delegations)} expired. Handoffs: ${str(r.unacknowledged_handoffs)} unacknowledged of ${str(r.handoffs)}.${where}`;
    }
    case 'why': {
      const list = rows(r.decisions).map(
        d => `${str(d.status).padEnd(11)} ${str(d.id)} [${str(d.domain)}] ${str(d.scope)}: ${str(d.summary)}\n            why: ${str(d.rationale)}`,
      );
      const more = rows(r.more).map(d => `${str(d.status).padEnd(11)} ${str(d.id)}: ${str(d.summary)} (one-liner: twining why --ids ${str(d.id)})`);
      const left = rows(r.superseded_excluded).map(
        d =>
          `left out   ${str(d.id)}: ${str(d.summary)}${d.superseded_by ? ` (superseded by ${str(d.superseded_by)})` : ''}${d.lineage_head ? ` (now: ${str(row(d.lineage_head).id)})` : ''}`,
      );
      const tail = [`${str(r.active_count)} active, ${str(r.provisional_count)} provisional`];
      if (r.omitted_count) tail.push(`${str(r.omitted_count)} more not shown (a larger --max-tokens shows them)`);
      if (strs(r.missing_ids).length) tail.push(`not found: ${strs(r.missing_ids).join(', ')}`);
      return list.length || more.length || r.omitted_count
        ? [...list, ...more, ...left, ...tail].join('\n')
        : [...left, 'No decisions bear on this.'].join('\n');
    }
    case 'dismiss':
      return `Dismissed ${count(r.dismissed)}${count(r.not_found) ? `; not found: ${strs(r.not_found).join(', ')}` : ''}`;
    case 'reconsider':
      return `${r.flagged ? 'Flagged' : 'Not active, so not flagged'}: ${str(r.decision_summary)}${count(r.dependents) ? `\nDepending on it: ${strs(r.dependents).join(', ')}` : ''}`;
    case 'override':
      return `Overridden: ${str(r.old_summary)}${r.new_decision_id ? `\nReplaced by ${str(r.new_decision_id)}` : ''}`;
    case 'promote': {
      const lines = [`Promoted ${count(r.promoted)}`];
      if (count(r.already_active)) lines.push(`already active: ${strs(r.already_active).join(', ')}`);
      if (count(r.not_found)) lines.push(`not found: ${strs(r.not_found).join(', ')}`);
      for (const w of rows(r.wrong_status)) lines.push(`${str(w.id)} is ${str(w.status)}, not provisional`);
      return lines.join('\n');
    }
    case 'search': {
      const list = rows(r.results).map(h => {
        const what = h.kind === 'decision' ? `decision ${str(h.status)}` : str(h.entry_type);
        const domain = h.kind === 'decision' ? ` [${str(h.domain)}]` : '';
        return `${what.padEnd(20)} ${str(h.id)}${domain} ${str(h.scope)}: ${str(h.summary)} (${str(h.agent_id)}, ${ago(h.timestamp, now)})`;
      });
      if (list.length === 0) return 'Nothing matches.';
      return [...list, `${list.length} of ${str(r.total_matched)} matches, best first`].join('\n');
    }
    case 'verify': {
      // verify of a scope (twining-mcp's checks) rather than of a handoff.
      if (r.checks) return renderHistoryText('verify_scope', result)!;
      const drift = row(r.drift);
      const lines = [`Snapshot ${r.intact ? (r.has_digest ? 'intact' : 'has no digest (written by another program)') : 'ALTERED: its digest does not match'}`];
      // The same sentences as the editor's (core/drift-text.ts); a result is the engine's own, so whole.
      if (Object.keys(drift).length) for (const d of driftItems(result as VerifyResult)) if (d.id) lines.push(`  ${d.sentence} [${d.id}]`);
      if (!r.drifted) lines.push('No drift since the handoff was created.');
      if (count(r.chain) > 1) lines.push(`Chain: ${strs(r.chain).join(' ← ')}`);
      return lines.join('\n');
    }
    case 'claim': {
      const lines = r.granted
        ? rows(r.claims).map(c => `Claimed ${str(c.target)} until ${str(c.expires_at)} (${ago(c.expires_at, now)})`)
        : ['Not claimed: nothing was taken', ...rows(r.conflicts).map(c => `  ${str(c.message)}`)];
      for (const c of rows(r.lapsed)) lines.push(`Your claim on ${str(c.target)} had lapsed (${str(c.lapsed_because)})`);
      return lines.join('\n');
    }
    case 'release': {
      const lines = [
        `Released ${count(r.released)}${
          count(r.released)
            ? `: ${rows(r.released)
                .map(c => str(c.target))
                .join(', ')}`
            : ''
        }`,
      ];
      if (count(r.not_held)) lines.push(`not held: ${strs(r.not_held).join(', ')}`);
      for (const c of rows(r.lapsed)) lines.push(`Your claim on ${str(c.target)} had lapsed (${str(c.lapsed_because)})`);
      return lines.join('\n');
    }
    case 'claims': {
      const list = rows(r.claims).map(c => {
        const state = c.state === 'lapsed' ? `lapsed (${str(c.lapsed_because)})` : str(c.state);
        return `${str(c.target)}  ${str(c.agent_id)}  ${state}, until ${str(c.expires_at)} (${ago(c.expires_at, now)}): ${str(c.reason)}`;
      });
      return list.length ? list.join('\n') : 'No claims.';
    }
    case 'assemble':
      return briefingText(result as AssembledContext);
    case 'record': {
      const lines = [`${str(r.message)} in ${str(r.scope)}: status ${str(r.status_entry_id)}`];
      for (const d of rows(r.decisions_created)) lines.push(`  decision ${str(d.id)}${d.status ? ` (${str(d.status)})` : ''}: ${str(d.summary)}`);
      for (const f of rows(r.findings_created)) lines.push(`  ${str(f.entry_type)} ${str(f.id)}: ${str(f.summary)}`);
      if (r.handoff_id) lines.push(`  handoff ${str(r.handoff_id)}`);
      return lines.join('\n');
    }
    default:
      return renderHistoryText(op, result) ?? renderOpenItemsText(op, result) ?? JSON.stringify(result, null, 2);
  }
}
