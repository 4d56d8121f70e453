/**
 * The built bundles child processes of the unit tests run (dist/cli.js, dist/core.js, dist/hook.js…):
 * dist/ of the repository, or the copy TWINING_TEST_DIST names. `npm test` gives the unit suite a
 * copy (out/dist) so that the UI files that rebuild dist/ (the demo's `npm start`, `npm run package`)
 * can run beside it (scripts/test.js). Not a test file.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const DIST = process.env.TWINING_TEST_DIST ? path.resolve(process.env.TWINING_TEST_DIST) : path.resolve(__dirname, '../../dist');

/**
 * A copy of the hook's bundles (dist/hook.js and the ones it loads beside it for SessionStart and a
 * config.yml, esbuild.js) in a folder of their own, without the engine's dist/core.js: a hook run
 * from the copy answers without loading the engine, or fails saying that it needs core.js. Returns
 * the copy's hook.js.
 */
export function hookAlone(dist: string = DIST, prefix = 'twining-hook-alone-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const name of ['hook.js', 'hook-start.js', 'hook-yaml.js']) fs.copyFileSync(path.join(dist, name), path.join(dir, name));
  return path.join(dir, 'hook.js');
}
