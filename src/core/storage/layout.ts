/**
 * Where everything lives inside `.twining/` (docs/format.md §Layout), and creating the folder without ever
 * overwriting what is there.
 */
import { promises as fs, lstatSync, readlinkSync, realpathSync } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { createExclusive, ioError } from './json-files';
import { TwiningError } from '../errors';
import { defaultConfigYaml } from '../engine/config';

export const GITIGNORE = 'embeddings/*.index\narchive/\nmodels/\nmetrics.jsonl\n';

export class Layout {
  readonly dir: string;
  /**
   * Where the records are read and written in the 1.x layout (docs/format.md): `dir`. A twining-mcp
   * 2.x folder has no 1.x record files (docs/twining-2.md): its records are read and written through
   * the storage interface (storage/storage.ts), so asking for one of their paths is a mistake in the
   * code, reported as such. config.yml, archive/ and the session files are in `dir` in both.
   */
  get data(): string {
    if (this.sqlite)
      throw new Error(
        `${this.dir} is a twining-mcp 2.x folder (twining.db and records/): it has no 1.x record files; its records are read through the storage interface`,
      );
    return this.dir;
  }
  constructor(
    readonly projectRoot: string,
    /** Whether the folder is in twining-mcp 2.x's layout (storage/sqlite/sqlite-detect.ts). */
    private readonly sqlite = false,
  ) {
    this.dir = path.join(projectRoot, '.twining');
  }
  get registry() {
    return path.join(this.data, 'agents', 'registry.json');
  }
  get blackboard() {
    return path.join(this.data, 'blackboard.jsonl');
  }
  get decisionIndex() {
    return path.join(this.data, 'decisions', 'index.json');
  }
  /** `id` must already be checked to be a ULID. */
  decision(id: string) {
    return path.join(this.data, 'decisions', `${id}.json`);
  }
  /** A decision's file as the user finds it: `decisions/{id}.json`, or in a 2.x folder `records/decisions/{id}.json`. */
  decisionFile(id: string) {
    return this.sqlite ? path.join(this.dir, 'records', 'decisions', `${id}.json`) : this.decision(id);
  }
  get handoffsDir() {
    return path.join(this.data, 'handoffs');
  }
  get handoffIndex() {
    return path.join(this.data, 'handoffs', 'index.jsonl');
  }
  /** `id` must already be checked to be a ULID. */
  handoff(id: string) {
    return path.join(this.data, 'handoffs', `${id}.json`);
  }
  get graphDir() {
    return path.join(this.data, 'graph');
  }
  get config() {
    return path.join(this.dir, 'config.yml');
  }
  get archiveDir() {
    return path.join(this.dir, 'archive');
  }

  /** Every entry of docs/format.md §A new folder with its initial content (`null` marks a folder). */
  entries(): [string, string | null][] {
    return [
      ['.gitignore', GITIGNORE],
      ['config.yml', defaultConfigYaml(path.basename(this.projectRoot))],
      ['blackboard.jsonl', ''],
      ['decisions', null],
      ['decisions/index.json', '[]'],
      ['graph', null],
      ['graph/entities.json', '[]'],
      ['graph/relations.json', '[]'],
      ['agents', null],
      ['agents/registry.json', '[]'],
      ['handoffs', null],
      ['embeddings', null],
      ['archive', null],
    ];
  }
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** What a write needs in an existing folder (docs/format.md §Creating a folder: `decisions/index.json` repairs the worst case). */
const NEEDED_FOR_WRITES = new Set(['decisions', 'decisions/index.json', 'agents', 'handoffs']);

/**
 * Makes sure `.twining/` exists with the entries it needs. A missing folder is built with every
 * entry of docs/format.md §A new folder under a temporary sibling name and renamed into place in one step; if
 * another process created it meanwhile, our copy is discarded and theirs is used. In an existing
 * folder, missing entries are added with exclusive create, never overwriting: all of them when
 * `complete` (init), otherwise only what writes need, so an optional folder that cannot be made
 * (a stray `graph` file, a read-only `embeddings/`) never stops a write; what could not be added
 * is reported to `warn`. Returns whether the folder was created.
 */
export async function ensureFolder(layout: Layout, { complete = true, warn = (_: string): void => undefined } = {}): Promise<boolean> {
  const existing = await fs.stat(layout.dir).catch(() => undefined);
  if (existing && !existing.isDirectory()) {
    throw new TwiningError(
      'CORRUPT',
      `${layout.dir} is a file, not a folder; Twining keeps its state in a folder of that name, so nothing was written (move the file away and run init)`,
    );
  }
  if (!existing) {
    const temp = path.join(layout.projectRoot, `.twining.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await fs.mkdir(temp);
      for (const [name, content] of layout.entries()) {
        const target = path.join(temp, name);
        if (content === null) await fs.mkdir(target);
        else await fs.writeFile(target, content, 'utf8');
      }
      await fs.rename(temp, layout.dir);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      await fs.rm(temp, { recursive: true, force: true }).catch(() => undefined);
      if (!(code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EISDIR') || !(await isDirectory(layout.dir))) {
        throw ioError(error, layout.dir, `${layout.dir} was not created (nothing was written)`);
      }
    }
  }
  for (const [name, content] of layout.entries()) {
    const needed = NEEDED_FOR_WRITES.has(name);
    if (!complete && !needed) continue;
    const target = path.join(layout.dir, name);
    try {
      if (content === null) await fs.mkdir(target, { recursive: true });
      else await createExclusive(target, content);
    } catch (error) {
      const problem = ioError(
        error,
        target,
        needed ? 'it could not be added, and the operations that need it fail' : 'it could not be added; nothing needs it',
      );
      if (needed) throw problem;
      warn((problem as Error).message);
    }
  }
  return false;
}

const within = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/**
 * Refuses a write to `file` that a symbolic link would carry out of `.twining/`: a linked
 * `blackboard.jsonl`, `handoffs/` or registry pointing elsewhere. `.twining` itself may be a link
 * (a user may keep the folder elsewhere): containment is judged against its real path. A link that
 * stays inside the folder is followed. A missing parent folder passes (the write then fails by name).
 */
export function assertWritesStayInside(dir: string, file: string): Promise<void> {
  return Promise.resolve().then(() => assertWritesStayInsideNow(dir, file));
}

/** `assertWritesStayInside`'s look, synchronous: asked before every lock, a few calls of microseconds (version-stamp.ts currentStamp). */
function assertWritesStayInsideNow(dir: string, file: string): void {
  const root = quietly(() => realpathSync.native(dir));
  if (!root) return;
  const parent = quietly(() => realpathSync.native(path.dirname(file)));
  if (parent && !within(root, parent)) throw leavesFolder(path.dirname(file), parent, dir);
  const st = quietly(() => lstatSync(file, { throwIfNoEntry: false }));
  if (!st?.isSymbolicLink()) return;
  const real = quietly(() => realpathSync.native(file));
  if (!real || !within(root, real)) throw leavesFolder(file, real ?? `${quietly(() => readlinkSync(file)) ?? '?'} (missing)`, dir);
}

/** What `look` returns, or undefined when it throws (a path that is not there, or cannot be looked at). */
function quietly<T>(look: () => T): T | undefined {
  try {
    return look();
  } catch {
    return undefined;
  }
}

function leavesFolder(link: string, real: string, dir: string): TwiningError {
  return new TwiningError(
    'CORRUPT',
    `${link} is a symbolic link to ${real}, outside ${dir}; Twining does not write through it, so nothing was written (replace the link with the real file or folder, or link .twining itself)`,
  );
}
