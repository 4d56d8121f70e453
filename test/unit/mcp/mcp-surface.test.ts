/**
 * twining-mcp 2.16's remaining surface over `twining mcp`, driven over stdio by the MCP SDK's own
 * client on a 1.x (files) folder: twining_amend (and why finding the decision by what it added),
 * twining_migrate_status, twining_exchange_status, twining_why's ids, max_tokens,
 * include_superseded and lineage, twining_decide's and twining_record's status and assumptions,
 * an alternative without reason_rejected, twining_archive's keep_open_needs_warnings,
 * twining_housekeeping's repair_index, and config.yml's tools.full_surface and tools.mode. The
 * result fields are checked against test/fixtures/twining-2/surface-2.16.json (read from
 * twining-mcp's source; its README names the files and commits).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OPERATION_NAMES } from '../../../src/core';
import { ALIAS_NAMES } from '../../../src/core/schemas/tool-aliases';
import { estimateTokens } from '../../../src/core/rules/assembly';
import { CLI_JS, fixtureProject, parseJsonl, tw } from '../../support/tmp';

const SURFACE = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../test/fixtures/twining-2/surface-2.16.json'), 'utf8')) as {
  default_surface: string[];
  lite_mode_leaves_out: string[];
  tool_counts: { all: number; default_surface: number };
  inputs: Record<string, string[]>;
  results: Record<string, string[]>;
};

interface Connected {
  client: Client;
  close(): Promise<void>;
}

async function connect(dir: string): Promise<Connected> {
  const client = new Client({ name: 'twining-surface-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--dir', dir], stderr: 'ignore' }));
  return { client, close: () => client.close() };
}

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };

async function call(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<{ value: any; isError: boolean; text: string }> {
  const result = (await c.client.callTool({ name, arguments: args })) as ToolResult;
  const text = result.content[0].text!;
  return { value: JSON.parse(text), isError: result.isError === true, text };
}

async function ok(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const { value, isError } = await call(c, name, args);
  assert.equal(isError, false, `${name} failed: ${JSON.stringify(value)}`);
  return value;
}

async function refused(c: Connected, name: string, args: Record<string, unknown>, message: RegExp): Promise<void> {
  const { value, isError } = await call(c, name, args);
  assert.equal(isError, true, `${name} should fail: ${JSON.stringify(value)}`);
  assert.match(value.message, message);
}

/** Every field the fixture lists for `key` is in `value`. */
function hasFields(value: object, key: string): void {
  const missing = SURFACE.results[key].filter(f => !(f in value));
  assert.deepEqual(missing, [], `${key}: missing ${missing.join(', ')} in ${JSON.stringify(value).slice(0, 400)}`);
}

const decision = (summary: string, extra: Record<string, unknown> = {}) => ({
  domain: 'architecture',
  scope: 'src/billing/',
  summary,
  context: 'ctx',
  rationale: 'why',
  ...extra,
});

const readDecision = (root: string, id: string) => JSON.parse(fs.readFileSync(tw(root, 'decisions', `${id}.json`), 'utf8'));
const index = (root: string) => JSON.parse(fs.readFileSync(tw(root, 'decisions', 'index.json'), 'utf8')) as Record<string, any>[];

/** What twining-mcp 1.9 needs of a decision record to read it (its src/utils/types.ts Decision). */
function readableBy19(record: Record<string, any>): void {
  for (const key of ['id', 'timestamp', 'agent_id', 'domain', 'scope', 'summary', 'context', 'rationale', 'confidence', 'status'])
    assert.equal(typeof record[key], 'string', key);
  for (const key of ['constraints', 'alternatives', 'depends_on', 'affected_files', 'affected_symbols', 'commit_hashes'])
    assert.ok(Array.isArray(record[key]), key);
  assert.equal(typeof record.reversible, 'boolean');
}

