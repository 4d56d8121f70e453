/**
 * twining-mcp 2.x's registry auto-touch (its issue #32): every blackboard post (post, delegate,
 * handoff, archive and conflict notes alike, all of which go through its BlackboardEngine.post),
 * every decide and every resolve marks its agent as a participant, so the Agents view shows who
 * actually worked in the folder. Read in daveangulo/twining-mcp's 2.x source:
 * src/engine/blackboard.ts `touchAgent` (the id is `agent_id ?? "main"`; "unknown" is skipped; a
 * registry failure never fails the write), src/engine/decisions.ts `decide` (touches after the
 * decision is created), and src/storage/sqlite/sqlite-stores.ts `SqliteAgentStore.touch` (an
 * existing agent gets `last_active = now` in place; a new one is
 * `{agent_id, capabilities: [], registered_at, last_active}`), commit 017a8780 for the store.
 * twining-mcp 1.9 registers nobody on a write, so a 1.x folder is left as it is.
 */
import type { FolderStore } from '../engine/folder-store';
import type { Transaction } from '../storage/transaction';
import { isRecord } from '../storage/json-files';
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** On a 2.x folder: registers `agentId` (or refreshes its `last_active`), inside the caller's write. */
export async function touchAgentLocked(ctx: FolderStore, agentId: string | undefined, tx?: Transaction): Promise<void> {
  if (!ctx.sqlite) return;
  const id = agentId ?? 'main';
  if (!id || id === 'unknown') return;
  try {
    // A 2.x folder's write is one database transaction; this lock is the registry's place in the lock order.
    await ctx.lock([ctx.locks.registry], async () => {
      const { raw } = await ctx.registry.fresh();
      const now = ctx.timestamp();
      const next = raw.slice();
      const at = next.findIndex(a => isRecord(a) && a.agent_id === id);
      if (at >= 0) next[at] = { ...(next[at] as Record<string, unknown>), last_active: now };
      else next.push({ agent_id: id, capabilities: [], registered_at: now, last_active: now });
      await ctx.storage.writeArray('agents', next, tx);
    });
  } catch (error) {
    // As twining-mcp: the registry is observability, never a reason to fail the write.
    ctx.warn(`could not mark agent ${id} active in the registry of ${ctx.layout.dir}: ${messageOf(error)}; the write itself was kept`);
  }
}
