// Prepares throwaway workspaces for the host tests, the UI tests and `npm start`: a writable copy
// of test/fixtures/reference-twining as `.twining`, plus a few source files to open.
'use strict';

const fs = require('fs');
const os = require('os');
const { execFileSync } = require('child_process');
const path = require('path');

const REPO = path.resolve(__dirname, '..');
const FIXTURE = path.join(REPO, 'test', 'fixtures', 'reference-twining');

/** The pinned clock for tests: the fixture was written at 2026-11-22T02:32. */
const TWINING_NOW = '2026-11-22T02:33:00.000Z';

const SOURCE_FILES = {
  'src/auth/jwt.ts': [
    '// JWT helpers (a sample file for the Twining tests).',
    'export interface Claims { sub: string; exp: number }',
    '',
    'export function isExpired(claims: Claims, now: number = Date.now()): boolean {',
    '  return claims.exp * 1000 <= now;',
    '}',
    '',
  ].join('\n'),
  'src/api/users.ts': [
    '// Users API (a sample file for the Twining tests).',
    'export interface User { id: string; name: string }',
    '',
    'export async function listUsers(): Promise<User[]> {',
    '  return [];',
    '}',
    '',
  ].join('\n'),
  'README.md': '# demo-project\n\nA sample project for the Twining extension tests.\n',
};

/**
 * Fills `folder` with a project: `.twining` copied from the fixture (unless `twining: false`)
 * and a few source files. Returns `folder`.
 */
function makeProject(folder, { twining = true, files = SOURCE_FILES } = {}) {
  fs.mkdirSync(folder, { recursive: true });
  if (twining) fs.cpSync(FIXTURE, path.join(folder, '.twining'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(folder, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file)) fs.writeFileSync(file, text);
  }
  return folder;
}