describe('twining-mcp 2.16 surface over MCP, 1.x folder', () => {
  let root: string;
  let server: Connected;
  before(async () => {
    root = fixtureProject();
    server = await connect(root);
  });
  after(() => server.close());

  test('the new tools are listed with their input fields', async () => {
    const { tools } = await server.client.listTools();
    // Every operation and alias, and twining_sync (not an operation of the table: src/mcp/server.ts).
    assert.equal(tools.length, OPERATION_NAMES.length + ALIAS_NAMES.length + 1, 'every tool without tools.full_surface in config.yml');
    assert.ok(tools.some(t => t.name === 'twining_sync'));
    for (const [tool, fields] of Object.entries(SURFACE.inputs)) {
      const [name, sub] = tool.split('.');
      const t = tools.find(x => x.name === name);
      assert.ok(t, `${name} is listed`);
      let props = (t.inputSchema as { properties?: Record<string, any> }).properties ?? {};
      if (sub === 'decisions[]') props = props.decisions.items.anyOf.find((x: any) => x.type === 'object').properties;
      assert.deepEqual(
        fields.filter(f => !(f in props)),
        [],
        name,
      );
    }
  });

  test('amend adds files and symbols; why then finds the decision through them; the record keeps a trail and stays readable by 1.x', async () => {
    const made = await ok(server, 'twining_decide', decision('Invoices are computed in integer cents'));
    assert.equal((await ok(server, 'twining_why', { scope: 'lib/money.ts' })).decisions.length, 0, 'not found before: no file names it');
    assert.equal((await ok(server, 'twining_why', { scope: 'toCents' })).decisions.length, 0);

    const amended = await ok(server, 'twining_amend', {
      decision_id: made.id,
      add_affected_files: ['lib/money.ts', 'lib/money.ts'],
      add_affected_symbols: ['toCents'],
      reason: 'written before the files were known',
      agent_id: 'fixer',
    });
    hasFields(amended, 'twining_amend');
    assert.deepEqual([amended.id, amended.added_files, amended.added_symbols, amended.unchanged], [made.id, ['lib/money.ts'], ['toCents'], false]);

    const byFile = await ok(server, 'twining_why', { scope: 'lib/money.ts' });
    assert.deepEqual(
      byFile.decisions.map((d: any) => d.id),
      [made.id],
    );
    assert.deepEqual(
      (await ok(server, 'twining_why', { scope: 'toCents' })).decisions.map((d: any) => d.id),
      [made.id],
    );
    assert.deepEqual(
      (await ok(server, 'twining_why', { scope: 'lib/' })).decisions.map((d: any) => d.id),
      [made.id],
      'and the folder above it',
    );

    const record = readDecision(root, made.id);
    readableBy19(record);
    assert.deepEqual(
      [record.affected_files, record.affected_symbols, record.summary, record.rationale],
      [['lib/money.ts'], ['toCents'], 'Invoices are computed in integer cents', 'why'],
    );
    assert.equal(record.amendments.length, 1);
    assert.deepEqual(
      [record.amendments[0].agent_id, record.amendments[0].added_files, record.amendments[0].added_symbols, record.amendments[0].reason],
      ['fixer', ['lib/money.ts'], ['toCents'], 'written before the files were known'],
    );
    const entry = index(root).find(e => e.id === made.id)!;
    assert.deepEqual([entry.affected_files, entry.affected_symbols], [['lib/money.ts'], ['toCents']], 'the index, which listings read, has them too');
    const finding = parseJsonl(tw(root, 'blackboard.jsonl')).find(e => e.id === amended.finding_id)!;
    assert.equal(finding.entry_type, 'finding');
    assert.match(finding.summary, /^Amended decision: Invoices/);
    assert.match(finding.detail, /file lib\/money\.ts, symbol toCents/);

    // Again: nothing new, nothing written.
    const before = fs.readFileSync(tw(root, 'decisions', `${made.id}.json`), 'utf8');
    const again = await ok(server, 'twining_amend', { decision_id: made.id, add_affected_files: ['lib/money.ts'] });
    assert.equal(again.unchanged, true);
    assert.equal(fs.readFileSync(tw(root, 'decisions', `${made.id}.json`), 'utf8'), before);

    // A retired decision can be amended too.
    const next = await ok(server, 'twining_decide', decision('Invoices use a decimal library', { supersedes: made.id }));
    assert.equal((await ok(server, 'twining_amend', { decision_id: made.id, add_affected_files: ['lib/invoice.ts'] })).added_files[0], 'lib/invoice.ts');
    assert.equal(readDecision(root, made.id).status, 'superseded');
    assert.equal(readDecision(root, made.id).amendments.length, 2);
    assert.ok(next.id);

    await refused(
      server,
      'twining_amend',
      { decision_id: '01M80HHK1QX1QEC06YGTWYXEZZ', add_affected_files: ['x.ts'] },
      /Decision not found: 01M80HHK1QX1QEC06YGTWYXEZZ; nothing was written/,
    );
    await refused(server, 'twining_amend', { decision_id: made.id }, /add_affected_files or add_affected_symbols/);
    await refused(server, 'twining_amend', { decision_id: '../../etc/passwd', add_affected_files: ['x'] }, /decision_id: must be a ULID/);
  });

  test('decide: status provisional and assumptions are kept; provisional cannot supersede; an alternative may leave reason_rejected out', async () => {
    const made = await ok(server, 'twining_decide', {
      ...decision('Refunds go through the ledger service', { scope: 'src/refunds/' }),
      status: 'provisional',
      assumptions: ['The ledger service stays synchronous'],
      alternatives: [{ option: 'Direct database writes' }, { option: 'A queue', reason_rejected: 'Ordering matters' }],
    });
    const record = readDecision(root, made.id);
    readableBy19(record);
    assert.equal(record.status, 'provisional');
    assert.deepEqual(record.assumptions, ['The ledger service stays synchronous']);
    assert.deepEqual(record.alternatives[0], { option: 'Direct database writes', pros: [], cons: [] }, 'no reason_rejected key, not an empty one');
    assert.equal(record.alternatives[1].reason_rejected, 'Ordering matters');
    assert.equal(index(root).find(e => e.id === made.id)!.status, 'provisional');
    const why = await ok(server, 'twining_why', { scope: 'src/refunds/' });
    assert.deepEqual([why.provisional_count, why.decisions[0].status], [1, 'provisional']);
    await refused(
      server,
      'twining_decide',
      { ...decision('Replace it', { scope: 'src/refunds/' }), status: 'provisional', supersedes: made.id },
      /provisional decision cannot supersede/,
    );
    await refused(server, 'twining_decide', { ...decision('Bad status'), status: 'superseded' }, /status/);
  });

  test("record: each decision's status and assumptions, the record's assumptions as the fallback", async () => {
    const r = await ok(server, 'twining_record', {
      summary: 'Reworked exports',
      scope: 'src/export/',
      assumptions: ['CSV stays the default'],
      decisions: [
        { summary: 'Exports stream rows', rationale: 'Memory', status: 'provisional', alternatives: [{ option: 'Buffer everything' }] },
        { summary: 'Exports are gzip-compressed', rationale: 'Size', assumptions: ['Clients accept gzip'] },
      ],
    });
    const [first, second] = r.decisions_created.map((d: any) => readDecision(root, d.id));
    assert.deepEqual(
      [first.status, first.assumptions, first.alternatives[0]],
      ['provisional', ['CSV stays the default'], { option: 'Buffer everything', pros: [], cons: [] }],
    );
    assert.deepEqual([second.status, second.assumptions], ['active', ['Clients accept gzip']]);
    assert.equal(r.decisions_created[0].status, 'provisional');
  });

  test('why keeps to max_tokens on a record past the budget, and ids give the full detail of those left out', async () => {
    // 30 decisions on one file with 6,000-character rationales: unbounded, the answer would be about 190 KB.
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const made = await ok(server, 'twining_decide', {
        ...decision(`Rate limit rule ${i}`, { scope: 'src/limits/', affected_files: ['src/limits/rate.ts'] }),
        rationale: `Rule ${i}: ${'the limiter keeps a window per key and refuses past the quota. '.repeat(100)}`,
        alternatives: [{ option: `Option ${i}`, reason_rejected: 'slower' }],
      });
      ids.push(made.id);
    }
    for (const max_tokens of [undefined, 4000, 1500, 300, 100]) {
      const { value, text } = await call(server, 'twining_why', { scope: 'src/limits/rate.ts', ...(max_tokens ? { max_tokens } : {}) });
      const budget = max_tokens ?? 4000;
      assert.ok(estimateTokens(text) <= budget, `max_tokens ${budget}: the answer is ${estimateTokens(text)} tokens (${text.length} characters)`);
      assert.equal(value.token_estimate, estimateTokens(text), 'token_estimate is the size of the answer');
      hasFields(value, 'twining_why');
      assert.equal(value.truncated, true);
      if (budget >= 300) hasFields(value, 'twining_why.truncated');
      else assert.match(value.message, /30 more only counted/, 'a budget too small for any one-liner still says what is left out');
      assert.equal(value.total_in_scope, 30);
      const shown = value.decisions.length + (value.more?.length ?? 0) + (value.omitted_count ?? 0);
      assert.equal(shown, 30, 'every decision is given in full, as a one-liner or counted');
      for (const d of value.decisions) hasFields(d, 'twining_why.decisions[]');
      for (const m of value.more ?? []) hasFields(m, 'twining_why.more[]');
    }
    const big = await ok(server, 'twining_why', { scope: 'src/limits/rate.ts', max_tokens: 20000 });
    assert.ok(big.decisions.length > (await ok(server, 'twining_why', { scope: 'src/limits/rate.ts' })).decisions.length, 'a larger budget gives more in full');
    assert.deepEqual(
      big.decisions.map((d: any) => d.id),
      [...big.decisions.map((d: any) => d.id)].sort().reverse(),
      'listed newest first',
    );

    const one = (await ok(server, 'twining_why', { scope: 'src/limits/rate.ts', max_tokens: 1500 })).more[0];
    const drill = await ok(server, 'twining_why', { ids: [one.id, '01M80HHK1QX1QEC06YGTWYXEZZ', 'not-an-id'] });
    hasFields(drill, 'twining_why.ids.missing');
    assert.deepEqual(drill.missing_ids, ['01M80HHK1QX1QEC06YGTWYXEZZ', 'not-an-id']);
    assert.equal(drill.decisions.length, 1);
    hasFields(drill.decisions[0], 'twining_why.ids.decisions[]');
    assert.deepEqual(drill.decisions[0].alternatives, [{ option: drill.decisions[0].alternatives[0].option, pros: [], cons: [], reason_rejected: 'slower' }]);
    assert.equal(drill.decisions[0].context, 'ctx');
    const drillBudget = await call(server, 'twining_why', { ids, max_tokens: 2000 });
    assert.ok(estimateTokens(drillBudget.text) <= 2000, 'ids keep to max_tokens when it is given');

    await refused(server, 'twining_why', {}, /Provide a scope or a list of decision ids/);
    await refused(server, 'twining_why', { scope: 'src/', max_tokens: 50 }, /max_tokens/);
  });

  test('include_superseded: false leaves retired decisions out and names them; lineage follows them to the current answer', async () => {
    const a = await ok(server, 'twining_decide', decision('Sessions last a day', { scope: 'src/sessions/' }));
    const b = await ok(server, 'twining_decide', decision('Sessions last an hour', { scope: 'src/sessions/', supersedes: a.id }));
    const c = await ok(server, 'twining_decide', decision('Sessions last until logout', { scope: 'src/sessions/', supersedes: b.id }));
    const all = await ok(server, 'twining_why', { scope: 'src/sessions/' });
    assert.deepEqual(
      all.decisions.map((d: any) => d.id),
      [c.id, b.id, a.id],
      'left unset: superseded ones are in, as 1.9 answered',
    );
    assert.equal(all.superseded_count, 2);

    const current = await ok(server, 'twining_why', { scope: 'src/sessions/', include_superseded: false });
    assert.deepEqual(
      current.decisions.map((d: any) => d.id),
      [c.id],
    );
    for (const e of current.superseded_excluded) hasFields(e, 'twining_why.superseded_excluded[]');
    assert.deepEqual(current.superseded_excluded.map((e: any) => [e.id, e.superseded_by]).sort(), [
      [a.id, b.id],
      [b.id, c.id],
    ]);
    assert.equal(current.superseded_excluded[0].lineage_head, undefined, 'no lineage unless asked');

    const lineage = await ok(server, 'twining_why', { scope: 'src/sessions/', include_superseded: false, lineage: true });
    const head = Object.fromEntries(lineage.superseded_excluded.map((e: any) => [e.id, e.lineage_head]));
    hasFields(head[a.id], 'twining_why.lineage_head');
    assert.deepEqual(head[a.id], { id: c.id, summary: 'Sessions last until logout', chain_length: 2 });
    assert.deepEqual(head[b.id], { id: c.id, summary: 'Sessions last until logout', chain_length: 1 });
    const inFull = await ok(server, 'twining_why', { scope: 'src/sessions/', lineage: true });
    assert.deepEqual(inFull.decisions.find((d: any) => d.id === a.id).lineage_head.id, c.id, 'and on retired decisions listed in full');

    const override = await ok(server, 'twining_override', { decision_id: c.id, reason: 'no' });
    assert.equal(override.overridden, true);
    const none = await ok(server, 'twining_why', { scope: 'src/sessions/', include_superseded: false });
    assert.deepEqual([none.decisions.length, none.superseded_count, none.total_in_scope], [0, 3, 0]);
  });

  test('archive: keep_open_needs_warnings keeps open needs, warnings and questions; a resolved one goes; unset on a files folder, 1.9 sweeps them', async () => {
    const warning = await ok(server, 'twining_post', { entry_type: 'warning', summary: 'Quota resets are not atomic', scope: 'src/limits/' });
    const need = await ok(server, 'twining_post', { entry_type: 'need', summary: 'A load test for the limiter', scope: 'src/limits/' });
    const question = await ok(server, 'twining_post', { entry_type: 'question', summary: 'Per key or per IP?', scope: 'src/limits/' });
    await ok(server, 'twining_resolve', { ids: [question.id], note: 'per key' });
    const finding = await ok(server, 'twining_post', { entry_type: 'finding', summary: 'The limiter is fast', scope: 'src/limits/' });
    const kept = await ok(server, 'twining_archive', { keep_open_needs_warnings: true, summarize: false });
    hasFields(kept, 'twining_archive.keep_open');
    const board = () => new Set(parseJsonl(tw(root, 'blackboard.jsonl')).map(e => e.id));
    const left = board();
    assert.ok(left.has(warning.id) && left.has(need.id), 'open ones stay');
    assert.ok(!left.has(question.id) && !left.has(finding.id), 'a resolved question and a finding go');
    assert.ok(kept.kept_open_count >= 2);
    const swept = await ok(server, 'twining_archive', { summarize: false });
    assert.equal('kept_open_count' in swept, false, "1.9's answer");
    assert.ok(!board().has(warning.id) && !board().has(need.id));
  });

  test('housekeeping repair_index finds decision records missing from the index, and execute puts them back so why finds them', async () => {
    const made = await ok(server, 'twining_decide', decision('Webhooks are signed', { scope: 'src/webhooks/' }));
    // The index loses its entry (a writer killed between the record and the index), and a stray file appears.
    fs.writeFileSync(
      tw(root, 'decisions', 'index.json'),
      JSON.stringify(
        index(root).filter(e => e.id !== made.id),
        null,
        2,
      ),
    );
    fs.writeFileSync(tw(root, 'decisions', '01M80HHK1QX1QEC06YGTWYXEZZ.json'), '{"not":"a decision"}');
    const preview = await ok(server, 'twining_housekeeping', { repair_index: true });
    assert.deepEqual(preview.index_repair, { orphans_found: 1, repaired: 0, skipped_invalid: 1, ids: [made.id] });
    assert.equal(
      index(root).some(e => e.id === made.id),
      false,
      'a preview writes nothing',
    );
    const done = await ok(server, 'twining_housekeeping', { repair_index: true, execute: true });
    assert.deepEqual([done.index_repair.orphans_found, done.index_repair.repaired], [1, 1]);
    const ids = index(root).map(e => e.id);
    assert.ok(ids.includes(made.id));
    assert.deepEqual(ids, [...ids].sort(), 'in ULID order');
    assert.equal(fs.readFileSync(tw(root, 'decisions', '01M80HHK1QX1QEC06YGTWYXEZZ.json'), 'utf8'), '{"not":"a decision"}', 'the stray file is left alone');
    assert.deepEqual(
      (await ok(server, 'twining_why', { scope: 'src/webhooks/' })).decisions.map((d: any) => d.id),
      [made.id],
    );
    fs.rmSync(tw(root, 'decisions', '01M80HHK1QX1QEC06YGTWYXEZZ.json'));
  });

  test('migrate_status and exchange_status: the files layout, nothing migrating; sync not set up, said plainly', async () => {
    const m = await ok(server, 'twining_migrate_status');
    hasFields(m, 'twining_migrate_status');
    assert.deepEqual([m.format, m.migration, m.next_command, m.rolled_back, m.storage.backend], [1, 'not_started', null, false, 'files']);
    const x = await ok(server, 'twining_exchange_status');
    hasFields(x, 'twining_exchange_status');
    hasFields(x.store, 'twining_exchange_status.store');
    hasFields(x.outbox, 'twining_exchange_status.outbox');
    hasFields(x.migration, 'twining_exchange_status.migration');
    assert.deepEqual(x.sync, { state: 'not_set_up', message: 'sync is not set up for this clone' });
    assert.deepEqual([x.outbox.depth, x.gaps, x.store.checkout, x.migration.state], [0, [], 'not_set_up', 'not_started']);
    const counts = await ok(server, 'twining_exchange_status', { include_ids: false });
    assert.deepEqual([counts.outbox.uncertain, counts.inbound.pending_parents], [0, 0]);
  });
});

