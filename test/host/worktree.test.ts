// The `worktree` run: a window on a linked git worktree (agent-b, beside the repository) shows the
// primary worktree's shared record (scripts/workspace.js, makeWorktreeWorkspace: alice claimed
// src/auth/jwt.ts and posted a warning on it from the other worktree, agent-a, before the window
// opened). A warning posted later from agent-a arrives without a reload, and agent-b's own
// checked-out .twining/ is never written.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import * as vscode from 'vscode';
import { describeIn, openFile, waitFor } from './helpers';
import { TwiningApi, cli, rows, twining } from './twining';
import { recordLine } from '../../src/extension/views/record-message';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { WORKTREE_COPY_LINE } = require('../../scripts/workspace.js') as { WORKTREE_COPY_LINE: string };

const JWT = 'src/auth/jwt.ts';
const LIMIT_MS = 5000;

describeIn(['worktree'], 'a window on a linked git worktree', () => {
  let api: TwiningApi;
  let agentB: string;
  let primary: string;
  let agentA: string;

  before(async () => {
    api = await twining();
    agentB = vscode.workspace.workspaceFolders![0].uri.fsPath;
    primary = fs.realpathSync(path.join(path.dirname(agentB), 'shop'));
    agentA = path.join(primary, '.claude', 'worktrees', 'agent-a');
    await api.whenIdle();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('twining.followActiveEditor');
  });

  /** The Context view's warnings once it shows the file. */
  const contextWarnings = async () => {
    await api.whenIdle();
    await rows(api.providers.context);
    const last = api.providers.context.last;
    return last?.scope === JWT ? last.context.warnings.map(w => w.summary) : undefined;
  };

  it("shows the primary's shared record, says so, and shows the claim and warning made in another worktree", async () => {
    const folder = api.model.all()[0];
    assert.strictEqual(folder.dir, path.join(primary, '.twining'));
    assert.strictEqual(folder.route.linked, true);
    assert.strictEqual(folder.route.branch, 'agent-b');
    assert.match(recordLine(folder) ?? '', /agent-b \(worktree agent-b on branch agent-b\): showing the shared record of shop/);
    const badge = await waitFor(() => api.claims.decorations.provideFileDecoration(vscode.Uri.file(path.join(agentB, JWT))), {
      timeoutMs: LIMIT_MS,
      what: 'the Explorer badge of the claim made in agent-a',
    });
    assert.match(badge!.tooltip ?? '', /Claimed by alice: moving tokens to v2/);
    await openFile(JWT);
    const warnings = await waitFor(contextWarnings, { what: 'the Context view showing src/auth/jwt.ts' });
    assert.ok(warnings!.includes('Tokens move to the v2 format'), warnings!.join(' | '));
  });

  it('a warning posted later from another worktree arrives without a reload; this worktree\u2019s .twining/ stays untouched', async () => {
    const summary = `Rotate the signing key first ${Date.now()}`;
    await cli('post', agentA, { entry_type: 'warning', summary, scope: JWT, agent_id: 'alice' }, ['--now', api.now().toISOString()]);
    const warnings = await waitFor(async () => ((await contextWarnings())?.includes(summary) ? await contextWarnings() : undefined), {
      timeoutMs: LIMIT_MS,
      what: 'the warning posted in agent-a to reach the window on agent-b',
    });
    assert.ok(warnings!.includes(summary));
    // The one change in agent-b's own copy is the line another tool wrote before the window opened.
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', '.twining'], { cwd: agentB, encoding: 'utf8' });
    assert.strictEqual(status, ' M .twining/blackboard.jsonl\n', 'agent-b\u2019s checked-out .twining/ is not written by Twining');
    const added = execFileSync('git', ['diff', '--unified=0', '--', '.twining'], { cwd: agentB, encoding: 'utf8' })
      .split('\n')
      .filter(l => l.startsWith('+') && !l.startsWith('+++'));
    assert.deepStrictEqual(added, [`+${WORKTREE_COPY_LINE}`], 'agent-b\u2019s checked-out .twining/ is not written by Twining');
  });

  it('what another tool wrote into this worktree\u2019s own copy is folded into the shared record when the window opens, once', async () => {
    const id = JSON.parse(WORKTREE_COPY_LINE).id as string;
    const shared = () =>
      fs
        .readFileSync(path.join(primary, '.twining', 'blackboard.jsonl'), 'utf8')
        .split('\n')
        .filter(l => l.includes(id)).length;
    await waitFor(() => (shared() > 0 ? true : undefined), { timeoutMs: LIMIT_MS, what: 'the copy\u2019s finding folded into the shared record' });
    assert.strictEqual(shared(), 1, 'folded once');
  });
});
