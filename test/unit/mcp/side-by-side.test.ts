/**
 * Our `twining mcp` today against what twining-mcp 1.9 returned for the same scripted session
 * (test/fixtures/side-by-side/, recorded by scripts/side-by-side.js on a copy of the same
 * reference folder): every tool it has, at least its result fields on every call, the same
 * content (ids named by what they name, times aside) on all but the calls that rank by other
 * means, and the same knowledge graph at the end.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_JS, fixtureProject } from '../../support/tmp';
import {
  ARCHIVE_THRESHOLD,
  AUTO_ARCHIVE_SESSION,
  SESSION,
  canonical,
  filesOf,
  graphOf,
  runSession,
  sameShape,
  setArchiveThreshold,
  type StepRecord,
} from '../../support/side-by-side-session';

interface Fixture {
  twining_mcp: { version: string; commit: string };
  tools: string[];
  steps: StepRecord[];
  graph: { entities: unknown[]; relations: unknown[] };
  auto_archive: { threshold: number; steps: StepRecord[]; graph: Fixture['graph']; files: { blackboard: string[]; archive: string[] } };
}

/** Field-set and content problems of `ours` against `theirs`, step by step. */
function problemsOf(theirs: StepRecord[], ours: StepRecord[]): string[] {
  const problems: string[] = [];
  theirs.forEach((t, i) => {
    const o = ours[i];
    if (o.error !== t.error) problems.push(`${t.label}: ${o.error ? 'fails on ours' : 'succeeds on ours'}: ${JSON.stringify(o.content)}`);
    const missing = t.fields.filter(f => !o.fields.includes(f));
    if (missing.length) problems.push(`${t.label} (${t.tool}): missing ${missing.join(', ')}`);
  });
  return problems;
}

const FIXTURE_FILE = path.resolve(__dirname, '../../test/fixtures/side-by-side/twining-mcp-1.9.0.json');

describe('side by side with twining-mcp 1.9 (recorded session)', () => {
  const theirs = JSON.parse(fs.readFileSync(FIXTURE_FILE, 'utf8')) as Fixture;
  let root: string;
  let client: Client;
  let tools: string[];
  let ours: StepRecord[];

  before(async () => {
    root = fixtureProject();
    client = new Client({ name: 'twining-side-by-side', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--dir', root], stderr: 'ignore' }));
    tools = (await client.listTools()).tools.map(t => t.name);
    ours = await runSession(client, root);
  });
  after(async () => {
    await client.close();
  });

  test('the fixture is the session this suite runs: the same steps, covering every tool twining-mcp has', () => {
    assert.deepEqual(
      theirs.steps.map(s => `${s.label} ${s.tool}`),
      SESSION.map(s => `${s.label} ${s.tool}`),
      'the session changed since the fixture was recorded: run scripts/side-by-side.js --write',
    );
    assert.equal(theirs.tools.length, 32);
    assert.deepEqual(
      theirs.tools.filter(t => !theirs.steps.some(s => s.tool === t)),
      [],
    );
  });

  test('every tool of twining-mcp is offered', () => {
    assert.deepEqual(
      theirs.tools.filter(t => !tools.includes(t)),
      [],
    );
  });

  test('each call succeeds or fails as twining-mcp’s did, with at least its result fields', () => {
    assert.deepEqual(problemsOf(theirs.steps, ours), []);
  });

  test('every call returns twining-mcp’s content, ids and times aside (but query and search_decisions, which rank by other means)', () => {
    const compared = theirs.steps.filter(t => t.content !== undefined && !t.error);
    assert.ok(compared.length >= 44, `${compared.length} steps compared`);
    for (const t of compared) {
      const o = ours[theirs.steps.indexOf(t)];
      assert.deepEqual(sameShape(o.content, t.content), canonical(t.content), `${t.label} (${t.tool})`);
    }
  });

  test('the knowledge graph after the session is twining-mcp’s, ids aside', () => {
    const graph = graphOf(root);
    assert.ok(theirs.graph.entities.length > 20 && theirs.graph.relations.length > 20);
    assert.deepEqual(graph.entities, theirs.graph.entities);
    assert.deepEqual(graph.relations, theirs.graph.relations);
  });
});

describe('side by side with twining-mcp 1.9: the blackboard archived on its own', () => {
  const theirs = (JSON.parse(fs.readFileSync(FIXTURE_FILE, 'utf8')) as Fixture).auto_archive;
  let root: string;
  let ours: StepRecord[];

  before(async () => {
    root = fixtureProject();
    setArchiveThreshold(root, ARCHIVE_THRESHOLD);
    const client = new Client({ name: 'twining-side-by-side', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', '--dir', root], stderr: 'ignore' }));
    try {
      ours = await runSession(client, root, AUTO_ARCHIVE_SESSION);
    } finally {
      await client.close();
    }
  });

  test('the same calls, fields and contents as twining-mcp past its threshold', () => {
    assert.equal(theirs.threshold, ARCHIVE_THRESHOLD);
    assert.deepEqual(
      theirs.steps.map(s => s.label),
      AUTO_ARCHIVE_SESSION.map(s => s.label),
    );
    assert.deepEqual(problemsOf(theirs.steps, ours), []);
    for (const [i, t] of theirs.steps.entries()) assert.deepEqual(sameShape(ours[i].content, t.content), canonical(t.content), t.label);
  });

  test('the same entries left on the blackboard and moved to archive/, and the same graph', () => {
    assert.ok(theirs.files.archive.length >= 10, 'twining-mcp archived');
    assert.deepEqual(filesOf(root), theirs.files);
    assert.deepEqual(graphOf(root), theirs.graph);
  });
});
