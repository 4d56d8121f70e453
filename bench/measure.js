'use strict';
/** What the benchmarks share to measure: their options, a clock in milliseconds, medians. */

/** The value after `--name` on the command line, or `fallback`. */
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

/** The median of `values`, to two decimals. */
const median = values => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return +(s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2).toFixed(2);
};

/** A monotonic clock in milliseconds. */
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** [milliseconds, value] of awaiting `fn()`. */
async function timed(fn) {
  const t = now();
  const value = await fn();
  return [now() - t, value];
}

module.exports = { arg, median, now, timed };
