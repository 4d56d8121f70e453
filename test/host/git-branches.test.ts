// Branch switches are a normal event: the workspace folder becomes a real git repository; a branch
// gets a delegation and a handoff written by the CLI; `git checkout` back and forth must show in
// the views within a second, reloading only what changed; while a git merge is open, a command
// writes nothing and says why. At the end the folder is as it was (branch removed, .git deleted).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync, spawnSync } from 'child_process';
import * as vscode from 'vscode';
import { describeIn, firstFolder, twiningDir, waitFor } from './helpers';
import { TwiningApi, cli, countRefreshes, rejects, rows, twining } from './twining';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).trim();

describeIn(['single'], 'git branch switches', () => {
  let api: TwiningApi;
  let root: string;
  const summary = `Delegation only on the branch ${Date.now()}`;
  const handoffSummary = `Handoff only on the branch ${Date.now()}`;
  const latencies: number[] = [];

  before(async function () {
    this.timeout(60000);
    api = await twining();
    root = firstFolder();
    await api.whenIdle();
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'config', 'user.email', 'host-test@example.com');
    git(root, 'config', 'user.name', 'Host Test');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'base');
    git(root, 'checkout', '-q', '-b', 'feature');
    await cli('delegate', root, { summary, required_capabilities: ['css'], urgency: 'low', agent_id: 'frontend-dev' });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'a delegation');
    await cli('handoff', root, { source_agent: 'frontend-dev', summary: handoffSummary, results: [] });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'a handoff');
    await api.whenIdle();
  });

  after(function () {
    this.timeout(30000);
    if (latencies.length) console.log(`[metric] git checkout → views updated: ${latencies.map(n => `${n} ms`).join(', ')}`);
    spawnSync('git', ['merge', '--abort'], { cwd: root });
    spawnSync('git', ['checkout', '-q', 'main'], { cwd: root });
    fs.rmSync(path.join(root, '.git'), { recursive: true, force: true });
  });

  const delegationShown = async () => (await rows(api.providers.delegations)).some(r => r.label === summary);
  const handoffShown = async () => (await rows(api.providers.handoffs)).some(r => r.node.kind === 'handoff' && r.node.line.summary === handoffSummary);

  /** Checks out `branch` and returns the ms until `shown` matches `expected`. */
  async function checkout(branch: string, expected: boolean): Promise<number> {
    const started = Date.now();
    git(root, 'checkout', '-q', branch);
    const checkedOut = Date.now();
    await waitFor(async () => (await delegationShown()) === expected && (await handoffShown()) === expected, {
      timeoutMs: 5000,
      intervalMs: 20,
      what: `the views after checking out ${branch}`,
    });
    const latency = Date.now() - checkedOut;
    latencies.push(latency);
    assert.ok(latency < 1000, `the views followed the checkout of ${branch} in ${latency} ms (git took ${checkedOut - started} ms)`);
    return latency;
  }

  it('checking out a branch and back: the views follow within a second each time', async function () {
    this.timeout(30000);
    assert.strictEqual(await delegationShown(), true, 'on the branch the delegation is shown');
    await checkout('main', false);
    await checkout('feature', true);
    await checkout('main', false);
  });

  it('a branch that differs only in blackboard.jsonl reloads Delegations (and Agents, for the activity), not Handoffs', async function () {
    this.timeout(30000);
    git(root, 'checkout', '-q', '-b', 'blackboard-only', 'main');
    await cli('delegate', root, { summary: `${summary} (2)`, required_capabilities: ['go'], urgency: 'low', agent_id: 'frontend-dev' });
    git(root, 'commit', '-q', '-am', 'one more delegation');
    git(root, 'checkout', '-q', 'main');
    await api.whenIdle();
    const counts = await countRefreshes(api, async () => {
      git(root, 'checkout', '-q', 'blackboard-only');
      await waitFor(async () => (await rows(api.providers.delegations)).some(r => r.label === `${summary} (2)`), {
        timeoutMs: 1000,
        intervalMs: 20,
        what: 'the delegation of the branch',
      });
    });
    assert.ok(counts.delegations >= 1, 'Delegations reloaded');
    assert.strictEqual(counts.handoffs, 0, 'Handoffs did not reload: its files did not change');
    git(root, 'checkout', '-q', 'main');
    await api.whenIdle();
  });

  it('while a git merge is open, a command writes nothing to .twining/ and says why', async function () {
    this.timeout(30000);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'main\n');
    git(root, 'add', 'notes.txt');
    git(root, 'commit', '-q', '-m', 'notes on main');
    git(root, 'checkout', '-q', '-b', 'conflicting', 'HEAD~1');
    fs.writeFileSync(path.join(root, 'notes.txt'), 'other\n');
    git(root, 'add', 'notes.txt');
    git(root, 'commit', '-q', '-m', 'notes on the branch');
    git(root, 'checkout', '-q', 'main');
    assert.notStrictEqual(spawnSync('git', ['merge', '--no-edit', 'conflicting'], { cwd: root }).status, 0, 'the merge stops on a conflict');
    const before = fs.readFileSync(path.join(twiningDir(), 'blackboard.jsonl'));
    await rejects(
      vscode.commands.executeCommand('twining.postWarning', { summary: 'during the merge' }),
      /merge is in progress \(MERGE_HEAD\).*nothing was written/,
    );
    assert.deepStrictEqual(fs.readFileSync(path.join(twiningDir(), 'blackboard.jsonl')), before, 'blackboard.jsonl unchanged');
    git(root, 'merge', '--abort');
    git(root, 'rm', '-q', '--cached', 'notes.txt');
    fs.rmSync(path.join(root, 'notes.txt'));
  });
});
