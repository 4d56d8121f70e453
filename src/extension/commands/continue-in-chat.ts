/**
 * Continue in Chat: opens the chat with a prompt in its input that carries a handoff (summary,
 * results, the decisions in scope with their rationale, warnings, findings, drift since, the
 * chain it continues, and the instruction to acknowledge it first), so that nobody retypes it.
 * Takes a handoff tree item, `{handoff_id, folder?}`, the URI of an opened handoff document, or
 * asks. Where the host has no chat, the prompt opens as a document and goes to the clipboard.
 */
import * as vscode from 'vscode';
import type { TwiningEngine } from '../../core';
import { mapBounded } from '../../core/storage/bounded';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { ContinuePromptFacts, continuePrompt } from '../present/continue-prompt';
import { resolveSnapshot } from '../present/snapshot-contents';
import { SCHEME } from '../editor/record-documents';
import { log, messageOf, inform } from '../log';
import { Invocation } from './command-runner';
import { handoffTarget } from './handoff-commands';

const CHAT_OPEN = 'workbench.action.chat.open';
/** How many earlier handoffs of a chain the prompt names. */
const CHAIN_MAX = 10;

/** Everything the prompt says about a handoff, read from the engine. */
export async function continueFacts(engine: TwiningEngine, id: string, agentId: string): Promise<ContinuePromptFacts> {
  const record = await engine.getHandoff(id);
  if (!record) throw new Error(`Handoff not found: ${id}`);
  const resolved = await resolveSnapshot(engine, record.context_snapshot);
  // A snapshot may name thousands of decisions: their records are read a few at a time.
  const decisions = await mapBounded(
    resolved.filter(r => r.item === 'decision'),
    async r => {
      const d = r.status === 'missing' ? undefined : await engine.getDecision(r.id).catch(() => undefined);
      return { id: r.id, summary: r.summary ?? r.id, status: r.status, scope: r.scope, rationale: d?.rationale };
    },
  );
  const entries = async (kind: 'warning' | 'finding') =>
    Promise.all(
      resolved
        .filter(r => r.item === kind)
        .map(async r => {
          const entry = r.status === 'removed' ? undefined : await engine.getEntry(r.id);
          return { id: r.id, summary: r.summary ?? r.id, status: r.status, agentId: r.agentId, detail: entry?.detail || undefined };
        }),
    );
  const verify = await engine.verify({ handoff_id: id }).catch(error => {
    log.warn(`Continue in Chat: could not verify ${id}: ${messageOf(error)}`);
    return undefined;
  });
  const chain = [];
  for (const earlier of (verify?.chain ?? []).filter(c => c !== id).slice(0, CHAIN_MAX)) {
    const h = await engine.getHandoff(earlier).catch(() => undefined);
    chain.push({ id: earlier, summary: h?.summary, source_agent: h?.source_agent, created_at: h?.created_at });
  }
  return {
    handoff: { ...record, results: Array.isArray(record.results) ? record.results : [] },
    decisions,
    warnings: await entries('warning'),
    findings: await entries('finding'),
    verify,
    chain,
    agentId,
  };
}

async function target(inv: Invocation, ctx: TwiningSession): Promise<{ folder: TwiningFolder; id: string }> {
  if (inv.mode === 'uri' && inv.uri.scheme === SCHEME) {
    // The opened handoff document (its editor title button).
    const query = new URLSearchParams(inv.uri.query);
    const folder = ctx.folders.all().find(f => f.key === query.get('folder'));
    const id = query.get('id');
    if (!folder || query.get('kind') !== 'handoff' || !id) throw new Error('Continue in Chat: this document is not a handoff');
    return { folder, id };
  }
  const { folder, id, args } = await handoffTarget(inv, ctx, 'Continue in Chat');
  const unknown = Object.keys(args ?? {}).filter(k => k !== 'handoff_id');
  if (unknown.length) throw new Error(`Continue in Chat: unknown field(s) ${unknown.join(', ')} (it takes handoff_id and folder)`);
  return { folder, id };
}

/** The command: builds the prompt and puts it into the chat input. Returns `{ handoff_id, query, opened }`. */
export async function continueInChat(inv: Invocation, ctx: TwiningSession): Promise<{ handoff_id: string; query: string; opened: 'chat' | 'document' }> {
  const { folder, id } = await target(inv, ctx);
  const query = continuePrompt(await folder.run(engine => continueFacts(engine, id, ctx.agentId())));
  const commands = await vscode.commands.getCommands(true);
  if (commands.includes(CHAT_OPEN)) {
    try {
      await vscode.commands.executeCommand(CHAT_OPEN, { query, isPartialQuery: true });
      return { handoff_id: id, query, opened: 'chat' };
    } catch (error) {
      log.warn(`Continue in Chat: the chat did not open (${messageOf(error)}); showing the prompt as a document`);
    }
  }
  // No chat in this host (or it is turned off): the prompt as a document, and on the clipboard.
  await vscode.env.clipboard.writeText(query);
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: query });
  await vscode.window.showTextDocument(doc, { preview: true });
  inform('Twining: the chat is not available here; the handoff prompt is open as a document and on the clipboard.');
  return { handoff_id: id, query, opened: 'document' };
}
