/**
 * /brief [scope] [task]: the briefing (`assemble`) an agent gets at the start of its work, for the
 * user's agent id, as Markdown: what is waiting for you, the warnings and the decisions that
 * constrain the scope with their rationale, open needs and questions, other agents' claims, and
 * what changed since your last briefing, each with the reason it is there and a link that opens
 * the record. The scope is the one the prompt names (`/brief src/auth/`, `scope: src/auth/`), else
 * the #file references, else the active editor's file, else the whole project; the rest of the
 * prompt is the task. Answered from the engine, without a model.
 */
import * as vscode from 'vscode';
import type { AssembledContext } from '../../core';
import type { TwiningFolder } from '../model/folders';
import { md, oneLine, relative } from '../present/format';
import { parseBrief } from './chat-parse';
import { ChatCall, ChatCommandResult, promptText, referenceScope, scopeOf } from './chat-call';

const LINKED = ['twining.openRecord', 'twining.openHandoff'];

/** A command link (the answer's Markdown is trusted for the two open commands only). */
function link(command: string, args: object, title = 'open'): string {
  return `[${title}](command:${command}?${encodeURIComponent(JSON.stringify([args]))})`;
}
const openEntry = (folder: TwiningFolder, id: string) => link('twining.openRecord', { type: 'entry', id, folder: folder.root });
const openDecision = (folder: TwiningFolder, id: string) => link('twining.openRecord', { type: 'decision', id, folder: folder.root });
const openHandoff = (folder: TwiningFolder, id: string) => link('twining.openHandoff', { handoff_id: id, folder: folder.root });

/** The briefing as Markdown, with a link to each record. */
export function briefingMarkdown(b: AssembledContext, folder: TwiningFolder, now: Date): string {
  const out: string[] = [
    `**Briefing for \`${md(b.agent_id)}\`** on \`${md(b.scope)}\`${b.task ? ` — ${md(oneLine(b.task, 120))}` : ''} (about ${b.token_estimate} of ${b.max_tokens} tokens)`,
  ];
  const section = (title: string) => out.push('', `#### ${title}`);
  const by = (agent: string | undefined, at: string) => (agent ? ` · ${md(agent)}, ${relative(at, now)}` : ` · ${relative(at, now)}`);
  if (b.recent_handoffs.length) {
    section('Handoffs waiting for you');
    for (const h of b.recent_handoffs) {
      out.push(
        `- **${md(h.source_agent)} → ${md(h.target_agent || 'any agent')}**: ${md(oneLine(h.summary, 200))} — _${md(h.reason)}_ · ${openHandoff(folder, h.id)}`,
      );
      for (const r of h.results) out.push(`  - ${r.status === 'completed' ? '✅' : r.status === 'blocked' ? '⛔' : '◻️'} ${md(oneLine(r.description, 160))}`);
      if (h.drifted) out.push('  - Its context drifted since it was written: verify it before you rely on it.');
    }
  }
  if (b.active_warnings.length || b.warnings_omitted) {
    section('Warnings');
    for (const w of b.active_warnings)
      out.push(`- ⚠️ **${md(oneLine(w.summary, 200))}** — _${md(w.reason)}_${by(w.agent_id, w.timestamp)} · ${openEntry(folder, w.id)}`);
    if (b.warnings_omitted) out.push(`- ${b.warnings_omitted} more did not fit the budget.`);
  }
  if (b.active_claims.length) {
    section('Claimed by other agents');
    for (const c of b.active_claims)
      out.push(
        `- 🔒 **${md(c.agent_id)}** holds \`${md(c.target)}\` until ${relative(c.expires_at, now)}: ${md(oneLine(c.claim_reason, 160))} — _${md(c.reason)}_`,
      );
  }
  if (b.active_decisions.length) {
    section('Decisions to respect');
    for (const d of b.active_decisions) {
      out.push(
        `- **${md(oneLine(d.summary, 200))}** (${md(d.confidence)}${d.status === 'provisional' ? ', provisional' : ''}) — _${md(d.reason)}_ · ${openDecision(folder, d.id)}`,
      );
      if (d.rationale) out.push(`  Why: ${md(oneLine(d.rationale, 300))}`);
    }
  }
  const entries = (title: string, list: AssembledContext['open_needs']) => {
    if (!list.length) return;
    section(title);
    for (const e of list) out.push(`- ${md(oneLine(e.summary, 200))} — _${md(e.reason)}_${by(e.agent_id, e.timestamp)} · ${openEntry(folder, e.id)}`);
  };
  entries('Open needs', b.open_needs);
  entries('Open questions', b.recent_questions);
  entries('Findings', b.recent_findings);
  if (b.changed_since && b.changed_since.total > 0) {
    section(`Changed since your last briefing (${relative(b.changed_since.since, now)}): ${b.changed_since.total}`);
    for (const c of b.changed_since.items)
      out.push(
        `- ${md(c.kind)}: ${md(oneLine(c.summary, 160))}${by(c.agent_id, c.timestamp)} · ${c.kind === 'decision' ? openDecision(folder, c.id) : openEntry(folder, c.id)}`,
      );
  }
  if (out.length === 1) out.push('', `Nothing recorded bears on \`${md(b.scope)}\` yet.`);
  return out.join('\n') + '\n';
}

export async function brief(call: ChatCall): Promise<ChatCommandResult> {
  const { ctx, folder, stream } = call;
  const asked = parseBrief(promptText(call.request));
  const scope = asked.scope ?? (await scopeOf(call)) ?? 'project';
  const task = asked.task || `Work in ${scope}`;
  stream.progress(`Assembling the briefing for \`${scope}\`…`);
  const briefing = await folder.run(engine => engine.assemble({ task, scope, agent_id: ctx.agentId() }));
  // The heading names the task only when the prompt gave one.
  const text = new vscode.MarkdownString(briefingMarkdown({ ...briefing, task: asked.task }, folder, ctx.clock.now()));
  text.isTrusted = { enabledCommands: LINKED };
  stream.markdown(text);
  referenceScope(call, scope);
  return { metadata: { command: 'brief', scope } };
}
