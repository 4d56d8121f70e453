'use strict';
/**
 * A Node that has node:sqlite (Node 22.13+, twining-mcp 2.x's twining.db needs it): this one when
 * it has it, else the Node 24 of the VS Code host tools, located or installed as the host suite
 * does (scripts/setup-host.js). Used by the unit suite for `sqlite-*.test.js` and by `npm run
 * bench` for the 2.x benchmarks:
 *
 *   node scripts/sqlite-node.js bench/two-x.js [args...]   runs the script under that Node
 */
const fs = require('fs');
const { spawnSync } = require('child_process');

let found;
function sqliteNode() {
  if (found) return found;
  if (spawnSync(process.execPath, ['-e', "require('node:sqlite')"], { stdio: 'ignore' }).status === 0) return (found = process.execPath);
  const { hostPaths, ensureHost } = require('./setup-host');
  const installed = hostPaths().node;
  found = fs.existsSync(installed) ? installed : ensureHost().node;
  return found;
}

module.exports = { sqliteNode };

if (require.main === module) {
  const r = spawnSync(sqliteNode(), process.argv.slice(2), { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
}
