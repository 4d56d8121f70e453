/**
 * Claims (issue 19): one agent at a time on a file, folder, glob or delegation. Claim, renew and
 * release are each one read-check-append of `claims/claims.jsonl` under its lock
 * (storage/claims-file.ts says why), so colliding claims made at the same instant by any number of
 * processes get exactly one winner; the others are told who holds what, since and until when, and
 * why. A claim lapses when its time runs out or its holder is gone; the holder's next claim or
 * release says so (and closes it), and listings mark it lapsed until then.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { FolderStore } from '../engine/folder-store';
import type { InputOf } from '../schemas/schemas';
import { TwiningError } from '../errors';
import { ClaimClock, ClaimRecord, ClaimView, claimConflicts, describeHolder, isClaim, viewOf } from '../rules/claims';
import { DELEGATION_PREFIX, normaliseTarget, targetsOverlap } from '../rules/claim-paths';
import { delegationOf, isExpired } from '../rules/delegation-detail';

export const DEFAULT_TTL_MS = 30 * 60 * 1000;

/**
 * Every item of the claims log (the last line of each claim, and whatever else is there), after
 * reading what was appended since the last look (one stat when nothing was). The array is the
 * log's own: callers copy before changing it.
 */
export async function claimItems(ctx: FolderStore): Promise<readonly unknown[]> {
  const log = ctx.claimLog;
  await log.refresh();
  return log.items;
}

/** The clock claims are judged by: now, the configured gone threshold, and each agent's last sign of life. */
export async function claimClock(ctx: FolderStore): Promise<ClaimClock> {
  const [config, registry] = await Promise.all([ctx.config(), ctx.registry.get(), ctx.blackboard.refresh()]);
  const seen = new Map<string, string>();
  for (const agent of registry) if (typeof agent.agent_id === 'string' && typeof agent.last_active === 'string') seen.set(agent.agent_id, agent.last_active);
  return {
    now: ctx.now(),
    goneAfterMs: config.agents.liveness.gone_after_ms,
    lastSeen: id => {
      const registered = seen.get(id);
      const posted = ctx.blackboard.lastEntryBy(id);
      return posted && !(Date.parse(registered ?? '') >= posted.ms) ? posted.timestamp : registered;
    },
  };
}

export interface Conflict {
  /** The target asked for. */
  target: string;
  /** The live claims of other agents in its way. */
  held_by: ClaimView[];
  /** One line per holder: who, since and until when, why. */
  message: string;
}

export interface ClaimResult {
  /** True when every target was claimed (or renewed). */
  granted: boolean;
  /** The claims made or renewed (none unless granted). */
  claims: ClaimView[];
  conflicts: Conflict[];
  /** This agent's claims that lapsed since its last call (now closed). */
  lapsed: ClaimView[];
}

/** Paths as claim targets: relative to the project, a folder given without "/" gets one. */
async function targetsOf(ctx: FolderStore, paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const raw of paths) {
    const relative = ctx.projectPath(raw);
    if (relative.startsWith('..')) throw new TwiningError('INVALID_INPUT', `claim: "${raw}" is outside the project ${ctx.root}; nothing was claimed`);
    const normal = normaliseTarget(relative);
    if ('error' in normal) throw new TwiningError('INVALID_INPUT', `claim: ${normal.error}; nothing was claimed`);
    let target = normal.target;
    if (!target.endsWith('/') && !/[*?[]/.test(target) && !target.startsWith(DELEGATION_PREFIX)) {
      // A folder of the work tree the caller is in (a linked worktree's branch may have folders the primary has not).
      const st = await fs.stat(path.join(ctx.route?.linked && ctx.route.worktree ? ctx.route.worktree : ctx.root, target)).catch(() => undefined);
      if (st?.isDirectory()) target += '/';
    }
    if (!out.includes(target)) out.push(target);
  }
  return out;
}

/**
 * Makes `claims/` for the first claim. Claims are written under either store layout (twining-mcp
 * reads neither claims/ nor its locks, in 1.x or 2.x), so an existing `.twining/` is not checked
 * for its layout as other writes are (a write there would be refused in twining-mcp 2.x's SQLite
 * layout); a project without one gets it made as every first write makes it.
 */
