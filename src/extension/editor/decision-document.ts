/**
 * A decision as a readable document: what it says and why, the alternatives it weighed, its
 * lifecycle (what it superseded, what superseded or overrode it and why), the commits linked to it,
 * its dependencies and knowledge graph neighbourhood (decision-dependencies.ts), and every handoff
 * whose context snapshot carried it. From the core's `decisionStory`.
 */
import type { TwiningEngine } from '../../core';
import { absolute, strings } from '../present/format';
import { dependencySections } from './decision-dependencies';

const link = (d: { id: string; summary?: string; status?: string; missing?: true }) =>
  d.missing ? `- ${d.id} (its record is missing)` : `- [${d.status}] ${d.summary} (${d.id})`;

export async function renderDecision(engine: TwiningEngine, id: string): Promise<string> {
  const story = await engine.decisionStory(id);
  if (!story) return `# Decision ${id}\n\nThe decision record is missing or cannot be read.\n`;
  const d = story.record;
  const out = [`# Decision: ${d.summary}`, ''];
  out.push(`- **Status:** ${d.status}`);
  if (d.status === 'overridden' || d.overridden_by)
    out.push(`- **Overridden by:** ${d.overridden_by ?? 'unknown'}${d.override_reason ? `: ${d.override_reason}` : ''}`);
  out.push(`- **Domain:** ${d.domain}`);
  out.push(`- **Scope:** \`${d.scope}\``);
  out.push(`- **Confidence:** ${d.confidence}${d.reversible === false ? ' (not reversible)' : ''}`);
  out.push(`- **Recorded by:** ${d.agent_id}, ${absolute(d.timestamp)}`);
  const files = strings(d.affected_files);
  const symbols = strings(d.affected_symbols);
  if (files.length) out.push(`- **Affected files:** ${files.map(f => `\`${f}\``).join(', ')}`);
  if (symbols.length) out.push(`- **Affected symbols:** ${symbols.map(s => `\`${s}\``).join(', ')}`);
  out.push(`- **Id:** ${d.id}`);
  out.push(`- **Record:** ${engine.layout.decisionFile(d.id)}`, '');
  out.push('## Context', '', String(d.context ?? ''), '', '## Rationale', '', String(d.rationale ?? ''), '');
  const constraints = strings(d.constraints);
  if (constraints.length) out.push('## Constraints', '', ...constraints.map(c => `- ${c}`), '');
  const alternatives = Array.isArray(d.alternatives) ? d.alternatives : [];
  out.push(`## Alternatives (${alternatives.length})`, '');
  if (alternatives.length === 0) out.push('None recorded.');
  for (const a of alternatives) {
    out.push(`- **${a?.option ?? '?'}**${a?.reason_rejected ? `: rejected because ${a.reason_rejected}` : ''}`);
    if (strings(a?.pros).length) out.push(`  - Pros: ${strings(a.pros).join('; ')}`);
    if (strings(a?.cons).length) out.push(`  - Cons: ${strings(a.cons).join('; ')}`);
  }
  out.push('', '## Lifecycle', '');
  out.push(story.supersedes.length ? 'It superseded (nearest first):' : 'It superseded no earlier decision.');
  out.push(...story.supersedes.map(link));
  out.push('');
  if (story.superseded_by.length) out.push('Superseded by (nearest first):', ...story.superseded_by.map(link));
  else out.push(d.status === 'superseded' ? 'Superseded, by a decision whose record is not in the index.' : 'Nothing has superseded it.');
  const depends = strings(d.depends_on);
  if (depends.length) out.push('', `Depends on: ${depends.join(', ')}`);
  out.push('', ...(await dependencySections(engine, d)));
  const commits = strings(d.commit_hashes);
  out.push(`## Commits (${commits.length})`, '');
  out.push(...(commits.length ? commits.map(c => `- ${c}`) : ['None linked.']));
  out.push('', `## Handoffs that carried it (${story.handoffs.length})`, '');
  if (story.handoffs.length === 0) out.push("No handoff's context snapshot includes it.");
  for (const h of story.handoffs) {
    out.push(
      `- ${h.summary} (${h.source_agent} → ${h.target_agent ?? 'any agent'}, ${absolute(h.created_at)}, ${h.acknowledged ? 'acknowledged' : 'not acknowledged'}; ${h.id})`,
    );
  }
  out.push('');
  return out.join('\n');
}
