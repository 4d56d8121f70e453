/**
 * twining-mcp 2.16's remaining surface over `twining mcp` on a twining-mcp 2.x folder (twining.db
 * and records/), and the new fields through both layouts: a decision recorded with `status`,
 * `assumptions` and an alternative without `reason_rejected`, then amended, keeps them in its row
 * and in its record file (twining-mcp's bytes), after a restart of the server, in a fresh clone
 * (records/ only), and through `twining migrate --reverse` into the 1.x files and forward again.
 * Needs node:sqlite (scripts/test.js runs every sqlite-*.test.js under Node 24).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { migrate } from '../../../src/core';
import { estimateTokens } from '../../../src/core/rules/assembly';
import { CLI_JS, fixtureProject, tempProject, tw } from '../../support/tmp';
import { assertAgree, hasSqlite, mcpRecordPath, openMcpDb, stableStringify, twoXFrom1x } from '../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;

async function connect(dir: string): Promise<Client> {
  const client = new Client({ name: 'twining-surface-2x', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--dir', dir], stderr: 'ignore' }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ value: any; text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
  return { value: JSON.parse(result.content[0].text), text: result.content[0].text, isError: result.isError === true };
}
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(client, name, args);
  assert.equal(r.isError, false, `${name}: ${r.text}`);
  return r.value;
}

/** A twining-mcp 2.x folder made from the reference fixture (rows and record files). */
function sqliteProject(): string {
  const one = fixtureProject();
  const two = tempProject();
  twoXFrom1x(tw(one), tw(two));
  return two;
}

function row(root: string, id: string): Record<string, any> {
  const db = openMcpDb(tw(root));
  try {
    return JSON.parse((db.prepare('SELECT data FROM decisions WHERE id = ?').all(id)[0] as { data: string }).data);
  } finally {
    db.close();
  }
}

/** The new fields as recorded, whatever layout they were read from. */
function assertKept(d: Record<string, any>, where: string): void {
  assert.equal(d.status, 'provisional', where);
  assert.deepEqual(d.assumptions, ['Payments settle within a day'], where);
  assert.deepEqual(d.alternatives[0], { option: 'Poll the provider', pros: [], cons: [] }, `${where}: no reason_rejected key`);
  assert.deepEqual(d.affected_files, ['src/pay/settle.ts'], where);
  assert.deepEqual(d.affected_symbols, ['settle'], where);
  assert.equal(d.amendments.length, 1, where);
  assert.equal(d.amendments[0].reason, 'backfill', where);
}

