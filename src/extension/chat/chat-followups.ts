/**
 * The next step after each `@twining` answer (ChatFollowupProvider), from what the answer's
 * metadata says: acknowledge a handoff for you, verify one that was acknowledged or written, see
 * who suits a delegation, and so on. Pure apart from the types.
 */
import type * as vscode from 'vscode';
import type { TwiningChatMetadata } from './chat-call';

const PARTICIPANT = 'twining.chat';

function step(command: string, prompt: string, label: string): vscode.ChatFollowup {
  return { participant: PARTICIPANT, command, prompt, label };
}

export function followupsFor(result: vscode.ChatResult, agentId: string): vscode.ChatFollowup[] {
  const m = result.metadata as TwiningChatMetadata | undefined;
  if (!m || result.errorDetails) return [];
  const id = m.handoffId;
  const forYou = m.forYou ?? [];
  switch (m.command) {
    case 'status':
      return forYou.length
        ? [step('handoffs', '', `Show the ${forYou.length} handoff(s) for you (${agentId})`)]
        : [step('delegations', '', 'Which needs are open?')];
    case 'handoffs':
      return forYou.slice(0, 2).map(h => step('ack', h, `Acknowledge ${h.slice(0, 8)}…`));
    case 'ack':
      return id
        ? [step('verify', id, 'What changed since it was written?'), ...(m.scope ? [step('why', m.scope, `Why is ${m.scope} the way it is?`)] : [])]
        : [];
    case 'handoff':
      return id ? [step('verify', id, 'Verify the handoff just written')] : [];
    case 'verify':
      return m.scope ? [step('why', m.scope, `Decisions behind ${m.scope}`)] : [];
    case 'why':
      return m.scope ? [step('handoff', '', `Hand over ${m.scope}`)] : [];
    case 'brief':
      return m.scope && m.scope !== 'project'
        ? [step('why', m.scope, `Why is ${m.scope} the way it is?`)]
        : [step('handoffs', '', 'Which handoffs are waiting?')];
    case 'delegate':
      return [step('delegations', '', 'Show the open delegations')];
    case 'agents':
      return m.capabilities?.length ? [step('discover', m.capabilities.slice(0, 2).join(', '), `Who suits ${m.capabilities.slice(0, 2).join(', ')}?`)] : [];
    case 'discover':
      return m.capabilities?.length ? [step('delegate', `needs: ${m.capabilities.join(', ')} — `, 'Delegate work needing these')] : [];
    case 'delegations':
      return [step('agents', '', 'Who is active?')];
    default:
      return [];
  }
}
