// Sync across clones in the real host: the window is one clone of a repository whose record syncs
// through a bare remote (scripts/sync-workspace.js); another clone posts a warning and syncs with
// the CLI, and the window shows it (a notification and the file's Problems entry) with no action by
// the user: the extension's background sync brings it in.
import * as assert from 'assert';
import * as path from 'path';
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { describeIn, firstFolder, waitFor } from './helpers';
import { cli, repoRoot, twining } from './twining';

function syncPeer(peer: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [path.join(repoRoot(), 'dist', 'cli.js'), 'sync'], { cwd: peer, timeout: 30000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`twining sync in the other clone: ${stderr || error.message}`)) : resolve(stdout),
    ),
  );
}

describeIn(['sync'], 'sync across clones', () => {
  it('a warning another clone posted and synced shows in this window without any action', async function () {
    this.timeout(90_000);
    const api = await twining();
    await api.whenIdle();
    const peer = process.env.TWINING_TEST_SYNC_PEER;
    assert.ok(peer, 'the run names the other clone');
    const file = vscode.Uri.file(path.join(firstFolder(), 'src', 'auth', 'jwt.ts'));
    await vscode.window.showTextDocument(file);
    const summary = `Token refresh races on the other clone ${Date.now()}`;
    await cli('post', peer, { entry_type: 'warning', summary, scope: 'src/auth/', agent_id: 'peer-agent' });
    const out = await syncPeer(peer);
    assert.match(out, /out: 1 entr/);
    const started = Date.now();
    // Nothing is asked of the window: its background sync (every 5 s in this run) brings it in.
    const shown = await waitFor(() => api.syncBar.shown.find(m => m.includes(summary)), { timeoutMs: 45_000, what: 'the sync notification' });
    assert.match(shown!, /peer-agent posted a warning on another clone \(synced from origin\)/);
    const diagnostic = await waitFor(() => vscode.languages.getDiagnostics(file).find(d => d.source === 'Twining' && d.message.includes(summary)), {
      timeoutMs: 15_000,
      what: 'the warning in Problems',
    });
    assert.ok(diagnostic);
    console.log(`[metric] the other clone's sync → notification and Problems entry here: ${Date.now() - started} ms`);
    const status = await api.folders.get(firstFolder())!.syncStatus();
    assert.equal(status.enabled, true);
    assert.equal(status.remote, 'origin');
    assert.equal(status.last_error, undefined);
  });
});
