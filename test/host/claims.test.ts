// Claims in the real host: a claim written by another process (the CLI) gives its file an Explorer
// badge and tooltip at once, editing the file tells the user once, and the claim lapses live when
// its time runs out; the user's own claim from the command is badged as theirs and released by
// their handoff.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder, waitFor } from './helpers';
import { TwiningApi, cli, twining } from './twining';

describeIn(['single'], 'claims in the editor', () => {
  let api: TwiningApi;
  let root: string;
  const uriOf = (rel: string) => vscode.Uri.file(path.join(root, rel));
  const decoration = (rel: string) => api.claims.decorations.provideFileDecoration(uriOf(rel));

  before(async () => {
    api = await twining();
    root = firstFolder();
    fs.mkdirSync(path.join(root, 'claims-demo'), { recursive: true });
    fs.writeFileSync(path.join(root, 'claims-demo', 'jwt.ts'), 'export const jwt = 1;\n');
    fs.writeFileSync(path.join(root, 'claims-demo', 'mine.ts'), 'export const mine = 1;\n');
    await api.whenIdle();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    fs.rmSync(path.join(root, 'claims-demo'), { recursive: true, force: true });
  });

  it("another process's claim appears as a badge and tooltip, editing the file tells the user once, and the claim lapses live", async function () {
    this.timeout(60_000);
    const ttl = 20_000;
    const result = (await cli('claim', root, { agent_id: 'other-agent', paths: ['claims-demo/jwt.ts'], reason: 'rotating keys', ttl_ms: ttl }, [
      '--now',
      api.claims.now().toISOString(),
    ])) as { granted: boolean };
    assert.equal(result.granted, true);
    const badge = await waitFor(() => decoration('claims-demo/jwt.ts'), { timeoutMs: 5000, what: 'the Explorer badge' });
    assert.equal(badge!.badge, '🔒');
    assert.match(badge!.tooltip ?? '', /Claimed by other-agent: rotating keys \(claims-demo\/jwt\.ts, until /);
    assert.equal(badge!.color?.id, 'list.warningForeground');
    assert.equal(decoration('claims-demo/mine.ts'), undefined, 'an unclaimed sibling has no badge');
    assert.equal(decoration('claims-demo'), undefined, 'no badge on the folder of a claimed file');

    const before = api.claims.notices.length;
    const editor = await vscode.window.showTextDocument(uriOf('claims-demo/jwt.ts'));
    await editor.edit(b => b.insert(new vscode.Position(0, 0), '// edited\n'));
    await waitFor(() => api.claims.notices.length > before, { timeoutMs: 3000, what: 'the edit notice' });
    assert.match(api.claims.notices[before], /^claims-demo\/jwt\.ts is claimed by other-agent until .*: rotating keys$/);
    await editor.edit(b => b.insert(new vscode.Position(0, 0), '// again\n'));
    await new Promise(resolve => setTimeout(resolve, 300));
    assert.equal(api.claims.notices.length, before + 1, 'one message per claim, not one per keystroke');

    // Nobody writes: the model's own timer sees the claim lapse.
    await waitFor(() => decoration('claims-demo/jwt.ts') === undefined, { timeoutMs: ttl + 10_000, what: 'the badge to go when the claim lapses' });
  });

  it("the user's claim from the command is badged as theirs and released by their handoff", async () => {
    const result = await vscode.commands.executeCommand<{ granted: boolean }>('twining.claimPath', { paths: ['claims-demo/mine.ts'], reason: 'host test' });
    assert.equal(result.granted, true);
    const badge = await waitFor(() => decoration('claims-demo/mine.ts'), { timeoutMs: 5000, what: 'the badge of the own claim' });
    assert.match(badge!.tooltip ?? '', new RegExp(`Claimed by you \\(${api.claims.you()}\\): host test`));
    assert.equal(badge!.color, undefined, 'the own claim is not coloured as a warning');
    const engine = [...api.folders.values()][0];
    await engine.handoff({ source_agent: api.claims.you(), scope: 'claims-demo/', summary: 'claims host test', results: [] });
    await waitFor(() => decoration('claims-demo/mine.ts') === undefined, { timeoutMs: 5000, what: 'the handoff to release the claim' });
  });
});