describe('twining-mcp 2.16 surface over MCP, 2.x folder, and the new fields through both layouts', { skip }, () => {
  test('decide, amend and why on twining.db; rows and record files agree; kept after a restart, in a fresh clone, and through migrate --reverse and forward', async () => {
    const root = sqliteProject();
    let client = await connect(root);
    let id = '';
    try {
      const made = await ok(client, 'twining_decide', {
        domain: 'payments',
        scope: 'src/pay/',
        summary: 'Settlement is event-driven',
        context: 'Provider webhooks',
        rationale: 'Less load than polling',
        status: 'provisional',
        assumptions: ['Payments settle within a day'],
        alternatives: [{ option: 'Poll the provider' }],
      });
      id = made.id;
      assert.equal((await ok(client, 'twining_why', { scope: 'src/pay/settle.ts' })).decisions.length, 1, 'the folder scope covers it');
      assert.equal((await ok(client, 'twining_why', { scope: 'settle' })).decisions.length, 0, 'the symbol is not known yet');
      const amended = await ok(client, 'twining_amend', {
        decision_id: id,
        add_affected_files: ['src/pay/settle.ts'],
        add_affected_symbols: ['settle'],
        reason: 'backfill',
      });
      assert.deepEqual([amended.added_files, amended.added_symbols], [['src/pay/settle.ts'], ['settle']]);
      assert.deepEqual(
        (await ok(client, 'twining_why', { scope: 'settle' })).decisions.map((d: any) => d.id),
        [id],
        'why finds it by the symbol it gained',
      );
      assertKept(row(root, id), 'twining.db row');
      const file = mcpRecordPath(tw(root), 'decisions', { id });
      assert.equal(fs.readFileSync(file, 'utf8'), stableStringify(row(root, id)), "the record file holds twining-mcp's bytes for the row");
    } finally {
      await client.close();
    }
    // The graph's upkeep of the amend is written a moment after it answered (the server's batchGraph),
    // and finished before the server ends: the rows and record files agree once it has closed.
    assertAgree(tw(root));

    // A new server process reads it back.
    client = await connect(root);
    try {
      const again = await ok(client, 'twining_why', { ids: [id] });
      assert.deepEqual([again.decisions[0].status, again.decisions[0].alternatives], ['provisional', [{ option: 'Poll the provider', pros: [], cons: [] }]]);
      assert.equal((await ok(client, 'twining_why', { scope: 'settle' })).decisions[0].id, id);
    } finally {
      await client.close();
    }

    // A fresh clone has records/ and no twining.db: the same decision, read from its record file.
    const clone = tempProject();
    fs.cpSync(tw(root), tw(clone), { recursive: true });
    for (const f of ['twining.db', 'twining.db-wal', 'twining.db-shm']) fs.rmSync(tw(clone, f), { force: true });
    client = await connect(clone);
    try {
      assert.deepEqual(
        (await ok(client, 'twining_why', { scope: 'settle' })).decisions.map((d: any) => d.id),
        [id],
      );
      const status = await ok(client, 'twining_migrate_status');
      assert.deepEqual([status.format, status.storage.backend, status.storage.database, status.storage.records], [2, 'sqlite', false, true]);
    } finally {
      await client.close();
    }

    // Back to the 1.x files (a twining-mcp 1.x reads these), and forward again.
    const reversed = await migrate(root, { reverse: true });
    assert.equal(reversed.finalized, true);
    const oneX = JSON.parse(fs.readFileSync(tw(root, 'decisions', `${id}.json`), 'utf8'));
    assertKept(oneX, '1.x decisions/ file');
    const entry = (JSON.parse(fs.readFileSync(tw(root, 'decisions', 'index.json'), 'utf8')) as any[]).find(e => e.id === id);
    assert.deepEqual([entry.status, entry.affected_symbols], ['provisional', ['settle']], '1.x index entry');
    const forward = await migrate(root, {});
    assert.equal(forward.finalized, true);
    assertKept(row(root, id), 'twining.db row after forward again');
  });

  test("2.x folder: archive keeps open needs and warnings unless told; repair_index says there is no index; migrate_status and exchange_status; why's budget and lineage as on 1.x", async () => {
    const root = sqliteProject();
    const client = await connect(root);
    try {
      const warning = await ok(client, 'twining_post', { entry_type: 'warning', summary: 'Settlement retries are not idempotent', scope: 'src/pay/' });
      const archived = await ok(client, 'twining_archive', { summarize: false });
      assert.equal(typeof archived.kept_open_count, 'number', "2.x's answer");
      assert.ok(archived.kept_open_count >= 1);
      assert.equal(
        (await ok(client, 'twining_read', { entry_types: ['warning'], limit: 0 })).entries.some((e: any) => e.id === warning.id),
        true,
        'the open warning stays',
      );
      const swept = await ok(client, 'twining_archive', { summarize: false, keep_open_needs_warnings: false });
      assert.ok(swept.archived_count >= 1);
      assert.equal((await ok(client, 'twining_read', { entry_types: ['warning'], limit: 0 })).entries.length, 0);
      assertAgree(tw(root));

      const hk = await ok(client, 'twining_housekeeping', { repair_index: true, execute: true });
      assert.match(hk.index_repair_error, /twining\.db and records\/.*nothing was repaired/);
      assert.equal(hk.index_repair, undefined);

      const m = await ok(client, 'twining_migrate_status');
      assert.deepEqual([m.format, m.migration, m.rolled_back, m.storage.backend, m.storage.database], [2, 'not_started', false, 'sqlite', true]);
      const x = await ok(client, 'twining_exchange_status');
      assert.equal(x.sync.message, 'sync is not set up for this clone');

      const a = await ok(client, 'twining_decide', { domain: 'pay', scope: 'src/pay/', summary: 'Fees rounded up', context: 'c', rationale: 'r' });
      const b = await ok(client, 'twining_decide', {
        domain: 'pay',
        scope: 'src/pay/',
        summary: 'Fees rounded half-even',
        context: 'c',
        rationale: 'r',
        supersedes: a.id,
      });
      const why = await ok(client, 'twining_why', { scope: 'src/pay/', include_superseded: false, lineage: true });
      assert.deepEqual(why.superseded_excluded, [
        { id: a.id, summary: 'Fees rounded up', superseded_by: b.id, lineage_head: { id: b.id, summary: 'Fees rounded half-even', chain_length: 1 } },
      ]);
      const small = await call(client, 'twining_why', { scope: 'src/', max_tokens: 150 });
      assert.ok(estimateTokens(small.text) <= 150, small.text);
    } finally {
      await client.close();
    }
    assert.ok(fs.existsSync(path.join(tw(root), 'twining.db')));
  });
});
