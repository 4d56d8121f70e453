/**
 * A decision's life after it is recorded (docs/format.md §Decisions): reconsider, override and
 * promote (why, which decisions explain a file, folder or symbol, is in why-ops.ts). Each transition changes the record and its
 * index entry, and posts its blackboard entry, under the decision index and blackboard locks, so
 * that it happens whole or not at all; records and entries match what twining-mcp writes.
 */
import type { FolderStore } from '../engine/folder-store';
import { TwiningError } from '../errors';
import type { InputOf } from '../schemas/schemas';
import { Transaction, allOrNothing } from '../storage/transaction';
import { overrideEntry, promotionEntry, reconsiderationWarning } from '../rules/why';
import { appendEntryLocked } from './blackboard-ops';
import { decideLocked, readDecisionRecord, setDecisionStatus } from './decision-ops';
import { mapBounded } from '../storage/bounded';

const notFound = (op: string, id: string) => new TwiningError('NOT_FOUND', `${op}: Decision not found: ${id}; nothing was written`);

/**
 * Runs `work` on the decision index items under the index and blackboard locks, then writes the
 * index; every step is undone if a later one fails (a full disk changes nothing). Every step writes
 * through the folder's storage (FolderStore.lock).
 */
export async function transition<T>(ctx: FolderStore, work: (raw: unknown[], tx: Transaction) => Promise<T>): Promise<T> {
  await ctx.ready();
  return ctx.lock([ctx.locks.decisionIndex, ctx.locks.blackboard], () =>
    allOrNothing(async tx => {
      const raw = (await ctx.decisionIndex.fresh()).raw.slice();
      const result = await work(raw, tx);
      await ctx.storage.writeDecisionIndex(raw, tx);
      return result;
    }),
  );
}

export async function reconsider(
  ctx: FolderStore,
  input: InputOf<'reconsider'>,
): Promise<{ flagged: boolean; decision_summary: string; dependents: string[] }> {
  const args = ctx.validate('reconsider', input);
  return transition(ctx, async (raw, tx) => {
    const decision = await readDecisionRecord(ctx, args.decision_id);
    if (!decision) throw notFound('reconsider', args.decision_id);
    const flagged = decision.status === 'active';
    if (flagged) await setDecisionStatus(ctx, raw, args.decision_id, 'provisional', tx);
    const dependents = await dependentsOf(ctx, raw, args.decision_id);
    const warning = reconsiderationWarning(decision.summary, args.new_context, dependents);
    await appendEntryLocked(ctx, { entry_type: 'warning', ...warning, tags: [decision.domain], scope: decision.scope, agent_id: args.agent_id ?? 'main' }, tx);
    return { flagged, decision_summary: decision.summary, dependents };
  });
}

/** Ids of the decisions whose `depends_on` names `id` (only their records say so), in index order. */
async function dependentsOf(ctx: FolderStore, raw: readonly unknown[], id: string): Promise<string[]> {
  const ids = raw.map(item => (item as { id?: unknown })?.id).filter((x): x is string => typeof x === 'string' && x !== id);
  const records = await mapBounded(ids, other => readDecisionRecord(ctx, other).catch(() => undefined));
  return records.filter(r => Array.isArray(r?.depends_on) && r.depends_on.includes(id)).map(r => r!.id);
}

export async function override(ctx: FolderStore, input: InputOf<'override'>): Promise<{ overridden: boolean; old_summary: string; new_decision_id?: string }> {
  const args = ctx.validate('override', input);
  const by = args.overridden_by ?? 'human';
  return transition(ctx, async (raw, tx) => {
    const decision = await setDecisionStatus(ctx, raw, args.decision_id, 'overridden', tx, { overridden_by: by, override_reason: args.reason });
    if (!decision) throw notFound('override', args.decision_id);
    // twining-mcp 2.x posts no `decision` entry for an override either (its issue #30).
    if (!ctx.sqlite)
      await appendEntryLocked(
        ctx,
        { entry_type: 'decision', ...overrideEntry(decision.summary, by, args.reason), tags: [decision.domain], scope: decision.scope, agent_id: by },
        tx,
      );
    const result: { overridden: boolean; old_summary: string; new_decision_id?: string } = { overridden: true, old_summary: decision.summary };
    if (args.new_decision !== undefined) {
      // As twining-mcp: the replacement supersedes the overridden decision (whose status becomes superseded).
      const replacement = await decideLocked(
        ctx,
        raw,
        {
          domain: decision.domain,
          scope: decision.scope,
          summary: args.new_decision,
          context: args.reason,
          rationale: args.reason,
          supersedes: args.decision_id,
          agent_id: by,
        },
        tx,
      );
      result.new_decision_id = replacement.id;
    }
    return result;
  });
}

export async function promote(
  ctx: FolderStore,
  input: InputOf<'promote'>,
): Promise<{ promoted: string[]; already_active: string[]; not_found: string[]; wrong_status: { id: string; status: string }[] }> {
  const args = ctx.validate('promote', input);
  return transition(ctx, async (raw, tx) => {
    const result = {
      promoted: [] as string[],
      already_active: [] as string[],
      not_found: [] as string[],
      wrong_status: [] as { id: string; status: string }[],
    };
    for (const id of args.decision_ids) {
      const decision = await readDecisionRecord(ctx, id);
      if (!decision) result.not_found.push(id);
      else if (decision.status === 'active') result.already_active.push(id);
      else if (decision.status !== 'provisional') result.wrong_status.push({ id, status: decision.status });
      else {
        await setDecisionStatus(ctx, raw, id, 'active', tx);
        result.promoted.push(id);
      }
    }
    if (result.promoted.length) {
      await appendEntryLocked(
        ctx,
        { entry_type: 'status', ...promotionEntry(result.promoted), tags: [], scope: 'project', agent_id: args.promoted_by ?? 'main' },
        tx,
      );
    }
    return result;
  });
}
