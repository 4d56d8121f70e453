// The multi-root run: two workspace folders (api, web), each with its own .twining/ and engine.
// The views group by folder; commands pick the folder from `folder`, else the active editor.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { describeIn, openFile, waitFor } from './helpers';
import { TwiningApi, cli, lastLine, rejects, rows, twining } from './twining';

describeIn(['multi'], 'multi-root workspace', () => {
  let api: TwiningApi;
  let api_: string;
  let web: string;

  before(async () => {
    api = await twining();
    await api.whenIdle();
    const folders = (vscode.workspace.workspaceFolders ?? []).map(f => f.uri.fsPath);
    [api_, web] = folders;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('has one engine per folder', () => {
    assert.deepStrictEqual([...api.folders.keys()], [api_, web]);
  });

  it('every view groups by folder, and each folder lists its own data', async () => {
    for (const provider of [api.providers.agents, api.providers.delegations, api.providers.handoffs]) {
      const top = await rows(provider);
      assert.deepStrictEqual(
        top.map(r => [r.label, r.icon, r.node.kind]),
        [
          ['api', 'root-folder', 'folder'],
          ['web', 'root-folder', 'folder'],
        ],
      );
    }
    const [apiNode, webNode] = await rows(api.providers.agents);
    assert.strictEqual((await rows(api.providers.agents, apiNode.node)).length, 4);
    assert.strictEqual((await rows(api.providers.agents, webNode.node)).length, 4);
    const needs = await rows(api.providers.delegations, webNode.node);
    assert.strictEqual(needs[0].label, 'Write integration tests for the JWT refresh flow');
  });

  it("the first write after activation is announced to that folder's node (nothing earlier to compare with)", async () => {
    const [, webNode] = await rows(api.providers.delegations);
    const fired: unknown[] = [];
    const sub = api.providers.delegations.onDidChangeTreeData(e => fired.push(e));
    try {
      const since = Date.now();
      await vscode.commands.executeCommand('twining.postDelegation', { summary: 'First write here', required_capabilities: ['css'], folder: web });
      // The command's own refresh and the watcher's report of the same write have both been handled.
      await waitFor(() => api.model.lastEventAt() >= since, { timeoutMs: 5000, intervalMs: 10, what: "the watcher's event" });
      await api.whenIdle();
      await new Promise(resolve => setTimeout(resolve, 300));
      await api.whenIdle();
    } finally {
      sub.dispose();
    }
    assert.ok(fired.includes(webNode.node), `the web node was refreshed (events: ${fired.length})`);
  });

  it('a command with `folder` writes to that folder only', async () => {
    const before = fs.readFileSync(path.join(api_, '.twining', 'blackboard.jsonl'), 'utf8');
    await vscode.commands.executeCommand('twining.postWarning', { summary: 'Only in web', folder: web });
    assert.strictEqual(lastLine(path.join(web, '.twining', 'blackboard.jsonl')).summary, 'Only in web');
    assert.strictEqual(fs.readFileSync(path.join(api_, '.twining', 'blackboard.jsonl'), 'utf8'), before);
  });

  it('without `folder` and without an active editor, a command says which field is missing', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await rejects(vscode.commands.executeCommand('twining.postFinding', { summary: 'Where?' }), /folder: required when several workspace folders/);
  });

  it("without `folder`, the active editor's folder is used (and its file is the handoff scope)", async () => {
    await openFile('src/auth/jwt.ts', api_);
    const record = await vscode.commands.executeCommand<{ id: string; scope: string }>('twining.createHandoff', {
      summary: 'From the api folder',
      results: [],
    });
    assert.strictEqual(record.scope, 'src/auth/jwt.ts');
    assert.ok(fs.existsSync(path.join(api_, '.twining', 'handoffs', `${record.id}.json`)));
    assert.ok(!fs.existsSync(path.join(web, '.twining', 'handoffs', `${record.id}.json`)));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("the Context view shows the active file's own folder: a warning in one folder is not shown for the same path in the other", async () => {
    const file = 'src/auth/jwt.ts';
    // The same path in both folders (the web folder has no such file yet).
    fs.mkdirSync(path.join(web, 'src', 'auth'), { recursive: true });
    if (!fs.existsSync(path.join(web, file))) fs.writeFileSync(path.join(web, file), '// the web side\n');
    const warning = (await cli('post', web, { entry_type: 'warning', summary: 'Only the web folder knows this', scope: file, agent_id: 'reviewer' })) as {
      id: string;
    };
    await vscode.commands.executeCommand('twining.followActiveEditor');
    const shownFor = async (folder: string) => {
      await openFile(file, folder);
      return waitFor(
        async () => {
          await api.whenIdle();
          await rows(api.providers.context);
          const last = api.providers.context.last;
          return last && last.scope === file && last.folder.root === folder ? last.context : undefined;
        },
        { what: `the Context view showing ${file} of ${path.basename(folder)}` },
      );
    };
    const inWeb = await shownFor(web);
    assert.ok(
      inWeb!.warnings.some(w => w.id === warning.id),
      'the web folder shows its warning',
    );
    const inApi = await shownFor(api_);
    assert.ok(!inApi!.warnings.some(w => w.id === warning.id), 'the api folder does not');
    assert.ok(inApi!.decisions.length > 0, "the api folder's own decisions for the file are shown");
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a folder added without .twining/ is not listed until Initialize creates it; removing it drops it', async () => {
    const extra = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-extra-'));
    const added = new Promise<void>(resolve => {
      const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
        sub.dispose();
        resolve();
      });
    });
    assert.ok(vscode.workspace.updateWorkspaceFolders(2, 0, { uri: vscode.Uri.file(extra), name: 'extra' }));
    await added;
    try {
      await waitFor(() => api.model.all().length === 3, { what: 'three workspace folders' });
      await api.whenIdle();
      assert.deepStrictEqual(
        (await rows(api.providers.agents)).map(r => r.label),
        ['api', 'web'],
      );
      const result = await vscode.commands.executeCommand<{ created: boolean }>('twining.initialize', { folder: extra });
      assert.strictEqual(result.created, true);
      assert.ok(fs.existsSync(path.join(extra, '.twining', 'decisions', 'index.json')));
      await waitFor(async () => (await rows(api.providers.agents)).map(r => r.label).join() === 'api,web,extra', { what: 'the extra folder listed' });
      const extraNode = (await rows(api.providers.agents))[2];
      assert.deepStrictEqual(await rows(api.providers.agents, extraNode.node), [], 'a new folder has no agents');
    } finally {
      const removed = new Promise<void>(resolve => {
        const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
          sub.dispose();
          resolve();
        });
      });
      vscode.workspace.updateWorkspaceFolders(2, 1);
      await removed;
    }
    await waitFor(async () => (await rows(api.providers.agents)).map(r => r.label).join() === 'api,web', { what: 'the extra folder gone' });
    assert.deepStrictEqual([...api.folders.keys()], [api_, web]);
  });

  it("another process's write refreshes only that folder's node", async () => {
    // Let the watcher report the previous tests' writes (in api) first: half a second without events.
    await waitFor(() => Date.now() - api.model.lastEventAt() > 500, { timeoutMs: 10000, intervalMs: 50, what: 'the watcher to be quiet' });
    await api.whenIdle();
    const [, webNode] = await rows(api.providers.delegations);
    const fired: unknown[] = [];
    const sub = api.providers.delegations.onDidChangeTreeData(e => fired.push(e));
    try {
      await cli('post', web, { entry_type: 'need', summary: 'plain need' });
      await cli('delegate', web, { summary: 'Web-only need', required_capabilities: ['css'] }, ['--now', api.now().toISOString()]);
      await waitFor(async () => (await rows(api.providers.delegations, webNode.node)).some(r => r.label === 'Web-only need'), {
        timeoutMs: 5000,
        what: 'the web need',
      });
      // The rows read the engine, which may see the write before the watcher reports it: the report (the redraw) follows.
      await waitFor(() => fired.length >= 1, { timeoutMs: 5000, what: "the web folder's redraw" });
      await api.whenIdle();
    } finally {
      sub.dispose();
    }
    assert.ok(fired.length >= 1);
    assert.ok(
      fired.every(e => e === webNode.node),
      `only the web folder node was refreshed (got ${fired.map(e => (e as { folder?: { name: string } } | undefined)?.folder?.name ?? 'everything').join(', ')})`,
    );
  });
});
