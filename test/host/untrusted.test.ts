// The untrusted run: the workspace is not trusted, so the views work read-only and every writing
// command explains why it does nothing.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder, twiningDir, waitFor } from './helpers';
import { TwiningApi, readLines, rejects, rows, twining } from './twining';

function snapshotOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** Dismiss, reconsider, override and promote, with ids from the fixture. */
function lifecycleWrites(): [string, object][] {
  const decision = (JSON.parse(fs.readFileSync(path.join(twiningDir(), 'decisions', 'index.json'), 'utf8')) as { id: string }[])[0].id;
  const warning = readLines(path.join(twiningDir(), 'blackboard.jsonl')).find(e => e.entry_type === 'warning')!.id;
  return [
    ['twining.dismissEntry', { ids: [warning], reason: 'r' }],
    ['twining.reconsiderDecision', { decision_id: decision, new_context: 'c' }],
    ['twining.overrideDecision', { decision_id: decision, reason: 'r' }],
    ['twining.promoteDecision', { decision_ids: [decision] }],
  ];
}

describeIn(['untrusted'], 'untrusted workspace', () => {
  let api: TwiningApi;

  before(async () => {
    api = await twining();
    await api.whenIdle();
  });

  it('the workspace is untrusted and the engine read-only', async () => {
    assert.strictEqual(vscode.workspace.isTrusted, false);
    assert.strictEqual(api.model.isTrusted, false);
    const engine = api.folders.get(firstFolder())!;
    await rejects(engine.post({ entry_type: 'warning', summary: 'x' }), /read-only/);
  });

  it('the views still show the data', async () => {
    assert.strictEqual((await rows(api.providers.agents)).length, 4);
    assert.strictEqual((await rows(api.providers.delegations)).length, 2);
    assert.strictEqual((await rows(api.providers.handoffs)).length, 2);
  });

  it('every writing command refuses with an explanation, and nothing is written', async () => {
    const before = snapshotOf(twiningDir());
    const writes: [string, object][] = [
      ['twining.createHandoff', { summary: 's', results: [] }],
      ['twining.acknowledgeHandoff', { handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4W' }],
      ['twining.postDelegation', { summary: 's', required_capabilities: ['x'] }],
      ['twining.registerAgent', { agent_id: 'x' }],
      ['twining.postWarning', { summary: 's' }],
      ['twining.postFinding', { summary: 's' }],
      ['twining.recordDecision', { domain: 'd', scope: 'project', summary: 's', context: 'c', rationale: 'r' }],
      ['twining.initialize', {}],
      ...lifecycleWrites(),
    ];
    for (const [command, args] of writes) {
      await rejects(vscode.commands.executeCommand(command, args), /untrusted workspace.*Trust the workspace/);
    }
    assert.deepStrictEqual(snapshotOf(twiningDir()), before);
  });

  it('writing language model tools refuse; reading ones answer', async function () {
    const lm = (vscode as { lm?: typeof vscode.lm }).lm;
    if (!lm?.tools.some(t => t.name === 'twining_post')) this.skip(); // the host hides language model tools
    const before = fs.readFileSync(path.join(twiningDir(), 'blackboard.jsonl'), 'utf8');
    await rejects(
      lm.invokeTool('twining_post', { input: { entry_type: 'warning', summary: 'x' }, toolInvocationToken: undefined }),
      /read-only in an untrusted workspace/,
    );
    assert.strictEqual(fs.readFileSync(path.join(twiningDir(), 'blackboard.jsonl'), 'utf8'), before);
    const status = await lm.invokeTool('twining_status', { input: {}, toolInvocationToken: undefined });
    assert.strictEqual(JSON.parse((status.content[0] as vscode.LanguageModelTextPart).value).registered_agents, 4);
  });

  it("the Context view shows the active file's decisions and warnings", async () => {
    const file = 'src/auth/jwt.ts';
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(firstFolder(), file)));
    await vscode.window.showTextDocument(doc);
    const warnings = readLines(path.join(twiningDir(), 'blackboard.jsonl')).filter(e => e.entry_type === 'warning' && e.scope === file);
    const shown = await waitFor(
      async () => {
        await api.whenIdle();
        await rows(api.providers.context);
        const last = api.providers.context.last;
        return last?.scope === file ? last.context : undefined;
      },
      { what: 'the Context view showing jwt.ts' },
    );
    assert.ok(shown!.decisions.length >= 2, 'its decisions');
    assert.ok(warnings.length >= 1 && warnings.every(w => shown!.warnings.some(x => x.id === w.id)), 'its warnings');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('reading commands still work', async () => {
    const status = await vscode.commands.executeCommand<{ registered_agents: number }>('twining.showStatus', {});
    assert.strictEqual(status.registered_agents, 4);
    const verify = await vscode.commands.executeCommand<{ intact: boolean }>('twining.verifyHandoff', { handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4W' });
    assert.strictEqual(verify.intact, true);
  });
});
