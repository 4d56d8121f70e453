/**
 * Readable, read-only renderings of records as Markdown documents (`twining:` URIs): a handoff
 * with its results, snapshot and drift; a decision with its whole chain (decision-document.ts); a
 * blackboard entry; the status. Open documents follow changes on disk.
 */
import * as vscode from 'vscode';
import type { BlackboardEntry, HandoffRecord, VerifyResult, TwiningEngine } from '../../core';
import type { Folders, TwiningFolder } from '../model/folders';
import { RESULT_STATUS_LOOK, absolute, strings } from '../present/format';
import { resolveSnapshot } from '../present/snapshot-contents';
import { NO_DRIFT, driftItems } from '../../core/text/drift-text';
import { messageOf } from '../log';
import { renderDecision } from './decision-document';

export const SCHEME = 'twining';

type DocKind = 'handoff' | 'entry' | 'status' | 'decision';

export function documentUri(folder: TwiningFolder, kind: DocKind, id: string): vscode.Uri {
  const name = kind === 'status' ? 'status' : `${kind}-${id}`;
  return vscode.Uri.from({ scheme: SCHEME, path: `/${folder.name}/${name}.md`, query: new URLSearchParams({ folder: folder.key, kind, id }).toString() });
}

export class RecordDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];
  /** Open documents that changed while not shown: rendered again when they are shown. */
  private readonly stale = new Set<string>();

  constructor(private readonly folders: Folders) {
    this.subscriptions = [
      folders.onDidChange(change => {
        const shown = new Set(vscode.window.visibleTextEditors.map(e => e.document.uri.toString()));
        for (const doc of vscode.workspace.textDocuments) {
          if (doc.uri.scheme !== SCHEME) continue;
          const key = new URLSearchParams(doc.uri.query).get('folder');
          if (change.folder && change.folder.key !== key) continue;
          if (shown.has(doc.uri.toString())) this.emitter.fire(doc.uri);
          else this.stale.add(doc.uri.toString());
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors(editors => {
        for (const editor of editors) if (this.stale.delete(editor.document.uri.toString())) this.emitter.fire(editor.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument(doc => this.stale.delete(doc.uri.toString())),
    ];
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const folder = this.folders.all().find(f => f.key === query.get('folder'));
    if (!folder) return '# Not available\n\nThis workspace folder is no longer open.\n';
    const id = query.get('id') ?? '';
    try {
      switch (query.get('kind') as DocKind) {
        case 'handoff':
          return await folder.run(engine => renderHandoff(engine, id));
        case 'entry':
          return await folder.run(async engine => {
            const entry = await engine.getEntry(id);
            return entry ? renderEntry(entry) : `# Entry ${id}\n\nThis entry is no longer on the blackboard (dismissed or archived).\n`;
          });
        case 'status':
          return await folder.run(async engine => renderStatus(folder.name, await engine.status({})));
        case 'decision':
          return await folder.run(engine => renderDecision(engine, id));
        default:
          return '# Unknown document\n';
      }
    } catch (error) {
      return `# Could not read\n\n${error instanceof Error ? error.message : String(error)}\n`;
    }
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.emitter.dispose();
  }
}

/** Opens a rendering in a read-only editor beside the current one (preview tab). */
export async function showDocument(uri: vscode.Uri): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown').then(undefined, () => undefined);
  await vscode.window.showTextDocument(doc, { preview: true });
}

async function renderHandoff(engine: TwiningEngine, id: string): Promise<string> {
  let h: HandoffRecord | undefined;
  try {
    h = await engine.getHandoff(id);
  } catch (error) {
    return `# Handoff ${id}\n\nThe handoff record cannot be read: ${messageOf(error)}\n`;
  }
  if (!h) return `# Handoff ${id}\n\nThe handoff record is missing.\n`;
  let verify: VerifyResult | undefined;
  try {
    verify = await engine.verify({ handoff_id: id });
  } catch {
    verify = undefined;
  }
  const out: string[] = [];
  out.push(`# ${h.summary}`, '');
  out.push(`- **From:** ${h.source_agent}`);
  out.push(`- **To:** ${h.target_agent ?? 'any agent'}`);
  out.push(`- **Scope:** ${h.scope ? `\`${h.scope}\`` : 'whole project'}`);
  out.push(`- **Created:** ${absolute(h.created_at)}`);
  out.push(h.acknowledged_by ? `- **Acknowledged:** by ${h.acknowledged_by}, ${absolute(h.acknowledged_at)}` : '- **Acknowledged:** not yet');
  if (h.continues) out.push(`- **Continues:** handoff ${h.continues}`);
  out.push(`- **Id:** ${h.id}`, '');
  const results = Array.isArray(h.results) ? h.results : [];
  out.push(`## Results (${results.length})`, '');
  if (results.length === 0) out.push('No results.', '');
  for (const r of results) {
    out.push(`- ${RESULT_STATUS_LOOK[r.status]?.mark ?? '•'} **${r.status}**: ${r.description}`);
    const artifacts = strings(r.artifacts);
    if (artifacts.length) out.push(`  - Artifacts: ${artifacts.map(a => `\`${a}\``).join(', ')}`);
    if (r.notes) out.push(`  - Notes: ${r.notes}`);
  }
  out.push('');
  out.push(...(await renderSnapshot(engine, h)));
  out.push('## Drift', '');
  if (!verify) out.push('Could not be checked.');
  else {
    const items = driftItems(verify);
    if (items.length === 0) out.push(NO_DRIFT);
    for (const d of items) out.push(`- ${d.sentence}`);
  }
  if (verify && verify.chain.length > 1) out.push('', `Chain (newest first): ${verify.chain.join(' ← ')}`);
  out.push('');
  return out.join('\n');
}

async function renderSnapshot(engine: TwiningEngine, h: HandoffRecord): Promise<string[]> {
  const resolved = await resolveSnapshot(engine, h.context_snapshot);
  const out = ['## Context snapshot', ''];
  for (const [title, kind] of [
    ['Decisions', 'decision'],
    ['Warnings', 'warning'],
    ['Findings', 'finding'],
  ] as const) {
    const of = resolved.filter(r => r.item === kind);
    if (kind !== 'decision') out.push('');
    out.push(`### ${title} (${of.length})`, '');
    for (const r of of) {
      if (kind === 'decision') out.push(r.status === 'missing' ? `- [missing] ${r.id}` : `- [${r.status}] ${r.summary} (\`${r.scope}\`, ${r.id})`);
      else out.push(r.status === 'removed' ? `- [removed] ${r.id}` : `- ${r.summary} (\`${r.scope}\`, ${r.agentId}, ${r.id})`);
    }
  }
  out.push('');
  return out;
}

function renderEntry(e: BlackboardEntry): string {
  const type = String(e.entry_type);
  const out = [`# ${type[0]?.toUpperCase()}${type.slice(1)}: ${e.summary}`, ''];
  out.push(`- **Scope:** \`${e.scope}\``);
  out.push(`- **Agent:** ${e.agent_id}`);
  out.push(`- **Posted:** ${absolute(e.timestamp)}`);
  const tags = strings(e.tags);
  if (tags.length) out.push(`- **Tags:** ${tags.join(', ')}`);
  const related = strings(e.relates_to);
  if (related.length) out.push(`- **Relates to:** ${related.join(', ')}`);
  out.push(`- **Id:** ${e.id}`, '');
  if (e.detail) out.push('## Detail', '', e.detail, '');
  return out.join('\n');
}

export function renderStatus(name: string, s: Awaited<ReturnType<TwiningEngine['status']>>): string {
  const out = [`# Twining status: ${name}`, '', s.summary, ''];
  out.push(
    `- **Agents:** ${s.registered_agents} registered: ${s.agents_by_liveness.active} active, ${s.agents_by_liveness.idle} idle, ${s.agents_by_liveness.gone} gone`,
  );
  out.push(`- **Delegations:** ${s.open_delegations} open, ${s.expired_delegations} expired`);
  out.push(`- **Handoffs:** ${s.handoffs}, ${s.unacknowledged_handoffs} not acknowledged`);
  out.push(`- **Decisions:** ${s.active_decisions} active, ${s.provisional_decisions} provisional`);
  out.push(`- **Blackboard:** ${s.blackboard_entries} entries, ${s.warning_entries} warnings`);
  out.push(`- **Last activity:** ${s.last_activity === 'none' ? 'none' : absolute(s.last_activity)}`);
  if (s.warnings.length) out.push('', '## Needs attention', '', ...s.warnings.map(w => `- ${w}`));
  out.push('');
  return out.join('\n');
}
