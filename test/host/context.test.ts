// The Context view, the status bar item for the active file, the Problems diagnostics and the
// CodeLens, in a real workbench: what they show for a fixture file (expected values computed from
// the files on disk, not by the extension), following editor switches, pin and whole project,
// another process dismissing a warning, and the lifecycle actions through argument objects.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, firstFolder, openFile, readJson, twiningDir, waitFor } from './helpers';
import { TwiningApi, cli, readLines, rows, twining } from './twining';

type Raw = Record<string, any>;
const JWT = 'src/auth/jwt.ts';
const USERS = 'src/api/users.ts';
const either = (a: unknown, b: string) => typeof a === 'string' && (a.startsWith(b) || b.startsWith(a));

/** What the files say bears on `file`: decisions as twining-mcp's why matches them, entries by scope overlap. */
function expected(file: string) {
  const dir = twiningDir();
  const index = readJson<Raw[]>(path.join(dir, 'decisions', 'index.json'));
  const entries = readLines(path.join(dir, 'blackboard.jsonl')) as Raw[];
  const decisions = index.filter(d => either(d.scope, file) || d.affected_files.some((f: string) => either(f, file)) || d.affected_symbols.includes(file));
  const of = (type: string) =>
    entries
      .filter(e => e.entry_type === type && either(e.scope, file))
      .map(e => e.id as string)
      .sort();
  return {
    decisions: decisions.map(d => d.id as string).sort(),
    current: decisions.filter(d => d.status === 'active' || d.status === 'provisional').length,
    warnings: of('warning'),
    findings: of('finding'),
  };
}

function shown(api: TwiningApi) {
  const last = api.providers.context.last;
  if (!last) return undefined;
  return {
    scope: last.scope,
    decisions: last.context.decisions.map(d => d.id).sort(),
    warnings: last.context.warnings.map(w => w.id).sort(),
    findings: last.context.findings.map(f => f.id).sort(),
  };
}

/** Renders the view (as the workbench would) and returns what it shows once it shows `scope`. */
async function viewOf(api: TwiningApi, scope: string | undefined): Promise<NonNullable<ReturnType<typeof shown>>> {
  const view = await waitFor(
    async () => {
      await api.whenIdle();
      await rows(api.providers.context);
      const s = shown(api);
      return s && s.scope === scope ? s : undefined;
    },
    { what: `the Context view showing ${scope ?? 'the whole project'}` },
  );
  return view!;
}

const twiningDiagnostics = (file: string) =>
  vscode.languages.getDiagnostics(vscode.Uri.file(path.join(firstFolder(), file))).filter(d => d.source === 'Twining');
const codeOf = (d: vscode.Diagnostic) => String(typeof d.code === 'object' ? d.code.value : d.code);

