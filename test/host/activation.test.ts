// Activation on a copy of the reference folder and the three views' contents, read through the
// exported tree data providers. TWINING_NOW pins the clock at 02:33:00, shortly after the fixture
// was written, so every agent is active and both delegations are open.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { describeIn, firstFolder } from './helpers';
import { TwiningApi, rows, tooltipOf, twining } from './twining';

describeIn(['single'], 'activation and views', () => {
  let api: TwiningApi;

  before(async () => {
    api = await twining();
    await api.whenIdle();
  });

  // How quick is measured by bench/activation.js (medians on a quiet machine), not by a time limit
  // here, which a loaded CI machine would break without anything being wrong.
  it('reports its activation time', () => {
    assert.strictEqual(typeof api.activationMs, 'number');
    assert.ok(Number.isFinite(api.activationMs) && api.activationMs >= 0, `activate() reported ${api.activationMs} ms`);
    assert.ok(Number.isFinite(api.bundleLoadMs) && api.bundleLoadMs >= 0, `loading the bundle reported ${api.bundleLoadMs} ms`);
    console.log(`[metric] activation: ${api.activationMs.toFixed(1)} ms in activate(), after ${api.bundleLoadMs.toFixed(1)} ms loading the bundle`);
    const engine = api.engineLoadMs();
    assert.ok(engine !== undefined, 'the engine is loaded once the first reads are done');
    console.log(`[metric] engine (dist/core.js) loaded after activation, on first use, in ${engine.toFixed(1)} ms`);
  });

  it('runs on the pinned clock (TWINING_NOW + elapsed)', () => {
    const now = api.now().getTime();
    const pinned = Date.parse(process.env.TWINING_NOW ?? '');
    assert.ok(!Number.isNaN(pinned), 'TWINING_NOW is set');
    assert.ok(now >= pinned && now < pinned + 120_000, `engine clock ${api.now().toISOString()}`);
  });

  it('has one engine, for the folder with .twining/', () => {
    assert.deepStrictEqual([...api.folders.keys()], [firstFolder()]);
    assert.ok(api.model.isTrusted);
  });

  it('Agents: the four agents, active (green filled circle), role and capabilities in the description', async () => {
    const agents = await rows(api.providers.agents);
    assert.deepStrictEqual(
      agents.map(r => r.label),
      ['backend-dev', 'frontend-dev', 'reviewer', 'tester'],
    );
    for (const r of agents) {
      assert.strictEqual(r.icon, 'circle-filled', r.label);
      assert.strictEqual(r.color, 'charts.green', r.label);
    }
    assert.strictEqual(agents[0].description, 'active · implementer · typescript, api, database');
    assert.strictEqual(agents[3].description, 'active · tester · testing, typescript');
    const tip = tooltipOf(api.providers.agents, agents[0]);
    assert.match(tip, /Registered: 2026-11-22 02:32:11 UTC \((\d+ min ago|just now)\)/);
    // Its latest blackboard entry (the handoff's status line, 02:32:12.386) counts as activity.
    assert.match(tip, /Last activity: 2026-11-22 02:32:12 UTC \([^)]*\), a blackboard entry$/);
    assert.doesNotMatch(tip, /Registration refreshed/);
    assert.match(tip, /Builds server-side endpoints and persistence/);
  });

  it('Delegations: both needs open, soonest expiry first, urgency icon, time left and capabilities', async () => {
    const needs = await rows(api.providers.delegations);
    assert.deepStrictEqual(
      needs.map(r => r.label),
      ['Write integration tests for the JWT refresh flow', 'Review the API rate-limiting design'],
    );
    assert.strictEqual(needs[0].icon, 'flame');
    assert.strictEqual(needs[0].color, 'charts.red');
    assert.match(needs[0].description, /^expires in [34] min · testing, typescript$/);
    assert.strictEqual(needs[1].icon, 'arrow-down');
    assert.match(needs[1].description, /^expires in 3 h 5\d min · review, security$/);
    assert.ok(!needs.some(r => r.label.startsWith('Expired')), 'no Expired group while both are open');
    const tip = tooltipOf(api.providers.delegations, needs[0]);
    assert.match(tip, /Urgency: high/);
    assert.match(tip, /Expires: 2026-11-22 02:37:12 UTC/);
  });

  it('Delegations: suggested agents with score and matched capabilities, tester first with score 1', async () => {
    const needs = await rows(api.providers.delegations);
    const suggested = await rows(api.providers.delegations, needs[0].node);
    assert.strictEqual(suggested[0].label, 'tester');
    assert.strictEqual(suggested[0].description, '1.00 · testing, typescript');
    const node = suggested[0].node;
    assert.ok(node.kind === 'suggestion' && node.agent.total_score === 1);
    // backend-dev and frontend-dev match one of two: 0.7 × 0.5 + 0.3 = 0.65.
    assert.deepStrictEqual(
      suggested.slice(1, 3).map(r => r.description),
      ['0.65 · typescript', '0.65 · typescript'],
    );
    const review = await rows(api.providers.delegations, needs[1].node);
    assert.strictEqual(review[0].label, 'reviewer');
    assert.strictEqual(review[0].description, '1.00 · review, security');
  });

  it('Handoffs: newest first, the unacknowledged one marked, results and snapshot as children', async () => {
    const handoffs = await rows(api.providers.handoffs);
    assert.deepStrictEqual(
      handoffs.map(r => r.label),
      ['Login form ready for review', 'JWT auth middleware implemented; needs tests and a security review'],
    );
    const [acked, open] = handoffs;
    assert.strictEqual(acked.icon, 'mail-read');
    assert.strictEqual(acked.item.contextValue, 'twining.handoff.acknowledged');
    assert.strictEqual(open.icon, 'mail');
    assert.strictEqual(open.color, 'charts.blue');
    assert.strictEqual(open.item.contextValue, 'twining.handoff.unacknowledged');
    assert.match(open.description, /^new · backend-dev → any agent · src\/auth\/ · /);
    assert.match(acked.description, /^frontend-dev → reviewer · /);

    const children = await rows(api.providers.handoffs, open.node);
    assert.deepStrictEqual(
      children.map(r => r.label),
      ['Implemented authenticate() middleware and token signing', 'Key rotation job', 'Context snapshot'],
    );
    assert.strictEqual(children[0].icon, 'pass');
    assert.strictEqual(children[0].description, 'completed · 2 artifacts');
    assert.strictEqual(children[1].description, 'partial · notes');
    assert.strictEqual(children[2].description, '2 decisions · 1 warning · 2 findings');

    const snapshot = await rows(api.providers.handoffs, children[2].node);
    assert.deepStrictEqual(
      snapshot.map(r => r.label),
      [
        'Use stateless JWT bearer tokens for API authentication',
        'Sign JWTs with RS256 and rotate keys every 30 days',
        'verifyToken does not check the exp claim',
        'bcrypt cost 12 adds ~250ms per login',
        'No tests cover malformed JWTs',
      ],
    );
    assert.deepStrictEqual(
      snapshot.map(r => r.item.command?.command),
      Array(5).fill('twining.openRecord'),
    );
    assert.deepStrictEqual(snapshot[0].item.command?.arguments?.[0], { type: 'decision', id: '01M80HHJN7TF8W1N7EW8PHV7MT', folder: firstFolder() });
  });

  it('Handoffs: drift is computed in the background, and there is none yet', async () => {
    await api.whenIdle();
    const handoffs = await rows(api.providers.handoffs);
    for (const r of handoffs) {
      assert.ok(r.node.kind === 'handoff' && r.node.verify, `drift of "${r.label}" computed`);
      assert.strictEqual(r.node.verify.drifted, false);
      assert.doesNotMatch(r.description, /drift/);
    }
    assert.match(tooltipOf(api.providers.handoffs, handoffs[1]), /No drift/);
  });

  it('the status bar counts no handoff for the user yet', async () => {
    await api.whenIdle();
    assert.strictEqual(api.statusBar.count, 0);
    assert.match(api.agentId(), /^user-[a-z0-9._-]+$/);
  });

  it('opens a snapshot entry as a readable document', async () => {
    await vscode.commands.executeCommand('twining.openRecord', { type: 'entry', id: '01M80HHK5EACAY1D2CS04B635E', folder: firstFolder() });
    const doc = vscode.window.activeTextEditor?.document;
    assert.strictEqual(doc?.uri.scheme, 'twining');
    assert.match(doc.getText(), /^# Warning: verifyToken does not check the exp claim/);
    assert.match(doc.getText(), /Expired tokens are accepted/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
