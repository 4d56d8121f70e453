/** Temporary project folders for unit tests: empty, or with a copy of twining-mcp's reference folder. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** test/fixtures/reference-twining, found from the bundled test (out/unit) or the source (test/unit). */
export const REFERENCE = path.resolve(__dirname, '../../test/fixtures/reference-twining');

const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new empty project folder (removed when the process exits). */
export function emptyProject(name = 'demo-project'): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-unit-'));
  made.push(parent);
  const root = path.join(parent, name);
  fs.mkdirSync(root);
  return root;
}

/** A new project folder whose `.twining/` is a copy of the reference folder. */
export function referenceProject(): string {
  const root = emptyProject();
  fs.cpSync(REFERENCE, path.join(root, '.twining'), { recursive: true });
  return root;
}

export const at = (iso: string) => () => new Date(iso);
export const read = (root: string, rel: string) => fs.readFileSync(path.join(root, '.twining', rel), 'utf8');
export const readJson = (root: string, rel: string) => JSON.parse(read(root, rel));
export const readLines = (root: string, rel: string) => read(root, rel).split('\n').filter(Boolean).map(l => JSON.parse(l));
