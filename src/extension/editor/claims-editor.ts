/**
 * Claims in the editor: the Explorer badges (claim-decorations.ts), one information message when
 * the user edits a file another live agent claims (with *Open Claim* and *Ask to Release*, a need
 * addressed to the holder), and a status bar item naming the claim on the active file.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { TwiningSession } from '../session';
import type { TwiningFolder } from '../model/folders';
import type { ClaimsModel, FileClaim } from '../model/claims-model';
import { ClaimDecorations, claimLine } from './claim-decorations';
import { followUp, log } from '../log';

export class ClaimsEditor implements vscode.Disposable {
  readonly decorations: ClaimDecorations;
  private readonly status = vscode.window.createStatusBarItem('twining.claim', vscode.StatusBarAlignment.Left, 98);
  /** Claims the user was told about while editing (once each per window). */
  private readonly told = new Set<string>();
  /** The messages shown, newest last (the host tests read them). */
  readonly notices: string[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: TwiningSession,
    readonly model: ClaimsModel,
  ) {
    this.decorations = new ClaimDecorations(this.model, () => ctx.agentId());
    this.status.name = 'Twining Claim';
    this.disposables.push(
      this.decorations,
      this.status,
      vscode.window.registerFileDecorationProvider(this.decorations),
      vscode.workspace.onDidChangeTextDocument(e => {
        if (e.contentChanges.length > 0) this.edited(e.document.uri);
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.showStatus()),
      this.model.onDidLoad(() => this.showStatus()),
    );
  }

  /** The engine clock's now and the user's agent id (what the claims are judged by and for). */
  now(): Date {
    return this.ctx.clock.now();
  }
  you(): string {
    return this.ctx.agentId();
  }

  /** The live claims of other agents on `uri`. */
  othersOn(uri: vscode.Uri): FileClaim[] {
    const you = this.ctx.agentId();
    return this.model.claimsOn(uri).filter(c => c.claim.agent_id !== you);
  }

  private edited(uri: vscode.Uri): void {
    if (uri.scheme !== 'file') return;
    const held = this.othersOn(uri).filter(c => !this.told.has(c.claim.id));
    if (held.length === 0) return;
    for (const c of held) this.told.add(c.claim.id);
    const first = held[0];
    const message = `${first.relative} is claimed by ${first.claim.agent_id} until ${new Date(first.claim.expires_at).toLocaleTimeString()}: ${first.claim.reason}`;
    this.notices.push(message);
    followUp(vscode.window.showInformationMessage(message, 'Open Claim', 'Ask to Release'), choice =>
      choice === 'Open Claim' ? this.openClaim(first) : this.askToRelease(first),
    );
  }

  /** Opens the claims log at the claim's last line (the claim as it is now). */
  openClaim(c: FileClaim): Promise<void> {
    return openClaimRecord(c.folder, c.claim.id);
  }

  /** Posts a need addressed to the holder (its id in the summary and the tags), relating to the claim. */
  async askToRelease(c: FileClaim): Promise<string> {
    const you = this.ctx.agentId();
    const entry = await c.folder.run(engine =>
      engine.post({
        entry_type: 'need',
        summary: `${c.claim.agent_id}: please release ${c.claim.target} (${you} needs to edit ${c.relative})`.slice(0, 200),
        detail: `${you} is editing ${c.relative}, which ${c.claim.agent_id} claims until ${c.claim.expires_at} (${c.claim.reason}). When you are done, release it with twining_release.`,
        scope: c.relative,
        tags: ['claim', 'release-request', c.claim.agent_id],
        relates_to: [c.claim.id],
        agent_id: you,
      }),
    );
    log.info(`${c.folder.name}: asked ${c.claim.agent_id} to release ${c.claim.target} (need ${entry.id})`);
    void vscode.window.showInformationMessage(`Asked ${c.claim.agent_id} to release ${c.claim.target}.`);
    return entry.id;
  }

  private showStatus(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const claims = uri ? this.model.claimsOn(uri) : [];
    if (claims.length === 0) {
      this.status.hide();
      return;
    }
    const you = this.ctx.agentId();
    const c = claims.find(x => x.claim.agent_id !== you) ?? claims[0];
    this.status.text = `$(lock) ${c.claim.agent_id === you ? 'Claimed by you' : c.claim.agent_id}`;
    this.status.tooltip = claims.map(x => claimLine(x, you)).join('\n');
    this.status.backgroundColor = c.claim.agent_id === you ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
    this.status.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Opens a folder's claims log at the last line of claim `id` (the claim as it is now). */
export async function openClaimRecord(folder: TwiningFolder, id: string): Promise<void> {
  const uri = vscode.Uri.file(path.join(folder.dir, 'claims', 'claims.jsonl'));
  const doc = await vscode.workspace.openTextDocument(uri);
  const at = doc.getText().lastIndexOf(`"${id}"`);
  const position = doc.positionAt(Math.max(at, 0));
  await vscode.window.showTextDocument(doc, {
    selection: new vscode.Range(doc.lineAt(position.line).range.start, doc.lineAt(position.line).range.end),
    preview: true,
  });
}
