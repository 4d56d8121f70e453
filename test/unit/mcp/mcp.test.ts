/**
 * `twining mcp`, driven over stdio by the MCP SDK's own client, as Claude Code or Cursor would:
 * the built dist/cli.js is started as a child process on a copy of twining-mcp's reference folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'child_process';
import { promisify } from 'util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OPERATION_NAMES, jsonSchemaOf } from '../../../src/core';
import { ALIAS_NAMES } from '../../../src/core/schemas/tool-aliases';
import { CLI_JS, changedFiles, fixtureProject, lockDirs, ownerRecords, parseJsonl, sleep, snapshotTree, tempProject, tw } from '../../support/tmp';

const run = promisify(execFile);

interface Connected {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

async function connect(dir: string): Promise<Connected> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--dir', dir], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'twining-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };

async function call(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<{ value: any; isError: boolean }> {
  const result = (await c.client.callTool({ name, arguments: args })) as ToolResult;
  assert.equal(result.content.length, 1, 'one content item');
  assert.equal(result.content[0].type, 'text');
  return { value: JSON.parse(result.content[0].text!), isError: result.isError === true };
}

/**
 * Waits until the server's work after earlier answers is done: the graph upkeep of earlier posts
 * (queued for a moment, applied by any call that reads the graph) and the release of a write's
 * locks, which comes just after its answer. Then a snapshot of the folder stands still.
 */
async function settled(c: Connected, root: string): Promise<void> {
  await ok(c, 'twining_graph_query', { query: 'settle' });
  for (let quiet = 0, i = 0; quiet < 2 && i < 200; i++) {
    quiet = lockDirs(root).length === 0 && ownerRecords(root).length === 0 ? quiet + 1 : 0;
    await sleep(25);
  }
}

async function ok(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const { value, isError } = await call(c, name, args);
  assert.equal(isError, false, `${name} failed: ${JSON.stringify(value)}`);
  return value;
}

const keys = (value: object) => Object.keys(value);
const includes = (value: object, fields: string[]) =>
  assert.deepEqual(
    fields.filter(f => !keys(value).includes(f)),
    [],
    `missing fields in ${JSON.stringify(value)}`,
  );

