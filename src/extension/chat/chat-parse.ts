/**
 * What a slash command's prompt says, read without a model: `/delegate needs: testing, review —
 * summary`, `/discover testing review`, `/handoff to: reviewer summary`, `/ack 01M80H`. Pure (no
 * `vscode` import), so the unit tests check every form.
 */
import type { HandoffIndexLine } from '../../core';

/** The slash commands, in the order the chat offers them (package.json lists the same). */
export const CHAT_COMMAND_NAMES = [
  'status',
  'brief',
  'handoffs',
  'ack',
  'handoff',
  'verify',
  'why',
  'search',
  'delegate',
  'discover',
  'delegations',
  'agents',
  'claims',
] as const;
export type ChatCommandName = (typeof CHAT_COMMAND_NAMES)[number];

export type Urgency = 'high' | 'normal' | 'low';

export interface DelegateRequest {
  summary: string;
  /** Empty when the prompt named none (the model may propose them). */
  capabilities: string[];
  urgency?: Urgency;
}

/** Capability tags from a free list: "testing, review", "testing review", "#testing #review". */
export function capabilityList(text: string): string[] {
  const tags = text
    .split(/[\s,;]+/)
    .map(t => t.replace(/^#/, '').trim().toLowerCase())
    .filter(t => t && t !== 'and');
  return [...new Set(tags)];
}

// "needs: a, b" up to a dash, semicolon, full stop or line end; "urgency: high" anywhere.
const NEEDS = /(?:^|\s)(?:needs|needing|capabilities|caps)\s*:\s*([^\n;.—–]*?)(?=\s+[—–-]{1,2}\s+|\s*[;.\n—–]|$)/i;
const URGENCY = /(?:^|\s)urgency\s*:\s*(high|normal|low)\b/i;

/** Reads `/delegate`'s prompt: the summary, the needed capabilities and the urgency. */
export function parseDelegate(prompt: string): DelegateRequest {
  let rest = ` ${prompt.trim()} `;
  let urgency: Urgency | undefined;
  const u = URGENCY.exec(rest);
  if (u) {
    urgency = u[1].toLowerCase() as Urgency;
    rest = rest.replace(u[0], ' ');
  }
  let capabilities: string[] = [];
  const n = NEEDS.exec(rest);
  if (n) {
    capabilities = capabilityList(n[1]);
    rest = rest.replace(n[0], ' ');
  }
  const summary = tidy(rest);
  return { summary, capabilities, ...(urgency ? { urgency } : {}) };
}

/** Trims the separators a removed clause leaves behind ("— summary", "; summary"). */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[—–\-;:,.\s]+/, '')
    .replace(/[—–\-;:,\s]+$/, '')
    .trim();
}

export interface HandoffRequest {
  summary: string;
  target?: string;
}

const TO = /(?:^|\s)(?:to|for)\s*:\s*([^\s,;]+)/i;

/** Reads `/handoff`'s prompt: `to: reviewer` (or `for: reviewer`) names the target; the rest is the summary. */
export function parseHandoff(prompt: string): HandoffRequest {
  const text = ` ${prompt.trim()} `;
  const m = TO.exec(text);
  if (!m) return { summary: tidy(text) };
  return { summary: tidy(text.replace(m[0], ' ')), target: m[1] };
}

/** The handoffs a prompt names: an exact id, an id prefix (4+ characters), or words of the summary. */
export function matchHandoffs<T extends Pick<HandoffIndexLine, 'id' | 'summary'>>(query: string, lines: readonly T[]): T[] {
  const q = query.trim();
  if (!q) return [];
  const upper = q.toUpperCase();
  const exact = lines.filter(l => l.id.toUpperCase() === upper);
  if (exact.length) return exact;
  if (/^[0-9A-Za-z]{4,26}$/.test(q)) {
    const prefixed = lines.filter(l => l.id.toUpperCase().startsWith(upper));
    if (prefixed.length) return prefixed;
  }
  const words = q
    .toLowerCase()
    .split(/\s+/)
    .filter(w => w.length > 1);
  return lines.filter(l => {
    const summary = String(l.summary).toLowerCase();
    return words.every(w => summary.includes(w));
  });
}

/** The longest common folder prefix of workspace-relative paths ("src/auth/"), or the one file itself. */
export function commonScope(paths: readonly string[]): string | undefined {
  const unique = [...new Set(paths)];
  if (unique.length === 0) return undefined;
  if (unique.length === 1) return unique[0];
  const split = unique.map(p => p.split('/'));
  const common: string[] = [];
  for (let i = 0; ; i++) {
    const part = split[0][i];
    // The last segment of a path is a file (or the folder itself): only folders make a prefix.
    if (split.some(s => i >= s.length - 1 || s[i] !== part)) break;
    common.push(part);
  }
  return common.length ? `${common.join('/')}/` : undefined;
}

/**
 * Reads `/brief`'s prompt: `scope: src/auth/` anywhere, or a first word that is a path
 * (`src/auth/`, `jwt.ts`, `project`), names the scope; the rest is the task.
 */
export function parseBrief(prompt: string): { scope?: string; task: string } {
  const text = ` ${prompt.trim()} `;
  const named = /(?:^|\s)scope\s*:\s*(\S+)/i.exec(text);
  if (named) return { scope: named[1], task: tidy(text.replace(named[0], ' ')) };
  const [first, ...rest] = prompt.trim().split(/\s+/);
  if (first && (first === 'project' || /^[\w.@-]*[/.][\w./@-]*$/.test(first)) && !/^\.+$/.test(first) && !/[.]$/.test(first))
    return { scope: first.replace(/^\.\//, ''), task: rest.join(' ') };
  return { task: tidy(text) };
}