async function claimsFolder(ctx: FolderStore, file: string): Promise<void> {
  const exists = (await fs.stat(ctx.layout.dir).catch(() => undefined))?.isDirectory();
  if (!exists) await ctx.ready();
  await fs.mkdir(path.dirname(file), { recursive: true }).catch(error => {
    throw new TwiningError('IO', `${path.dirname(file)} could not be created (${(error as Error).message}); nothing was claimed or released`);
  });
}

/**
 * Runs `work` on the claims under the log's lock and appends the records it changed (those of
 * `items` that are no longer the objects it was given) when it returns `items`.
 */
async function rewrite<T>(ctx: FolderStore, work: (items: unknown[], clock: ClaimClock) => { items?: unknown[]; result: T }): Promise<T> {
  const log = ctx.claimLog;
  if (!log.found) await claimsFolder(ctx, log.file);
  const clock = await claimClock(ctx);
  return ctx.lock([[log.file, '']], async () => {
    await log.refresh();
    const before = new Set(log.items);
    const done = work(log.items.slice(), clock);
    if (done.items)
      await log.append(
        done.items.filter((item): item is ClaimRecord => !before.has(item) && isClaim(item)),
        clock.now,
      );
    return done.result;
  });
}

/** Closes `agentId`'s lapsed claims in `items` (it is being told now); returns their views. */
function closeLapsed(items: unknown[], agentId: string, clock: ClaimClock, nowIso: string): ClaimView[] {
  const lapsed: ClaimView[] = [];
  items.forEach((item, i) => {
    if (!isClaim(item) || item.agent_id !== agentId || item.released_at !== undefined) return;
    const view = viewOf(item, clock);
    if (view.state !== 'lapsed') return;
    lapsed.push(view);
    items[i] = { ...item, released_at: nowIso, released_because: `lapsed: ${view.lapsed_because}` };
  });
  return lapsed;
}

export async function claim(ctx: FolderStore, input: InputOf<'claim'>): Promise<ClaimResult> {
  const args = ctx.validate('claim', input);
  const wanted = await targetsOf(ctx, args.paths ?? []);
  if (args.delegation_id !== undefined) {
    await ctx.blackboard.refresh();
    const need = ctx.blackboard.needs.find(e => e.id === args.delegation_id);
    const detail = need && delegationOf(need);
    if (!need || !detail) throw new TwiningError('NOT_FOUND', `claim: ${args.delegation_id} is not a delegation need on the blackboard; nothing was claimed`);
    if (isExpired(detail, ctx.now()))
      throw new TwiningError('INVALID_INPUT', `claim: delegation ${args.delegation_id} expired at ${detail.expires_at}; nothing was claimed`);
    wanted.push(`${DELEGATION_PREFIX}${args.delegation_id}`);
  }
  if (wanted.length === 0) throw new TwiningError('INVALID_INPUT', 'claim: name at least one path or a delegation_id; nothing was claimed');
  const ttl = args.ttl_ms ?? DEFAULT_TTL_MS;
  return rewrite<ClaimResult>(ctx, (items, clock) => {
    const nowIso = clock.now.toISOString();
    const lapsed = closeLapsed(items, args.agent_id, clock, nowIso);
    const conflicts: Conflict[] = [];
    for (const target of wanted) {
      const held_by = claimConflicts(items, target, args.agent_id, clock);
      if (held_by.length) conflicts.push({ target, held_by, message: `${target}: ${held_by.map(describeHolder).join('; ')}` });
    }
    if (conflicts.length) return { items: lapsed.length ? items : undefined, result: { granted: false, claims: [], conflicts, lapsed } };
    const expires_at = new Date(clock.now.getTime() + ttl).toISOString();
    const made: ClaimRecord[] = [];
    for (const target of wanted) {
      const index = items.findIndex(c => isClaim(c) && c.agent_id === args.agent_id && c.target === target && c.released_at === undefined);
      if (index >= 0) {
        const renewed = { ...(items[index] as ClaimRecord), reason: args.reason, renewed_at: nowIso, expires_at };
        items[index] = renewed;
        made.push(renewed);
      } else {
        const fresh: ClaimRecord = { id: ctx.id(), agent_id: args.agent_id, target, reason: args.reason, claimed_at: nowIso, renewed_at: nowIso, expires_at };
        items.push(fresh);
        made.push(fresh);
      }
    }
    return { items, result: { granted: true, claims: made.map(c => viewOf(c, clock)), conflicts: [], lapsed } };
  });
}