describe('config.yml tools.full_surface and tools.mode over MCP', () => {
  test("full_surface: false offers twining-mcp's 16 default tools, refuses the others by name; true and unset offer all; lite leaves out status, archive, export and the graph", async () => {
    const root = fixtureProject();
    const config = tw(root, 'config.yml');
    const original = fs.readFileSync(config, 'utf8');
    const server = await connect(root);
    try {
      const names = async () => (await server.client.listTools()).tools.map(t => t.name).sort();
      const every = [...[...OPERATION_NAMES, ...ALIAS_NAMES].map(op => `twining_${op}`), 'twining_sync'].sort();
      assert.deepEqual(await names(), every);

      fs.writeFileSync(config, original.replace(/tools:\n {2}mode: full\n/, 'tools:\n  mode: full\n  full_surface: false\n'));
      assert.match(fs.readFileSync(config, 'utf8'), /full_surface: false/);
      assert.deepEqual(await names(), [...SURFACE.default_surface].sort(), 'read again when config.yml changes');
      assert.equal(SURFACE.default_surface.length, SURFACE.tool_counts.default_surface);
      const decide = await call(server, 'twining_decide', decision('Hidden'));
      assert.equal(decide.isError, true);
      assert.match(decide.value.message, /twining_decide is not offered: config\.yml sets tools\.full_surface: false/);
      assert.equal(fs.readFileSync(tw(root, 'decisions', 'index.json'), 'utf8').includes('Hidden'), false, 'nothing was written');
      assert.equal((await call(server, 'twining_why', { scope: 'src/' })).isError, false);
      const sync = await call(server, 'twining_sync');
      assert.equal(sync.isError, true);
      assert.match(sync.value.message, /twining_sync is not offered: config\.yml sets tools\.full_surface: false/);

      fs.writeFileSync(config, original.replace(/tools:\n {2}mode: full\n/, 'tools:\n  mode: lite\n  full_surface: false\n'));
      assert.deepEqual(await names(), SURFACE.default_surface.filter(n => !SURFACE.lite_mode_leaves_out.includes(n)).sort());
      assert.match((await call(server, 'twining_status')).value.message, /tools\.mode: lite/);

      fs.writeFileSync(config, original.replace(/tools:\n {2}mode: full\n/, 'tools:\n  mode: lite\n  full_surface: true\n'));
      assert.deepEqual(
        await names(),
        every.filter(n => !SURFACE.lite_mode_leaves_out.includes(n)),
      );

      fs.writeFileSync(config, original.replace(/tools:\n {2}mode: full\n/, 'tools:\n  mode: full\n  full_surface: "yes"\n'));
      assert.deepEqual(await names(), every, 'a value that is not true or false offers every tool');
    } finally {
      await server.close();
    }
  });
});
