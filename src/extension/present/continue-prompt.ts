/**
 * The chat prompt that carries a handoff into the next conversation (Continue in Chat): what was
 * handed over, the results, the decisions in scope with their rationale, the warnings and
 * findings, what drifted since, the chain it continues, and the instruction to acknowledge it
 * first. Pure (no `vscode` import): facts in, Markdown out; the unit tests check it.
 */
import type { HandoffResult, VerifyResult } from '../../core';
import { driftItems } from '../../core/text/drift-text';
import { absolute, oneLine } from './format';

export interface PromptDecision {
  id: string;
  summary: string;
  /** Its status now ("active", "superseded", … or "missing"). */
  status: string;
  scope?: string;
  rationale?: string;
}

export interface PromptEntry {
  id: string;
  summary: string;
  /** "current", or "removed" when it is no longer on the blackboard. */
  status: string;
  detail?: string;
  agentId?: string;
}

export interface ContinuePromptFacts {
  handoff: {
    id: string;
    summary: string;
    source_agent: string;
    target_agent?: string;
    scope?: string;
    created_at: string;
    results: readonly HandoffResult[];
    acknowledged_by?: string;
  };
  decisions: readonly PromptDecision[];
  warnings: readonly PromptEntry[];
  findings: readonly PromptEntry[];
  /** The verify result (drift and the chain); undefined when it could not be computed. */
  verify?: VerifyResult;
  /** The handoffs it continues, newest first (from the verify chain), as far as they are known. */
  chain: readonly { id: string; summary?: string; source_agent?: string; created_at?: string }[];
  /** Who continues: the user's agent id. */
  agentId: string;
}

/** Long texts (rationales, details) are cut so that the prompt stays readable. */
const MAX_TEXT = 600;

function cut(text: string | undefined, max = MAX_TEXT): string {
  return oneLine(text ?? '', max);
}

/** The prompt (Markdown) that puts the handoff into the chat input. */
export function continuePrompt(f: ContinuePromptFacts): string {
  const h = f.handoff;
  const out: string[] = [];
  const to = h.target_agent ? ` to ${h.target_agent}` : '';
  out.push(
    `Continue the work of Twining handoff ${h.id} from ${h.source_agent}${to} (written ${absolute(h.created_at)}, scope ${h.scope ? `\`${h.scope}\`` : 'the whole project'}).`,
  );
  out.push('');
  if (h.acknowledged_by) {
    out.push(`It was already acknowledged by ${h.acknowledged_by}; check with them before taking it over.`);
  } else {
    out.push(
      `Before anything else, acknowledge it as ${f.agentId}: call twining_acknowledge with handoff_id "${h.id}" and agent_id "${f.agentId}". ` +
        'Then read the decisions and warnings below before changing the files in scope.',
    );
  }
  out.push('', '## What was handed over', '', h.summary.trim());

  out.push('', '## Results');
  if (h.results.length === 0) out.push('', 'None recorded.');
  else out.push('', ...h.results.map(r => `- ${r.status}: ${cut(r.description)}${r.artifacts?.length ? ` (artifacts: ${r.artifacts.join(', ')})` : ''}`));

  out.push('', '## Decisions in scope');
  if (f.decisions.length === 0) out.push('', 'None were attached.');
  for (const d of f.decisions) {
    const status = d.status === 'active' ? '' : ` (now ${d.status})`;
    out.push('', `- ${d.summary}${status} [${d.id}]${d.scope ? `, scope \`${d.scope}\`` : ''}`);
    if (d.rationale) out.push(`  Rationale: ${cut(d.rationale)}`);
  }
  for (const [title, entries] of [
    ['Warnings', f.warnings],
    ['Findings', f.findings],
  ] as const) {
    out.push('', `## ${title}`);
    if (entries.length === 0) out.push('', 'None were attached.');
    else out.push('');
    for (const e of entries) {
      const removed = e.status === 'removed' ? ' (since removed from the blackboard)' : '';
      out.push(`- ${e.summary}${removed} [${e.id}]${e.agentId ? ` by ${e.agentId}` : ''}`);
      if (e.detail) out.push(`  ${cut(e.detail)}`);
    }
  }

  out.push('', '## Changed since the handoff was written');
  if (!f.verify) out.push('', 'Drift could not be checked; run twining_verify on the handoff.');
  else {
    const items = driftItems(f.verify);
    if (items.length === 0) out.push('', 'Nothing drifted: the attached decisions are still active and nothing new was decided or warned about in scope.');
    else out.push('', ...items.map(i => `- ${i.sentence}${i.id ? ` [${i.id}]` : ''}`));
  }

  const earlier = f.chain.filter(c => c.id !== h.id);
  if (earlier.length) {
    out.push('', '## The chain it continues', '');
    for (const c of earlier) {
      out.push(
        `- ${c.id}${c.summary ? `: ${cut(c.summary, 200)}` : ''}${c.source_agent ? ` (from ${c.source_agent}${c.created_at ? `, ${absolute(c.created_at)}` : ''})` : ''}`,
      );
    }
  }
  return out.join('\n');
}
