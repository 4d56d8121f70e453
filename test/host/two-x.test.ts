// The `two-x` run: twining-mcp 2.x's layouts in the real workbench. `team` is a SQLite folder
// (twining.db + records/, built by scripts/make-two-x.js as twining-mcp's stores would hold the
// reference fixture's records, plus a warning on src/auth/jwt.ts a teammate resolved); `clone` is
// the same without the database (a fresh clone). Expected values come from the database and the
// record files, read here, not from the extension. Another process writes the database as
// twining-mcp does (node:sqlite, BEGIN IMMEDIATE, then the record file) and the views follow; the
// commands leave the rows and record bytes twining-mcp's own code would.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { describeIn, openFile, waitFor } from './helpers';
import { TwiningApi, rows, tooltipOf, twining } from './twining';
import { mcpHandoffIndex, mcpRecordPath, sqliteModule, stableStringify } from '../support/twining-mcp-2x';

type Raw = Record<string, any>;
const JWT = 'src/auth/jwt.ts';
const ACTIVE_WARNING = '01M80HHK5EACAY1D2CS04B635E';
const RESOLVED_WARNING = '01M80HHKD0X9ZQ4W7ABCDEFGH0';
const LIMIT_MS = 5000;

const twiningOf = (folder: string) => path.join(folder, '.twining');

/** Rows of a table of the folder's twining.db, read-only (another connection, as a reader would). */
function dbRows(folder: string, sql: string, ...params: unknown[]): Raw[] {
  const { DatabaseSync } = sqliteModule() as unknown as { DatabaseSync: new (file: string, options: object) => any };
  const db = new DatabaseSync(path.join(twiningOf(folder), 'twining.db'), { readOnly: true });
  try {
    return db.prepare(sql).all(...params);
  } finally {
    db.close();
  }
}

/** Every record file of a kind under records/, parsed. */
function recordFiles(folder: string, kind: string): Raw[] {
  const out: Raw[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.json')) out.push(JSON.parse(fs.readFileSync(p, 'utf8')));
    }
  };
  walk(path.join(twiningOf(folder), 'records', kind));
  return out;
}

/**
 * Runs `body` in another process under this host's Node (node:sqlite), with `mcp` (the
 * re-implementation of twining-mcp's store, test/unit/twining-mcp-2x.ts), `db` (its connection to
 * the folder's twining.db) and `dir` (the folder's .twining) in scope.
 */
function otherProcess(folder: string, body: string): Promise<void> {
  const builder = path.join(__dirname, '..', 'unit', 'twining-mcp-2x.js');
  const script = `const mcp = require(${JSON.stringify(builder)}); const dir = ${JSON.stringify(twiningOf(folder))};
const db = mcp.openMcpDb(dir); try { ${body} } finally { db.close(); }`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', script], { timeout: 20000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`the other writer failed: ${stderr || error.message}`)) : resolve(),
    ),
  );
}

