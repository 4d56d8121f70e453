// Configuration of `npm run test:electron` (@vscode/test-cli + @vscode/test-electron): runs the
// extension host suite (out/host/*.test.js, built by `node esbuild.js --tests`) in a desktop
// VS Code, on a machine that can download one.
//
// NOTE: it cannot run offline on the project's machines and CI: @vscode/test-electron downloads
// VS Code at test time and only the npm registry is reachable there. `npm test` runs the same
// suite in a real extension host offline instead (scripts/run-host-tests.js: the VS Code server
// bundled in code-server, with headless Chromium as the window).
//
// The workspace is a fresh writable copy of test/fixtures/reference-twining as `.twining` in
// .test-output/electron/ (made anew when this file is loaded); the suite runs as the "single" run
// (TWINING_TEST_RUN).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { defineConfig } from '@vscode/test-cli';

const require = createRequire(import.meta.url);
const { REPO, TWINING_NOW, makeWorkspace } = require('./scripts/workspace.js');

const root = path.join(REPO, '.test-output', 'electron');
fs.rmSync(root, { recursive: true, force: true });
const workspace = makeWorkspace(root, 'folder');

export default defineConfig({
  label: 'host',
  files: 'out/host/*.test.js',
  version: 'stable',
  workspaceFolder: workspace.open,
  launchArgs: ['--disable-workspace-trust', '--disable-extensions'],
  env: {
    TWINING_NOW,
    TWINING_TEST_RUN: 'single',
    TWINING_TEST_WORKSPACE: workspace.open,
    TWINING_TEST_FOLDERS: workspace.folders.join(path.delimiter),
    TWINING_TEST_TRUSTED: '1',
  },
  mocha: { ui: 'bdd', timeout: 20000, color: true },
});
