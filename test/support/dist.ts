/**
 * The built bundles child processes of the unit tests run (dist/cli.js, dist/core.js, dist/hook.js…):
 * dist/ of the repository, or the copy TWINING_TEST_DIST names. `npm test` gives the unit suite a
 * copy (out/dist) so that the UI files that rebuild dist/ (the demo's `npm start`, `npm run package`)
 * can run beside it (scripts/test.js). Not a test file.
 */
import * as path from 'path';

export const DIST = process.env.TWINING_TEST_DIST ? path.resolve(process.env.TWINING_TEST_DIST) : path.resolve(__dirname, '../../dist');
