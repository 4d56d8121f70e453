'use strict';
/**
 * A folder's reopen as a window reopening it does it: a new process (a new extension host) loads a
 * build's engine, opens the folder and reads what the views show first. bench/two-x.js runs it once
 * per reopen and reads its one line of JSON:
 *   openMs   wall time from openWorkspace to the end of the first view
 *   cpuMs    this thread's CPU time over the same span (Node 23.9+; null before)
 *   loadMs   wall time loading the build's dist/core.js before it (the same for every layout)
 *
 *   node bench/reopen-runner.js <dist> <root>
 */

/** Open + first view: refresh, the decision list, the last 50 entries, status (the views' first reads). */
async function firstView(core, root) {
  const engine = await core.openWorkspace(root, { warn: () => undefined });
  await engine.refresh();
  await engine.decisions({});
  await engine.read({ limit: 50 });
  await engine.status({});
  return engine;
}

module.exports = { firstView };

if (require.main === module) {
  const path = require('path');
  const [dist, root] = process.argv.slice(2);
  const threadCpu = () => {
    const u = process.threadCpuUsage?.();
    return u ? (u.user + u.system) / 1000 : NaN;
  };
  const loadStart = performance.now();
  const core = require(path.resolve(dist, 'core.js'));
  const start = performance.now();
  const cpu = threadCpu();
  firstView(core, root)
    .then(engine => {
      const openMs = performance.now() - start;
      const cpuMs = threadCpu() - cpu;
      engine.close?.();
      const round = n => (Number.isNaN(n) ? null : Math.round(n * 10) / 10);
      console.log(JSON.stringify({ openMs: round(openMs), cpuMs: round(cpuMs), loadMs: round(start - loadStart) }));
    })
    .catch(error => {
      console.error(error);
      process.exit(1);
    });
}
