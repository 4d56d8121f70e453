/**
 * package.json against the code: the language model tools' schemas must be the ones derived from
 * the core's zod schemas (scripts/sync-manifest.js writes them), and the contributed commands,
 * menus, views and icons must agree with what the extension registers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { OPERATION_NAMES, jsonSchemaOf } from '../../../src/core';
import { languageModelTools } from '../../../src/extension/manifest';
import { COMMANDS, COMMAND_IDS, CommandId, commandWrites } from '../../../src/extension/commands/command-table';
import { OPERATIONS } from '../../../src/core/operations/operation-info';
import { writes } from '../../../src/core/operations/operation-writes';
import { kindOfPath as classifyPath } from '../../../src/core/engine/data-kinds';
import { sanitiseAgentId, scopeCandidates } from '../../../src/extension/naming';
import { inputs } from '../../../src/core';
import { duration, expiry, md, relative, score } from '../../../src/extension/present/format';
import { CHAT_COMMAND_NAMES } from '../../../src/extension/chat/chat-parse';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const contributes = pkg.contributes;

test('every operation has a language model tool named twining_<op>', () => {
  const names = contributes.languageModelTools.map((t: { name: string }) => t.name);
  assert.deepEqual(
    names,
    OPERATION_NAMES.map(op => `twining_${op}`),
  );
});

test("the tools' input schemas in package.json are the zod-derived ones (run scripts/sync-manifest.js if not)", () => {
  for (const op of OPERATION_NAMES) {
    const tool = contributes.languageModelTools.find((t: { name: string }) => t.name === `twining_${op}`);
    assert.deepEqual(tool.inputSchema, jsonSchemaOf(op), `inputSchema of twining_${op} differs from jsonSchemaOf("${op}")`);
  }
  assert.deepEqual(contributes.languageModelTools, languageModelTools(), 'contributes.languageModelTools is out of date');
});

test('writing tools are the operations that write', () => {
  const writing = OPERATION_NAMES.filter(op => writes(op)).sort();
  assert.deepEqual(writing, [
    'acknowledge',
    'add_entity',
    'add_relation',
    'amend',
    'archive',
    'archive_stale',
    'claim',
    'decide',
    'delegate',
    'dismiss',
    'handoff',
    'housekeeping',
    'link_commit',
    'override',
    'post',
    'promote',
    'prune_graph',
    'reconsider',
    'record',
    'register',
    'release',
    'resolve',
    'unarchive',
  ]);
  for (const tool of contributes.languageModelTools) {
    const op = tool.name.slice('twining_'.length);
    assert.ok(tool.tags.includes(writes(op as keyof typeof OPERATIONS) ? 'twining-write' : 'twining-read'), tool.name);
  }
});

test('the contributed commands are exactly the registered ones, each with category Twining and an icon', () => {
  const declared = contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(declared, [...COMMAND_IDS].sort());
  for (const c of contributes.commands) {
    assert.equal(c.category, 'Twining', c.command);
    assert.equal(c.title, COMMANDS[c.command as keyof typeof COMMANDS].title, c.command);
    assert.match(c.icon, /^\$\([a-z-]+\)$/, c.command);
  }
});

test('menus only name declared commands; writing actions in views are hidden when untrusted', () => {
  const ids = new Set(COMMAND_IDS as string[]);
  for (const [menu, items] of Object.entries(contributes.menus as Record<string, { command: string; when?: string }[]>)) {
    for (const item of items) {
      assert.ok(ids.has(item.command), `${menu} names ${item.command}, which is not declared`);
      if (menu !== 'commandPalette' && commandWrites(item.command as CommandId)) {
        assert.match(item.when ?? '', /isWorkspaceTrusted/, `${menu}: ${item.command} writes but is shown when untrusted`);
      }
    }
  }
  const palette = new Map(contributes.menus.commandPalette.map((i: { command: string; when: string }) => [i.command, i.when]));
  assert.equal(palette.get('twining.openRecord'), 'false');
});

test('views, activation, capabilities and icons', () => {
  assert.deepEqual(pkg.activationEvents, ['workspaceContains:.twining', 'onWebviewPanel:twining.timeline', 'onWebviewPanel:twining.graph']);
  assert.deepEqual(
    contributes.views.twining.map((v: { id: string }) => v.id),
    ['twining.agents', 'twining.delegations', 'twining.handoffs', 'twining.context'],
  );
  assert.equal(contributes.viewsContainers.activitybar[0].id, 'twining');
  assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  assert.equal(pkg.capabilities.virtualWorkspaces, false);
  assert.equal(pkg.engines.vscode, '^1.101.0');
  for (const file of [pkg.icon, contributes.viewsContainers.activitybar[0].icon]) {
    assert.ok(fs.existsSync(path.join(ROOT, file)), `${file} is missing`);
  }
  const png = fs.readFileSync(path.join(ROOT, pkg.icon));
  assert.equal(png.readUInt32BE(16), 128, 'icon width');
  assert.equal(png.readUInt32BE(20), 128, 'icon height');
  const svg = fs.readFileSync(path.join(ROOT, 'media/twining.svg'), 'utf8');
  assert.match(svg, /viewBox="0 0 24 24"/);
  assert.match(svg, /currentColor/);
  // Outside the masks, everything is drawn in currentColor (VS Code tints the icon).
  const drawn = svg.replace(/<defs>[\s\S]*?<\/defs>/g, '');
  for (const [, value] of drawn.matchAll(/(?:fill|stroke)="([^"]*)"/g)) assert.ok(['currentColor', 'none'].includes(value), `colour ${value} in twining.svg`);
  const participant = contributes.chatParticipants[0];
  assert.equal(participant.id, 'twining.chat');
  assert.equal(participant.name, 'twining');
  assert.deepEqual(
    participant.commands.map((c: { name: string }) => c.name),
    [...CHAT_COMMAND_NAMES],
  );
  for (const c of participant.commands) assert.ok(c.description.length > 10, `/${c.name} has a description`);
});

test('watched paths map to the data they hold (decided in the engine alone); locks and temporary files are ignored', () => {
  assert.equal(classifyPath('.twining'), 'presence');
  assert.equal(classifyPath('.twining/blackboard.jsonl'), 'blackboard');
  assert.equal(classifyPath('.twining/agents/registry.json'), 'registry');
  assert.equal(classifyPath('.twining/handoffs/index.jsonl'), 'handoffs');
  assert.equal(classifyPath('.twining/handoffs/01M80HHKAVJT8FG2B08Q4NGZ4W.json'), 'handoffRecords');
  assert.equal(classifyPath('.twining/decisions/index.json'), 'decisions');
  assert.equal(classifyPath('.twining/config.yml'), 'config');
  assert.equal(classifyPath('.twining/blackboard.jsonl.lock'), undefined);
  assert.equal(classifyPath('.twining/agents/registry.json.lock'), undefined);
  assert.equal(classifyPath('.twining/agents/.registry.json.123.abcd.tmp'), undefined);
  assert.equal(classifyPath('.twining/metrics.jsonl'), undefined);
  assert.equal(classifyPath('src/.twining'), undefined);
});

test('view texts: durations, expiry and scores', () => {
  const now = new Date('2026-11-22T02:33:00.000Z');
  assert.equal(expiry('2026-11-22T02:37:12.356Z', now), 'expires in 4 min');
  assert.equal(expiry('2026-11-22T06:32:12.366Z', now), 'expires in 3 h 59 min');
  assert.equal(expiry('2026-11-22T02:31:00.000Z', now), 'expired 2 min ago');
  assert.equal(relative('2026-11-22T02:32:12.379Z', now), 'just now');
  assert.equal(relative('2026-11-22T01:33:00.000Z', now), '1 h ago');
  assert.equal(duration(3 * 86_400_000), '3 days');
  assert.equal(score(0.6499999999999999), '0.65');
  assert.equal(score(1), '1.00');
});

test('Markdown escaping keeps ordinary text readable and neutralises markup', () => {
  assert.equal(md('backend-dev (2026-11-22 02:32:11 UTC)'), 'backend-dev (2026-11-22 02:32:11 UTC)');
  assert.equal(md('**bold** $(bell) <img>'), '\\*\\*bold\\*\\* \\$(bell) \\<img\\>');
  assert.equal(md('# title\n- item'), '\\# title\n\\- item');
});

// The extension's own small rules (here until they outgrow this file).

test('the derived agent id is always a valid agent id', () => {
  assert.equal(sanitiseAgentId('Jane Doe'), 'jane-doe');
  assert.equal(sanitiseAgentId('José.Ramírez'), 'jose.ramirez');
  assert.equal(sanitiseAgentId('DOMAIN\\admin'), 'domain-admin');
  assert.equal(sanitiseAgentId('..'), 'user');
  assert.equal(sanitiseAgentId(''), 'user');
  for (const name of ['Jane Doe', 'a/b', '..', ' x ', 'ÄÖÜ', 'x'.repeat(300)]) {
    assert.ok(inputs.register.shape.agent_id.safeParse(`user-${sanitiseAgentId(name)}`).success, name);
  }
});

test('scope choices: the file, each parent folder, then the whole project', () => {
  assert.deepEqual(scopeCandidates('src/auth/jwt.ts'), ['src/auth/jwt.ts', 'src/auth/', 'src/', undefined]);
  assert.deepEqual(scopeCandidates('README.md'), ['README.md', undefined]);
  assert.deepEqual(scopeCandidates(undefined), [undefined]);
});
