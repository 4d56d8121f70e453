// The demo workspace of `npm start` (and of the demo UI test and `npm run screenshots`): a small
// sample project, "orbit-shop", whose `.twining/` is written through the public core library
// (dist/core.js, `openWorkspace`) with timestamps relative to now, so that the extension, on the
// real clock, shows a team in the middle of its work:
//   - agents active (worked minutes ago), idle (a quarter of an hour) and gone (hours);
//   - open delegations of each urgency, and one that expired;
//   - a chain of handoffs A → B → C through `continues`, the first two acknowledged, the last one
//     addressed to YOU (your agent id, as the extension derives it) and not acknowledged yet;
//   - a handoff whose context drifted: its decision was superseded and a new warning appeared in
//     its scope after it was written;
//   - decisions in several scopes and states (active, provisional, superseded), warnings, findings.
// Liveness and expiry move on with the clock: five minutes later the active agents are idle;
// `npm start -- --reset` writes the story afresh.
//
//   node scripts/demo.js FOLDER      (re)writes FOLDER as the demo (its .twining/ is replaced)
'use strict';

const fs = require('fs');
const { execFileSync } = require('child_process');
const os = require('os');
const path = require('path');

const REPO = path.resolve(__dirname, '..');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The user's agent id as the extension derives it when `twining.agentId` is not set: `user-<login>`. */
function userAgentId() {
  let name = '';
  try {
    name = os.userInfo().username;
  } catch {
    name = process.env.USER || process.env.USERNAME || '';
  }
  const id = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9._-]+/g, '-');
  return `user-${
    id
      .replace(/-{2,}/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 100) || 'user'
  }`;
}

const SOURCES = {
  'README.md':
    '# orbit-shop\n\nA small shop API: accounts (`src/auth/`), HTTP endpoints (`src/api/`) and storage (`src/db/`).\nThe `.twining/` folder is the shared record of the agents working on it.\n',
  'src/auth/jwt.ts': [
    "import { Signer } from './signer';",
    '',
    'export interface Claims { sub: string; exp: number; scope: string[] }',
    '',
    '/** A signed access token for `userId`, valid for 15 minutes. */',
    'export function issueAccessToken(signer: Signer, userId: string, scope: string[], now = Date.now()): string {',
    '  const body = JSON.stringify({ sub: userId, scope, exp: Math.floor(now / 1000) + 15 * 60 });',
    '  return `${btoa(body)}.${signer.sign(body)}`;',
    '}',
    '',
    '/** The claims of a valid token; throws when it is forged or expired (server clock). */',
    'export function readAccessToken(signer: Signer, token: string, now = Date.now()): Claims {',
    "  const [encoded, signature] = token.split('.');",
    '  const body = atob(encoded);',
    "  if (!signer.verify(body, signature)) throw new Error('forged token');",
    '  const claims = JSON.parse(body) as Claims;',
    "  if (claims.exp * 1000 <= now) throw new Error('token expired');",
    '  return claims;',
    '}',
    '',
  ].join('\n'),
  'src/auth/signer.ts': [
    '/** Signs token bodies; the key pair comes from the vault (see the security decisions in .twining/). */',
    'export interface Signer {',
    "  readonly algorithm: 'RS256' | 'EdDSA';",
    '  sign(body: string): string;',
    '  verify(body: string, signature: string): boolean;',
    '}',
    '',
  ].join('\n'),
  'src/auth/session.ts': [
    "import { db } from '../db/pool';",
    '',
    '/** Starts a session; the refresh token goes to an HttpOnly, SameSite=Lax cookie. */',
    'export async function startSession(userId: string): Promise<string> {',
    '  const bytes = crypto.getRandomValues(new Uint8Array(32));',
    "  const refreshToken = Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');",
    "  await db.query('INSERT INTO sessions (user_id, refresh_token) VALUES ($1, $2)', [userId, refreshToken]);",
    '  return refreshToken;',
    '}',
    '',
  ].join('\n'),
  'src/api/users.ts': [
    "import { db } from '../db/pool';",
    '',
    'export interface Page<T> { items: T[]; next_cursor?: string }',
    '',
    '/** GET /users?cursor=…: 50 users per page, ordered by id. */',
    'export async function listUsers(cursor?: string): Promise<Page<{ id: string; email: string }>> {',
    "  const rows = await db.query<{ id: string; email: string }>('SELECT id, email FROM users WHERE id > $1 ORDER BY id LIMIT 51', [cursor ?? '']);",
    '  const items = rows.slice(0, 50);',
    '  return { items, next_cursor: rows.length > 50 ? items[items.length - 1].id : undefined };',
    '}',
    '',
  ].join('\n'),
  'src/api/orders.ts': [
    "import { db } from '../db/pool';",
    '',
    '/** GET /orders?page=…: still offset-based (see the provisional decision in .twining/). */',
    'export async function listOrders(page = 0) {',
    "  return db.query('SELECT * FROM orders ORDER BY created_at DESC LIMIT 50 OFFSET $1', [page * 50]);",
    '}',
    '',
  ].join('\n'),
  'src/db/pool.ts': [
    '/** The connection pool: one per process, 10 connections (see the storage decision in .twining/). */',
    'export interface Pool {',
    '  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;',
    '}',
    '',
    'export declare const db: Pool;',
    '',
  ].join('\n'),
  'src/db/migrations/0003_users_email.sql': 'ALTER TABLE users ADD COLUMN email text NOT NULL;\nCREATE UNIQUE INDEX users_email ON users (email);\n',
};

