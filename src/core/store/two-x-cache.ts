/**
 * The 1.x copy of a twining-mcp 2.x folder's records (two-x-mirror.ts) kept between opens, in the
 * user's own cache folder (never in the project): `<cache>/twining/two-x/<key of the folder>/m-<pid>-<n>/`.
 * Writing ~3,000 decision files is most of a 2.x open; a kept copy is brought up to date instead.
 *
 * - **One process per copy.** A copy is claimed by renaming its folder to carry the claiming
 *   process's pid (a rename succeeds for one of two processes racing for it); a copy whose pid is
 *   alive is never touched, and a process that finds none free makes a new one (at most
 *   `MAX_SLOTS` per folder, then a temporary one as before).
 * - **Never trusted blindly.** `manifest.json` names each file of the copy with the stat it had
 *   when written and a hash of its bytes; a file is kept only when both still match what the
 *   current records would write (two-x-mirror.ts), so a copy a killed process left half-written,
 *   rows another process wrote meanwhile, or a replaced database only cost rewriting what differs.
 *   `records.json` keeps the record files read from `records/` with their stats: a file whose stat
 *   changed (a `git pull`) is read again, every other one is not.
 * - **Another user's cache is not used**: the folders are made 0700 and a key folder owned by
 *   someone else is left alone. `TWINING_CACHE_DIR` names another cache folder, `off` none.
 */
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'fs';
import { createHash } from 'crypto';
import * as os from 'os';
import * as path from 'path';
import { processIsAlive } from './files';

/** Copies kept per folder (one per process open at once: a window, the MCP server, a CLI call). */
export const MAX_SLOTS = 4;
const SLOT = /^m-(\d+)-(\d+)$/;

/** A file of the copy as written: its stat key and the hash of its bytes. */
export type FileMark = [key: string, hash: string];

export const textHash = (text: string | Buffer) => createHash('sha1').update(text).digest('base64');

/** The user's cache folder for Twining, or undefined when caching is off. */
export function cacheRoot(): string | undefined {
  const env = process.env.TWINING_CACHE_DIR;
  if (env !== undefined) return env === '' || env === 'off' ? undefined : path.resolve(env);
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(process.env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'twining', 'Cache');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'twining');
  return path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'twining');
}

const claimed = new Set<CacheSlot>();
let exitHooked = false;
let counter = 0;

/** One claimed copy: the slot folder, its mirror (`<slot>/.twining`) and what is known of its files. */
export class CacheSlot {
  /** Set by the store: what to save when the process ends (sync). */
  onRelease?: () => void;
  constructor(
    readonly dir: string,
    /** The files of the copy as the last process left them (empty for a new copy). */
    readonly marks: Map<string, FileMark>,
  ) {}

  get mirror(): string {
    return path.join(this.dir, '.twining');
  }

  /** The kept `records.json` (records/ files with their stats), or undefined. */
  readRecords(): unknown {
    return readJsonSync(path.join(this.dir, 'records.json'));
  }

  /** Writes a file of the slot whole (temporary file, then rename): a reader never sees half of it. */
  save(name: 'manifest.json' | 'records.json', value: unknown): void {
    if (!claimed.has(this)) return; // released: another engine or process may have the copy now
    const file = path.join(this.dir, name);
    const temp = `${file}.${process.pid}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(value));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  }

  /** Saves what the store has (onRelease) and lets another process claim the copy. */
  release(): void {
    if (!claimed.has(this)) return;
    try {
      this.onRelease?.();
    } catch {
      // a copy without a current manifest is rewritten where it differs at its next claim
    }
    claimed.delete(this);
  }
}

function readJsonSync(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function ownedByMe(st: { uid: number }): boolean {
  return typeof process.getuid !== 'function' || st.uid === process.getuid();
}

/** The folder of one project's copies (made 0700), or undefined when there is no usable cache. */
function folderDir(twiningDir: string): string | undefined {
  const root = cacheRoot();
  if (!root) return undefined;
  let real: string;
  try {
    real = realpathSync(twiningDir);
  } catch {
    real = path.resolve(twiningDir);
  }
  const dir = path.join(root, 'two-x', createHash('sha256').update(real).digest('hex').slice(0, 24));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownedByMe(statSync(dir)) || !ownedByMe(statSync(path.join(root, 'two-x')))) return undefined;
    writeFileSync(path.join(dir, 'folder.txt'), real + '\n', { mode: 0o600 });
  } catch {
    return undefined;
  }
  return dir;
}

/**
 * Claims a kept copy of `twiningDir`'s records for this process (a free one, or a new one), or
 * undefined when there is no cache or every copy is in use. Released when the store is closed or
 * the process exits.
 */
export function claimSlot(twiningDir: string): CacheSlot | undefined {
  const dir = folderDir(twiningDir);
  if (!dir) return undefined;
  let names: string[];
  try {
    names = readdirSync(dir).filter(n => SLOT.test(n));
  } catch {
    return undefined;
  }
  const mine = new Set([...claimed].map(s => path.basename(s.dir)));
  let slot: CacheSlot | undefined;
  for (const name of names) {
    const pid = Number(SLOT.exec(name)![1]);
    if (mine.has(name) || (pid !== process.pid && processIsAlive(pid))) continue;
    const target = path.join(dir, `m-${process.pid}-${++counter}`);
    try {
      renameSync(path.join(dir, name), target); // only one process's rename of `name` succeeds
    } catch {
      continue;
    }
    const manifest = readJsonSync(path.join(target, 'manifest.json')) as { version?: number; files?: Record<string, FileMark> } | undefined;
    rmSync(path.join(target, 'manifest.json'), { force: true });
    const marks = new Map<string, FileMark>();
    if (manifest?.version === 1 && manifest.files && typeof manifest.files === 'object')
      for (const [rel, mark] of Object.entries(manifest.files)) if (Array.isArray(mark) && mark.length === 2) marks.set(rel, mark);
    slot = new CacheSlot(target, marks);
    break;
  }
  if (!slot) {
    if (names.length >= MAX_SLOTS) return undefined;
    const target = path.join(dir, `m-${process.pid}-${++counter}`);
    try {
      mkdirSync(target, { mode: 0o700 });
    } catch {
      return undefined;
    }
    slot = new CacheSlot(target, new Map());
  }
  claimed.add(slot);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const s of [...claimed]) s.release();
    });
  }
  return slot;
}

/** Removes the kept copies of project folders that no longer exist (once per process, best effort). */
let pruned = false;
export function pruneGoneFolders(): void {
  const root = cacheRoot();
  if (pruned || !root) return;
  pruned = true;
  const base = path.join(root, 'two-x');
  let keys: string[];
  try {
    keys = readdirSync(base);
  } catch {
    return;
  }
  for (const key of keys) {
    try {
      const folder = readFileSync(path.join(base, key, 'folder.txt'), 'utf8').trim();
      if (statSync(folder, { throwIfNoEntry: false })) continue;
      const live = readdirSync(path.join(base, key)).some(n => SLOT.test(n) && processIsAlive(Number(SLOT.exec(n)![1])));
      if (!live) rmSync(path.join(base, key), { recursive: true, force: true });
    } catch {
      // another process prunes or uses it: left alone
    }
  }
}
