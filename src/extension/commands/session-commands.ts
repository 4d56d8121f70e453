/**
 * *Ask for a Record or Handoff*, on a session of the session board that ended after changing files
 * without recording them (Agents view). Either posts a need on the blackboard addressed to the
 * session's agent (its id in the summary and the tags, scoped to the files it changed; the agent's
 * next SessionStart briefing carries it), or copies a prompt to paste into that agent's chat.
 * Argument object: `{ session_id, how: "need" | "prompt", folder? }`; it returns the need's entry
 * id or the prompt's text.
 */
import * as vscode from 'vscode';
import type { SessionView } from '../../core';
import type { TwiningFolder } from '../model/folders';
import type { TwiningSession } from '../session';
import { log } from '../log';
import { recordRequest } from '../present/session-text';
import { Invocation, folderFromArgs } from './command-runner';
import { pickOne } from './prompts';

const TITLE = 'Ask for a Record or Handoff';

async function sessionOf(inv: Invocation, ctx: TwiningSession): Promise<{ folder: TwiningFolder; session: SessionView; how?: string }> {
  if (inv.mode === 'node' && (inv.node.kind === 'session' || inv.node.kind === 'contextSession')) return { folder: inv.node.folder, session: inv.node.session };
  if (inv.mode !== 'args') throw new Error('Choose a session in the Agents view (under Agent sessions) to ask for its record');
  const id = inv.args.session_id;
  if (typeof id !== 'string' || !id) throw new Error('session_id is required: the id of a session on the session board');
  const folder = await folderFromArgs(ctx, inv.args);
  const session = (await ctx.sessions.board(folder)).sessions.find(s => s.session_id === id);
  if (!session) throw new Error(`No session ${id} on the session board of ${folder.name} (it may have ended long ago)`);
  return { folder, session, how: typeof inv.args.how === 'string' ? inv.args.how : undefined };
}

/** Longest common folder of the session's files ("src/auth/"), or "project". */
function scopeOf(files: readonly string[]): string {
  if (files.length === 0) return 'project';
  if (files.length === 1) return files[0];
  let prefix = files[0].split('/').slice(0, -1);
  for (const f of files.slice(1)) {
    const parts = f.split('/').slice(0, -1);
    let i = 0;
    while (i < prefix.length && i < parts.length && prefix[i] === parts[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix.length ? `${prefix.join('/')}/` : 'project';
}

export async function askSessionForRecord(inv: Invocation, ctx: TwiningSession): Promise<string> {
  const { folder, session, how: given } = await sessionOf(inv, ctx);
  const you = ctx.agentId();
  const { summary, prompt } = recordRequest(session, you);
  const how =
    given ??
    (
      await pickOne(
        { title: TITLE },
        [
          { label: 'Post a need addressed to it', description: `${session.agent_id} is briefed with it when its next session starts`, how: 'need' },
          { label: 'Copy a prompt for its chat', description: 'paste it into the agent’s session', how: 'prompt' },
        ],
        `${session.agent_id} changed files and recorded nothing`,
      )
    ).how;
  if (how === 'prompt') {
    await vscode.env.clipboard.writeText(prompt);
    void vscode.window.showInformationMessage(`Copied a prompt asking ${session.agent_id} for its record. Paste it into that agent's chat.`);
    return prompt;
  }
  if (how !== 'need') throw new Error(`how must be "need" or "prompt", not "${how}"`);
  const entry = await folder.write(TITLE, engine =>
    engine.post({
      entry_type: 'need',
      summary,
      detail: prompt,
      scope: scopeOf(session.files_touched),
      tags: ['record-request', session.agent_id],
      agent_id: you,
    }),
  );
  log.info(`${folder.name}: asked ${session.agent_id} for the record of session ${session.session_id} (need ${entry.id})`);
  void vscode.window.showInformationMessage(`Asked ${session.agent_id} for its record (a need on the blackboard).`);
  return entry.id;
}
