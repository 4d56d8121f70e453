/**
 * A project without `.twining/`: every reading CLI subcommand and MCP tool says so (the folder
 * looked in, and `twining init`) instead of answering as if the project were empty, and writes
 * nothing; a write still creates the folder, after which reads answer. Real processes: the built
 * dist/cli.js, and `twining mcp` driven by the MCP SDK's client.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { execFile } from 'child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OPERATION_NAMES } from '../../../src/core';
import { writes } from '../../../src/core/operations/operation-writes';
import { CLI_JS, tempProject } from '../../support/tmp';

const READS = OPERATION_NAMES.filter(op => !writes(op));

function cli(args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise(resolve => {
    execFile(process.execPath, [CLI_JS, ...args], { cwd }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('a folder without .twining/', () => {
  test('every reading subcommand fails (exit 2) naming the folder and "twining init", and creates nothing', async () => {
    assert.ok(READS.includes('status') && READS.includes('handoffs') && READS.length >= 8, READS.join(', '));
    const root = tempProject();
    for (const op of READS) {
      const { code, stdout, stderr } = await cli([op, '--dir', root, '--json', '--input', '{}']);
      assert.equal(code, 2, `${op}: exit ${code}; ${stderr}`);
      assert.equal(stdout, '', `${op} printed no answer`);
      assert.ok(stderr.includes(`no .twining/ in ${root}`), `${op}: ${stderr}`);
      assert.match(stderr, /twining init/);
      assert.doesNotMatch(stderr, /Healthy|No handoffs/);
    }
    assert.equal(fs.existsSync(path.join(root, '.twining')), false, 'nothing was created');
  });

  test('without --dir: the current folder is named as the one looked in', async () => {
    const root = tempProject();
    const { code, stderr } = await cli(['status'], root);
    assert.equal(code, 2);
    assert.match(stderr, /there is no \.twining\/ in .*demo-project \(the current folder; --dir names another\)/);
  });

  test('a write creates the folder, and reads answer after it', async () => {
    const root = tempProject();
    const posted = await cli(['post', '--dir', root, '--json', '--input', JSON.stringify({ entry_type: 'finding', summary: 'first' })]);
    assert.equal(posted.code, 0, posted.stderr);
    const status = await cli(['status', '--dir', root]);
    assert.equal(status.code, 0, status.stderr);
    const handoffs = await cli(['handoffs', '--dir', root]);
    assert.equal(handoffs.code, 0, handoffs.stderr);
    assert.match(handoffs.stdout, /No handoffs/);
  });

  test('every reading MCP tool answers an error (NOT_FOUND) naming the folder; the server keeps serving', async () => {
    const root = tempProject();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--dir', root], stderr: 'pipe' });
    const client = new Client({ name: 'twining-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      for (const op of READS) {
        const result = (await client.callTool({ name: `twining_${op}`, arguments: {} })) as { content: { text: string }[]; isError?: boolean };
        assert.equal(result.isError, true, `twining_${op}`);
        const value = JSON.parse(result.content[0].text);
        assert.equal(value.code, 'NOT_FOUND', `twining_${op}: ${value.message}`);
        assert.ok(value.message.includes(`no .twining/ in ${root}`), value.message);
        assert.match(value.message, /twining init/);
      }
      assert.equal(fs.existsSync(path.join(root, '.twining')), false, 'nothing was created');
      const post = (await client.callTool({ name: 'twining_post', arguments: { entry_type: 'finding', summary: 'x' } })) as { isError?: boolean };
      assert.notEqual(post.isError, true, 'a write still creates the folder');
      const status = (await client.callTool({ name: 'twining_status', arguments: {} })) as { isError?: boolean };
      assert.notEqual(status.isError, true);
    } finally {
      await client.close();
    }
  });
});
