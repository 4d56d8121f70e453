/**
 * `amend`: twining-mcp 2.10's twining_amend (src/tools/decision-tools.ts, the version that has it;
 * the store side in src/storage/sqlite/sqlite-stores.ts `amendMetadata`; its field response D11):
 * add affected files or symbols to a decision that exists, whatever its status. Append-only: what
 * the record has is kept, in its order; only entries it lacks are added; nothing semantic (summary,
 * rationale, context) changes. The record keeps an `amendments` trail and a finding records the
 * change. The index entry is rewritten with the record, because every listing and `why` read the
 * affected files from the index (twining-mcp's invariant 1); on a twining.db folder the record file
 * and row follow as every write's do (storage/sqlite/sqlite-folder.ts). Asking to add only what it has
 * changes nothing and writes nothing.
 */
import type { FolderStore } from '../engine/folder-store';
import { TwiningError } from '../errors';
import type { InputOf } from '../schemas/schemas';
import { isRecord } from '../storage/json-files';
import { indexEntryOf } from '../storage/index-lines';
import { appendEntryLocked } from './blackboard-ops';
import { readDecisionRecord } from './decision-ops';
import { transition } from './decision-lifecycle-ops';
import type { DecisionAmendment } from '../records';

export interface AmendResult {
  id: string;
  added_files: string[];
  added_symbols: string[];
  /** The decision's lists after the amendment. */
  affected_files: string[];
  affected_symbols: string[];
  /** True when everything asked for was there already (nothing was written). */
  unchanged: boolean;
  /** The finding that records the amendment. */
  finding_id?: string;
}

const newOnes = (have: unknown, add: readonly string[] | undefined): string[] => {
  const kept = new Set(Array.isArray(have) ? have.filter((x): x is string => typeof x === 'string') : []);
  const out: string[] = [];
  for (const x of add ?? []) {
    if (kept.has(x)) continue;
    kept.add(x);
    out.push(x);
  }
  return out;
};

export async function amend(ctx: FolderStore, input: InputOf<'amend'>): Promise<AmendResult> {
  const args = ctx.validate('amend', input);
  const agent_id = args.agent_id ?? 'main';
  return transition(ctx, async (raw, tx) => {
    const record = await readDecisionRecord(ctx, args.decision_id);
    if (!record) throw new TwiningError('NOT_FOUND', `amend: Decision not found: ${args.decision_id}; nothing was written`);
    const files = Array.isArray(record.affected_files) ? record.affected_files : [];
    const symbols = Array.isArray(record.affected_symbols) ? record.affected_symbols : [];
    const added_files = newOnes(files, args.add_affected_files);
    const added_symbols = newOnes(symbols, args.add_affected_symbols);
    if (!added_files.length && !added_symbols.length)
      return { id: record.id, added_files, added_symbols, affected_files: files, affected_symbols: symbols, unchanged: true };
    const amendment: DecisionAmendment = {
      amended_at: ctx.timestamp(),
      agent_id,
      added_files,
      added_symbols,
      ...(args.reason ? { reason: args.reason } : {}),
    };
    const amended = Object.assign(record, {
      affected_files: [...files, ...added_files],
      affected_symbols: [...symbols, ...added_symbols],
      amendments: [...(Array.isArray(record.amendments) ? record.amendments : []), amendment],
    });
    await ctx.storage.writeDecision(amended, tx);
    const at = raw.findIndex(item => isRecord(item) && item.id === record.id);
    // An index without the entry gets it back (the record exists): it is what makes the decision visible.
    if (at >= 0) raw[at] = { ...(raw[at] as object), ...indexEntryOf(amended) };
    else raw.push(indexEntryOf(amended));
    const what = [...added_files.map(f => `file ${f}`), ...added_symbols.map(s => `symbol ${s}`)];
    const finding = await appendEntryLocked(
      ctx,
      {
        entry_type: 'finding',
        summary: `Amended decision: ${record.summary}`.slice(0, 200),
        detail: [`Decision ${record.id} gained ${what.join(', ')}.`, args.reason ? `Reason: ${args.reason}` : ''].filter(Boolean).join('\n'),
        tags: [record.domain, 'amend'].filter((t): t is string => typeof t === 'string' && t !== ''),
        scope: record.scope,
        relates_to: [record.id],
        agent_id,
      },
      tx,
    );
    return {
      id: record.id,
      added_files,
      added_symbols,
      affected_files: amended.affected_files,
      affected_symbols: amended.affected_symbols,
      unchanged: false,
      finding_id: finding.id,
    };
  });
}
