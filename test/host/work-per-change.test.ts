// The work one change costs, for every writing command, every writing language model tool, the
// chat's /handoff, and a write by another process: the engine re-reads the files once, each view
// that shows the change redraws once (the others not at all), the handoff index is queried once
// for the Handoffs view, the status bar and the inbox together, and a listed handoff is verified
// again only when what its drift depends on changed, once. The watcher's report of the
// extension's own write (it comes some 100 ms later) causes no second read, redraw or verification.
//
// Counted on the engine instance (`work.refreshes`: refreshes that read; verify) and on the
// providers' change events, so the same test runs against older builds of the extension.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { describeIn, firstFolder, waitFor } from './helpers';
import { TwiningApi, cli, rows, twining } from './twining';

type View = 'agents' | 'delegations' | 'handoffs';
interface Work {
  announced: string[];
  refreshes: number;
  verifications: number;
  redraws: Record<View, number>;
  handoffQueries: number;
}

const token = new vscode.CancellationTokenSource().token;

describeIn(['single'], 'work per change', () => {
  let api: TwiningApi;
  let root: string;
  const counted = { verifications: 0, verified: [] as string[] };
  const table: string[] = [];

  before(async () => {
    api = await twining();
    root = firstFolder();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.whenIdle();
    const engine = api.folders.get(root)!;
    const verify = engine.verify.bind(engine);
    engine.verify = (input: { handoff_id: string }) => {
      counted.verifications++;
      counted.verified.push(String(input?.handoff_id));
      return verify(input);
    };
  });

  after(() => {
    if (table.length)
      console.log(`[metric] work per change (refreshes, verifications, redraws agents/delegations/handoffs, handoff index queries):\n${table.join('\n')}`);
  });

  /** The handoffs listed in the view (and their drift computed), as a user with the view open has them. */
  async function listed(): Promise<number> {
    const handoffs = (await rows(api.providers.handoffs)).filter(r => r.node.kind === 'handoff').length;
    await api.whenIdle();
    return handoffs;
  }

  /** Runs one write and counts the work it causes until the watcher's report of it has been handled. */
  async function measure(name: string, write: () => Thenable<unknown>): Promise<Work> {
    await listed();
    const redraws: Record<View, number> = { agents: 0, delegations: 0, handoffs: 0 };
    const subs = (Object.keys(redraws) as View[]).map(view =>
      api.providers[view].onDidChangeTreeData(element => {
        // A whole redraw (undefined or a folder node); one handoff redrawn for its drift is not.
        if (!element || (element as { kind?: string }).kind === 'folder') redraws[view]++;
      }),
    );
    const announced: string[] = [];
    subs.push(api.model.onDidChange(change => announced.push(`${change.folder?.name ?? 'all'}: ${[...change.kinds].join('+')}`)));
    counted.verifications = 0;
    counted.verified = [];
    const engine = api.folders.get(root)!;
    const reads = engine.work.refreshes;
    const queries = api.work().handoffQueries;
    try {
      const started = Date.now();
      await write();
      await waitFor(() => api.model.lastEventAt() >= started, { timeoutMs: 5000, intervalMs: 10, what: `the watcher's event for ${name}` });
      await new Promise(resolve => setTimeout(resolve, 400));
      await api.whenIdle();
      // The Handoffs view lists what changed (as VS Code asks a visible view), then drift settles.
      await listed();
    } finally {
      subs.forEach(s => s.dispose());
    }
    const work = {
      refreshes: engine.work.refreshes - reads,
      verifications: counted.verifications,
      redraws,
      handoffQueries: api.work().handoffQueries - queries,
      announced,
    };
    table.push(`  ${name}: ${work.refreshes}, ${work.verifications}, ${redraws.agents}/${redraws.delegations}/${redraws.handoffs}, ${work.handoffQueries}`);
    return work;
  }

  const command = (id: string, args: object) => () => vscode.commands.executeCommand(id, args);
  const tool = (name: string, input: object) => () => vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token);
  const latestHandoff = async (source: string) =>
    (await api.folders.get(root)!.handoffs({ source_agent: source, acknowledged: false, limit: 1 })).handoffs[0].id;

  // [name, write, views that reload, verifications: 'none' | 'one' (the handoff written) | 'all' (every listed handoff)]
  type Case = [string, () => (() => Thenable<unknown>) | Promise<() => Thenable<unknown>>, View[], 'none' | 'one' | 'all'];
  const activityViews: View[] = ['agents', 'delegations']; // an entry is activity (liveness) and may be a need
  const cases: Case[] = [
    ['Register Agent', () => command('twining.registerAgent', { agent_id: 'counted-a', capabilities: ['x'] }), ['agents', 'delegations'], 'none'],
    ['Post Warning', () => command('twining.postWarning', { summary: 'Counted warning', scope: 'src/' }), activityViews, 'all'],
    ['Post Finding', () => command('twining.postFinding', { summary: 'Counted finding' }), activityViews, 'none'],
    ['Post Delegation', () => command('twining.postDelegation', { summary: 'Counted need', required_capabilities: ['x'] }), activityViews, 'none'],
    [
      'Record Decision',
      () => command('twining.recordDecision', { domain: 'counting', scope: 'src/', summary: 'Count once', context: 'c', rationale: 'r' }),
      activityViews,
      'all',
    ],
    [
      'Create Handoff',
      () => command('twining.createHandoff', { source_agent: 'counted-cmd', summary: 'Counted handoff', results: [], scope: null }),
      [...activityViews, 'handoffs'],
      'one',
    ],
    ['Acknowledge Handoff', async () => command('twining.acknowledgeHandoff', { handoff_id: await latestHandoff('counted-cmd') }), ['handoffs'], 'one'],
    ['twining_register', () => tool('twining_register', { agent_id: 'counted-b' }), ['agents', 'delegations'], 'none'],
    ['twining_post', () => tool('twining_post', { entry_type: 'warning', summary: 'Tool warning', agent_id: 'counted-b' }), activityViews, 'all'],
    ['twining_delegate', () => tool('twining_delegate', { summary: 'Tool need', required_capabilities: ['x'], agent_id: 'counted-b' }), activityViews, 'none'],
    [
      'twining_decide',
      () => tool('twining_decide', { domain: 'counting', scope: 'docs/', summary: 'Tool decision', context: 'c', rationale: 'r', agent_id: 'counted-b' }),
      activityViews,
      'all',
    ],
    [
      'twining_handoff',
      () => tool('twining_handoff', { source_agent: 'counted-tool', summary: 'Tool handoff', results: [] }),
      [...activityViews, 'handoffs'],
      'one',
    ],
    [
      'twining_acknowledge',
      async () => tool('twining_acknowledge', { handoff_id: await latestHandoff('counted-tool'), agent_id: 'counted-b' }),
      ['handoffs'],
      'one',
    ],
    [
      '@twining /handoff',
      () => () =>
        Promise.resolve(
          api.chatHandler(
            { prompt: 'Chat handoff', command: 'handoff', references: [] } as unknown as vscode.ChatRequest,
            { history: [] },
            { markdown() {}, button() {}, progress() {}, reference() {} } as never,
            token,
          ),
        ),
      [...activityViews, 'handoffs'],
      'one',
    ],
    [
      'another process posts a status',
      () => () => cli('post', root, { entry_type: 'status', summary: 'From another process', agent_id: 'elsewhere' }),
      activityViews,
      'none',
    ],
    [
      'another process posts a warning',
      () => () => cli('post', root, { entry_type: 'warning', summary: 'Warning from elsewhere', agent_id: 'elsewhere' }),
      activityViews,
      'all',
    ],
  ];

  for (const [name, prepare, views, verified] of cases) {
    it(`${name}: one refresh, one redraw of ${views.join(', ')} (one handoff index query when they show), ${verified === 'none' ? 'no verification' : verified === 'one' ? 'one verification' : 'each listed handoff verified once'}`, async () => {
      const write = await prepare();
      const before = await listed();
      const work = await measure(name, write);
      const after = await listed();
      const expected = { none: 0, one: 1, all: verified === 'all' ? after : 0 }[verified];
      assert.deepStrictEqual(
        { refreshes: work.refreshes, redraws: work.redraws, handoffQueries: work.handoffQueries, verifications: work.verifications },
        {
          refreshes: 1,
          redraws: {
            agents: views.includes('agents') ? 1 : 0,
            delegations: views.includes('delegations') ? 1 : 0,
            handoffs: views.includes('handoffs') ? 1 : 0,
          },
          // The Handoffs view, the status bar and the inbox share one query of the index.
          handoffQueries: views.includes('handoffs') ? 1 : 0,
          verifications: expected,
        },
        `listed handoffs: ${before} before, ${after} after; announced: ${work.announced.join(', ')}; verified: ${counted.verified.join(', ')}`,
      );
    });
  }
});
