/**
 * record: the end of a piece of work in one call, as twining-mcp 2.x's `twining_record` takes it
 * (src/tools/record-tools.ts, read at commit 3ddb2e24255a8eaf38632ce72cd972600d88ab3d): a summary
 * (a status entry tagged session-record), decisions (a sentence, or an object with its rationale
 * and affected files), findings (a "warning:" or "need:" prefix makes them so), plus here: warnings,
 * `resolves` (ids of needs, warnings or questions this work settled: the status entry relates to
 * them, which is how twining-mcp counts an item resolved, src/engine/resolution.ts), and an optional
 * handoff whose snapshot includes what this call recorded.
 *
 * Unlike twining-mcp, which records what it can and lists the rest as errors, this is all or
 * nothing: every part is checked first, then everything is written under the decision index,
 * handoff index and blackboard locks in one transaction; a failure leaves the folder as it was.
 * It refreshes `.twining/.last-record` (Unix seconds), the marker twining-mcp's plugin hooks read.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import { InputOf, ParsedInputOf, parseInput } from '../schemas/schemas';
import { TwiningError } from '../errors';
import { allOrNothing } from '../storage/transaction';
import { appendEntryLocked } from './blackboard-ops';
import { decideLocked } from './decision-ops';
import { handoffRecordOf, previewSnapshot, writeHandoffLocked } from './handoff-ops';
import type { BlackboardEntry, HandoffSnapshot } from '../records';

export interface RecordResult {
  status_entry_id: string;
  decisions_created: { id: string; summary: string; status?: string; conflicts?: { id: string; summary: string }[] }[];
  findings_created: { id: string; entry_type: string; summary: string }[];
  resolved: string[];
  handoff_id?: string;
  scope: string;
  message: string;
}

const SUMMARY_MAX = 200;
const clip = (text: string) => (text.length <= SUMMARY_MAX ? text : text.slice(0, SUMMARY_MAX - 1) + '…');

/** "Chose X over Y — because Z": the decision before the dash (or "because"), the reason after it. */
export function splitDecisionSentence(text: string): { summary: string; rationale?: string } {
  const m = /^(.+?)\s+(?:—|--|–| - )\s*(.+)$/s.exec(text) ?? /^(.+?),?\s+because\s+(.+)$/is.exec(text);
  return m ? { summary: m[1].trim(), rationale: m[2].trim() } : { summary: text.trim() };
}

/** The longest folder prefix shared by the files, or undefined. */
export function commonFolder(files: readonly string[]): string | undefined {
  if (files.length === 0) return undefined;
  const parts = files[0].split('/');
  let prefix = '';
  for (let i = 0; i < parts.length - 1; i++) {
    const candidate = parts.slice(0, i + 1).join('/') + '/';
    if (!files.every(f => f.startsWith(candidate))) break;
    prefix = candidate;
  }
  return prefix || undefined;
}

