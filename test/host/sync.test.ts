// Sync across clones in the real host: the window is one clone of a repository whose record syncs
// through a bare remote (scripts/sync-workspace.js); another clone posts a warning and syncs with
// the CLI, and the window shows it (a notification and the file's Problems entry) with no action by
// the user: the extension's background sync brings it in. Who is where: an agent session hooked in
// the other clone and its claim show here, on the session board and in the claim's tooltip, named
// with the other clone.
import * as assert from 'assert';
import * as path from 'path';
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { describeIn, firstFolder, waitFor } from './helpers';
import { cli, repoRoot, rows, tooltipOf, twining } from './twining';
import { claude } from '../support/hook-inputs';

/** A process as the host makes it: `node <script> args` in `cwd` with `input` on standard input. */
function runIn(cwd: string, script: string, args: string[], input = '', env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(repoRoot(), 'dist', script), ...args],
      { cwd, timeout: 30000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ...env } },
      (error, stdout, stderr) => (error ? reject(new Error(`${script} ${args[0]} in ${cwd}: ${stderr || error.message}`)) : resolve(stdout)),
    );
    child.stdin?.end(input);
  });
}

function syncPeer(peer: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [path.join(repoRoot(), 'dist', 'cli.js'), 'sync'],
      { cwd: peer, timeout: 30000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => (error ? reject(new Error(`twining sync in the other clone: ${stderr || error.message}`)) : resolve(stdout)),
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

  it("the other clone's agent session and claim show here, named with that clone", async function () {
    this.timeout(90_000);
    const api = await twining();
    const peer = process.env.TWINING_TEST_SYNC_PEER!;
    await new Promise<void>((resolve, reject) =>
      execFile('git', ['config', 'twining.sync.label', 'peer-laptop:peer'], { cwd: peer }, error => (error ? reject(new Error(error.message)) : resolve())),
    );
    const session = `peer-session-${Date.now()}`;
    const now = { TWINING_NOW: api.now().toISOString() };
    await runIn(
      peer,
      'hook.js',
      ['SessionStart', '--agent', 'peer-agent', '--host', 'claude-code'],
      JSON.stringify(claude(peer, session, 'SessionStart', { source: 'startup' })),
      now,
    );
    await runIn(
      peer,
      'hook.js',
      ['PostToolUse', '--agent', 'peer-agent', '--host', 'claude-code'],
      JSON.stringify(
        claude(peer, session, 'PostToolUse', {
          tool_name: 'Edit',
          tool_input: { file_path: path.join(peer, 'src', 'auth', 'jwt.ts') },
          tool_response: {},
          tool_use_id: 't1',
        }),
      ),
      now,
    );
    // The other clone's processes run on the window's (pinned) clock: its sessions are as recent there as here.
    await runIn(peer, 'cli.js', ['claim', '--paths', 'src/auth/jwt.ts', '--agent-id', 'peer-agent', '--reason', 'JWT rework on the laptop'], '', now);
    await syncPeer(peer, now);
    // The session board: the peer's session, labelled with its clone.
    const sessionRow = await waitFor(
      async () => {
        const group = (await rows(api.providers.agents)).find(r => r.label === 'Agent sessions');
        return group ? (await rows(api.providers.agents, group.node)).find(r => r.label === 'peer-agent') : undefined;
      },
      { timeoutMs: 45_000, what: "the other clone's session on the board" },
    );
    assert.match(sessionRow!.description, /on peer-laptop:peer/);
    assert.match(tooltipOf(api.providers.agents, sessionRow!), /On another clone: peer-laptop:peer/);
    // The claim under its holder: its row and tooltip name the holder's clone.
    const claimRow = await waitFor(
      async () => {
        const holder = (await rows(api.providers.agents)).find(r => r.label === 'peer-agent' && r.node.kind !== 'session');
        return holder ? (await rows(api.providers.agents, holder.node)).find(r => r.label === 'src/auth/jwt.ts') : undefined;
      },
      { timeoutMs: 30_000, what: "the other clone's claim in the Agents view" },
    );
    assert.match(claimRow!.description, /on peer-laptop:peer/);
    assert.match(tooltipOf(api.providers.agents, claimRow!), /On another clone: peer-laptop:peer/);
  });
});