/**
 * Writes the demo into `folder`: the sample sources (kept when they exist) and a new `.twining/`.
 * @param {string} folder
 * @param {{ now?: Date, agentId?: string }} [o] `now`: the instant the story ends (default: now);
 *   `agentId`: who "you" are (default: the id the extension derives)
 * @returns {Promise<{ folder: string, agentId: string, handoffs: Record<string, string> }>}
 */
async function prepareDemo(folder, { now = new Date(), agentId = userAgentId() } = {}) {
  const { openWorkspace } = require(path.join(REPO, 'dist', 'core.js'));
  fs.mkdirSync(folder, { recursive: true });
  for (const [rel, text] of Object.entries(SOURCES)) {
    const file = path.join(folder, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file)) fs.writeFileSync(file, text);
  }
  fs.rmSync(path.join(folder, '.twining'), { recursive: true, force: true });

  // Every write is stamped by the library's clock, which the story moves forward: `at(m)` sets it
  // to m minutes before `now`.
  let clock = now.getTime();
  const at = minutesAgo => (clock = now.getTime() - minutesAgo * MINUTE);
  // The demo's own record, even where the folder lies inside another repository (this one's .test-output/).
  const ws = await openWorkspace(folder, { now: () => new Date(clock), project: folder });
  const done = (description, extra = {}) => ({ description, status: 'completed', ...extra });
  const decide = (minutesAgo, agent_id, domain, scope, summary, context, rationale, extra) => (
    at(minutesAgo),
    ws.decide({ domain, scope, summary, context, rationale, ...extra, agent_id })
  );

  at(360);
  await ws.init();
  await ws.register({ agent_id: 'backend-dev', capabilities: ['typescript', 'api', 'node'], role: 'implementer', description: 'Builds the HTTP API' });
  await ws.register({
    agent_id: 'security-reviewer',
    capabilities: ['security', 'review', 'auth'],
    role: 'reviewer',
    description: 'Reviews authentication and secrets',
  });
  await ws.register({ agent_id: 'frontend-dev', capabilities: ['react', 'typescript', 'ui'], role: 'implementer', description: 'Builds the web client' });
  await ws.register({ agent_id: 'db-migrator', capabilities: ['sql', 'postgres', 'migrations'], role: 'implementer', description: 'Writes schema migrations' });
  await ws.register({ agent_id: 'docs-writer', capabilities: ['docs', 'writing'], role: 'writer', description: 'Keeps the API guide current' });

  at(300);
  await ws.post({ entry_type: 'status', summary: 'Drafted the API overview page', scope: 'README.md', agent_id: 'docs-writer' });
  await ws.delegate({
    summary: 'Reproduce the flaky login test on CI',
    required_capabilities: ['testing', 'auth'],
    urgency: 'normal',
    timeout_ms: HOUR,
    scope: 'src/auth/',
    agent_id: 'backend-dev',
  });

  const rs256 = await decide(
    170,
    'security-reviewer',
    'security',
    'src/auth/',
    'Sign access tokens with RS256',
    'Access tokens are verified by the API and by the web client.',
    'Widely supported; the key pair is already in the vault.',
    { confidence: 'medium', affected_files: ['src/auth/jwt.ts'] },
  );
  at(165);
  await ws.post({
    entry_type: 'warning',
    summary: 'Token expiry must be checked with the server clock, not the client',
    scope: 'src/auth/jwt.ts',
    agent_id: 'security-reviewer',
  });
  await ws.post({
    entry_type: 'finding',
    summary: 'Refresh cookie is already HttpOnly and SameSite=Lax',
    scope: 'src/auth/session.ts',
    agent_id: 'security-reviewer',
  });

  await decide(
    160,
    'db-migrator',
    'storage',
    'src/db/',
    'PostgreSQL 16, one connection pool per process',
    'The API runs as several processes behind a load balancer.',
    'Per-process pools keep connections local; pgbouncer can come later.',
    { confidence: 'high' },
  );
  at(155);
  await ws.post({
    entry_type: 'warning',
    summary: 'A pool of 10 connections is exhausted under the load test',
    scope: 'src/db/pool.ts',
    agent_id: 'db-migrator',
  });
  at(150);
  const migration = await ws.handoff({
    source_agent: 'db-migrator',
    target_agent: 'backend-dev',
    scope: 'src/db/',
    summary: 'Migration 0003 adds users.email with a unique index',
    results: [done('0003_users_email.sql written and applied to staging', { artifacts: ['src/db/migrations/0003_users_email.sql'] })],
  });
  at(140);
  await ws.acknowledge({ handoff_id: migration.id, agent_id: 'backend-dev' });

  // A second decision on jwt.ts (before the auth review, so the review's snapshot carries it):
  // opening src/auth/jwt.ts shows two active decisions and the expiry warning.
  await decide(
    100,
    'backend-dev',
    'auth',
    'src/auth/jwt.ts',
    'Access tokens live 15 minutes; refresh tokens carry the session',
    'Short-lived access tokens limit what a leaked token can do.',
    'Revocation then only has to cover refresh tokens, which the session store already tracks.',
    {
      confidence: 'high',
      affected_symbols: ['issueAccessToken'],
      alternatives: [
        { option: 'Access tokens valid for 24 hours', cons: ['A leaked token stays usable for a day'], reason_rejected: 'Too long without revocation' },
      ],
    },
  );
  await decide(
    90,
    'backend-dev',
    'api',
    'src/api/',
    'Cursor pagination for every list endpoint',
    'OFFSET pagination slows down on the users table (2M rows).',
    'A cursor on the primary key is stable under inserts and uses the index.',
    { confidence: 'high' },
  );
  at(80);
  const paginated = await ws.handoff({
    source_agent: 'backend-dev',
    target_agent: 'frontend-dev',
    scope: 'src/api/',
    continues: migration.id,
    summary: 'Users API paginated with cursors; the client must follow next_cursor',
    results: [
      done('GET /users returns { items, next_cursor }', { artifacts: ['src/api/users.ts'] }),
      { description: 'GET /orders is still offset-based', status: 'partial' },
    ],
  });
  at(70);
  await ws.acknowledge({ handoff_id: paginated.id, agent_id: 'frontend-dev' });

  at(60);
  const review = await ws.handoff({
    source_agent: 'security-reviewer',
    target_agent: 'backend-dev',
    scope: 'src/auth/',
    summary: 'Auth review done: token signing and expiry checks are sound',
    results: [done('Reviewed jwt.ts and session.ts'), { description: 'Key rotation procedure', status: 'blocked', notes: 'Waiting for the vault policy.' }],
  });
  await decide(
    40,
    'security-reviewer',
    'security',
    'src/auth/',
    'Sign access tokens with Ed25519 (EdDSA)',
    'RS256 signatures dominate the auth benchmark.',
    'Ed25519 signs 30x faster with smaller tokens; both verifiers support it.',
    { supersedes: rs256.id, confidence: 'high', affected_files: ['src/auth/jwt.ts'] },
  );
  await decide(
    35,
    'frontend-dev',
    'api',
    'src/api/orders.ts',
    'Keep offset pagination for /orders until the client migrates',
    'The order history page still sends ?page=.',
    'Avoids breaking the released mobile client this week.',
    { confidence: 'low', reversible: true },
  );
  at(30);
  await ws.delegate({
    summary: 'Document the cursor format in the API guide',
    required_capabilities: ['docs'],
    urgency: 'low',
    scope: 'src/api/',
    agent_id: 'backend-dev',
  });
  at(25);
  await ws.post({
    entry_type: 'warning',
    summary: 'Refresh tokens are not rotated when reused',
    detail: 'A stolen refresh token stays valid until it expires.',
    scope: 'src/auth/session.ts',
    agent_id: 'backend-dev',
  });
  at(20);
  await ws.delegate({
    summary: 'Add an index on sessions.user_id',
    required_capabilities: ['sql', 'postgres'],
    urgency: 'normal',
    timeout_ms: 3 * HOUR,
    scope: 'src/db/',
    agent_id: 'backend-dev',
  });

  at(12);
  const forYou = await ws.handoff({
    source_agent: 'frontend-dev',
    target_agent: agentId,
    scope: 'src/api/',
    continues: paginated.id,
    summary: 'User list page follows next_cursor; please review before the release',
    results: [done('UsersPage loads 50 at a time and follows next_cursor'), { description: 'Orders page still uses ?page=', status: 'partial' }],
  });

  at(0.5);
  await ws.delegate({
    summary: "Review refresh-token rotation before Friday's release",
    required_capabilities: ['security', 'review'],
    urgency: 'high',
    timeout_ms: 4 * HOUR,
    scope: 'src/auth/',
    agent_id: 'security-reviewer',
  });
  at(0.2);
  await ws.post({
    entry_type: 'finding',
    summary: 'GET /users p95 is 38 ms with cursors (410 ms with OFFSET)',
    scope: 'src/api/users.ts',
    agent_id: 'backend-dev',
  });

  const worktree = agentInWorktree(folder, now);
  return { folder, agentId, worktree, handoffs: { migration: migration.id, paginated: paginated.id, review: review.id, forYou: forYou.id } };
}

