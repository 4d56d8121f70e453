/**
 * An agent session's start on an engine: its briefing assembled (its mark written with what is kept, so `assembled_before`
 * stays honest) and turned into the text the SessionStart hook answers with; then the session's
 * agent registered, and, kept for later, the hook index (the first edit's PreToolUse reads no
 * history) and the briefing cache (the next start on an unchanged folder loads no engine).
 *
 * Two callers: the hook process that loaded the engine itself (src/agents/hooks/hook-events.ts), and a
 * running engine (the extension's or the MCP server's) asked over the local socket
 * (session-start-server.ts), which answers first and keeps afterwards.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { TwiningEngine } from '../../core/engine/engine';
import { briefingText } from '../../core/text/briefing-text';
import { cacheFile, fingerprint, keepBriefing } from '../../core/storage/derived/briefing-cache';
import { type BriefingParts, keepBasis } from '../../core/storage/derived/briefing-basis';
import { isSqliteFolder } from '../../core/storage/sqlite/sqlite-detect';
import { hookIndexUsable, indexDecisions, writeHookIndex } from '../../core/storage/derived/hook-index';
import { identityOf, stampOf } from '../../core/storage/version-stamp';

export interface SessionStartRequest {
  agent_id: string;
  /** The session's role in the registry ("Claude Code session"). */
  role: string;
  scope: string;
  max_tokens?: number;
}

export interface SessionStartAnswer {
  /** The briefing as the hook's additional context. */
  text: string;
  /** The blackboard's size when the briefing was assembled: the session's "changed since" starts there. */
  offset: number;
}

/** Assembles and answers; `keep` then registers the agent and writes what later hooks read (failures said through `warn`). */
export async function startSession(
  engine: TwiningEngine,
  /** The project's `.twining/`. */
  twiningDir: string,
  req: SessionStartRequest,
  warn: (message: string) => void,
): Promise<SessionStartAnswer & { keep: () => Promise<void> }> {
  const before = await fingerprint(twiningDir);
  // The briefing's mark is written with what is kept, after the answer (this engine counts it at once).
  let record = async () => {};
  let parts: (() => BriefingParts) | undefined;
  const briefing = await engine.assemble(
    {
      task: 'Start of an agent session',
      scope: req.scope,
      agent_id: req.agent_id,
      ...(req.max_tokens ? { max_tokens: req.max_tokens } : {}),
    },
    { recordAfter: write => (record = write), basis: p => (parts = p) },
  );
  const offset = engine.blackboard.file.size;
  const keep = async () => {
    await record();
    // The session's agent registered (its liveness): the briefing does not depend on it, so a
    // running engine answers first and registers after. Its registration writes the graph (an
    // agent entity), one of the briefing's inputs: when nothing had changed until then, the
    // inputs as they are after it are those the briefing stands for.
    const beforeRegistering = await fingerprint(twiningDir);
    await engine
      .register({ agent_id: req.agent_id, role: req.role })
      .catch(error => warn(`${req.agent_id} was not registered (${(error as Error).message}); its next tool call tries again`));
    // The hook index from what the engine holds now, when nothing was appended since, unless the
    // first edit can bring the one there up to date by reading only the lines appended since.
    const st = await fs.stat(path.join(twiningDir, 'decisions', 'index.json')).catch(() => undefined);
    const bst = await fs.stat(path.join(twiningDir, 'blackboard.jsonl')).catch(() => undefined);
    if (st && bst && bst.size === offset && !(await hookIndexUsable(twiningDir))) {
      const decisions = (await engine.decisions({ status: ['active', 'provisional'] })).decisions;
      await writeHookIndex(twiningDir, {
        decisionsStat: stampOf(st),
        blackboard: { identity: identityOf(bst), offset },
        decisions: indexDecisions(decisions),
        entries: engine.blackboard.entries,
      }).catch(error => warn(`the hook index was not written (${(error as Error).message}); the first edit will build it`));
    }
    // Kept for the next start of this agent on an unchanged folder: nothing has changed since this briefing then.
    const basis = beforeRegistering === before ? await fingerprint(twiningDir) : before;
    const kept = await keepBriefing(twiningDir, briefing, req.max_tokens, basis, briefingText({ ...briefing, changed_since: undefined })).catch(error => {
      warn(`the briefing was not cached (${(error as Error).message})`);
      return false;
    });
    // And what it was made from, for a start after lines were appended (1.x folders: the basis reads blackboard.jsonl).
    const made = parts;
    if (kept && made && !isSqliteFolder(twiningDir))
      await Promise.resolve()
        .then(() => keepBasis(twiningDir, cacheFile(twiningDir, req.agent_id, req.scope), made(), req.max_tokens, offset))
        .catch(error => warn(`the briefing's basis was not kept (${(error as Error).message})`));
  };
  return { text: briefingText(briefing), offset, keep };
}