/** A fresh temporary folder (removed by the caller). */
function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A workspace of the given layout inside `root`:
 *  - 'folder': root/demo-project (one folder with .twining);
 *  - 'empty': root/demo-project without .twining;
 *  - 'multi-root': root/api and root/web (each with .twining) and root/demo.code-workspace;
 *  - 'two-x': root/team (twining-mcp 2.x's SQLite folder: twining.db and records/) and root/clone
 *    (the same without the database, as a fresh clone has it) and root/two-x.code-workspace, built by
 *    scripts/make-two-x.js under `node` (a Node with node:sqlite: the host tools' Node 24).
 * Returns { open: what to open (folder or .code-workspace), folders: [abs folder paths] }.
 */
function makeWorkspace(root, layout = 'folder', { node } = {}) {
  if (layout === 'folder') {
    const folder = makeProject(path.join(root, 'demo-project'));
    return { open: folder, folders: [folder] };
  }
  if (layout === 'empty') {
    // A newcomer's project: source files, no .twining/ yet (the walkthrough's UI test).
    const folder = makeProject(path.join(root, 'demo-project'), { twining: false });
    return { open: folder, folders: [folder] };
  }
  if (layout === 'multi-root') {
    const api = makeProject(path.join(root, 'api'));
    const web = makeProject(path.join(root, 'web'), {
      files: { 'src/app.tsx': 'export const App = () => null;\n', 'README.md': '# web\n' },
    });
    const file = path.join(root, 'demo.code-workspace');
    fs.writeFileSync(file, JSON.stringify({ folders: [{ path: 'api' }, { path: 'web' }], settings: {} }, null, 2));
    return { open: file, folders: [api, web] };
  }
  if (layout === 'two-x') {
    if (!node) throw new Error("the 'two-x' layout needs a Node with node:sqlite (option `node`)");
    const team = makeProject(path.join(root, 'team'), { twining: false });
    const clone = makeProject(path.join(root, 'clone'), { twining: false });
    execFileSync(node, [path.join(__dirname, 'make-two-x.js'), FIXTURE, path.join(team, '.twining'), path.join(clone, '.twining')], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const file = path.join(root, 'two-x.code-workspace');
    fs.writeFileSync(file, JSON.stringify({ folders: [{ path: 'team' }, { path: 'clone' }], settings: {} }, null, 2));
    return { open: file, folders: [team, clone] };
  }
  if (layout === 'worktree') return makeWorktreeWorkspace(root);
  throw new Error(`unknown workspace layout: ${layout}`);
}

/** The finding written into agent-b's own copy of .twining/ by something other than Twining. */
const WORKTREE_COPY_LINE = JSON.stringify({
  id: '01MZZZZZZZZZZZZZZZZZZZZCPY',
  timestamp: '2026-11-22T02:32:30.000Z',
  agent_id: 'old-tool',
  entry_type: 'finding',
  summary: 'Written into the worktree copy by another tool',
  detail: '',
  tags: [],
  scope: 'src/',
});

/**
 * The 'worktree' layout, on its own for the runner's other runs to stay as they are: a git
 * repository root/shop (the fixture's .twining committed on main) with two linked worktrees on
 * their own branches, agent-a nested under it (.claude/worktrees/agent-a, as Claude Code makes
 * them) and agent-b beside it; the window opens agent-b. Before the window opens, alice claims
 * src/auth/jwt.ts and posts a warning on it from agent-a through the CLI (the built dist/cli.js), at
 * the tests' pinned clock.
 */
function makeWorktreeWorkspace(root) {
  const primary = makeProject(path.join(root, 'shop'));
  fs.writeFileSync(path.join(primary, '.gitignore'), '.claude/worktrees/\n');
  const git = (cwd, ...args) =>
    execFileSync('git', ['-c', 'user.email=host-test@example.com', '-c', 'user.name=Host Test', '-c', 'commit.gpgsign=false', ...args], {
      cwd,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git(primary, 'init', '-q', '-b', 'main');
  git(primary, 'add', '-A');
  git(primary, 'commit', '-q', '-m', 'base');
  const agentA = path.join(primary, '.claude', 'worktrees', 'agent-a');
  const agentB = path.join(root, 'agent-b');
  git(primary, 'worktree', 'add', '-q', '-b', 'agent-a', agentA);
  git(primary, 'worktree', 'add', '-q', '-b', 'agent-b', agentB);
  const cli = (...args) => execFileSync(process.execPath, [path.join(REPO, 'dist', 'cli.js'), ...args, '--now', TWINING_NOW], { cwd: agentA, stdio: 'ignore' });
  cli('register', '--agent-id', 'alice', '--capabilities', 'auth');
  cli('claim', '--agent-id', 'alice', '--paths', 'src/auth/jwt.ts', '--reason', 'moving tokens to v2');
  cli('post', '--entry-type', 'warning', '--summary', 'Tokens move to the v2 format', '--scope', 'src/auth/jwt.ts', '--agent-id', 'alice');
  // Something else (twining-mcp run inside agent-b, an older version) wrote a finding into agent-b's
  // own checked-out copy: the window folds it into the shared record when it opens.
  fs.appendFileSync(path.join(agentB, '.twining', 'blackboard.jsonl'), WORKTREE_COPY_LINE + '\n');
  return { open: agentB, folders: [agentB] };
}

/** fillBlackboard's kinds and scopes, taken in turn. */
const BIG_TYPES = ['status', 'finding', 'warning', 'need', 'question', 'answer', 'offer', 'artifact', 'constraint', 'decision'];
const BIG_SCOPES = ['src/auth/', 'src/auth/jwt.ts', 'src/api/', 'src/api/users.ts', 'src/db/', 'project', 'README.md'];
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function ulid(ms, n) {
  let time = '';
  for (let t = ms, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  let rest = '';
  for (let r = n, i = 0; i < 16; i++, r = Math.floor(r / 32)) rest = CROCKFORD[r % 32] + rest;
  return time + rest;
}

/**
 * A big history for the timeline's benchmark and UI test: replaces the workspace folder's blackboard
 * with `count` entries (8 agents, every entry type in turn, evenly over the 30 days up to
 * TWINING_NOW; entry i says "number i" in its summary), adds `handoffs` handoff lines and records,
 * and turns archiving off (with the default, 500, the first post would archive them all).
 */
function fillBlackboard(folder, count, handoffs) {
  const dir = path.join(folder, '.twining');
  const end = Date.parse(TWINING_NOW);
  const start = end - 30 * 86400e3;
  const lines = [];
  for (let i = 0; i < count; i++) {
    const ms = Math.floor(start + ((end - start) * i) / count);
    const type = BIG_TYPES[i % BIG_TYPES.length];
    lines.push(
      JSON.stringify({
        entry_type: type,
        summary: `${type} number ${i} about the ${BIG_SCOPES[i % BIG_SCOPES.length]} work`,
        detail: '',
        tags: [],
        scope: BIG_SCOPES[(i * 7) % BIG_SCOPES.length],
        agent_id: `agent-${i % 8}`,
        id: ulid(ms, i),
        timestamp: new Date(ms).toISOString(),
      }),
    );
  }
  fs.writeFileSync(path.join(dir, 'blackboard.jsonl'), `${lines.join('\n')}\n`);
  // As on a team that keeps its history on the blackboard (bench/run.js does the same): otherwise the
  // CLI's first post archives the lot, and the timeline reads a rewritten blackboard, not an append.
  const config = path.join(dir, 'config.yml');
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/max_blackboard_entries_before_archive: \d+/, 'max_blackboard_entries_before_archive: 0'));
  const index = [];
  for (let i = 0; i < handoffs; i++) {
    const ms = Math.floor(start + ((end - start) * (i + 0.5)) / handoffs);
    const id = ulid(ms, 900000 + i);
    const record = {
      source_agent: `agent-${i % 8}`,
      target_agent: `agent-${(i + 1) % 8}`,
      scope: BIG_SCOPES[i % BIG_SCOPES.length],
      summary: `handoff ${i}`,
      results: [{ description: 'done', status: 'completed' }],
      context_snapshot: { decision_ids: [], warning_ids: [], finding_ids: [], summaries: [] },
      id,
      created_at: new Date(ms).toISOString(),
      ...(i > 0 && i % 3 ? { continues: index[i - 1].id } : {}),
    };
    fs.writeFileSync(path.join(dir, 'handoffs', `${id}.json`), JSON.stringify(record, null, 2));
    index.push({
      id,
      created_at: record.created_at,
      source_agent: record.source_agent,
      target_agent: record.target_agent,
      scope: record.scope,
      summary: record.summary,
      result_status: 'completed',
      acknowledged: false,
    });
  }
  fs.appendFileSync(path.join(dir, 'handoffs', 'index.jsonl'), index.map(l => JSON.stringify(l)).join('\n') + '\n');
}

module.exports = { REPO, FIXTURE, TWINING_NOW, WORKTREE_COPY_LINE, fillBlackboard, makeProject, makeWorkspace, makeWorktreeWorkspace, tempDir };
