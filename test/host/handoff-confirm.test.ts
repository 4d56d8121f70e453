// Create Handoff hands over the snapshot the user confirmed: the command's real steps are walked
// (the prompts answered by a script through the test hooks), and another process (the CLI) posts a
// warning in scope after the snapshot was confirmed, before the write. The user is told what
// changed and chooses: hand over the new snapshot (stored with the warning, its digest matching)
// or cancel (nothing written).
import * as assert from 'assert';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder, readJson, twiningDir } from './helpers';
import { TwiningApi, cli, readLines, twining } from './twining';

const FILE = 'src/checkout/cart.ts';

/** The digest FORMAT of ours (core/rules/snapshot.ts): sha256 of the four arrays' JSON, in order. */
function digestOf(s: { decision_ids: string[]; warning_ids: string[]; finding_ids: string[]; summaries: string[] }): string {
  return (
    'sha256:' +
    crypto
      .createHash('sha256')
      .update(JSON.stringify([s.decision_ids, s.warning_ids, s.finding_ids, s.summaries]), 'utf8')
      .digest('hex')
  );
}

/** Every file under handoffs/ with its content. */
function handoffFiles(): Map<string, string> {
  const dir = path.join(twiningDir(), 'handoffs');
  return new Map(fs.readdirSync(dir).map(n => [n, fs.readFileSync(path.join(dir, n), 'utf8')] as const));
}

describeIn(['single'], 'Create Handoff: the snapshot handed over is the one confirmed', () => {
  let api: TwiningApi;

  before(async () => {
    api = await twining();
  });

  afterEach(() => api.answerPrompts(undefined));

  /**
   * Walks Create Handoff on FILE: scope = the file, attach the snapshot, then (the snapshot being
   * confirmed) another process posts `warning` in scope; summary, no results, any agent. The
   * prompt telling what changed gets `choice`. Returns the command's result and the prompts seen.
   */
  async function walk(warning: string, choice: string): Promise<{ result: unknown; changed?: string[]; posted: { id: string } }> {
    let changed: string[] | undefined;
    let posted: { id: string } | undefined;
    api.answerPrompts(async ({ title, labels }) => {
      if (title === 'Create Handoff (1/5)') return labels!.find(l => l === `$(file) ${FILE}`);
      if (title === 'Create Handoff (2/5)') return '$(check) Attach this snapshot';
      if (title === 'Create Handoff (3/5)') {
        posted = (await cli('post', firstFolder(), { entry_type: 'warning', summary: warning, scope: 'src/checkout/', agent_id: 'reviewer' }, [
          '--now',
          api.now().toISOString(),
        ])) as { id: string };
        return `Cart totals (${warning})`;
      }
      if (title.startsWith('Create Handoff: results')) return '$(check) Done (no results)';
      if (title === 'Create Handoff (5/5)') return '$(organization) Any agent';
      if (title === 'Create Handoff: what is in scope changed') {
        changed = labels;
        return choice;
      }
      throw new Error(`unexpected prompt "${title}": ${labels?.join(' | ')}`);
    });
    const result = await vscode.commands.executeCommand('twining.createHandoff', vscode.Uri.file(path.join(firstFolder(), FILE)));
    return { result, changed, posted: posted! };
  }

  it('hand over the new snapshot: the stored snapshot holds the warning, and its digest matches', async () => {
    const { result, changed, posted } = await walk('Cart total ignores discounts', '$(check) Hand over the new snapshot');
    assert.ok(posted?.id, 'the other process posted the warning');
    assert.ok(changed, 'the user was told that what is in scope changed');
    assert.ok(changed.includes('$(add) Cart total ignores discounts'), changed.join(' | '));
    const record = result as { id: string };
    assert.ok(record?.id, 'a handoff was written');
    const stored = readJson<{ scope: string; context_snapshot: any; snapshot_digest: string }>(path.join(twiningDir(), 'handoffs', `${record.id}.json`));
    assert.strictEqual(stored.scope, FILE);
    assert.ok(stored.context_snapshot.warning_ids.includes(posted.id), 'the new warning is in the stored snapshot');
    assert.ok(stored.context_snapshot.summaries.includes('Warning: Cart total ignores discounts'));
    assert.strictEqual(stored.snapshot_digest, digestOf(stored.context_snapshot));
    const verify = await api.folders.get(firstFolder())!.verify({ handoff_id: record.id });
    assert.strictEqual(verify.intact, true);
  });

  it('cancel: nothing is written', async () => {
    const before = handoffFiles();
    const { result, changed, posted } = await walk('Cart rounding differs from the invoice', '$(close) Cancel (nothing is written)');
    assert.ok(changed?.includes('$(add) Cart rounding differs from the invoice'), changed?.join(' | '));
    assert.strictEqual(result, undefined);
    assert.deepStrictEqual(handoffFiles(), before, 'handoffs/ is as it was');
    const lines = readLines(path.join(twiningDir(), 'blackboard.jsonl'));
    assert.strictEqual(lines[lines.length - 1].id, posted.id, "the other process's warning is the last entry: no handoff status entry");
  });
});
