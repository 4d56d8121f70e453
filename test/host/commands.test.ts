// Every command run with an argument object (the fields of its core operation), checked on disk
// and in the views; argument validation; Create Handoff taking its scope from the active editor;
// drift showing after a decision is superseded.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder, openFile, readJson, twiningDir, waitFor } from './helpers';
import { TwiningApi, countRefreshes, lastLine, readLines, rejects, rows, twining } from './twining';

const RS256 = '01M80HHK1QX1QEC06YGTWYXEZJ';
const JWT_HANDOFF = '01M80HHKAVJT8FG2B08Q4NGZ4W';

function run<T = unknown>(command: string, args?: object): Thenable<T> {
  return vscode.commands.executeCommand<T>(command, args);
}

describeIn(['single'], 'commands with argument objects', () => {
  let api: TwiningApi;
  let dir: string;
  let created: { id: string; scope?: string };

  before(async () => {
    api = await twining();
    dir = twiningDir();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Register Agent writes the registry (capabilities normalised) and the Agents view shows it', async () => {
    const record = await run<{ agent_id: string; capabilities: string[] }>('twining.registerAgent', {
      agent_id: 'qa-bot',
      capabilities: ['Testing', ' E2E '],
      role: 'tester',
    });
    assert.deepStrictEqual(record.capabilities, ['testing', 'e2e']);
    const registry = readJson<{ agent_id: string; capabilities: string[]; role?: string }[]>(path.join(dir, 'agents', 'registry.json'));
    const stored = registry.find(a => a.agent_id === 'qa-bot');
    assert.deepStrictEqual(stored && { capabilities: stored.capabilities, role: stored.role }, { capabilities: ['testing', 'e2e'], role: 'tester' });
    const agents = await rows(api.providers.agents);
    assert.ok(agents.some(r => r.label === 'qa-bot' && r.description === 'active · tester · testing, e2e'));
  });

  it("Register Agent defaults agent_id to the user's agent id", async () => {
    const record = await run<{ agent_id: string }>('twining.registerAgent', { capabilities: ['review'] });
    assert.strictEqual(record.agent_id, api.agentId());
    const agents = await rows(api.providers.agents);
    const me = agents.find(r => r.label === api.agentId());
    assert.ok(me, 'the user appears in the Agents view');
    assert.match(me.description, /^you · active/);
  });

  it('Discover Agents returns the core ranking', async () => {
    const result = await run<{ agents: { agent_id: string; total_score: number }[] }>('twining.discoverAgents', {
      required_capabilities: ['testing', 'typescript'],
    });
    assert.strictEqual(result.agents[0].agent_id, 'tester');
    assert.strictEqual(result.agents[0].total_score, 1);
  });

  it('Post Warning appends a warning line by the user', async () => {
    const result = await run<{ id: string }>('twining.postWarning', { summary: 'Refresh tokens are never revoked', scope: 'src/auth/', tags: ['security'] });
    const line = lastLine(path.join(dir, 'blackboard.jsonl'));
    assert.deepStrictEqual(
      { id: line.id, entry_type: line.entry_type, summary: line.summary, scope: line.scope, agent_id: line.agent_id, tags: line.tags },
      { id: result.id, entry_type: 'warning', summary: 'Refresh tokens are never revoked', scope: 'src/auth/', agent_id: api.agentId(), tags: ['security'] },
    );
  });

  it("a command's write reloads the affected view once: the watcher's later event for the same write does not reload it again", async () => {
    await api.whenIdle();
    const counts = await countRefreshes(
      api,
      async () => {
        const before = Date.now();
        await run('twining.postDelegation', { summary: 'Counted once', required_capabilities: ['css'], urgency: 'low' });
        // The watcher sees blackboard.jsonl change some 150 ms later; its report is handled within the settle time.
        await waitFor(() => api.model.lastEventAt() >= before, { timeoutMs: 5000, intervalMs: 10, what: "the watcher's event for the write" });
      },
      800,
    );
    // Agents reload too: the need is the user's (registered above) activity.
    assert.deepStrictEqual(counts, { agents: 1, delegations: 1, handoffs: 0 });
  });

  it('Post Finding appends a finding; a different entry_type is refused', async () => {
    await run('twining.postFinding', { summary: 'Token refresh takes 40 ms', detail: 'measured locally' });
    const line = lastLine(path.join(dir, 'blackboard.jsonl'));
    assert.deepStrictEqual([line.entry_type, line.summary, line.detail, line.scope], ['finding', 'Token refresh takes 40 ms', 'measured locally', 'project']);
    const before = fs.readFileSync(path.join(dir, 'blackboard.jsonl'), 'utf8');
    await rejects(run('twining.postFinding', { entry_type: 'warning', summary: 'x' }), /entry_type/);
    assert.strictEqual(fs.readFileSync(path.join(dir, 'blackboard.jsonl'), 'utf8'), before);
  });

  it('Post Delegation appends a need and the Delegations view lists it with its best agent', async () => {
    const result = await run<{ entry_id: string; suggested_agents: { agent_id: string }[] }>('twining.postDelegation', {
      summary: 'Security review of the refresh endpoint',
      required_capabilities: ['review', 'security'],
      urgency: 'normal',
      scope: 'src/auth/',
    });
    assert.strictEqual(result.suggested_agents[0].agent_id, 'reviewer');
    const line = lastLine(path.join(dir, 'blackboard.jsonl'));
    assert.strictEqual(line.entry_type, 'need');
    assert.strictEqual(JSON.parse(String(line.detail)).type, 'delegation');
    assert.deepStrictEqual(line.tags, ['delegation', 'normal']);
    const needs = await rows(api.providers.delegations);
    const row = needs.find(r => r.label === 'Security review of the refresh endpoint');
    assert.ok(row, 'listed');
    assert.match(row.description, /^expires in (29|30) min · review, security$/);
  });

  it('Record Decision writes the decision file and the index', async () => {
    const result = await run<{ id: string }>('twining.recordDecision', {
      domain: 'testing',
      scope: 'src/auth/',
      summary: 'Cover token refresh with integration tests',
      context: 'Refresh is the riskiest path.',
      rationale: 'Unit tests miss the cookie handling.',
    });
    assert.ok(fs.existsSync(path.join(dir, 'decisions', `${result.id}.json`)));
    const index = readJson<{ id: string; status: string }[]>(path.join(dir, 'decisions', 'index.json'));
    assert.strictEqual(index.find(d => d.id === result.id)?.status, 'active');
    assert.strictEqual(readJson<{ agent_id: string }>(path.join(dir, 'decisions', `${result.id}.json`)).agent_id, api.agentId());
  });

  it('argument objects are validated by the core schemas, with errors naming the field; nothing is written', async () => {
    const handoffIndex = path.join(dir, 'handoffs', 'index.jsonl');
    const before = fs.readFileSync(handoffIndex, 'utf8');
    await rejects(run('twining.createHandoff', { summary: '', results: [] }), /summary/);
    await rejects(run('twining.createHandoff', { summary: 'x', results: 'none' }), /results/);
    await rejects(run('twining.createHandoff', { summary: 'x', results: [{ description: 'y', status: 'done' }] }), /results\[0\]\.status/);
    await rejects(run('twining.createHandoff', { summary: 'x', results: [], colour: 'red' }), /unknown field "colour"/);
    await rejects(run('twining.acknowledgeHandoff', { handoff_id: 'nope' }), /handoff_id/);
    await rejects(run('twining.postWarning', { summary: 'y'.repeat(201) }), /summary.*200/);
    await rejects(run('twining.registerAgent', { agent_id: 'a/b' }), /agent_id/);
    await rejects(run('twining.createHandoff', { summary: 'x', results: [], folder: '/definitely/not/here' }), /folder/);
    assert.strictEqual(fs.readFileSync(handoffIndex, 'utf8'), before);
  });

  it("Create Handoff without scope takes the active editor's file, and stores the snapshot previewSnapshot gives", async () => {
    await openFile('src/auth/jwt.ts');
    const engine = api.folders.get(firstFolder())!;
    const preview = await engine.previewSnapshot('src/auth/jwt.ts');
    const record = await run<{ id: string; scope?: string; source_agent: string; target_agent?: string; context_snapshot: unknown }>('twining.createHandoff', {
      summary: 'Refresh flow implemented; needs review',
      results: [{ description: 'Implemented refresh endpoint', status: 'completed', artifacts: ['src/auth/jwt.ts'] }],
      target_agent: api.agentId(),
    });
    created = record;
    assert.strictEqual(record.scope, 'src/auth/jwt.ts');
    const stored = readJson<Record<string, unknown>>(path.join(dir, 'handoffs', `${record.id}.json`));
    assert.strictEqual(stored.scope, 'src/auth/jwt.ts');
    assert.strictEqual(stored.source_agent, api.agentId());
    assert.strictEqual(stored.target_agent, api.agentId());
    assert.deepStrictEqual(stored.context_snapshot, preview);
    // The warning posted above (scope src/auth/) is in the snapshot of src/auth/jwt.ts.
    assert.strictEqual(preview.warning_ids.length, 2);
    const line = readLines(path.join(dir, 'handoffs', 'index.jsonl')).find(l => l.id === record.id);
    assert.strictEqual(line?.acknowledged, false);
  });

  it('the new handoff tops the view, marked for the user, and the status bar counts it', async () => {
    await api.whenIdle();
    const [top] = await rows(api.providers.handoffs);
    assert.strictEqual(top.label, 'Refresh flow implemented; needs review');
    assert.strictEqual(top.icon, 'bell-dot');
    assert.strictEqual(top.color, 'charts.orange');
    assert.match(top.description, /^for you · /);
    assert.strictEqual(top.item.contextValue, 'twining.handoff.unacknowledged.forYou');
    assert.strictEqual(api.statusBar.count, 1);
  });

  it('Create Handoff with scope null has no scope', async () => {
    const record = await run<{ id: string }>('twining.createHandoff', { summary: 'Whole-project notes', results: [], scope: null });
    const stored = readJson<Record<string, unknown>>(path.join(dir, 'handoffs', `${record.id}.json`));
    assert.ok(!('scope' in stored));
  });

  it('Verify Handoff reports no drift for a fresh handoff', async () => {
    const result = await run<{ drifted: boolean; intact: boolean }>('twining.verifyHandoff', { handoff_id: created.id });
    assert.deepStrictEqual([result.drifted, result.intact], [false, true]);
  });

  it('Acknowledge Handoff (argument object) marks file and index, and the status bar drops to zero', async () => {
    const result = await run<{ acknowledged_by: string }>('twining.acknowledgeHandoff', { handoff_id: created.id });
    assert.strictEqual(result.acknowledged_by, api.agentId());
    assert.strictEqual(readJson<Record<string, unknown>>(path.join(dir, 'handoffs', `${created.id}.json`)).acknowledged_by, api.agentId());
    assert.strictEqual(readLines(path.join(dir, 'handoffs', 'index.jsonl')).find(l => l.id === created.id)?.acknowledged, true);
    await api.whenIdle();
    assert.strictEqual(api.statusBar.count, 0);
    const row = (await rows(api.providers.handoffs)).find(r => r.label === 'Refresh flow implemented; needs review');
    assert.strictEqual(row?.icon, 'mail-read');
  });

  it('Acknowledge Handoff from the tree element (the inline action) uses that element', async () => {
    const row = (await rows(api.providers.handoffs)).find(r => r.node.kind === 'handoff' && r.node.line.id === JWT_HANDOFF);
    assert.ok(row);
    await vscode.commands.executeCommand('twining.acknowledgeHandoff', row.node);
    assert.strictEqual(readJson<Record<string, unknown>>(path.join(dir, 'handoffs', `${JWT_HANDOFF}.json`)).acknowledged_by, api.agentId());
  });

  it('drift shows on the handoffs after their decision is superseded', async () => {
    const result = await run<{ id: string }>('twining.recordDecision', {
      domain: 'security',
      scope: 'src/auth/jwt.ts',
      summary: 'Sign JWTs with EdDSA',
      context: 'RS256 keys are large.',
      rationale: 'Ed25519 is faster and the keys are small.',
      supersedes: RS256,
    });
    const verify = await run<{ drifted: boolean; drift: { decisions_no_longer_active: { id: string; now: string }[]; new_decisions: { id: string }[] } }>(
      'twining.verifyHandoff',
      { handoff_id: created.id },
    );
    assert.ok(verify.drifted);
    assert.deepStrictEqual(
      verify.drift.decisions_no_longer_active.map(d => [d.id, d.now]),
      [[RS256, 'superseded']],
    );
    assert.deepStrictEqual(
      verify.drift.new_decisions.map(d => d.id),
      [result.id],
    );

    await api.whenIdle();
    const row = (await rows(api.providers.handoffs)).find(r => r.node.kind === 'handoff' && r.node.line.id === created.id);
    assert.ok(row);
    assert.match(row.description, /⚠ drift \(2\)$/);
    const children = await rows(api.providers.handoffs, row.node);
    const driftGroup = children.find(r => r.label === 'Drift (2)');
    assert.ok(driftGroup, `children: ${children.map(c => c.label).join(' | ')}`);
    const items = await rows(api.providers.handoffs, driftGroup.node);
    assert.deepStrictEqual(
      items.map(r => [r.label, r.description]),
      [
        ['Sign JWTs with RS256 and rotate keys every 30 days', 'decision now superseded'],
        ['Sign JWTs with EdDSA', 'new decision · src/auth/jwt.ts'],
      ],
    );
    // The fixture's handoff (scope src/auth/) attached the RS256 decision too.
    const jwt = (await rows(api.providers.handoffs)).find(r => r.node.kind === 'handoff' && r.node.line.id === JWT_HANDOFF);
    assert.match(jwt?.description ?? '', /⚠ drift/);
    // The snapshot item of the superseded decision says so.
    const snapshot = await rows(api.providers.handoffs, children.find(r => r.label === 'Context snapshot')!.node);
    assert.ok(snapshot.some(r => r.label.startsWith('Sign JWTs with RS256') && r.description === 'decision · now superseded'));
  });

  it('Open Handoff returns the record and shows a readable rendering', async () => {
    const record = await run<{ id: string; summary: string }>('twining.openHandoff', { handoff_id: created.id });
    assert.strictEqual(record.id, created.id);
    const doc = vscode.window.activeTextEditor?.document;
    assert.strictEqual(doc?.uri.scheme, 'twining');
    const text = doc.getText();
    assert.match(text, /^# Refresh flow implemented; needs review/);
    assert.match(text, /Decision now superseded: Sign JWTs with RS256/);
    assert.match(text, /\*\*Acknowledged:\*\* by user-/);
  });

  it('Open Record opens a decision as a document with its chain, naming its record file', async () => {
    await run('twining.openRecord', { type: 'decision', id: RS256 });
    const doc = vscode.window.activeTextEditor?.document;
    assert.strictEqual(doc?.uri.scheme, 'twining');
    const text = doc.getText();
    assert.match(text, /^# Decision: Sign JWTs with RS256 and rotate keys every 30 days/);
    assert.ok(text.includes(`**Record:** ${path.join(dir, 'decisions', `${RS256}.json`)}`));
    // Earlier in this suite a decision superseded it, and the fixture's handoff on src/auth/ carried it.
    assert.match(text, /Superseded by \(nearest first\):\n- \[active\] /);
    assert.match(text, /## Handoffs that carried it \(\d+\)\n\n- JWT auth middleware implemented/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Show Status returns the core status', async () => {
    const status = await run<{ registered_agents: number; unacknowledged_handoffs: number; open_delegations: number }>('twining.showStatus', {});
    assert.strictEqual(status.registered_agents, 6);
    const unacknowledged = readLines(path.join(dir, 'handoffs', 'index.jsonl')).filter(l => l.acknowledged === false).length;
    assert.ok(unacknowledged >= 1);
    assert.strictEqual(status.unacknowledged_handoffs, unacknowledged);
    assert.ok(status.open_delegations >= 3);
  });

  it('Initialize on an existing folder creates nothing; Refresh resolves', async () => {
    const result = await run<{ created: boolean }>('twining.initialize', {});
    assert.strictEqual(result.created, false);
    await run('twining.refresh');
    // A row per registered agent (other suites may add a claim holder's or the session board's rows below them).
    const registry = JSON.parse(fs.readFileSync(path.join(twiningDir(), 'agents', 'registry.json'), 'utf8')) as unknown[];
    assert.strictEqual((await rows(api.providers.agents)).filter(r => r.node.kind === 'agent').length, registry.length);
  });
});