describe('twining mcp over stdio', () => {
  let root: string;
  let server: Connected;
  before(async () => {
    root = fixtureProject();
    server = await connect(root);
  });
  after(() => server.close());

  test('lists every operation once, under its twining_ name, with the core schema and honest hints', async () => {
    const { tools } = await server.client.listTools();
    // Every operation and alias, and twining_sync (not an operation of the folder: it exchanges it with the git remote).
    assert.deepEqual(tools.map(t => t.name).sort(), [...[...OPERATION_NAMES, ...ALIAS_NAMES].map(op => `twining_${op}`), 'twining_sync'].sort());
    for (const name of ['register', 'agents', 'discover', 'delegate', 'handoff', 'acknowledge', 'post', 'read', 'decide', 'status']) {
      assert.ok(
        tools.some(t => t.name === `twining_${name}`),
        `twining-mcp's twining_${name} is offered`,
      );
    }
    for (const op of [...OPERATION_NAMES, ...ALIAS_NAMES]) {
      const tool = tools.find(t => t.name === `twining_${op}`)!;
      assert.deepEqual(tool.inputSchema, jsonSchemaOf(op));
      assert.ok(tool.description && tool.description.length > 20, `${op} has a description`);
    }
    const readOnly = tools
      .filter(t => t.annotations?.readOnlyHint)
      .map(t => t.name)
      .sort();
    assert.deepEqual(readOnly, [
      'twining_agents',
      'twining_assemble',
      'twining_claims',
      'twining_commits',
      'twining_decisions',
      'twining_delegations',
      'twining_discover',
      'twining_exchange_status',
      'twining_export',
      'twining_graph_query',
      'twining_handoffs',
      'twining_migrate_status',
      'twining_neighbors',
      'twining_query',
      'twining_read',
      'twining_recent',
      'twining_search',
      'twining_search_decisions',
      'twining_status',
      'twining_summarize',
      'twining_trace',
      'twining_triage',
      'twining_verify',
      'twining_what_changed',
      'twining_why',
    ]);
    const instructions = server.client.getInstructions() ?? '';
    for (const tool of ['twining_register', 'twining_acknowledge', 'twining_handoff', 'twining_decide', 'twining_read'])
      assert.match(instructions, new RegExp(tool));
  });

  test('every tool answers with at least the fields twining-mcp returns (docs/format.md §Tools)', async () => {
    includes(await ok(server, 'twining_register', { agent_id: 'mcp-agent', capabilities: ['Testing'], role: 'tester' }), [
      'agent_id',
      'capabilities',
      'role',
      'registered_at',
      'last_active',
    ]);
    includes(await ok(server, 'twining_agents'), ['agents', 'total_registered', 'active_count']);
    includes(await ok(server, 'twining_claim', { agent_id: 'mcp-agent', paths: ['src/mcp/'], reason: 'server work' }), [
      'granted',
      'claims',
      'conflicts',
      'lapsed',
    ]);
    const refused = await ok(server, 'twining_claim', { agent_id: 'other-agent', paths: ['src/mcp/server.ts'], reason: 'x' });
    assert.equal(refused.granted, false);
    assert.match(refused.conflicts[0].message, /mcp-agent holds src\/mcp\/ since .* until .* \(server work\)/);
    includes(await ok(server, 'twining_claims', { path: 'src/mcp/' }), ['claims', 'live_count', 'lapsed_count']);
    includes(await ok(server, 'twining_release', { agent_id: 'mcp-agent' }), ['released', 'not_held']);
    includes(await ok(server, 'twining_assemble', { task: 'review', scope: 'project', agent_id: 'mcp-agent' }), [
      'assembled_at',
      'task',
      'scope',
      'token_estimate',
      'active_decisions',
      'open_needs',
      'recent_findings',
      'active_warnings',
      'recent_questions',
      'related_entities',
      'recent_handoffs',
    ]);
    includes(await ok(server, 'twining_record', { summary: 'Reviewed the folder', findings: ['nothing odd'], agent_id: 'mcp-agent' }), [
      'status_entry_id',
      'decisions_created',
      'findings_created',
      'scope',
      'message',
    ]);
    includes(await ok(server, 'twining_discover', { required_capabilities: ['testing'] }), ['agents', 'total_registered']);
    const need = await ok(server, 'twining_delegate', { summary: 'Review the MCP server', required_capabilities: ['review'] });
    includes(need, ['entry_id', 'timestamp', 'expires_at', 'suggested_agents']);
    const handoff = await ok(server, 'twining_handoff', {
      source_agent: 'mcp-agent',
      scope: 'src/auth/',
      summary: 'Auth work handed over through MCP',
      results: [{ description: 'tokens', status: 'completed' }],
    });
    includes(handoff, ['id', 'created_at', 'source_agent', 'scope', 'summary', 'result_count', 'context_snapshot_size']);
    assert.equal(handoff.result_count, 1);
    assert.deepEqual(keys(handoff.context_snapshot_size), ['decisions', 'warnings', 'findings']);
    assert.ok(handoff.context_snapshot_size.decisions >= 2, 'the reference folder has decisions under src/auth/');
    assert.equal(handoff.context_snapshot_size.decisions, handoff.context_snapshot.decision_ids.length);
    const ack = await ok(server, 'twining_acknowledge', { handoff_id: handoff.id, agent_id: 'reviewer' });
    includes(ack, ['id', 'acknowledged_by', 'acknowledged_at', 'summary', 'source_agent']);
    includes(await ok(server, 'twining_post', { entry_type: 'finding', summary: 'Found through MCP', scope: 'src/mcp/' }), ['id', 'timestamp']);
    const read = await ok(server, 'twining_read', { scope: 'src/mcp/' });
    includes(read, ['entries', 'total_count']);
    assert.deepEqual(
      read.entries.map((e: any) => e.summary),
      ['Found through MCP'],
    );
    includes(
      await ok(server, 'twining_decide', {
        domain: 'testing',
        scope: 'src/mcp/',
        summary: 'Drive the server with the SDK client',
        context: 'c',
        rationale: 'r',
      }),
      ['id', 'timestamp'],
    );
    includes(await ok(server, 'twining_status'), [
      'project',
      'blackboard_entries',
      'active_decisions',
      'provisional_decisions',
      'graph_entities',
      'graph_relations',
      'registered_agents',
      'active_agents',
      'last_activity',
      'needs_archiving',
      'warnings',
      'summary',
    ]);
    includes(await ok(server, 'twining_delegations'), ['delegations', 'open_count', 'expired_count']);
    const listed = await ok(server, 'twining_handoffs', { source_agent: 'mcp-agent' });
    assert.deepEqual(
      listed.handoffs.map((h: any) => [h.id, h.acknowledged]),
      [[handoff.id, true]],
    );
    includes(await ok(server, 'twining_decisions', { scope: 'src/mcp/' }), ['decisions', 'total_count']);
    const verified = await ok(server, 'twining_verify', { handoff_id: handoff.id });
    assert.equal(verified.intact, true);
  });

  test("twining-mcp's search tools: twining_search_decisions and twining_query with its input fields and result fields", async () => {
    const decisions = await ok(server, 'twining_search_decisions', { query: 'jwt tokens', status: 'active', limit: 5 });
    includes(decisions, ['results', 'total_matched', 'fallback_mode']);
    assert.equal(decisions.fallback_mode, true);
    assert.ok(decisions.results.length >= 1 && decisions.results.length <= 5);
    for (const r of decisions.results) {
      includes(r, ['id', 'summary', 'domain', 'scope', 'confidence', 'status', 'timestamp', 'relevance', 'commit_hashes']);
      assert.equal(r.status, 'active');
    }
    assert.equal(decisions.results[0].id, '01M80HHJN7TF8W1N7EW8PHV7MT', 'the decision about JWT bearer tokens ranks first');
    const entries = await ok(server, 'twining_query', { query: 'exp claim', entry_types: ['warning'] });
    includes(entries, ['results', 'fallback_mode']);
    assert.equal(entries.results[0].entry.summary, 'verifyToken does not check the exp claim');
    assert.equal(typeof entries.results[0].relevance, 'number');
    assert.ok(entries.results.every((r: any) => r.entry.entry_type === 'warning'));
    const both = await ok(server, 'twining_search', { query: 'jwt', scope: 'src/auth/jwt.ts' });
    assert.deepEqual(new Set(both.results.map((r: any) => r.kind)), new Set(['decision', 'entry']));
  });

  test("invalid input is an error with twining-mcp's text and isError, and writes nothing", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['twining_register', { agent_id: '../escape' }, /agent_id/],
      ['twining_delegate', { summary: '', required_capabilities: ['x'] }, /summary/],
      ['twining_handoff', { source_agent: 'a', summary: 's' }, /results: required/],
      ['twining_acknowledge', { handoff_id: '../../etc/passwd', agent_id: 'a' }, /handoff_id: must be a ULID/],
      ['twining_post', { entry_type: 'decision', summary: 'x' }, /entry_type/],
      ['twining_post', { entry_type: 'warning', summary: 'x'.repeat(201) }, /200 characters/],
      ['twining_post', { entry_type: 'warning', summary: 'x', sumary: 'typo' }, /twining_post: unknown field "sumary" \(did you mean "summary"\?\)/],
      ['twining_read', { entryTypes: ['warning'] }, /did you mean "entry_types"/],
      ['twining_decide', { domain: 'd', scope: 's', summary: 's', context: 'c' }, /rationale: required/],
      ['twining_read', { since: 'yesterday' }, /since/],
      ['twining_search', { query: '' }, /query: must not be empty/],
      ['twining_search_decisions', { query: 'jwt', status: 'retired' }, /search_decisions: status/],
      ['twining_trace', { decison_id: '01M80HHK1QX1QEC06YGTWYXEZJ' }, /did you mean "decision_id"/],
      ['twining_query', { entry_types: ['warning'] }, /query: query: required/],
      ['twining_query', { query: 'jwt', entry_types: ['memo'] }, /query: entry_types\[0\]/],
    ];
    await settled(server, root);
    const before = snapshotTree(root);
    for (const [tool, args, message] of cases) {
      const { value, isError } = await call(server, tool, args);
      assert.equal(isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.deepEqual(keys(value), ['error', 'message', 'code']);
      assert.equal(value.error, true);
      assert.equal(value.code, 'INVALID_INPUT');
      assert.match(value.message, message);
    }
    const missing = await call(server, 'twining_acknowledge', { handoff_id: '01M80HHKAVJT8FG2B08Q4NGZ4Z', agent_id: 'a' });
    assert.deepEqual([missing.isError, missing.value.code], [true, 'NOT_FOUND']);
    const unknown = await call(server, 'twining_assemble', {});
    assert.deepEqual([unknown.isError, unknown.value.code], [true, 'INVALID_INPUT']);
    assert.deepEqual(changedFiles(before, snapshotTree(root)), []);
  });

  test('a field twining-mcp would ignore is left out and named in ignored_fields', async () => {
    const why = await ok(server, 'twining_why', { scope: 'src/auth/jwt.ts', agent_id: 'reviewer' });
    assert.deepEqual(why.ignored_fields, ['agent_id']);
    assert.ok(why.decisions.length > 0);
    const found = await ok(server, 'twining_search_decisions', { query: 'jwt', entry_types: ['warning'], verbose: true });
    assert.deepEqual(found.ignored_fields, ['entry_types', 'verbose']);
    assert.equal((await ok(server, 'twining_status', {})).ignored_fields, undefined, 'none ignored: no field');
  });

  test('a write by another process is seen by the next call, without a restart', async () => {
    const before = (await ok(server, 'twining_read', { entry_types: ['warning'], limit: 0 })).total_count;
    await run(process.execPath, [CLI_JS, 'post', '--dir', root, '--entry-type', 'warning', '--summary', 'Posted by the CLI', '--scope', 'src/cli/']);
    const after = await ok(server, 'twining_read', { entry_types: ['warning'], limit: 0 });
    assert.equal(after.total_count, before + 1);
    assert.equal(after.entries.at(-1).summary, 'Posted by the CLI');
    await run(process.execPath, [CLI_JS, 'register', 'cli-agent', '--dir', root, '--capabilities', 'cli']);
    assert.ok((await ok(server, 'twining_agents')).agents.some((a: any) => a.agent_id === 'cli-agent'));
  });
});