export async function record(ctx: FolderStore, input: InputOf<'record'>): Promise<RecordResult> {
  const args = ctx.validate('record', input);
  const agent_id = args.agent_id ?? 'main';
  const allFiles = [...(args.affected_files ?? []), ...(args.decisions ?? []).flatMap(d => (typeof d === 'string' ? [] : (d.affected_files ?? [])))];
  // twining-mcp infers the scope from `git diff`; here from the files named (no git process on this path).
  const scope = args.scope ?? commonFolder(allFiles) ?? (allFiles.length === 1 ? allFiles[0] : 'project');

  // Every decision is checked as `decide` would check it, before anything is written.
  const decisions: ParsedInputOf<'decide'>[] = (args.decisions ?? []).map((item, i) => {
    const d = typeof item === 'string' ? { ...splitDecisionSentence(item) } : item;
    const candidate = {
      domain: (typeof item !== 'string' && item.domain) || 'implementation',
      scope,
      summary: d.summary,
      context: (typeof item !== 'string' && item.context) || args.summary,
      rationale: d.rationale ?? d.summary,
      ...(typeof item !== 'string' && item.alternatives ? { alternatives: item.alternatives } : {}),
      ...((typeof item !== 'string' && item.constraints) || args.constraints
        ? { constraints: (typeof item !== 'string' && item.constraints) || args.constraints }
        : {}),
      ...(args.depends_on ? { depends_on: args.depends_on } : {}),
      ...(args.supersedes && i === 0 ? { supersedes: args.supersedes } : {}),
      ...(typeof item !== 'string' && item.confidence ? { confidence: item.confidence } : {}),
      ...(args.reversible !== undefined ? { reversible: args.reversible } : {}),
      affected_files: (typeof item !== 'string' && item.affected_files) || args.affected_files || [],
      affected_symbols: (typeof item !== 'string' && item.affected_symbols) || args.affected_symbols || [],
      // twining-mcp 2.x: a decision's own status and assumptions, else the record's assumptions.
      ...(typeof item !== 'string' && item.status ? { status: item.status } : {}),
      ...((typeof item !== 'string' && item.assumptions) || args.assumptions
        ? { assumptions: (typeof item !== 'string' && item.assumptions) || args.assumptions }
        : {}),
      ...(args.commit_hash ? { commit_hash: args.commit_hash } : {}),
      agent_id,
    };
    try {
      return parseInput('decide', candidate);
    } catch (error) {
      throw new TwiningError('INVALID_INPUT', `record: decisions[${i}] ("${clip(d.summary)}"): ${(error as Error).message}; nothing was written`);
    }
  });
  const findings = [
    ...(args.findings ?? []).map(text => {
      const m = /^(warning|need):\s*/i.exec(text);
      return { entry_type: (m ? m[1].toLowerCase() : 'finding') as BlackboardEntry['entry_type'], text: m ? text.slice(m[0].length) : text };
    }),
    ...(args.warnings ?? []).map(text => ({ entry_type: 'warning' as const, text })),
  ].filter(f => f.text.trim() !== '');

  await ctx.ready();
  await ctx.blackboard.refresh();
  const resolves = args.resolves ?? [];
  for (const id of resolves) {
    const entry = ctx.blackboard.get(id);
    if (!entry) throw new TwiningError('NOT_FOUND', `record: resolves names ${id}, which is not on the blackboard; nothing was written`);
    if (!['need', 'warning', 'question'].includes(entry.entry_type))
      throw new TwiningError(
        'INVALID_INPUT',
        `record: resolves names ${id}, a ${entry.entry_type}; only needs, warnings and questions are resolved; nothing was written`,
      );
  }
  const handoffArgs = args.handoff
    ? parseInput('handoff', {
        source_agent: agent_id,
        ...(args.handoff.target_agent ? { target_agent: args.handoff.target_agent } : {}),
        scope,
        summary: args.handoff.summary ?? args.summary,
        results: args.handoff.results ?? [],
      })
    : undefined;
  const preview: HandoffSnapshot | undefined = handoffArgs ? await previewSnapshot(ctx, scope) : undefined;

  const locks = handoffArgs ? [ctx.locks.decisionIndex, ctx.locks.handoffIndex, ctx.locks.blackboard] : [ctx.locks.decisionIndex, ctx.locks.blackboard];
  const result = await ctx.lock(locks, () =>
    allOrNothing(async tx => {
      const detail = [
        args.summary.length > SUMMARY_MAX ? `Full summary: ${args.summary}` : '',
        decisions.length ? `Decisions: ${decisions.map(d => d.summary).join('; ')}` : '',
        findings.length ? `Findings: ${findings.map(f => (f.entry_type === 'finding' ? f.text : `${f.entry_type}: ${f.text}`)).join('; ')}` : '',
        resolves.length ? `Resolves: ${resolves.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('\n');
      const status = await appendEntryLocked(
        ctx,
        {
          entry_type: 'status',
          summary: clip(args.summary),
          detail,
          tags: ['session-record'],
          scope,
          ...(resolves.length ? { relates_to: resolves } : {}),
          agent_id,
        },
        tx,
      );
      const created: RecordResult['decisions_created'] = [];
      if (decisions.length) {
        const raw = (await ctx.decisionIndex.fresh()).raw.slice();
        for (const d of decisions) {
          const made = await decideLocked(ctx, raw, d, tx);
          created.push({
            id: made.id,
            summary: d.summary,
            ...(d.status === 'provisional' ? { status: 'provisional' } : {}),
            ...(made.conflicts ? { status: 'provisional', conflicts: made.conflicts } : {}),
          });
        }
        await ctx.storage.writeDecisionIndex(raw, tx);
      }
      const posted: RecordResult['findings_created'] = [];
      for (const f of findings) {
        const summary = clip(f.text.trim());
        const entry = await appendEntryLocked(
          ctx,
          {
            entry_type: f.entry_type,
            summary,
            detail: summary === f.text.trim() ? '' : `Full summary: ${f.text.trim()}`,
            tags: ['session-finding'],
            scope,
            agent_id,
          },
          tx,
        );
        posted.push({ id: entry.id, entry_type: f.entry_type, summary });
      }
      let handoff_id: string | undefined;
      if (handoffArgs && preview) {
        const own = {
          decisions: created,
          warnings: posted.filter(p => p.entry_type === 'warning'),
          findings: posted.filter(p => p.entry_type === 'finding'),
        };
        const snapshot: HandoffSnapshot = {
          decision_ids: [...own.decisions.map(d => d.id), ...preview.decision_ids],
          warning_ids: [...own.warnings.map(w => w.id), ...preview.warning_ids],
          finding_ids: [...own.findings.map(f => f.id), ...preview.finding_ids],
          summaries: [
            ...own.decisions.map(d => `Decision: ${d.summary}`),
            ...own.warnings.map(w => `Warning: ${w.summary}`),
            ...own.findings.map(f => `Finding: ${f.summary}`),
            ...preview.summaries,
          ],
        };
        const h = handoffRecordOf(ctx, handoffArgs, snapshot);
        await writeHandoffLocked(ctx, h, tx);
        handoff_id = h.id;
      }
      const parts = ['Recorded status'];
      if (created.length) parts.push(`${created.length} decision(s)`);
      if (posted.length) parts.push(`${posted.length} finding(s)`);
      if (resolves.length) parts.push(`${resolves.length} resolved`);
      if (handoff_id) parts.push('a handoff');
      return {
        status_entry_id: status.id,
        decisions_created: created,
        findings_created: posted,
        resolved: resolves,
        ...(handoff_id ? { handoff_id } : {}),
        scope,
        message: parts.join(' + ') + (args.summary.length > SUMMARY_MAX ? ' (summary cut to 200 characters; the full text is in the detail)' : ''),
      };
    }),
  );
  await fs.writeFile(path.join(ctx.layout.dir, '.last-record'), String(Math.floor(ctx.now().getTime() / 1000))).catch(() => undefined);
  return result;
}
