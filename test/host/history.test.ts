// Export as Markdown and What Changed Since… with argument objects in the real workbench: the
// export opens as an untitled Markdown document holding the fixture's decisions; what_changed
// returns the fixture's decisions made since a time and leaves out the older ones.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn } from './helpers';
import { TwiningApi, twining } from './twining';

const JWT = '01M80HHJN7TF8W1N7EW8PHV7MT';
const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';
const VITEST = '01M80HHK4PSMNX1YWBAYPYPVBA';

describeIn(['single'], 'Twining: Export as Markdown and What Changed Since…', () => {
  let api: TwiningApi;
  before(async () => {
    api = await twining();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    api.answerPrompts(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("Link Commit to Decision from the Source Control graph: the menu's commit is linked to the decision picked, both ways", async () => {
    // What VS Code passes from scm/historyItem/context: the source control (its rootUri) and the
    // history item (id = the commit hash, message), as the git extension's Copy Commit ID reads them.
    const folder = vscode.workspace.workspaceFolders![0];
    const commit = 'c0ffee1234567890abcdef1234567890abcdef12';
    const seen: { title: string; labels?: string[] }[] = [];
    api.answerPrompts(prompt => {
      seen.push(prompt);
      return Promise.resolve(prompt.labels?.find(l => l.includes('Use stateless JWT bearer tokens')));
    });
    await vscode.commands.executeCommand(
      'twining.linkCommitToDecision',
      { rootUri: folder.uri, id: 'git', label: 'Git' },
      { id: commit, message: 'Add JWT middleware' },
    );
    assert.strictEqual(seen.length, 1, `one prompt (the decision), got ${JSON.stringify(seen.map(p => p.title))}`);
    assert.match(seen[0].title, /c0ffee1 "Add JWT middleware"/);
    const decision = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.twining', 'decisions', `${JWT}.json`), 'utf8')) as { commit_hashes?: string[] };
    assert.ok(decision.commit_hashes?.includes(commit), `the decision record lists the commit: ${JSON.stringify(decision.commit_hashes)}`);
    // A menu argument that is not a commit is refused, naming it, and nothing is linked.
    api.answerPrompts(() => Promise.resolve(undefined));
    await assert.rejects(
      Promise.resolve(
        vscode.commands.executeCommand('twining.linkCommitToDecision', { folder: folder.uri.fsPath, decision_id: JWT, commit_hash: 'not-a-hash' }),
      ),
      /commit_hash|hash/,
    );
  });

  it('Export as Markdown opens the export as an untitled Markdown document with the decisions', async () => {
    const result = await vscode.commands.executeCommand<{ markdown: string; stats: { decisions: number } }>('twining.exportMarkdown', {});
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc, 'no editor opened');
    assert.strictEqual(doc.isUntitled, true);
    assert.strictEqual(doc.languageId, 'markdown');
    assert.strictEqual(doc.getText(), result.markdown);
    for (const summary of ['Use stateless JWT bearer tokens for API authentication', 'Sign JWTs with RS256 and rotate keys every 30 days']) {
      assert.ok(doc.getText().includes(summary), `the export lacks "${summary}"`);
    }
    assert.ok(result.stats.decisions >= 4, JSON.stringify(result.stats));
  });

  it('Export as Markdown with a scope keeps only what overlaps it', async () => {
    const all = await vscode.commands.executeCommand<{ stats: { decisions: number } }>('twining.exportMarkdown', {});
    const scoped = await vscode.commands.executeCommand<{ markdown: string; stats: { decisions: number; scope: string } }>('twining.exportMarkdown', {
      scope: 'src/auth/',
    });
    assert.ok(scoped.stats.decisions < all.stats.decisions, `${scoped.stats.decisions} of ${all.stats.decisions}`);
    assert.ok(scoped.markdown.includes('Sign JWTs with RS256'));
    assert.ok(!scoped.markdown.includes('Version all REST endpoints under /v1'));
  });

  it('What Changed Since… with `since` returns the decisions made at or after it and refuses a time that is not ISO 8601', async () => {
    type Changes = { new_decisions: { id: string }[]; new_entries: unknown[] };
    const since = await vscode.commands.executeCommand<Changes>('twining.whatChangedSince', { since: '2026-11-22T02:32:12.087Z' });
    const ids = since.new_decisions.map(d => d.id);
    // Other suites of a full run may supersede RS256; Vitest's decision they leave alone.
    assert.ok(ids.includes(VITEST), JSON.stringify(ids));
    assert.ok(!ids.includes(JWT), 'a decision older than `since` was listed');
    const before = await vscode.commands.executeCommand<Changes>('twining.whatChangedSince', { since: '2000-01-01T00:00:00Z' });
    assert.ok(before.new_decisions.some(d => d.id === JWT));
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('twining.whatChangedSince', { since: 'yesterday' })), /since/);
  });

  it("the decision document shows its dependencies with status and its files' knowledge graph neighbours", async () => {
    await vscode.commands.executeCommand('twining.openRecord', { type: 'decision', id: JWT });
    const jwt = vscode.window.activeTextEditor?.document.getText() ?? '';
    assert.match(jwt, /## Dependencies \(0 upstream, \d+ downstream\)/);
    assert.ok(jwt.includes(`Depending on it (nearest first):\n- [`) && jwt.includes(`Sign JWTs with RS256 and rotate keys every 30 days (${RS256})`), jwt);
    // The fixture's graph holds src/auth/middleware.ts, the JWT decision's affected file.
    assert.match(jwt, /## Knowledge graph\n\n- `src\/auth\/middleware\.ts` \(file\)\n {2}- /);
    await vscode.commands.executeCommand('twining.openRecord', { type: 'decision', id: RS256 });
    const rs256 = vscode.window.activeTextEditor?.document.getText() ?? '';
    assert.match(rs256, /It depends on \(nearest first\):\n- \[\w+\] Use stateless JWT bearer tokens for API authentication/);
  });
});
