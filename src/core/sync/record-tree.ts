/**
 * The record as git objects, built and read with git's plumbing and never through a work tree or
 * the user's index: blobs are named here (git's own object ids, `blob <size>\0<bytes>` hashed) so
 * only the new ones are written (`hash-object -w`), the trees are made by `mktree --batch` (only
 * the folders that changed; `buildTree` makes a whole tree in a temporary index file of our own
 * instead: `GIT_INDEX_FILE`, `update-index --index-info`, `write-tree`), and a fetched tree is
 * listed with its modes and sizes (`ls-tree -r -t -l -z`) before any blob of it is read
 * (`cat-file --batch`).
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { createHash, randomBytes } from 'crypto';
import { spawn } from 'child_process';
import { gitText, noPromptEnv, runGit } from './sync-git';

export interface Repo {
  /** Where git runs: the `.twining/` folder itself (inside the work tree). */
  cwd: string;
  /** The common git directory (shared by every worktree): our state lives in `twining/` there. */
  gitDir: string;
  /** `sha1` or `sha256`. */
  objectFormat: string;
}

export interface TreeEntry {
  path: string;
  mode: string;
  type: string;
  id: string;
  size: number;
}

export function blobId(content: Buffer, objectFormat: string): string {
  return createHash(objectFormat === 'sha256' ? 'sha256' : 'sha1')
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest('hex');
}

/** Writes the blobs the repository does not have yet; returns nothing, throws naming the problem. */
async function writeMissing(repo: Repo, blobs: Map<string, Buffer>): Promise<{ count: number; bytes: number }> {
  if (blobs.size === 0) return { count: 0, bytes: 0 };
  const ids = [...blobs.keys()];
  const check = await gitText(repo.cwd, ['cat-file', '--batch-check'], { input: ids.join('\n') + '\n' });
  const missing = check
    .split('\n')
    .filter(line => line.endsWith(' missing'))
    .map(line => line.slice(0, -' missing'.length));
  if (missing.length === 0) return { count: 0, bytes: 0 };
  const temp = path.join(repo.gitDir, 'twining', `blobs-${process.pid}-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(temp, { recursive: true });
  try {
    const files = await Promise.all(
      missing.map(async (id, i) => {
        const file = path.join(temp, String(i));
        await fs.writeFile(file, blobs.get(id)!);
        return file;
      }),
    );
    const written = (await gitText(repo.cwd, ['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: files.join('\n') + '\n' })).trim().split('\n');
    written.forEach((id, i) => {
      if (id !== missing[i]) throw new Error(`git stored a blob as ${id}, expected ${missing[i]}`);
    });
    return { count: missing.length, bytes: missing.reduce((n, id) => n + blobs.get(id)!.length, 0) };
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/** Makes the tree of `entries` (tree path → bytes), every file mode 100644; returns its id and how many blobs were new. */
export async function buildTree(
  repo: Repo,
  entries: Map<string, Buffer | { id: string; bytes: Buffer }>,
): Promise<{ tree: string; newBlobs: number; newBytes: number }> {
  const blobs = new Map<string, Buffer>();
  const lines: string[] = [];
  for (const [treePath, entry] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const content = Buffer.isBuffer(entry) ? entry : entry.bytes;
    const id = Buffer.isBuffer(entry) ? blobId(content, repo.objectFormat) : entry.id;
    blobs.set(id, content);
    lines.push(`100644 ${id}\t${treePath}`);
  }
  const { count: newBlobs, bytes: newBytes } = await writeMissing(repo, blobs);
  const index = path.join(repo.gitDir, 'twining', `index-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const env = { GIT_INDEX_FILE: index };
    await gitText(repo.cwd, ['update-index', '--add', '-z', '--index-info'], { env, input: lines.map(l => `${l}\0`).join('') });
    const tree = (await gitText(repo.cwd, ['write-tree'], { env })).trim();
    return { tree, newBlobs, newBytes };
  } finally {
    await fs.rm(index, { force: true });
  }
}

