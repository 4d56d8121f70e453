import { claimsInLogText } from '../storage/claim-log';

/** What a sync brought in and sent out, counted by kind of record, for its report. */
export interface SyncCounts {
  entries: number;
  decisions: number;
  handoffs: number;
  claims: number;
  agents: number;
  graph: number;
}

export interface IncomingEntry {
  id: string;
  entry_type?: string;
  summary?: string;
  agent_id?: string;
  scope?: string;
}

export const emptyCounts = (): SyncCounts => ({ entries: 0, decisions: 0, handoffs: 0, claims: 0, agents: 0, graph: 0 });

function kindOf(rel: string): keyof SyncCounts | undefined {
  if (rel === 'blackboard.jsonl' || rel.startsWith('records/posts/')) return 'entries';
  if (rel === 'claims/claims.jsonl') return 'claims';
  if (rel === 'agents/registry.json') return 'agents';
  if (/^(records\/)?decisions\/[^/]+\.json$/.test(rel) && !rel.endsWith('index.json')) return 'decisions';
  if (/^(records\/)?handoffs\/[^/]+\.json$/.test(rel)) return 'handoffs';
  if (rel.startsWith('graph/') || rel.startsWith('records/graph/')) return 'graph';
  return undefined;
}

function items(rel: string, bytes: Buffer): string[] {
  const text = bytes.toString('utf8');
  // The claims log holds a line per change of a claim: a claim counts once, as its last line.
  if (rel === 'claims/claims.jsonl') return claimsInLogText(text).map(c => JSON.stringify(c));
  if (rel.endsWith('.jsonl')) return text.split('\n').filter(line => line.trim() !== '');
  if (!rel.endsWith('index.json') && !rel.endsWith('registry.json') && !/graph\/(entities|relations)\.json$/.test(rel)) return text.trim() ? [text] : [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.map(v => JSON.stringify(v)) : [];
  } catch {
    return [];
  }
}

/**
 * Adds to `counts` the records of `after` that `before` did not have as they are (new or
 * changed), both the parts of one file that differ; the new blackboard entries go to `entries`.
 */
export function countChanges(rel: string, before: Buffer | undefined, after: Buffer, counts: SyncCounts, entries?: IncomingEntry[]): void {
  const kind = kindOf(rel);
  if (!kind) return;
  const had = new Set(before ? items(rel, before) : []);
  for (const item of items(rel, after)) {
    if (had.has(item)) continue;
    counts[kind]++;
    if (!entries) continue;
    try {
      const e = JSON.parse(item) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
      entries.push({ id: String(e.id), entry_type: text(e.entry_type), summary: text(e.summary), agent_id: text(e.agent_id), scope: text(e.scope) });
    } catch {
      // not an entry
    }
  }
}