export interface ReleaseResult {
  released: ClaimView[];
  /** Paths, delegations or ids asked for that this agent did not hold. */
  not_held: string[];
  lapsed: ClaimView[];
}

export async function release(ctx: FolderStore, input: InputOf<'release'>): Promise<ReleaseResult> {
  const args = ctx.validate('release', input);
  const targets = await targetsOf(ctx, args.paths ?? []);
  if (args.delegation_id !== undefined) targets.push(`${DELEGATION_PREFIX}${args.delegation_id}`);
  const ids = args.claim_ids ?? [];
  const all = targets.length === 0 && ids.length === 0;
  return rewrite(ctx, (items, clock) => {
    const nowIso = clock.now.toISOString();
    const lapsed = closeLapsed(items, args.agent_id, clock, nowIso);
    const released: ClaimView[] = [];
    const hit = new Set<string>();
    items.forEach((item, i) => {
      if (!isClaim(item) || item.agent_id !== args.agent_id || item.released_at !== undefined) return;
      const named = targets.includes(item.target) ? item.target : ids.includes(item.id) ? item.id : undefined;
      if (!all && !named) return;
      if (named) hit.add(named);
      const closed = { ...item, released_at: nowIso, released_because: 'released' };
      items[i] = closed;
      released.push(viewOf(closed, clock));
    });
    const not_held = [...targets, ...ids].filter(t => !hit.has(t));
    return { items: released.length || lapsed.length ? items : undefined, result: { released, not_held, lapsed } };
  });
}

export async function claims(ctx: FolderStore, input: InputOf<'claims'> = {}): Promise<{ claims: ClaimView[]; live_count: number; lapsed_count: number }> {
  const args = ctx.validate('claims', input);
  const [items, clock] = await Promise.all([claimItems(ctx), claimClock(ctx)]);
  let target: string | undefined;
  if (args.path !== undefined) {
    const normal = normaliseTarget(ctx.projectPath(args.path));
    if ('error' in normal) throw new TwiningError('INVALID_INPUT', `claims: ${normal.error}`);
    target = normal.target;
  }
  const listed: ClaimView[] = [];
  for (const item of items) {
    if (!isClaim(item)) continue;
    if (args.agent_id !== undefined && item.agent_id !== args.agent_id) continue;
    if (target !== undefined && !targetsOverlap(item.target, target)) continue;
    const view = viewOf(item, clock);
    if (view.state === 'released' && !args.include_released) continue;
    listed.push(view);
  }
  listed.sort((a, b) => (a.claimed_at < b.claimed_at ? -1 : a.claimed_at > b.claimed_at ? 1 : 0));
  return { claims: listed, live_count: listed.filter(c => c.state === 'live').length, lapsed_count: listed.filter(c => c.state === 'lapsed').length };
}

/**
 * Releases `agentId`'s claims that `scopes` cover (a handoff's scope and artifacts, a record's
 * files): a claim whose target starts with one of them, every claim for "project" or an undefined
 * scope (a handoff without scope); none for an empty list.
 * `because` says what released them ("handoff <id>"). For handoff, and for `record` (another issue).
 */
export async function releaseCovered(ctx: FolderStore, agentId: string, scopes: readonly (string | undefined)[], because: string): Promise<ClaimView[]> {
  const everything = scopes.some(s => s === undefined || s === 'project' || s.trim() === '');
  const prefixes = everything ? [] : (scopes as string[]).map(s => normaliseTarget(ctx.projectPath(s))).flatMap(n => ('target' in n ? [n.target] : []));
  const covered = (target: string) => everything || prefixes.some(p => target === p || (p.endsWith('/') && target.startsWith(p)));
  const mine = (await claimItems(ctx)).some(c => isClaim(c) && c.agent_id === agentId && c.released_at === undefined && covered(c.target));
  if (!mine) return [];
  return rewrite(ctx, (items, clock) => {
    const nowIso = clock.now.toISOString();
    const released: ClaimView[] = [];
    items.forEach((item, i) => {
      if (!isClaim(item) || item.agent_id !== agentId || item.released_at !== undefined || !covered(item.target)) return;
      const closed = { ...item, released_at: nowIso, released_because: because };
      items[i] = closed;
      released.push(viewOf(closed, clock));
    });
    return { items: released.length ? items : undefined, result: released };
  });
}
