/**
 * A briefing (the result of `assemble`) as Markdown for a model or a person: what an agent's
 * SessionStart hook puts in front of it, what `twining assemble` prints, what `@twining /brief`
 * shows. Warnings first (what not to do is the most useful), then the handoffs waiting, the claims
 * of other agents on the scope, the decisions to respect with their reasons, open needs and questions, findings, and what changed.
 * Every item carries its id and why it is there. Pure; types only from the ops.
 */
import type { AssembledContext } from '../operations/assemble-ops';

const line = (text: string) => text.replace(/\s+/g, ' ').trim();

export function briefingText(b: AssembledContext): string {
  const out: string[] = [`## Twining briefing for ${b.agent_id} (scope: ${b.scope})`];
  const empty =
    !b.active_warnings.length &&
    !b.recent_handoffs.length &&
    !b.active_claims.length &&
    !b.active_decisions.length &&
    !b.open_needs.length &&
    !b.recent_questions.length &&
    !b.recent_findings.length;
  if (b.active_warnings.length || b.warnings_omitted) {
    out.push('', '### Warnings');
    for (const w of b.active_warnings) out.push(`- **${line(w.summary)}** [${w.id}] (${w.reason})${w.detail ? `\n  ${line(w.detail)}` : ''}`);
    if (b.warnings_omitted) out.push(`- ${b.warnings_omitted} more warning(s) did not fit the budget: read them with twining_read (entry_types: ["warning"]).`);
  }
  if (b.recent_handoffs.length) {
    out.push('', '### Handoffs waiting for you (acknowledge the one you take over)');
    for (const h of b.recent_handoffs) {
      out.push(`- **${h.source_agent} → ${h.target_agent || 'any agent'}**: ${line(h.summary)} [${h.id}] (${h.reason})`);
      for (const r of h.results)
        out.push(
          `  - ${r.status === 'completed' ? '[x]' : r.status === 'blocked' ? '[blocked]' : '[ ]'} ${line(r.description)}${r.notes ? ` (${line(r.notes)})` : ''}`,
        );
      if (h.drifted) out.push('  - Its context drifted since it was written: run twining_verify on it before you rely on it.');
    }
  }
  if (b.active_claims.length) {
    out.push('', '### Claimed by other agents (do not edit these; ask the holder with twining_post, entry_type "need")');
    for (const c of b.active_claims)
      out.push(
        `- **${c.agent_id}** holds ${c.target} since ${c.claimed_at} until ${c.expires_at}${c.claim_reason ? `: ${line(c.claim_reason)}` : ''} [${c.id}] (${c.reason})`,
      );
  }
  if (b.active_decisions.length) {
    out.push('', '### Decisions to respect');
    for (const d of b.active_decisions) {
      out.push(`- **${line(d.summary)}** [${d.id}] (${d.confidence}${d.status === 'provisional' ? ', provisional' : ''}; ${d.reason})`);
      out.push(`  Why: ${line(d.rationale)}`);
      if (d.constraints?.length) out.push(`  Must: ${d.constraints.map(line).join('; ')}`);
      if (d.rejected_alternatives?.length) out.push(`  Not: ${d.rejected_alternatives.map(line).join('; ')}`);
    }
  }
  const entries = (title: string, list: AssembledContext['open_needs']) => {
    if (!list.length) return;
    out.push('', `### ${title}`);
    for (const e of list) out.push(`- ${line(e.summary)} [${e.id}] (${e.reason})`);
  };
  entries('Open needs', b.open_needs);
  entries('Open questions', b.recent_questions);
  entries('Findings', b.recent_findings);
  if (b.changed_since && b.changed_since.total > 0) {
    out.push('', `### Changed in scope since your last briefing (${b.changed_since.since}): ${b.changed_since.total}`);
    for (const c of b.changed_since.items) out.push(`- ${c.kind}: ${line(c.summary)} [${c.id}]${c.agent_id ? ` by ${c.agent_id}` : ''}`);
  }
  if (empty) out.push('', `Nothing recorded bears on ${b.scope} yet.`);
  out.push('', 'When you finish, call twining_record (summary, decisions with rationale, findings) or hand the work over.');
  return out.join('\n');
}
