// Bundles the extension, the core library and the CLI into dist/, and (with --tests) the test
// suites into out/. One script so that `npm start`, `npm test`, `npm run bench` and
// `npm run package` all build the same way.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const withTests = args.has('--tests');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

/** Every `*.ts` file directly inside a folder (test suites are one file each). */
function tsFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter(f => f.endsWith('.ts'))
    .map(f => path.join(dir, f));
}

/**
 * The unit suites, in folders that mirror src/ (test/unit/core/storage/…), and the shared helpers
 * of test/support/ (some run as processes of their own: claim-process, writer-process), as entry
 * points named by file alone: out/unit/ stays flat, so a suite finds its helpers, the fixtures
 * and the repository at the same place wherever its source sits. Two files of one name would
 * overwrite each other's bundle, so they are refused.
 */
function unitEntries() {
  const walk = dir =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap(d => (d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : []))
      : [];
  const entries = {};
  for (const file of [...walk('test/unit'), ...tsFiles('test/support')]) {
    const name = path.basename(file, '.ts');
    if (entries[name]) throw new Error(`two test files named ${name}.ts: ${entries[name]} and ${file}`);
    entries[name] = file;
  }
  return entries;
}

// dist/cli.js is a launcher of a few lines (src/cli/cli-launcher.ts) that hands each command to its bundle: `merge` to
// the small dist/merge-driver.js (git's merge driver, one process per file), `hook` to dist/hook.js, `sync` to dist/sync.js,
// the rest to dist/cli-main.js (the whole CLI: zod, the schemas, the engine), so that none compiles what it does not run.

/** Points the hook bundle's `fs` imports (not `node:fs`, which the shim itself imports) at src/agents/hooks/sync-fs.ts. */
const hookFs = {
  name: 'hook-sync-fs',
  setup(build) {
    build.onResolve({ filter: /^fs$/ }, () => ({ path: path.resolve(__dirname, 'src/agents/hooks/sync-fs.ts') }));
  },
};

/**
 * Points the hook bundles' js-yaml at dist/hook-yaml.js, loaded only when a config.yml must be parsed
 * (storage/folder-format.ts): js-yaml is half of what the hook would otherwise compile on every tool call.
 */
const hookYaml = {
  name: 'hook-yaml',
  setup(build) {
    build.onResolve({ filter: /^js-yaml$/ }, () => ({ path: './hook-yaml.js', external: true }));
  },
};

/**
 * Points the sync bundle's graceful-fs (proper-lockfile's, for the sync's one lock) at Node's own fs: loading
 * graceful-fs patches fs and loads its streams, a large part of what a `twining sync` process compiles, and its
 * retries on too many open files are for processes that hold many; a sync holds a few.
 */
const plainFs = {
  name: 'plain-fs',
  setup(build) {
    build.onResolve({ filter: /^graceful-fs$/ }, () => ({ path: 'fs', external: true }));
  },
};

const builds = [
  { ...common, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...common, entryPoints: { core: 'src/library.ts' }, outdir: 'dist' },
  { ...common, entryPoints: { cli: 'src/cli/cli-launcher.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  { ...common, entryPoints: { 'cli-main': 'src/cli/cli.ts' }, outdir: 'dist' },
  // `twining sync`, which dist/cli.js hands `sync` to; it loads core.js only when the engine's sync is needed.
  // Its js-yaml is dist/hook-yaml.js too (a 2.x folder's config.yml is seldom parsed: storage/sqlite/sqlite-detect.ts).
  { ...common, entryPoints: { sync: 'src/cli/sync-main.ts' }, outdir: 'dist', plugins: [hookYaml, plainFs] },
  // git's merge driver, which dist/cli.js hands `merge` to.
  { ...common, entryPoints: { 'merge-driver': 'src/cli/merge-driver-main.ts' }, outdir: 'dist' },
  // Agent hooks (`twining hook <event>`, handed over by dist/cli.js); it loads core.js only for the events that need the engine,
  // hook-start.js for SessionStart only (src/agents/hooks/hook-start.ts) and hook-yaml.js for a config.yml to parse.
  // Their `fs` is src/agents/hooks/sync-fs.ts: Node's, with `promises` answered synchronously (a one-shot process
  // on a few small files; thread-pool round trips cost a SessionStart 10-20 ms on a busy machine).
  {
    ...common,
    entryPoints: { hook: 'src/agents/hooks/hook-main.ts', 'hook-start': 'src/agents/hooks/hook-start.ts' },
    outdir: 'dist',
    plugins: [hookFs, hookYaml],
  },
  { ...common, entryPoints: { 'hook-yaml': require.resolve('js-yaml') }, outdir: 'dist' },
  // The MCP server, loaded by `twining mcp` only (see src/cli/cli.ts).
  { ...common, entryPoints: { mcp: 'src/mcp/server.ts' }, outdir: 'dist' },
  // The worker thread that reads decision records for the search index (src/core/search/record-reader.ts),
  // found beside whichever bundle starts it.
  { ...common, entryPoints: { 'record-worker': 'src/core/search/record-worker.ts' }, outdir: 'dist' },
  // The webview pages (src/webview/pages/), for the browser: each script with its style sheet beside it
  // (dist/webview/NAME.js and NAME.css), loaded under the page's content security policy.
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    entryPoints: { timeline: 'src/webview/pages/timeline-view.ts', graph: 'src/webview/pages/graph-view.ts' },
    outdir: 'dist/webview',
  },
];

if (withTests) {
  // Tests are bundled with their imports of src/, but node_modules stay external so that mocha,
  // playwright-core and friends load from node_modules as usual.
  const testCommon = { ...common, sourcemap: true, minify: false, packages: 'external' };
  builds.push({ ...testCommon, entryPoints: unitEntries(), outdir: 'out/unit' });
  builds.push({ ...testCommon, entryPoints: { 'record-worker': 'src/core/search/record-worker.ts' }, outdir: 'out/unit' });
  builds.push({ ...testCommon, entryPoints: tsFiles('test/host'), outdir: 'out/host', external: ['vscode'] });
  builds.push({ ...testCommon, entryPoints: tsFiles('test/ui'), outdir: 'out/ui' });
  builds.push({ ...testCommon, entryPoints: tsFiles('bench'), outdir: 'out/bench' });
}

async function main() {
  const live = builds.filter(b => b.entryPoints && Object.keys(b.entryPoints).length > 0);
  if (watch) {
    for (const b of live) await (await esbuild.context(b)).watch();
    console.log('esbuild: watching for changes');
    return;
  }
  await Promise.all(live.map(b => esbuild.build(b)));
  fs.chmodSync('dist/cli.js', 0o755);
}

main().catch(error => {
  console.error(error.message || error);
  process.exit(1);
});