/** Every entry of a commit's tree, recursively, with modes and sizes (nothing read yet); its folders (path → tree id) apart. */
export async function listTree(repo: Repo, commit: string): Promise<TreeEntry[] & { folders?: Map<string, string> }> {
  const out = await gitText(repo.cwd, ['ls-tree', '-r', '-t', '-l', '-z', '--full-tree', commit]);
  const entries: TreeEntry[] & { folders?: Map<string, string> } = [];
  const folders = new Map<string, string>();
  for (const record of out.split('\0')) {
    if (!record) continue;
    const tab = record.indexOf('\t');
    const [mode, type, id, size] = record.slice(0, tab).split(/ +/);
    // A folder of the tree (listed with -t so an unchanged folder's tree is reused as it is): kept apart; anything else is checked as a file.
    if (type === 'tree' && mode === '040000') folders.set(record.slice(tab + 1), id);
    else entries.push({ path: record.slice(tab + 1), mode, type, id, size: size === '-' ? 0 : Number(size) });
  }
  entries.folders = folders;
  return entries;
}

/** Writes blobs into the repository in one `hash-object -w` (by standard input for one, by temporary files for more); checks each id. */
export async function writeBlobs(repo: Repo, blobs: Map<string, Buffer>): Promise<void> {
  const ids = [...blobs.keys()];
  if (ids.length === 0) return;
  if (ids.length === 1) {
    const id = (await gitText(repo.cwd, ['hash-object', '-w', '--no-filters', '--stdin'], { input: blobs.get(ids[0])! })).trim();
    if (id !== ids[0]) throw new Error(`git stored a blob as ${id}, expected ${ids[0]}`);
    return;
  }
  const temp = path.join(repo.gitDir, 'twining', `blobs-${process.pid}-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(temp, { recursive: true });
  try {
    const files = await Promise.all(
      ids.map(async (id, i) => {
        const file = path.join(temp, String(i));
        await fs.writeFile(file, blobs.get(id)!);
        return file;
      }),
    );
    const written = (await gitText(repo.cwd, ['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: files.join('\n') + '\n' })).trim().split('\n');
    written.forEach((id, i) => {
      if (id !== ids[i]) throw new Error(`git stored a blob as ${id}, expected ${ids[i]}`);
    });
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/**
 * The tree of `files` (tree path → blob id, every file mode 100644), made with `git mktree
 * --batch`: one process for every folder that differs from `known` (the folders of a tree git
 * already has: path → tree id, '' the root), deepest first, each folder's id read back before its
 * parent is written. A folder whose entries are those of a known one is that tree, unwritten. The
 * blobs may be written meanwhile (`--missing`: mktree does not look for them); the caller makes
 * no commit of the tree before they are. Returns the root's id and the folders.
 */
export async function writeTree(
  repo: Repo,
  files: Map<string, string>,
  known: { folders: Map<string, string>; files: Map<string, string> } = { folders: new Map(), files: new Map() },
): Promise<{ tree: string; folders: Map<string, string>; written: number }> {
  // Each folder's files and subfolders.
  const children = new Map<string, Map<string, { mode: string; type: string; id?: string }>>();
  const folderOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
  const add = (folder: string, name: string, entry: { mode: string; type: string; id?: string }) => {
    if (/[\n\t\0]/.test(name) || name === '') throw new Error(`a record path cannot hold ${JSON.stringify(name)}`);
    let c = children.get(folder);
    if (!c) children.set(folder, (c = new Map<string, { mode: string; type: string; id?: string }>()));
    c.set(name, entry);
  };
  for (const [p, id] of files) {
    add(folderOf(p), p.slice(p.lastIndexOf('/') + 1), { mode: '100644', type: 'blob', id });
    for (let f = folderOf(p); f !== ''; f = folderOf(f)) {
      if (children.get(folderOf(f))?.has(f.slice(f.lastIndexOf('/') + 1))) break;
      add(folderOf(f), f.slice(f.lastIndexOf('/') + 1), { mode: '040000', type: 'tree' });
    }
  }
  if (!children.has('')) children.set('', new Map<string, { mode: string; type: string; id?: string }>());
  // A known folder is unchanged when every file under it is the same and no file was added or removed.
  const changed = new Set<string>();
  const mark = (p: string) => {
    for (let f = folderOf(p); ; f = folderOf(f)) {
      changed.add(f);
      if (f === '') break;
    }
  };
  for (const [p, id] of files) if (known.files.get(p) !== id) mark(p);
  for (const p of known.files.keys()) if (!files.has(p)) mark(p);
  const folders = new Map<string, string>();
  const depth = (f: string) => (f === '' ? 0 : f.split('/').length);
  const order = [...children.keys()].sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : 1));
  const pending = order.filter(f => changed.has(f) || !known.folders.has(f));
  for (const f of order) if (!pending.includes(f)) folders.set(f, known.folders.get(f)!);
  let written = 0;
  if (pending.length) {
    const mktree = spawnMktree(repo);
    try {
      for (const f of pending) {
        const lines = [...children.get(f)!].map(([name, e]) => {
          const id = e.type === 'tree' ? folders.get(f ? `${f}/${name}` : name) : e.id;
          return `${e.mode} ${e.type} ${id}\t${name}\n`;
        });
        folders.set(f, await mktree.write(lines.join('')));
        written++;
      }
    } finally {
      await mktree.close();
    }
  }
  return { tree: folders.get('')!, folders, written };
}

/** `git mktree --batch` kept open: each tree written, then its id read back (git prints it when the tree's blank line arrives). */
function spawnMktree(repo: Repo): { write(tree: string): Promise<string>; close(): Promise<void> } {
  const child = spawn('git', ['mktree', '--missing', '--batch'], { cwd: repo.cwd, env: noPromptEnv(), stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  let buffered = '';
  let stderr = '';
  let waiting: { resolve(id: string): void; reject(error: Error): void } | undefined;
  let ended: Error | undefined;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const deliver = () => {
    const nl = buffered.indexOf('\n');
    if (nl < 0 || !waiting) return;
    const id = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    const w = waiting;
    waiting = undefined;
    w.resolve(id);
  };
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    deliver();
  });
  const closed = new Promise<void>(resolve =>
    child.on('close', code => {
      ended = new Error(`git mktree failed: ${stderr.trim() || `exit ${code}`}`);
      waiting?.reject(ended);
      waiting = undefined;
      resolve();
    }),
  );
  child.on('error', error => {
    ended = new Error(`cannot run git (${error.message}); is git installed and on PATH?`);
    waiting?.reject(ended);
  });
  child.stdin.on('error', () => undefined);
  return {
    write(tree: string) {
      if (ended) return Promise.reject(ended);
      return new Promise<string>((resolve, reject) => {
        waiting = {
          resolve: id => (/^[0-9a-f]{40,64}$/.test(id) ? resolve(id) : reject(new Error(`git mktree printed ${JSON.stringify(id)}, not a tree id`))),
          reject,
        };
        child.stdin.write(`${tree}\n`);
        deliver();
      });
    },
    async close() {
      child.stdin.end();
      await closed;
    },
  };
}

/** The tree id of a commit. */
export async function treeOf(repo: Repo, commit: string): Promise<string> {
  return (await gitText(repo.cwd, ['rev-parse', `${commit}^{tree}`])).trim();
}

/** Reads blobs by id in one `cat-file --batch`. */
export async function readBlobs(repo: Repo, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, Buffer>();
  if (unique.length === 0) return found;
  const r = await runGit(repo.cwd, ['cat-file', '--batch'], { input: unique.join('\n') + '\n' });
  if (r.code !== 0) throw new Error(`git cat-file failed: ${r.stderr}`);
  const out = r.stdout;
  let at = 0;
  for (const id of unique) {
    const nl = out.indexOf(10, at);
    const header = out.subarray(at, nl).toString('latin1').split(' ');
    if (header[1] !== 'blob') throw new Error(`object ${id} is ${header[1] ?? 'unreadable'}, not a blob`);
    const size = Number(header[2]);
    found.set(id, out.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return found;
}
