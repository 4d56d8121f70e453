// Twining: Search in the real workbench: the command with an argument object returns the ranked
// results; from the palette its quick pick searches as the value changes, lists decisions and
// entries with their type, scope, age and author, finds what another process just wrote, and opens
// the chosen record.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder, waitFor } from './helpers';
import { TwiningApi, cli, repoRoot, twining } from './twining';
import type { SearchSession } from '../../src/extension/commands/search-command';
import { readRecordsInWorker } from '../../src/core/search/record-reader';

const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';
const EXP_WARNING = '01M80HHK5EACAY1D2CS04B635E';

describeIn(['single'], 'Twining: Search', () => {
  let api: TwiningApi;

  before(async () => {
    api = await twining();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  afterEach(async () => {
    api.searchPick()?.quickPick.hide();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** Opens the quick pick from the palette's command and types `query` into it. */
  async function typeQuery(query: string, session?: SearchSession): Promise<SearchSession> {
    if (!session) await vscode.commands.executeCommand('twining.search');
    const open = session ?? (await waitFor(() => api.searchPick(), { what: 'the search quick pick' }))!;
    open.quickPick.value = query;
    await waitFor(() => open.shownQuery === query, { what: `results for "${query}"` });
    return open;
  }

  it('with an argument object returns the ranked results of the core search', async () => {
    const result = await vscode.commands.executeCommand<{ results: { id: string; kind: string }[]; total_matched: number }>('twining.search', {
      query: 'exp claim',
    });
    assert.strictEqual(result.results[0].id, EXP_WARNING);
    const decisions = await vscode.commands.executeCommand<{ results: { id: string; kind: string }[] }>('twining.search', {
      query: 'rotate keys',
      source: 'decisions',
    });
    // Other suites of the run may have superseded RS256 by now: it is found whatever its status.
    assert.ok(
      decisions.results.some(r => r.id === RS256),
      JSON.stringify(decisions.results),
    );
    assert.ok(decisions.results.every(r => r.kind === 'decision'));
  });

  it('the quick pick lists decisions and entries as you type, with icon, type, scope, age and author', async () => {
    const session = await typeQuery('jwt');
    const items = session.quickPick.items;
    const rs256 = items.find(i => i.hit?.id === RS256);
    const warning = items.find(i => i.hit?.id === EXP_WARNING);
    assert.ok(rs256 && warning, items.map(i => i.label).join('\n'));
    // Its icon and description follow its status (another suite of the run may have superseded it).
    const status = rs256.hit?.kind === 'decision' ? rs256.hit.status : '';
    const icon = ({ active: 'law', provisional: 'question', superseded: 'history', overridden: 'circle-slash' } as Record<string, string>)[status];
    assert.strictEqual(rs256.label, `$(${icon}) Sign JWTs with RS256 and rotate keys every 30 days`);
    assert.match(rs256.description ?? '', new RegExp(`^${status} decision · security · src/auth/jwt\\.ts · (just now|.+ ago) · reviewer$`));
    assert.strictEqual(warning.label, '$(warning) verifyToken does not check the exp claim');
    assert.match(warning.description ?? '', /^warning · src\/auth\/jwt\.ts · (just now|.+ ago) · reviewer$/);
    assert.ok(
      items.every(i => i.alwaysShow),
      'the engine ranks; the quick pick does not filter again',
    );

    await typeQuery('zzzqqq', session);
    assert.deepStrictEqual(
      session.quickPick.items.map(i => i.label),
      ['$(circle-slash) Nothing matches "zzzqqq"'],
    );
  });

  it('finds what another process has just written, and opens the chosen entry', async () => {
    await cli('post', firstFolder(), {
      entry_type: 'warning',
      summary: 'Refresh tokens never expire in staging',
      scope: 'src/auth/refresh.ts',
      agent_id: 'ops-bot',
    });
    const session = await typeQuery('staging refresh');
    const first = session.quickPick.items[0];
    assert.strictEqual(first.label, '$(warning) Refresh tokens never expire in staging');
    assert.match(first.description ?? '', /· ops-bot$/);
    session.quickPick.activeItems = [first];
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const editor = (await waitFor(() => (vscode.window.activeTextEditor?.document.uri.scheme === 'twining' ? vscode.window.activeTextEditor : undefined), {
      what: 'the entry document',
    }))!;
    assert.strictEqual(new URLSearchParams(editor.document.uri.query).get('id'), first.hit!.id);
    assert.match(editor.document.getText(), /Refresh tokens never expire in staging/);
    assert.strictEqual(api.searchPick(), undefined, 'the quick pick closed');
  });

  it("a worker thread of the extension host reads decision records, with the script shipped beside the extension's bundle", async () => {
    // The search index has the records of 1,000 decisions or more read this way (record-reader.ts).
    const dir = path.join(firstFolder(), '.twining', 'decisions');
    const files = fs
      .readdirSync(dir)
      .filter(f => f.endsWith('.json'))
      .map(f => path.join(dir, f));
    assert.ok(files.length >= 3, files.join('\n'));
    const read = await readRecordsInWorker(path.join(repoRoot(), 'dist', 'record-worker.js'), files);
    assert.ok(read, 'the worker answered');
    files.forEach((file, i) => {
      const record = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.deepStrictEqual([read[i]?.summary, read[i]?.agent_id, read[i]?.rationale], [record.summary, record.agent_id, record.rationale], file);
    });
  });

  it('opens a chosen decision the way the views open it', async () => {
    const session = await typeQuery('rs256');
    const item = session.quickPick.items.find(i => i.hit?.id === RS256)!;
    session.quickPick.activeItems = [item];
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const editor = (await waitFor(
      () => (vscode.window.activeTextEditor?.document.getText().includes('Sign JWTs with RS256') ? vscode.window.activeTextEditor : undefined),
      { what: 'the decision document' },
    ))!;
    assert.ok(editor.document.getText().includes(RS256));
  });
});