describe('twining mcp beside other writers', () => {
  test('two servers and the CLI writing at once lose nothing', async () => {
    const root = fixtureProject();
    const [a, b] = await Promise.all([connect(root), connect(root)]);
    try {
      const start = parseJsonl(tw(root, 'blackboard.jsonl')).length;
      const perWriter = 12;
      const posts = (c: Connected, who: string) =>
        Array.from({ length: perWriter }, (_, i) => ok(c, 'twining_post', { entry_type: 'status', summary: `${who} ${i}`, agent_id: who }));
      const registrations = (c: Connected, who: string) => Array.from({ length: 4 }, (_, i) => ok(c, 'twining_register', { agent_id: `${who}-${i}` }));
      const cli = Array.from({ length: 4 }, (_, i) =>
        run(process.execPath, [CLI_JS, 'post', '--dir', root, '--entry-type', 'status', '--summary', `cli ${i}`]),
      );
      await Promise.all([...posts(a, 'a'), ...posts(b, 'b'), ...registrations(a, 'a'), ...registrations(b, 'b'), ...cli]);
      const entries = parseJsonl(tw(root, 'blackboard.jsonl'));
      assert.equal(entries.length, start + 2 * perWriter + 4);
      for (const who of ['a', 'b'])
        for (let i = 0; i < perWriter; i++)
          assert.ok(
            entries.some(e => e.summary === `${who} ${i}`),
            `${who} ${i} kept`,
          );
      const registry = JSON.parse(require('fs').readFileSync(tw(root, 'agents/registry.json'), 'utf8')) as { agent_id: string }[];
      for (const who of ['a', 'b'])
        for (let i = 0; i < 4; i++)
          assert.ok(
            registry.some(r => r.agent_id === `${who}-${i}`),
            `${who}-${i} registered`,
          );
      assert.equal(new Set(entries.map(e => e.id)).size, entries.length, 'no id twice');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a missing project folder ends the server at once with a message and exit status 2', async () => {
    const missing = `${tempProject()}/does-not-exist`;
    await assert.rejects(run(process.execPath, [CLI_JS, 'mcp', '--dir', missing]), (error: any) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr, /Project folder not found: .*does-not-exist/);
      return true;
    });
  });
});