/**
 * Agents in worktrees: the demo becomes a git repository (when it is not one yet) with a linked
 * worktree, `.claude/worktrees/checkout-agent` on branch `agent/checkout`, where a Claude Code
 * session works now: its hooks (dist/hook.js, JSON on standard input as Claude Code sends it) run
 * there (on the story's clock) and write to the demo's shared record, so the session board shows the session with its
 * worktree and branch. Returns the worktree's folder.
 */
function agentInWorktree(folder, now) {
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.email=demo@example.com', '-c', 'user.name=Demo', '-c', 'commit.gpgsign=false', ...args], { cwd: folder, stdio: 'ignore' });
  const worktree = path.join(folder, '.claude', 'worktrees', 'checkout-agent');
  if (!fs.existsSync(path.join(folder, '.git'))) {
    fs.writeFileSync(path.join(folder, '.gitignore'), '.claude/worktrees/\n');
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'orbit-shop');
  }
  if (!fs.existsSync(path.join(worktree, '.git'))) {
    fs.rmSync(worktree, { recursive: true, force: true });
    git('worktree', 'prune');
    git('worktree', 'add', '-q', '-B', 'agent/checkout', worktree);
  }
  const hook = (event, extra) =>
    execFileSync(process.execPath, [path.join(REPO, 'dist', 'hook.js'), event, '--agent', 'checkout-agent'], {
      cwd: worktree,
      input: JSON.stringify({
        session_id: 'demo-checkout-session',
        transcript_path: path.join(worktree, 'transcript.jsonl'),
        cwd: worktree,
        permission_mode: 'default',
        hook_event_name: event,
        ...extra,
      }),
      stdio: ['pipe', 'ignore', 'ignore'],
      // The story's clock: the session is working at its end.
      env: { ...process.env, TWINING_NOW: now.toISOString() },
    });
  hook('SessionStart', { source: 'startup' });
  const file = path.join(worktree, 'src', 'api', 'orders.ts');
  hook('PostToolUse', {
    tool_name: 'Edit',
    tool_input: { file_path: file, old_string: 'page = 0', new_string: 'cursor?: string', replace_all: false },
    tool_response: { filePath: file, success: true },
    tool_use_id: 'toolu_demo',
  });
  return worktree;
}

module.exports = { prepareDemo, userAgentId };

if (require.main === module) {
  const folder = process.argv[2];
  if (!folder) {
    console.error('usage: node scripts/demo.js FOLDER   (build first: node esbuild.js)');
    process.exit(1);
  }
  prepareDemo(path.resolve(folder))
    .then(r => console.log(`demo written to ${r.folder} (handoff for ${r.agentId}: ${r.handoffs.forYou})`))
    .catch(error => {
      console.error(error.message || error);
      process.exit(1);
    });
}
