// Claims in the real host: a claim written by another process (the CLI) gives its file an Explorer
// badge and tooltip at once, is listed under its holder in the Agents view and on the file in the
// Context view, editing the file tells the user once, and the claim lapses live when its time
// runs out (the badge and the Context row go, the Agents view says "lapsed"); the user's own claim
// from the command is badged as theirs, released from its row in the Agents view, and a claim
// of theirs is released by their handoff.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder, waitFor } from './helpers';
import { Row, TwiningApi, cli, rows, tooltipOf, twining } from './twining';

describeIn(['single'], 'claims in the editor', () => {
  let api: TwiningApi;
  let root: string;
  const uriOf = (rel: string) => vscode.Uri.file(path.join(root, rel));
  const decoration = (rel: string) => api.claims.decorations.provideFileDecoration(uriOf(rel));
  /** The rows under the agent row `agentId` in the Agents view (registered or not). */
  const claimRowsOf = async (agentId: string): Promise<Row[] | undefined> => {
    const agent = (await rows(api.providers.agents)).find(r => r.label === agentId);
    return agent ? rows(api.providers.agents, agent.node) : undefined;
  };
  /** The Context view's claim rows, once it shows `scope`. */
  const contextClaimRows = async (scope: string): Promise<Row[] | undefined> => {
    const top = await rows(api.providers.context);
    return api.providers.context.last?.scope === scope ? top.filter(r => r.node.kind === 'claim') : undefined;
  };

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

    // The Agents view lists it under its holder (not registered: a row of its own).
    const held = await waitFor(async () => (await claimRowsOf('other-agent'))?.find(r => r.label === 'claims-demo/jwt.ts'), {
      what: 'the claim in the Agents view',
    });
    assert.match(held!.description, /^until .* · rotating keys$/);
    assert.equal(held!.icon, 'lock');
    assert.equal(held!.item.contextValue, 'twining.claim.live', 'another agent’s claim: Open Claim, no Release');
    assert.match(tooltipOf(api.providers.agents, held!), /claimed by other-agent[\s\S]*rotating keys[\s\S]*Until /);

    const before = api.claims.notices.length;
    const editor = await vscode.window.showTextDocument(uriOf('claims-demo/jwt.ts'));
    // The Context view shows the claim on the active file: holder, what, until when, why.
    const onFile = await waitFor(
      async () => {
        await api.whenIdle();
        const found = await contextClaimRows('claims-demo/jwt.ts');
        return found?.length ? found : undefined;
      },
      { what: 'the claim in the Context view' },
    );
    assert.equal(onFile![0].label, 'Claimed by other-agent');
    assert.match(onFile![0].description, /^claims-demo\/jwt\.ts · until .* · rotating keys$/);
    await editor.edit(b => b.insert(new vscode.Position(0, 0), '// edited\n'));
    await waitFor(() => api.claims.notices.length > before, { timeoutMs: 3000, what: 'the edit notice' });
    assert.match(api.claims.notices[before], /^claims-demo\/jwt\.ts is claimed by other-agent until .*: rotating keys$/);
    await editor.edit(b => b.insert(new vscode.Position(0, 0), '// again\n'));
    await new Promise(resolve => setTimeout(resolve, 300));
    assert.equal(api.claims.notices.length, before + 1, 'one message per claim, not one per keystroke');

    // Nobody writes: the model's own timer sees the claim lapse, and every surface shows it.
    await waitFor(() => decoration('claims-demo/jwt.ts') === undefined, { timeoutMs: ttl + 10_000, what: 'the badge to go when the claim lapses' });
    const lapsed = await waitFor(async () => (await claimRowsOf('other-agent'))?.find(r => r.description.startsWith('lapsed')), {
      what: 'the Agents view to show the claim as lapsed',
    });
    assert.match(lapsed!.description, /^lapsed \(expired\) · was until .* · rotating keys$/);
    assert.equal(lapsed!.item.contextValue, 'twining.claim.lapsed');
    assert.deepEqual(await contextClaimRows('claims-demo/jwt.ts'), [], 'a lapsed claim is not shown on the file');
  });

  it("the user's claim from the command is badged as theirs and released by their handoff", async () => {
    const result = await vscode.commands.executeCommand<{ granted: boolean }>('twining.claimPath', { paths: ['claims-demo/mine.ts'], reason: 'host test' });
    assert.equal(result.granted, true);
    const badge = await waitFor(() => decoration('claims-demo/mine.ts'), { timeoutMs: 5000, what: 'the badge of the own claim' });
    assert.match(badge!.tooltip ?? '', new RegExp(`Claimed by you \\(${api.claims.you()}\\): host test`));
    assert.equal(badge!.color, undefined, 'the own claim is not coloured as a warning');
    // Its row under the user in the Agents view carries Release, which releases it.
    const mine = await waitFor(
      async () => (await claimRowsOf(api.claims.you()))?.find(r => r.label === 'claims-demo/mine.ts' && r.description.startsWith('until')),
      {
        what: 'the own claim in the Agents view',
      },
    );
    assert.equal(mine!.item.contextValue, 'twining.claim.live.mine');
    const released = await vscode.commands.executeCommand<{ released: { target: string }[] }>('twining.releaseClaim', mine!.node);
    assert.deepEqual(
      released.released.map(c => c.target),
      ['claims-demo/mine.ts'],
    );
    await waitFor(() => decoration('claims-demo/mine.ts') === undefined, { timeoutMs: 5000, what: 'the badge to go on release' });
    assert.equal(
      (await claimRowsOf(api.claims.you()))?.find(r => r.label === 'claims-demo/mine.ts'),
      undefined,
      'released: no longer listed',
    );
    // Claimed again, then released by the user's handoff over its folder.
    await vscode.commands.executeCommand('twining.claimPath', { paths: ['claims-demo/mine.ts'], reason: 'host test' });
    await waitFor(() => decoration('claims-demo/mine.ts'), { timeoutMs: 5000, what: 'the badge of the claim made again' });
    const engine = [...api.folders.values()][0];
    await engine.handoff({ source_agent: api.claims.you(), scope: 'claims-demo/', summary: 'claims host test', results: [] });
    await waitFor(() => decoration('claims-demo/mine.ts') === undefined, { timeoutMs: 5000, what: 'the handoff to release the claim' });
  });
});
