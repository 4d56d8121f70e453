// Preloaded (node --require) into the merge driver process by bench/merge.js: at exit it reports
// the process's own wall time and peak resident memory on stderr, as one JSON line.
'use strict';
const started = process.hrtime.bigint();
process.on('exit', () => {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = process.cpuUsage();
  process.stderr.write(`MERGE_PROBE ${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
});
