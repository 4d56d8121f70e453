// Builds twining-mcp 2.x folders for the `two-x` host run (see scripts/workspace.js), under a Node
// with node:sqlite (the VS Code host tools' Node 24): the reference fixture's 1.x records put into
// a 2.x folder as twining-mcp's stores hold them (test/support/twining-mcp-2x.ts, bundled by
// `node esbuild.js --tests` into out/unit/twining-mcp-2x.js), plus a warning on src/auth/jwt.ts
// that a teammate resolved (twining_resolve), so a resolved entry is there from the start.
//
//   node24 scripts/make-two-x.js <fixture .twining> <team .twining> <clone .twining>
//
// The team folder has twining.db and records/; the clone folder has the same files except the
// database (a fresh `git clone`: twining.db is gitignored).
'use strict';

const fs = require('fs');
const path = require('path');

const [from, team, clone] = process.argv.slice(2);
const builder = path.join(__dirname, '..', 'out', 'unit', 'twining-mcp-2x.js');
if (!fs.existsSync(builder)) throw new Error(`${builder} is missing: build with \`node esbuild.js --tests\``);
const mcp = require(builder);
if (!mcp.hasSqlite) throw new Error(`this Node (${process.version}) has no node:sqlite`);

mcp.twoXFrom1x(from, team);
const db = mcp.openMcpDb(team);
try {
  const warning = {
    id: '01M80HHKD0X9ZQ4W7ABCDEFGH0',
    timestamp: '2026-11-22T02:32:20.000Z',
    agent_id: 'tester',
    entry_type: 'warning',
    summary: 'signToken logs the private key path',
    detail: 'Seen in the debug log of the staging box.',
    tags: ['security'],
    scope: 'src/auth/jwt.ts',
    relates_to: [],
  };
  mcp.mcpWrite(db, () => mcp.mcpPost(db, team, warning));
  mcp.mcpWrite(db, () => mcp.mcpResolve(db, team, warning.id, 'reviewer', 'The log line was removed in the last release.', '2026-11-22T02:32:30.000Z'));
} finally {
  db.close();
}
fs.cpSync(team, clone, { recursive: true, filter: src => !/twining\.db(-wal|-shm)?$/.test(path.basename(src)) });
