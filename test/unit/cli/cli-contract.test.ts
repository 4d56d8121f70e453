/**
 * The CLI matches its README: every example of the README's command-line section runs as written,
 * boolean flags take `true`/`false` as the next argument, usage errors exit 1, and the plain-text
 * output survives every record the `--json` output survives (records other programs wrote, with
 * fields missing or of the wrong type).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { CLI_JS, fixtureProject, tw } from '../../support/tmp';

const README = path.resolve(__dirname, '../../README.md');

function run(cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Splits a shell command line of the README into words (double-quoted words kept whole). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map(m => m[1] ?? m[2]);
}

/** The `twining …` lines of the first code block of the README's "On the command line" section. */
function readmeExamples(): string[] {
  const text = fs.readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## On the command line'));
  const block = /```\n([\s\S]*?)```/.exec(section)![1];
  return block.split('\n').filter(l => l.startsWith('twining '));
}

describe("the README's command-line examples", () => {
  const examples = readmeExamples();
  test('there are examples to run', () => assert.ok(examples.length >= 5, examples.join('\n')));
  for (const example of examples) {
    test(`runs as written: ${example}`, () => {
      const root = fixtureProject();
      // Run from the project folder; an example's own --dir names a placeholder project.
      const args = words(example)
        .slice(1)
        .map(w => (w === 'path/to/project' ? root : w));
      const r = run(root, args);
      assert.equal(r.status, 0, `exit ${r.status}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      assert.ok(r.stdout.trim().length > 0);
      if (args.includes('--json')) JSON.parse(r.stdout);
    });
  }
});

describe('the CLI contract', () => {
  test('a boolean flag takes true or false as the next argument, like --flag=value', () => {
    const root = fixtureProject();
    for (const value of ['true', 'false']) {
      const spaced = run(root, ['handoffs', '--acknowledged', value, '--json']);
      const joined = run(root, ['handoffs', `--acknowledged=${value}`, '--json']);
      assert.equal(spaced.status, 0, spaced.stderr);
      assert.deepEqual(JSON.parse(spaced.stdout), JSON.parse(joined.stdout));
      for (const h of JSON.parse(spaced.stdout).handoffs) assert.equal(h.acknowledged === true, value === 'true');
    }
    // A bare switch is still true, and what follows it is not swallowed.
    const bare = run(root, ['handoffs', '--acknowledged', '--json']);
    assert.equal(bare.status, 0, bare.stderr);
    assert.ok(JSON.parse(bare.stdout).handoffs.every((h: { acknowledged: boolean }) => h.acknowledged));
  });

  test('the bare command prints usage on stderr and exits 1; --help exits 0', () => {
    const root = fixtureProject();
    const bare = run(root, []);
    assert.equal(bare.status, 1);
    assert.equal(bare.stdout, '');
    assert.match(bare.stderr, /Usage: twining <command>/);
    const help = run(root, ['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: twining <command>/);
  });
});

describe('plain-text output of records with missing or mistyped fields', () => {
  const root = fixtureProject();
  fs.appendFileSync(
    tw(root, 'blackboard.jsonl'),
    [
      { summary: 'a line without id, type or timestamp' },
      { entry_type: 7, summary: null, tags: 'not-a-list', scope: 3, id: 12 },
      {
        entry_type: 'need',
        summary: 'a delegation with a broken detail',
        detail: '{"type":"delegation","required_capabilities":"typescript"}',
        id: '01M80HHKZZZZZZZZZZZZZZZZZA',
        timestamp: '2026-11-22T02:40:00.000Z',
        agent_id: 'x',
        tags: ['delegation'],
        scope: 'project',
      },
    ]
      .map(l => JSON.stringify(l) + '\n')
      .join(''),
  );
  fs.appendFileSync(tw(root, 'handoffs/index.jsonl'), JSON.stringify({ id: '01M80HHKZZZZZZZZZZZZZZZZZB' }) + '\n' + JSON.stringify({ summary: 5 }) + '\n');
  const index = JSON.parse(fs.readFileSync(tw(root, 'decisions/index.json'), 'utf8'));
  index.push({ id: '01M80HHKZZZZZZZZZZZZZZZZZC' }, { summary: 'no id' });
  fs.writeFileSync(tw(root, 'decisions/index.json'), JSON.stringify(index, null, 2));
  const registry = JSON.parse(fs.readFileSync(tw(root, 'agents/registry.json'), 'utf8'));
  registry.push({ agent_id: 'odd', capabilities: 'typescript', last_active: 'never' }, { capabilities: ['x'] });
  fs.writeFileSync(tw(root, 'agents/registry.json'), JSON.stringify(registry, null, 2));

  const commands = [
    ['read', '--limit', '0'],
    ['handoffs'],
    ['decisions'],
    ['agents'],
    ['discover', 'typescript'],
    ['delegations', '--include-expired'],
    ['status'],
  ];
  for (const command of commands) {
    test(`${command.join(' ')}: text and --json both succeed`, () => {
      const json = run(root, [...command, '--json']);
      assert.equal(json.status, 0, json.stderr);
      JSON.parse(json.stdout);
      const text = run(root, command);
      assert.equal(text.status, 0, `the text output failed where --json succeeded: ${text.stderr}`);
      assert.doesNotMatch(text.stderr, /\n\s+at /, 'no stack trace');
    });
  }
});