describeIn(['two-x'], "twining-mcp 2.x's SQLite folder and its records/-only clone", () => {
  let api: TwiningApi;
  let team: string;
  let clone: string;

  before(async () => {
    api = await twining();
    [team, clone] = (vscode.workspace.workspaceFolders ?? []).map(f => f.uri.fsPath);
    await api.whenIdle();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('twining.followActiveEditor');
  });

  /** A view's rows under a folder's node. */
  async function under(provider: Parameters<typeof rows>[0], folder: string) {
    const top = await rows(provider);
    const node = top.find(r => r.node.kind === 'folder' && r.label === path.basename(folder));
    assert.ok(node, `a ${path.basename(folder)} node (top: ${top.map(r => r.label).join(', ')})`);
    return rows(provider, node.node);
  }

  it('the folders are read as SQLite folders: the team folder has the database, the clone only records/', () => {
    assert.deepStrictEqual([...api.folders.keys()], [team, clone]);
    assert.ok(fs.existsSync(path.join(twiningOf(team), 'twining.db')));
    assert.ok(!fs.existsSync(path.join(twiningOf(clone), 'twining.db')));
    assert.ok(!fs.existsSync(path.join(twiningOf(team), 'blackboard.jsonl')), 'no 1.x file was made');
  });

  it("Agents: the team folder lists the database's agents; the clone says why it cannot show any", async () => {
    const want = dbRows(team, 'SELECT agent_id FROM agents ORDER BY rowid').map(r => r.agent_id as string);
    assert.ok(want.length >= 4, 'the fixture has agents');
    const teamRows = await under(api.providers.agents, team);
    assert.deepStrictEqual(
      teamRows
        .filter(r => r.node.kind === 'agent')
        .map(r => r.label)
        .sort(),
      [...want].sort(),
    );
    const cloneRows = await under(api.providers.agents, clone);
    assert.deepStrictEqual(
      cloneRows.map(r => r.node.kind),
      ['message'],
      `one message, no agent rows (rows: ${cloneRows.map(r => r.label).join(' | ')})`,
    );
    const [notice] = cloneRows;
    assert.strictEqual(notice.label, 'Agents are not shown: twining-mcp 2.x keeps them only in twining.db');
    assert.strictEqual(notice.icon, 'info', 'a notice, not a read error');
    assert.match(notice.description, /it has no twining\.db \(a fresh clone/);
    assert.ok(notice.description.includes(path.join(clone, '.twining')), 'it names the folder');
  });

  it("Delegations and Handoffs: both folders list the records, with twining-mcp's acknowledgement from index_data", async () => {
    const needs = recordFiles(team, 'posts')
      .filter(e => e.entry_type === 'need' && String(e.detail).includes('"delegation"'))
      .map(e => e.summary as string)
      .sort();
    assert.ok(needs.length >= 2);
    const handoffs = dbRows(team, 'SELECT id, index_data FROM handoffs ORDER BY seq').map(r => [r.id, JSON.parse(r.index_data).acknowledged === true]);
    for (const folder of [team, clone]) {
      const delegations = await under(api.providers.delegations, folder);
      assert.deepStrictEqual(
        delegations
          .filter(r => r.node.kind === 'delegation')
          .map(r => r.label)
          .sort(),
        needs,
        path.basename(folder),
      );
      const listed = (await under(api.providers.handoffs, folder)).filter(r => r.node.kind === 'handoff');
      assert.deepStrictEqual(
        listed.map(r => [(r.node as any).line.id, (r.node as any).line.acknowledged === true]).sort(),
        [...handoffs].sort(),
        path.basename(folder),
      );
    }
  });

  for (const which of ['team', 'clone'] as const)
    it(`Context view (${which}): jwt.ts's decisions and active warning, the resolved warning folded with who resolved it and why`, async () => {
      const folder = which === 'team' ? team : clone;
      await openFile(JWT, folder);
      const last = await waitFor(
        async () => {
          await api.whenIdle();
          await rows(api.providers.context);
          const l = api.providers.context.last;
          return l && l.folder.root === folder && l.scope === JWT ? l : undefined;
        },
        { what: `the Context view showing ${which}/${JWT}` },
      );
      const { context } = last!;
      assert.ok(
        context.decisions.some(d => d.id === '01M80HHK1QX1QEC06YGTWYXEZJ'),
        'the RS256 decision',
      );
      assert.deepStrictEqual(
        context.warnings.map(w => w.id),
        [ACTIVE_WARNING],
        'the resolved warning is not an active warning',
      );
      assert.deepStrictEqual(
        (context.resolved ?? []).map(e => e.id),
        [RESOLVED_WARNING],
      );

      const top = await rows(api.providers.context);
      const group = top.find(r => r.label === 'Resolved');
      assert.ok(group, `a Resolved group (groups: ${top.map(r => r.label).join(', ')})`);
      assert.strictEqual(group.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed, 'folded');
      const [resolved] = await rows(api.providers.context, group.node);
      assert.strictEqual(resolved.label, 'signToken logs the private key path');
      assert.match(resolved.description, /warning resolved by reviewer/);
      assert.match(tooltipOf(api.providers.context, resolved), /The log line was removed in the last release\./);
      await waitFor(
        async () => {
          await api.whenIdle();
          return /· 1 warning/.test(api.contextStatus.text);
        },
        { what: `the status bar to count 1 warning (it says "${api.contextStatus.text}")` },
      );
    });

  it('latency: a need written by another process, three times, from its record file to the Delegations redraw', async () => {
    const latencies: number[] = [];
    for (const n of [1, 2, 3]) {
      const need = {
        id: `01M80HHKF${n}ZQ4W7ABCDEFGHJK3`,
        timestamp: api.now().toISOString(),
        agent_id: 'backend-dev',
        entry_type: 'need',
        summary: `Timed need ${n}`,
        detail: JSON.stringify({
          type: 'delegation',
          required_capabilities: ['css'],
          urgency: 'low',
          expires_at: '2026-11-23T02:33:00.000Z',
          timeout_ms: 86400000,
        }),
        tags: ['delegation', 'low'],
        scope: 'project',
      };
      const redraws: number[] = [];
      const sub = api.providers.delegations.onDidChangeTreeData(() => redraws.push(Date.now()));
      try {
        await otherProcess(team, `mcp.mcpWrite(db, () => mcp.mcpPost(db, dir, ${JSON.stringify(need)}));`);
        const writtenAt = fs.statSync(mcpRecordPath(twiningOf(team), 'posts', need)).mtimeMs;
        // The view's own change event (reading the view would bring the row in by itself).
        const first = (await waitFor(() => redraws.find(t => t >= writtenAt - 1), {
          timeoutMs: LIMIT_MS,
          intervalMs: 5,
          what: 'Delegations to announce a change',
        }))!;
        assert.ok(
          (await under(api.providers.delegations, team)).some(r => r.label === need.summary),
          `${need.summary} in Delegations`,
        );
        latencies.push(Math.round(first - writtenAt));
      } finally {
        sub.dispose();
      }
      await api.whenIdle();
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(`[metric] 2.x: twining-mcp's row and record file → Delegations redraw: ${latencies.join(', ')} ms; median ${sorted[1]} ms`);
  });

  it('a need, a handoff for you and a resolve written by another process (node:sqlite, BEGIN IMMEDIATE) show without a reload', async () => {
    const me = api.agentId();
    const at = api.now().toISOString();
    const need = {
      id: '01M80HHKE0ZQ4W7ABCDEFGHJK1',
      timestamp: at,
      agent_id: 'backend-dev',
      entry_type: 'need',
      summary: `Need posted by twining-mcp ${Date.now()}`,
      detail: JSON.stringify({
        type: 'delegation',
        required_capabilities: ['css'],
        urgency: 'normal',
        expires_at: '2026-11-23T02:33:00.000Z',
        timeout_ms: 86400000,
      }),
      tags: ['delegation', 'normal'],
      scope: 'project',
    };
    const handoff = {
      id: '01M80HHKE1ZQ4W7ABCDEFGHJK2',
      created_at: at,
      source_agent: 'backend-dev',
      target_agent: me,
      scope: 'src/auth/',
      summary: 'Refresh tokens done; over to you',
      results: [{ description: 'Refresh endpoint', status: 'completed', artifacts: ['src/auth/jwt.ts'] }],
      context_snapshot: { decision_ids: [], warning_ids: [], finding_ids: [], summary: '' },
    };
    assert.strictEqual(api.statusBar.count, 0, 'nothing waits for you yet');
    await openFile(JWT, team);
    // The views are read while waiting (a read brings new rows in by itself): the latency test above times the watcher's path.
    await otherProcess(
      team,
      `mcp.mcpWrite(db, () => mcp.mcpPost(db, dir, ${JSON.stringify(need)}));
mcp.mcpWrite(db, () => mcp.mcpHandoff(db, dir, ${JSON.stringify(handoff)}));
mcp.mcpWrite(db, () => mcp.mcpResolve(db, dir, ${JSON.stringify(ACTIVE_WARNING)}, 'backend-dev', 'exp is checked since 1.4', ${JSON.stringify(at)}));`,
    );
    await waitFor(async () => (await under(api.providers.delegations, team)).some(r => r.label === need.summary), {
      timeoutMs: LIMIT_MS,
      what: 'the need in Delegations',
    });
    const row = await waitFor(
      async () => (await under(api.providers.handoffs, team)).find(r => r.node.kind === 'handoff' && (r.node as any).line.id === handoff.id),
      {
        timeoutMs: LIMIT_MS,
        what: 'the handoff in Handoffs',
      },
    );
    assert.strictEqual(row!.label, handoff.summary);
    await waitFor(() => api.statusBar.count === 1, {
      timeoutMs: LIMIT_MS,
      what: `the status bar to count the handoff for ${me} (it counts ${api.statusBar.count})`,
    });
    await waitFor(
      async () => {
        await api.whenIdle();
        await rows(api.providers.context);
        const l = api.providers.context.last;
        return l?.scope === JWT && l.context.warnings.length === 0 && (l.context.resolved ?? []).some(e => e.id === ACTIVE_WARNING);
      },
      { timeoutMs: LIMIT_MS, what: 'the resolved warning to leave the active ones in the Context view' },
    );
    // Nothing of it reached the clone (another folder).
    assert.ok(!(await under(api.providers.delegations, clone)).some(r => r.label === need.summary));
  });

  it("Post Warning and Create Handoff write a row and a record file with twining-mcp's bytes, and no 1.x file", async () => {
    const posted = await vscode.commands.executeCommand<{ id: string }>('twining.postWarning', {
      summary: 'Key rotation job has no alerting',
      scope: JWT,
      tags: ['ops'],
      folder: team,
    });
    const [post] = dbRows(team, 'SELECT * FROM blackboard WHERE id = ?', posted.id);
    assert.ok(post, 'a blackboard row');
    const entry = JSON.parse(post.data);
    assert.deepStrictEqual([post.entry_type, post.scope, post.timestamp], [entry.entry_type, entry.scope, entry.timestamp]);
    assert.deepStrictEqual([entry.entry_type, entry.summary, entry.agent_id], ['warning', 'Key rotation job has no alerting', api.agentId()]);
    const postFile = mcpRecordPath(twiningOf(team), 'posts', entry);
    assert.strictEqual(fs.readFileSync(postFile, 'utf8'), stableStringify(entry), postFile);
    // twining-mcp 2.x registers (touches) every agent that writes: the poster is an agent of the folder now, in the view too.
    const [me] = dbRows(team, 'SELECT data FROM agents WHERE agent_id = ?', api.agentId());
    assert.ok(me && JSON.parse(me.data).last_active >= entry.timestamp, `the poster's agent row is touched (${me?.data})`);
    await waitFor(async () => (await under(api.providers.agents, team)).some(r => r.node.kind === 'agent' && r.label === api.agentId()), {
      timeoutMs: LIMIT_MS,
      what: 'the poster in the Agents view',
    });

    const created = await vscode.commands.executeCommand<{ id: string }>('twining.createHandoff', {
      summary: 'Alerting for key rotation: over to ops',
      results: [{ description: 'Drafted the alert rule', status: 'partial' }],
      target_agent: 'reviewer',
      scope: 'src/auth/',
      folder: team,
    });
    const [h] = dbRows(team, 'SELECT * FROM handoffs WHERE id = ?', created.id);
    assert.ok(h, 'a handoffs row');
    const record = JSON.parse(h.data);
    assert.strictEqual(h.created_at, record.created_at);
    assert.deepStrictEqual(JSON.parse(h.index_data), mcpHandoffIndex(record, false));
    const handoffFile = mcpRecordPath(twiningOf(team), 'handoffs', record);
    assert.strictEqual(fs.readFileSync(handoffFile, 'utf8'), stableStringify(record), handoffFile);

    for (const file of ['blackboard.jsonl', 'handoffs/index.jsonl', `handoffs/${created.id}.json`])
      assert.ok(
        !fs.existsSync(path.join(twiningOf(team), file)) || fs.readFileSync(path.join(twiningOf(team), file), 'utf8').trim() === '',
        `${file} stays empty`,
      );
    // The views show our own writes as they show twining-mcp's.
    await waitFor(async () => (await under(api.providers.handoffs, team)).some(r => r.node.kind === 'handoff' && (r.node as any).line.id === created.id), {
      timeoutMs: LIMIT_MS,
      what: 'the new handoff in Handoffs',
    });
  });

  it("the clone's first write makes twining.db from its record files, as twining-mcp's ingest does; then its agents can be shown", async () => {
    const records = recordFiles(clone, 'posts').length;
    const posted = await vscode.commands.executeCommand<{ id: string }>('twining.postWarning', { summary: 'Clone-side warning', scope: JWT, folder: clone });
    assert.ok(fs.existsSync(path.join(twiningOf(clone), 'twining.db')), 'the database was made');
    const rowsNow = dbRows(clone, 'SELECT id FROM blackboard');
    assert.strictEqual(rowsNow.length, records + 1, 'every record file became a row, and the new post one more');
    assert.ok(rowsNow.some(r => r.id === posted.id));
    const listed = await waitFor(
      async () => {
        const r = await under(api.providers.agents, clone);
        return r.some(x => x.node.kind === 'agent') ? r : undefined;
      },
      { timeoutMs: LIMIT_MS, what: "the clone's Agents view to list agents" },
    );
    assert.deepStrictEqual(
      listed!.filter(r => r.node.kind === 'agent').map(r => r.label),
      dbRows(clone, 'SELECT agent_id FROM agents').map(r => r.agent_id),
    );
    assert.ok(!listed!.some(r => r.node.kind === 'message'), 'no notice any more');
  });
});
