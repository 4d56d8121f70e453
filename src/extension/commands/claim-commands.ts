/**
 * *Claim This File / Folder* and *Release Claim*, from the Explorer and editor context menus, the
 * Command Palette (the active editor's file) or an argument object (`twining_claim` /
 * `twining_release` fields; `agent_id` defaults to the user's agent id).
 */
import { promises as fs } from 'fs';
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import { Cancelled, Invocation, folderFromArgs } from './command-runner';
import { openClaimRecord } from '../editor/claims-editor';

/** The folder and the path (relative, a folder ending in "/") a menu or the active editor names. */
async function target(inv: Invocation, ctx: TwiningSession): Promise<{ folder: TwiningFolder; path: string }> {
  const uri = inv.mode === 'uri' ? inv.uri : vscode.window.activeTextEditor?.document.uri;
  if (!uri) throw new Error('Open a file, or use the Explorer’s context menu, to claim a file or folder');
  const folder = ctx.folders.folderOf(uri);
  const relative = folder?.relativePath(uri);
  if (!folder || !relative) throw new Error(`${uri.fsPath} is not inside a workspace folder with Twining`);
  const isDir = (await fs.stat(uri.fsPath).catch(() => undefined))?.isDirectory();
  return { folder, path: isDir ? `${relative}/` : relative };
}

/** *Open Claim*: a claim row's record in the claims log (or `{ claim_id, folder? }`). */
export async function openClaim(inv: Invocation, ctx: TwiningSession) {
  if (inv.mode === 'node' && inv.node.kind === 'claim') return openClaimRecord(inv.node.folder, inv.node.claim.id);
  if (inv.mode === 'args' && typeof inv.args.claim_id === 'string') return openClaimRecord(await folderFromArgs(ctx, inv.args), inv.args.claim_id);
  throw new Error('Open Claim applies to a claim (a row of the Agents or Context view, or { claim_id })');
}

export async function claimPath(inv: Invocation, ctx: TwiningSession) {
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    return folder.write('Claim', engine => engine.claim({ agent_id: ctx.agentId(), ...(inv.args as object) } as never));
  }
  const { folder, path } = await target(inv, ctx);
  const reason = await vscode.window.showInputBox({
    title: `Claim ${path}`,
    prompt: 'Why? Other agents and people who meet the claim see this.',
    value: 'Working on it',
    validateInput: v => (v.trim() ? undefined : 'Say why, in a few words'),
  });
  if (reason === undefined) throw new Cancelled();
  const result = await folder.write('Claim', engine => engine.claim({ agent_id: ctx.agentId(), paths: [path], reason: reason.trim() }));
  if (result.granted) void vscode.window.showInformationMessage(`Claimed ${path} until ${new Date(result.claims[0].expires_at).toLocaleTimeString()}.`);
  else void vscode.window.showWarningMessage(`Not claimed: ${result.conflicts.map(c => c.message).join('; ')}`);
  return result;
}

export async function releaseClaim(inv: Invocation, ctx: TwiningSession) {
  if (inv.mode === 'node') {
    // A claim row of the Agents or Context view: the user's own claims carry the action.
    const node = inv.node;
    if (node.kind !== 'claim') throw new Error('Release Claim applies to a claim');
    const claim = node.claim;
    if (claim.agent_id !== ctx.agentId())
      throw new Error(`${claim.target} is claimed by ${claim.agent_id}, not by you (${ctx.agentId()}): ask it to release the claim`);
    const result = await node.folder.write('Release Claim', engine => engine.release({ agent_id: claim.agent_id, claim_ids: [claim.id] }));
    void vscode.window.showInformationMessage(
      result.released.length
        ? `Released ${result.released.map(c => c.target).join(', ')}.`
        : `${claim.target} was no longer held (${result.not_held.join(', ')}).`,
    );
    return result;
  }
  if (inv.mode === 'args') {
    const folder = await folderFromArgs(ctx, inv.args);
    return folder.write('Release Claim', engine => engine.release({ agent_id: ctx.agentId(), ...(inv.args as object) }));
  }
  const { folder, path } = await target(inv, ctx);
  const you = ctx.agentId();
  // The user's claims on this path, or covering it (releasing a file inside a claimed folder releases the folder's claim).
  const mine = (await folder.run(engine => engine.claims({ agent_id: you, path }))).claims.filter(c => c.state !== 'released');
  if (mine.length === 0) {
    void vscode.window.showInformationMessage(`You (${you}) hold no claim on ${path}.`);
    return undefined;
  }
  const result = await folder.write('Release Claim', engine => engine.release({ agent_id: you, claim_ids: mine.map(c => c.id) }));
  void vscode.window.showInformationMessage(`Released ${result.released.map(c => c.target).join(', ')}.`);
  return result;
}
