/**
 * Explorer badges for claimed files and folders: a lock badge and a tooltip naming who holds the
 * claim, why and until when. Another agent's claim is coloured as a warning; the user's own is
 * not. Decorations follow the claims model, so a claim written or lapsing anywhere shows at once.
 */
import * as vscode from 'vscode';
import type { ClaimsModel, FileClaim } from '../model/claims-model';

export const CLAIM_BADGE = '🔒';

/** "alice: JWT rework (until 10:30:00)": one line per claim. */
export function claimLine(c: FileClaim, you: string): string {
  const who = c.claim.agent_id === you ? `you (${you})` : c.claim.agent_id;
  const until = new Date(c.claim.expires_at).toLocaleTimeString();
  return `Claimed by ${who}: ${c.claim.reason} (${c.claim.target}, until ${until})`;
}

export class ClaimDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<undefined>();
  readonly onDidChangeFileDecorations = this.emitter.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly model: ClaimsModel,
    private readonly agentId: () => string,
  ) {
    this.subscription = model.onDidLoad(() => this.emitter.fire(undefined));
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const claims = this.model.claimsOn(uri);
    if (claims.length === 0) return undefined;
    const you = this.agentId();
    const others = claims.some(c => c.claim.agent_id !== you);
    const decoration = new vscode.FileDecoration(CLAIM_BADGE, claims.map(c => claimLine(c, you)).join('\n'));
    if (others) decoration.color = new vscode.ThemeColor('list.warningForeground');
    return decoration;
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
