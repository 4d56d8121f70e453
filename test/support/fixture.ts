/** Temporary project folders for unit tests: empty, or with a copy of twining-mcp's reference folder. */
import * as fs from 'fs';
import * as path from 'path';

/** test/fixtures/reference-twining, found from the bundled test (out/unit) or the source (test/unit). */
export { FIXTURE as REFERENCE } from './tmp';

/** A new empty project folder, and one whose `.twining/` is a copy of the reference folder (removed at exit). */
export { tempProject as emptyProject, fixtureProject as referenceProject } from './tmp';

export const at = (iso: string) => () => new Date(iso);
export const read = (root: string, rel: string) => fs.readFileSync(path.join(root, '.twining', rel), 'utf8');
export const readJson = (root: string, rel: string) => JSON.parse(read(root, rel));
export const readLines = (root: string, rel: string) =>
  read(root, rel)
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l));