describeIn(['single'], 'Context view, status bar, diagnostics and CodeLens for the active file', () => {
  let api: TwiningApi;

  before(async () => {
    api = await twining();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('twining.followActiveEditor');
  });

  it("lists exactly the fixture's decisions, warnings and findings for the open file, with the status bar count, diagnostics and CodeLens", async () => {
    await openFile(JWT);
    const view = await viewOf(api, JWT);
    const want = expected(JWT);
    assert.deepStrictEqual(view.decisions, want.decisions);
    assert.deepStrictEqual(view.warnings, want.warnings);
    assert.deepStrictEqual(view.findings, want.findings);
    assert.ok(want.warnings.length >= 1 && want.decisions.length >= 2, 'the fixture has decisions and a warning for jwt.ts');

    // The groups as rows: the file first, then decisions, warnings and findings with their counts.
    const top = await rows(api.providers.context);
    assert.strictEqual(top[0].label, JWT);
    const groups = Object.fromEntries(top.slice(1).map(r => [r.label, r.description]));
    assert.strictEqual(groups['Decisions'], String(want.current), 'the current decisions (past ones count in their own group)');
    assert.strictEqual(groups['Warnings'], String(want.warnings.length));
    assert.strictEqual(groups['Findings'], String(want.findings.length));

    await waitFor(
      async () => {
        await api.whenIdle();
        return api.contextStatus.text.startsWith(`${want.current} decision${want.current === 1 ? '' : 's'} · ${want.warnings.length} warning`);
      },
      { what: `the status bar to count for ${JWT} (it says "${api.contextStatus.text}")` },
    );
    const diagnostics = (await waitFor(
      () => {
        const found = twiningDiagnostics(JWT);
        return found.length === want.warnings.length ? found : undefined;
      },
      { what: 'one diagnostic per warning' },
    ))!;
    assert.deepStrictEqual(diagnostics.map(codeOf).sort(), want.warnings);
    assert.ok(diagnostics.every(d => d.severity === vscode.DiagnosticSeverity.Information && d.range.start.line === 0));

    const uri = vscode.Uri.file(path.join(firstFolder(), JWT));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, diagnostics[0].range);
    const titles = actions.map(a => a.title);
    assert.ok(titles.includes('Dismiss warning…') && titles.includes('Open warning'), `quick fixes: ${titles.join(', ')}`);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    const summaries = readJson<Raw[]>(path.join(twiningDir(), 'decisions', 'index.json'))
      .filter(d => want.decisions.includes(d.id) && (d.status === 'active' || d.status === 'provisional'))
      .map(d => d.summary as string);
    for (const s of summaries.slice(0, 3))
      assert.ok(
        lenses.some(l => l.command?.title.includes(s)),
        `a CodeLens for "${s}"`,
      );
  });

  it('follows editor switches; Pin keeps the file; Whole project shows everything', async () => {
    await openFile(USERS);
    const users = await viewOf(api, USERS);
    const want = expected(USERS);
    assert.deepStrictEqual([users.decisions, users.warnings, users.findings], [want.decisions, want.warnings, want.findings]);

    await vscode.commands.executeCommand('twining.pinContext');
    await openFile(JWT);
    await api.whenIdle();
    await rows(api.providers.context);
    assert.strictEqual(shown(api)?.scope, USERS, 'pinned: the view stays on users.ts');
    assert.strictEqual(api.fileContext.target?.mode, 'pinned');

    await vscode.commands.executeCommand('twining.showProjectContext');
    const all = await viewOf(api, undefined);
    const index = readJson<Raw[]>(path.join(twiningDir(), 'decisions', 'index.json'));
    const current = index.filter(d => d.status === 'active' || d.status === 'provisional').length;
    assert.strictEqual(all.decisions.length, Math.min(current, 200) + Math.min(index.length - current, 200));

    await vscode.commands.executeCommand('twining.followActiveEditor');
    await viewOf(api, JWT);
  });

  it('another process dismissing a warning removes it from the view and from the Problems panel', async () => {
    await openFile(JWT);
    await viewOf(api, JWT);
    const posted = (await cli('post', firstFolder(), {
      entry_type: 'warning',
      summary: 'Clock skew is not tolerated when checking nbf',
      scope: JWT,
      agent_id: 'reviewer',
    })) as { id: string };
    await waitFor(
      async () => {
        await api.whenIdle();
        await rows(api.providers.context);
        return shown(api)?.warnings.includes(posted.id) && twiningDiagnostics(JWT).some(d => codeOf(d) === posted.id);
      },
      { what: "another process's warning in the view and the Problems panel" },
    );
    const started = Date.now();
    await cli('dismiss', firstFolder(), { ids: [posted.id], reason: 'skew of 30 s allowed now', agent_id: 'reviewer' });
    await waitFor(
      async () => {
        await api.whenIdle();
        await rows(api.providers.context);
        return !shown(api)?.warnings.includes(posted.id) && !twiningDiagnostics(JWT).some(d => codeOf(d) === posted.id);
      },
      { what: 'the dismissed warning gone from the view and the Problems panel' },
    );
    console.log(`  dismissed by another process: gone from the view and Problems ${Date.now() - started} ms after the CLI was started`);
    assert.deepStrictEqual(shown(api)?.warnings, expected(JWT).warnings);
  });

  it('record, reconsider, promote, override and dismiss through argument objects; the view and the decision document follow', async () => {
    await openFile(JWT);
    const recorded = await vscode.commands.executeCommand<{ id: string }>('twining.recordDecision', {
      // A domain of its own: an active decision in the same domain and scope would make it provisional (a conflict).
      domain: 'key-management',
      scope: JWT,
      summary: 'Reject tokens without a kid header',
      context: 'Key rotation needs the key id',
      rationale: 'Verification picks the key by kid',
    });
    const statusOf = () => api.providers.context.last?.context.decisions.find(d => d.id === recorded.id)?.status;
    await waitFor(async () => (await viewOf(api, JWT)) && statusOf() === 'active', { what: 'the new decision in the view' });

    await vscode.commands.executeCommand('twining.reconsiderDecision', { decision_id: recorded.id, new_context: 'kid may be absent in old tokens' });
    await waitFor(async () => (await viewOf(api, JWT)) && statusOf() === 'provisional', { what: 'the decision provisional' });
    const rows1 = await rows(api.providers.context);
    const decisions = rows1.find(r => r.label === 'Decisions')!;
    const decisionRows = await rows(api.providers.context, decisions.node);
    assert.strictEqual(decisionRows.find(r => r.label === 'Reject tokens without a kid header')?.item.contextValue, 'twining.contextDecision.provisional');

    await vscode.commands.executeCommand('twining.promoteDecision', { decision_ids: [recorded.id] });
    await waitFor(async () => (await viewOf(api, JWT)) && statusOf() === 'active', { what: 'the decision active again' });

    const result = await vscode.commands.executeCommand<{ new_decision_id: string }>('twining.overrideDecision', {
      decision_id: recorded.id,
      reason: 'Old tokens must keep working until March',
      new_decision: 'Accept tokens without kid until March',
    });
    await waitFor(async () => (await viewOf(api, JWT)) && statusOf() === 'superseded', { what: 'the overridden decision superseded by its replacement' });
    const record = readJson<Raw>(path.join(twiningDir(), 'decisions', `${recorded.id}.json`));
    assert.deepStrictEqual(
      [record.status, record.overridden_by, record.override_reason],
      ['superseded', api.agentId(), 'Old tokens must keep working until March'],
    );
    const top = await rows(api.providers.context);
    const decisionGroup = top.find(r => r.label === 'Decisions')!;
    const past = (await rows(api.providers.context, decisionGroup.node)).find(r => r.label === 'Superseded and overridden')!;
    assert.strictEqual(past.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const pastRow = (await rows(api.providers.context, past.node)).find(r => r.label === 'Reject tokens without a kid header')!;
    assert.match(pastRow.description, /^superseded by "Accept tokens without kid until March" · /);

    await vscode.commands.executeCommand('twining.openRecord', { type: 'decision', id: result.new_decision_id });
    const doc = vscode.window.activeTextEditor!.document;
    assert.strictEqual(doc.uri.scheme, 'twining');
    const text = doc.getText();
    assert.match(text, /^# Decision: Accept tokens without kid until March/);
    assert.match(text, new RegExp(`It superseded \\(nearest first\\):\\n- \\[superseded\\] Reject tokens without a kid header \\(${recorded.id}\\)`));
    // The record document is not a file: the view keeps showing jwt.ts.
    await viewOf(api, JWT);

    const warning = (await vscode.commands.executeCommand<{ id: string }>('twining.postWarning', { summary: 'kid lookup is not cached', scope: JWT })).id;
    await waitFor(async () => (await viewOf(api, JWT)) && shown(api)!.warnings.includes(warning), { what: 'the posted warning' });
    const dismissed = await vscode.commands.executeCommand<{ dismissed: string[] }>('twining.dismissEntry', { ids: [warning], reason: 'cached now' });
    assert.deepStrictEqual(dismissed.dismissed, [warning]);
    await waitFor(async () => (await viewOf(api, JWT)) && !shown(api)!.warnings.includes(warning), { what: 'the dismissed warning gone' });
    const status = readLines(path.join(twiningDir(), 'blackboard.jsonl')).pop()!;
    assert.deepStrictEqual([status.entry_type, status.agent_id, status.relates_to], ['status', api.agentId(), [warning]]);
    assert.match(String(status.detail), /Reason: cached now/);
    assert.ok(!readLines(path.join(twiningDir(), 'blackboard.jsonl')).some(l => l.id === warning), 'the warning line is gone from blackboard.jsonl');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('resolve: the warning leaves the open list and the Problems panel, and shows folded under Resolved with who and why', async () => {
    await openFile(JWT);
    const ours = (await vscode.commands.executeCommand<{ id: string }>('twining.postWarning', { summary: 'nbf not checked on refresh', scope: JWT })).id;
    const theirs = (await cli('post', firstFolder(), { entry_type: 'warning', summary: 'aud claim ignored', scope: JWT, agent_id: 'reviewer' })) as {
      id: string;
    };
    await waitFor(async () => (await viewOf(api, JWT)) && [ours, theirs.id].every(id => shown(api)!.warnings.includes(id)), { what: 'both warnings' });

    const resolved = await vscode.commands.executeCommand<{ resolved: string[] }>('twining.resolveEntry', { ids: [ours], note: 'checked in refresh()' });
    assert.deepStrictEqual(resolved.resolved, [ours]);
    await cli('resolve', firstFolder(), { ids: [theirs.id], note: 'aud verified now', agent_id: 'reviewer' });
    await waitFor(
      async () =>
        (await viewOf(api, JWT)) && ![ours, theirs.id].some(id => shown(api)!.warnings.includes(id) || twiningDiagnostics(JWT).some(d => codeOf(d) === id)),
      { what: 'both resolved warnings gone from the open list and the Problems panel' },
    );
    assert.deepStrictEqual(
      shown(api)!.warnings,
      expected(JWT).warnings.filter(id => ![ours, theirs.id].includes(id)),
    );
    const group = (await rows(api.providers.context)).find(r => r.label === 'Resolved')!;
    assert.ok(group, 'a Resolved group');
    assert.strictEqual(group.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const inside = await rows(api.providers.context, group.node);
    const mine = inside.find(r => r.label === 'nbf not checked on refresh')!;
    assert.match(mine.description, new RegExp(`^warning resolved by ${api.agentId()} · .* · checked in refresh\\(\\)$`));
    assert.strictEqual(mine.item.contextValue, 'twining.contextEntry.resolved');
    assert.match(inside.find(r => r.label === 'aud claim ignored')!.description, /^warning resolved by reviewer · .* · aud verified now$/);
    const line = readLines(path.join(twiningDir(), 'blackboard.jsonl')).find(l => l.id === ours)!;
    assert.deepStrictEqual([line.status, line.resolved_by, line.resolution_note], ['resolved', api.agentId(), 'checked in refresh()']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
