// The package as a user installs it: `npm run package` builds dist/twining.vsix, the real VS Code
// server installs it (`--install-extension`), the installed folder holds only what the extension
// needs, and a workbench with no extension under development (only the installed one) shows the
// demo in the Twining views. Afterwards the development build is restored (`node esbuild.js`).
// Run by scripts/run-ui-tests.js without a server of its own.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { expandPane, launchWorkbench, openViewContainer, waitForRows, waitForWorkbench } from './workbench';
import { page, runSteps, step, useWorkbench } from './steps';

const REPO = path.resolve(__dirname, '..', '..');
/** A script of scripts/, loaded from there at run time (not bundled: they find the repository from their own folder). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const script = (name: string) => require(path.join(REPO, 'scripts', name));
const { ensureHost } = script('setup-host.js');
const { startServer } = script('host-server.js');
const { prepareDemo } = script('demo.js');

const VSIX = path.join(REPO, 'dist', 'twining.vsix');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const ID = `${manifest.publisher}.${manifest.name}`.toLowerCase();

/** Every file the installed extension may hold (paths relative to its folder; vsce names the docs in lower case). */
const EXPECTED = [
  'package.json',
  'dist/extension.js',
  'dist/core.js',
  'dist/cli.js', // the `twining` command: hands each command to its bundle
  'dist/cli-main.js', // the whole CLI
  'dist/sync.js', // twining sync, which the CLI hands `sync` to (a small bundle of its own)
  'dist/merge-driver.js',
  'dist/mcp.js',
  'dist/hook.js', // twining hook, which agent hosts run on every tool call (a small bundle of its own)
  'dist/hook-start.js', // the hook's SessionStart, loaded for that event only
  'dist/hook-yaml.js', // js-yaml for the hook, loaded only when a config.yml must be parsed
  'dist/record-worker.js', // read by a worker thread of the search index
  'dist/webview/timeline.js', // the timeline and graph webview pages with their style sheets
  'dist/webview/timeline.css',
  'dist/webview/graph.js',
  'dist/webview/graph.css',
  'media/twining.svg',
  'media/twining.png',
  'media/chat/twining.instructions.md', // contributes.chatInstructions
  'media/chat/twining-handoff.prompt.md', // contributes.chatPromptFiles
  'readme.md',
  'changelog.md',
  'LICENSE.txt',
  // Every picture the README shows: the extension's details page reads them from the installed folder.
  ...[...fs.readFileSync(path.join(REPO, 'README.md'), 'utf8').matchAll(/\]\((media\/screenshots\/[\w-]+\.png)\)/g)].map(m => m[1]),
];
/** Written by VS Code itself when it installs a .vsix. */
const INSTALLER_FILES = ['.vsixmanifest'];

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-pkg-'));
const runDir = path.join(root, 'run');
let installed = '';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let server: any;

function run(command: string, args: string[], what: string): string {
  const r = spawnSync(command, args, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout || ''}${r.stderr || ''}`;
  if (r.status !== 0) throw new Error(`${what} failed (${r.error?.message || `exit code ${r.status}`}):\n${out.slice(-4000)}`);
  return out;
}

function filesUnder(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap(e => (e.isDirectory() ? filesUnder(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

async function main(): Promise<void> {
  const built = 'npm run package builds the .vsix';
  await step(
    built,
    () => {
      fs.rmSync(VSIX, { force: true });
      run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'package'], 'npm run package');
      const size = fs.statSync(VSIX).size;
      console.log(`    ${path.relative(REPO, VSIX)}: ${Math.round(size / 1024)} KB`);
    },
    { timeoutMs: 180000 },
  );

  const install = 'the VS Code server installs it with --install-extension';
  await step(
    install,
    () => {
      const host = ensureHost();
      const exts = path.join(runDir, 'exts');
      const out = run(
        host.node,
        [
          host.serverMain,
          '--install-extension',
          VSIX,
          '--extensions-dir',
          exts,
          '--server-data-dir',
          path.join(runDir, 'sdd'),
          '--user-data-dir',
          path.join(runDir, 'udd'),
          '--accept-server-license-terms',
        ],
        'server-main.js --install-extension',
      );
      const folder = fs.readdirSync(exts).find(n => n.startsWith(`${ID}-`));
      if (!folder) throw new Error(`no ${ID}-* folder in ${exts} after the install:\n${out}`);
      installed = path.join(exts, folder);
      if (!/successfully installed/i.test(out)) throw new Error(`the server did not report the install:\n${out}`);
    },
    { needs: [built], timeoutMs: 120000 },
  );

  await step(
    'the installed extension holds only what it needs',
    () => {
      const files = filesUnder(installed)
        .filter(f => !INSTALLER_FILES.includes(f))
        .sort();
      const extra = files.filter(f => !EXPECTED.includes(f));
      const missing = EXPECTED.filter(f => !files.includes(f));
      if (extra.length || missing.length)
        throw new Error(`installed files: ${JSON.stringify(files)}; not expected: ${JSON.stringify(extra)}; missing: ${JSON.stringify(missing)}`);
      const main = fs.readFileSync(path.join(installed, 'dist', 'extension.js'), 'utf8');
      // The comment esbuild writes on a line of its own (the code may hold the words: the webview pages strip that comment from their inlined script).
      if (/^\/\/# sourceMappingURL=/m.test(main)) throw new Error('dist/extension.js in the package names a source map: not the production build');
      console.log(`    ${files.join(', ')}`);
    },
    { needs: [install] },
  );

  const views = 'with only the installed extension, the Twining views show the demo';
  await step(
    views,
    async () => {
      const folder = path.join(root, 'orbit-shop');
      await prepareDemo(folder);
      // No extensionDevelopmentPath: the workbench loads the extensions of --extensions-dir only.
      server = await startServer({ name: 'pkg', runDir, workspaceOrFolderUri: folder, smokeTestDriver: true, env: { TWINING_NOW: undefined } });
      const wb = await launchWorkbench(server.url(), { echoLogs: process.env.TWINING_TEST_VERBOSE === '1' });
      useWorkbench(wb);
      await waitForWorkbench(page());
      await openViewContainer(page(), 'Twining');
      await expandPane(page(), 'Agents');
      await waitForRows(page(), 'Agents', rows => rows.some(r => r.includes('backend-dev')) && rows.some(r => r.includes('db-migrator')), {
        what: 'the demo agents',
        timeout: 60000,
      });
      await expandPane(page(), 'Handoffs');
      await waitForRows(page(), 'Handoffs', rows => rows.some(r => r.includes('User list page follows next_cursor')), { what: 'the demo handoffs' });
    },
    { needs: [install], timeoutMs: 180000 },
  );
}

runSteps('package', main, async () => {
  if (server) await server.stop({ keep: true });
  // The tests after this one run the development build.
  run(process.execPath, ['esbuild.js'], 'node esbuild.js');
  if (!process.env.TWINING_KEEP_RUN) fs.rmSync(root, { recursive: true, force: true });
});
