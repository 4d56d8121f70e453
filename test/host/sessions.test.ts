// The session board in the real host: an agent's host runs Twining's hook bundle (dist/hook.js) as
// Claude Code and VS Code do (a new process per event, the documented JSON on standard input), and
// the session appears in the Agents view with its tool, files and last tool call; the file it
// edited shows the session in the Context view; a Stop after edits without a record marks it, and
// Ask for a Record or Handoff posts a need addressed to its agent.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import * as vscode from 'vscode';
import { describeIn, firstFolder, openFile, waitFor } from './helpers';
import { Row, TwiningApi, readLines, repoRoot, rows, tooltipOf, twining } from './twining';
import { claude } from '../support/hook-inputs';
import { hookAlone } from '../support/dist';

/** Runs `node dist/hook.js <event>` with the event's JSON on standard input; resolves with its standard output. */
function runHook(event: string, input: object, args: string[], now: Date): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot(), 'dist', 'hook.js'), event, ...args], {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', TWINING_NOW: now.toISOString() },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', d => (out += d));
    child.stderr.on('data', d => (err += d));
    child.on('error', reject);
    child.on('close', code => (code === 0 ? resolve(out) : reject(new Error(`hook ${event} exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(input));
  });
}

describeIn(['single'], 'the session board', () => {
  let api: TwiningApi;
  let root: string;
  const session = 'host-board-session-1';
  const agent = 'host-board-agent';
  const file = 'sessions-demo/app.ts';
  const hook = (event: string, extra: Record<string, unknown> = {}) =>
    runHook(event, claude(root, session, event, extra), ['--agent', agent, '--host', 'claude-code'], api.now());

  async function sessionRow(): Promise<Row | undefined> {
    const group = (await rows(api.providers.agents)).find(r => r.label === 'Agent sessions');
    if (!group) return undefined;
    return (await rows(api.providers.agents, group.node)).find(r => r.label === agent);
  }

  before(async () => {
    api = await twining();
    root = firstFolder();
    fs.mkdirSync(path.join(root, 'sessions-demo'), { recursive: true });
    fs.writeFileSync(path.join(root, file), 'export const app = 1;\n');
    await api.whenIdle();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(path.join(root, 'sessions-demo'), { recursive: true, force: true });
    fs.rmSync(path.join(root, '.twining', 'sessions', `session-${session}.json`), { force: true });
  });

  it('hook processes make the session appear in the Agents view, and its file shows it in the Context view', async function () {
    this.timeout(90_000);
    const briefing = JSON.parse(await hook('SessionStart', { source: 'startup' }));
    assert.strictEqual(briefing.hookSpecificOutput.hookEventName, 'SessionStart');
    const started = await waitFor(sessionRow, { timeoutMs: 15_000, what: 'the session under Agent sessions' });
    assert.match(started!.description, /^Claude Code · working · since /);

    await hook('PostToolUse', {
      tool_name: 'Edit',
      tool_input: { file_path: path.join(root, file), old_string: '1', new_string: '2' },
      tool_response: { filePath: path.join(root, file), success: true },
      tool_use_id: 'toolu_host_1',
    });
    const edited = await waitFor(async () => ((await sessionRow())?.description.includes('1 file') ? sessionRow() : undefined), {
      timeoutMs: 15_000,
      what: 'the edit to show on the session row',
    });
    assert.match(edited!.description, /Claude Code · working · 1 file · last: Edit · since /);
    assert.strictEqual(edited!.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const files = await rows(api.providers.agents, edited!.node);
    assert.deepStrictEqual(
      files.map(f => (f.item.resourceUri ? path.relative(root, f.item.resourceUri.fsPath).split(path.sep).join('/') : f.label)),
      [file],
    );
    assert.match(tooltipOf(api.providers.agents, edited!), new RegExp(`Session: ${session}`));

    await openFile(file);
    const group = await waitFor(async () => (await rows(api.providers.context)).find(r => r.label === 'Agent sessions that changed it'), {
      timeoutMs: 15_000,
      what: 'the Context view to show the session that changed the file',
    });
    const inContext = await rows(api.providers.context, group!.node);
    assert.deepStrictEqual(
      inContext.map(r => r.label),
      [agent],
    );
  });

  it('a Stop after edits without a record marks the session; Ask for a Record or Handoff posts a need addressed to its agent', async function () {
    this.timeout(60_000);
    const blocked = JSON.parse(await hook('Stop', { stop_hook_active: false, last_assistant_message: 'done' }));
    assert.strictEqual(blocked.decision, 'block');
    assert.strictEqual(await hook('Stop', { stop_hook_active: false, last_assistant_message: 'done' }), '');
    const marked = await waitFor(async () => ((await sessionRow())?.item.contextValue === 'twining.session.unrecorded' ? sessionRow() : undefined), {
      timeoutMs: 15_000,
      what: 'the session to be marked as ended without a record',
    });
    assert.match(marked!.description, /ended without a record/);
    assert.strictEqual(marked!.icon, 'warning');

    const entryId = await vscode.commands.executeCommand<string>('twining.askSessionForRecord', { session_id: session, how: 'need' });
    const need = readLines(path.join(root, '.twining', 'blackboard.jsonl')).find(e => e.id === entryId);
    assert.ok(need, 'the need is on the blackboard');
    assert.strictEqual(need.entry_type, 'need');
    assert.strictEqual(need.scope, file);
    assert.ok((need.tags as string[]).includes(agent));
    assert.match(String(need.detail), /twining_record/);
    const prompt = await vscode.commands.executeCommand<string>('twining.askSessionForRecord', { session_id: session, how: 'prompt' });
    assert.strictEqual(await vscode.env.clipboard.readText(), prompt);
    assert.match(prompt, new RegExp(`${file}.*twining_record with agent_id "${agent}"`));
  });
  it("a SessionStart right after a write is answered by the extension's engine over the local socket, without loading one", async function () {
    this.timeout(90_000);
    // A copy of the hook bundle without dist/core.js beside it: it can answer only from its cache
    // (not after a write) or by asking the engine running in this host.
    const alone = hookAlone(path.join(repoRoot(), 'dist'), 'twining-host-hook-');
    const summary = `Served briefing warning ${Date.now()}`;
    await vscode.commands.executeCommand('twining.postWarning', { summary, scope: 'sessions-demo/' });
    const served = 'host-served-agent';
    const input = claude(root, 'host-served-session', 'SessionStart', { source: 'startup' });
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
    // The pinned clock is what keeps a hook from asking (its time and the engine's would differ).
    delete env.TWINING_NOW;
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [alone, 'SessionStart', '--agent', served, '--host', 'claude-code'], { env });
      let text = '';
      let err = '';
      child.stdout.on('data', d => (text += d));
      child.stderr.on('data', d => (err += d));
      child.on('error', reject);
      child.on('close', code => (code === 0 ? resolve(text) : reject(new Error(`hook SessionStart exited ${code}: ${err}`))));
      child.stdin.end(JSON.stringify(input));
    });
    const context = JSON.parse(out).hookSpecificOutput.additionalContext as string;
    assert.ok(context.includes(summary), `the briefing carries the warning just posted:\n${context.slice(0, 800)}`);
    await waitFor(async () => (await rows(api.providers.agents)).find(r => r.node.kind === 'agent' && r.label === served), {
      timeoutMs: 15_000,
      what: `${served} in the Agents view, registered by the extension's engine`,
    });
    // The engine keeps the briefing after answering; the suites after this one count the work of their own changes.
    await waitFor(() => fs.readdirSync(path.join(root, '.twining', 'sessions')).find(f => f.startsWith(`briefing-${served}`)), {
      timeoutMs: 15_000,
      what: 'the briefing kept by the extension after it answered',
    });
    fs.rmSync(path.join(root, '.twining', 'sessions', 'session-host-served-session.json'), { force: true });
    await new Promise(resolve => setTimeout(resolve, 500));
    await api.whenIdle();
  });
});
