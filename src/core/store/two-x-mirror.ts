/**
 * A twining-mcp 2.x folder's records written out in the 1.x layout (docs/format.md), in a folder of this
 * process's own (outside the project), laid out at the first write: a writing operation runs on it
 * as on a 1.x folder (the views read the rows, sqlite-views.ts). Kept current by deltas (a new post
 * is one appended line, a changed decision one file and the index), and read back after a writing
 * operation ran on it: what the operation changed becomes the deltas to store (two-x-store.ts).
 */
import { promises as fs, readdirSync, statSync } from 'fs';
import * as path from 'path';
import { appendLineSafely, isRecord, readJson, writeAtomic } from './files';
import { JsonlFile } from './jsonl';
import { Delta, Item, StateKind, TwoXState } from './two-x-state';
import { StoredRecord, statOrUndefined } from './records-dir';
import { mapChunked, mapParallel } from './parallel-io';
import { createHash, Hash } from 'crypto';
import { FileMark, textHash } from './two-x-cache';
import { ARRAY_FILES, arrayText, blackboardText, decisionIndexText, handoffIndexText, recordFileText } from './one-x-texts';
import { stampOf } from './version-stamp';

const SUBDIRS = ['decisions', 'handoffs', 'agents', 'graph', 'archive'];

const textOf = (value: unknown) => JSON.stringify(value);

export class TwoXMirror {
  /** The stat key of every file this mirror wrote, as it wrote it. */
  private keys = new Map<string, string>();
  /** The hash of the bytes of every file this mirror wrote, while nothing else wrote it since. */
  private hashes = new Map<string, string>();
  private readonly blackboard: JsonlFile<Record<string, unknown>>;
  private lastPostOrder = '';
  /** The hash of the blackboard's bytes so far, while only this mirror wrote it. */
  private postsHash?: Hash;

  constructor(
    readonly dir: string,
    warn: (m: string) => void,
  ) {
    this.blackboard = new JsonlFile(path.join(dir, 'blackboard.jsonl'), warn);
  }

  private file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  /** A file's path relative to the mirror (every file here is made by `file` or as `dir/kind/id.json`). */
  private relative(file: string): string {
    return file.slice(this.dir.length + 1);
  }

  /** Notes a file's stat as this mirror left it, and the hash of its bytes when this mirror wrote them (else unknown). */
  private mark(file: string, key: string, hash?: string): void {
    this.keys.set(file, key);
    if (hash) this.hashes.set(file, hash);
    else this.hashes.delete(file);
  }

  private async put(file: string, text: string): Promise<void> {
    await writeAtomic(file, text);
    this.mark(file, stampOf(await fs.stat(file)), this.hashOf(file, text));
  }

  /** Writes a file while nothing reads the mirror (`build`): no temporary file and rename. */
  private async putFresh(file: string, text: string): Promise<void> {
    await fs.writeFile(file, text, 'utf8');
    this.mark(file, stampOf(await fs.stat(file)), this.hashOf(file, text));
  }

  /** A written file's hash (the blackboard's kept going, so that appending to it keeps it known). */
  private hashOf(file: string, text: string | Buffer): string {
    if (file !== this.file('blackboard.jsonl')) return textHash(text);
    this.postsHash = createHash('sha1').update(text);
    return this.postsHash.copy().digest('base64');
  }

  /**
   * A kept blackboard that the state's only extends (posts written while no process had the copy):
   * the new lines appended instead of the whole file written again. Whether it did is known by the
   * hash of the state's text cut to the kept file's size.
   */
  private async extendPosts(file: string, text: string, mark: FileMark | undefined): Promise<boolean> {
    const st = mark ? statOrUndefined(file) : undefined;
    if (!mark || !st || stampOf(st) !== mark[0]) return false;
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length <= st.size || bytes[st.size - 1] !== 0x0a || textHash(bytes.subarray(0, st.size)) !== mark[1]) return false;
    await fs.appendFile(file, bytes.subarray(st.size));
    this.mark(file, stampOf(await fs.stat(file)), this.hashOf(file, bytes));
    return true;
  }

  /** Every file of the mirror with the text the state gives it, records last. */
  private files(state: TwoXState): [string, string][] {
    const posts = state.sorted('posts');
    this.lastPostOrder = posts.length ? posts[posts.length - 1].order : '';
    const files: [string, string][] = [
      [this.file('blackboard.jsonl'), blackboardText(state)],
      [this.file('decisions', 'index.json'), decisionIndexText(state)],
      [this.file('handoffs', 'index.jsonl'), handoffIndexText(state)],
      ...(['agents', 'entities', 'relations'] as const).map((kind): [string, string] => [this.file(ARRAY_FILES[kind]!), arrayText(state, kind)]),
    ];
    for (const kind of ['decisions', 'handoffs'] as const)
      for (const item of state.of(kind).values()) files.push([`${this.dir}${path.sep}${kind}${path.sep}${item.id}.json`, recordFileText(item)]);
    return files;
  }

  /**
   * Lays out every file from the state (the first look, or after a failure left the mirror unsure).
   * `kept`: the files a kept copy holds (two-x-cache.ts), by path relative to the mirror: a file
   * whose stat and hash both match what the state gives it is left as it is, every other one is
   * written, and whatever the state does not give is removed. Without it the folder is made anew.
   */
  async build(state: TwoXState, kept?: ReadonlyMap<string, FileMark>): Promise<void> {
    this.keys.clear();
    this.hashes.clear();
    const files = this.files(state);
    if (!kept?.size) {
      await fs.rm(this.dir, { recursive: true, force: true });
      await Promise.all(SUBDIRS.map(sub => fs.mkdir(this.file(sub), { recursive: true })));
      await mapParallel(files, ([file, text]) => this.putFresh(file, text));
    } else {
      await Promise.all(SUBDIRS.map(sub => fs.mkdir(this.file(sub), { recursive: true })));
      await this.removeOthers(new Set(files.map(([file]) => file)));
      // Kept files checked a chunk at a time (synchronous stats), the others written many at once.
      const stale = await mapChunked(files, ([file, text]) => {
        const mark = kept.get(this.relative(file));
        const hash = textHash(text);
        const st = mark && mark[1] === hash ? statOrUndefined(file) : undefined;
        if (!st || stampOf(st) !== mark![0]) return true;
        this.mark(file, mark![0], file === files[0][0] ? this.hashOf(file, text) : hash);
        return false;
      });
      const posts = files[0][0];
      await mapParallel(
        files.filter((_, i) => stale[i]),
        async ([file, text]) => (file === posts && (await this.extendPosts(file, text, kept.get(this.relative(file))))) || this.putFresh(file, text),
      );
    }
    await this.blackboard.refresh();
  }

  /** Removes from a kept copy every entry the state does not give (files an operation or a killed process left). */
  private async removeOthers(wanted: Set<string>): Promise<void> {
    for (const sub of ['', ...SUBDIRS]) {
      const folder = this.file(sub);
      for (const name of await fs.readdir(folder).catch(() => [] as string[])) {
        const entry = path.join(folder, name);
        if (sub === '' ? !SUBDIRS.includes(name) && !wanted.has(entry) : !wanted.has(entry)) await fs.rm(entry, { recursive: true, force: true });
      }
    }
  }

  /** The files as this mirror wrote them, by path relative to it (for the kept copy's manifest). */
  marks(): Record<string, FileMark> {
    const out: Record<string, FileMark> = {};
    for (const [file, hash] of this.hashes) {
      const key = this.keys.get(file);
      if (key) out[this.relative(file)] = [key, hash];
    }
    return out;
  }

  private async writePosts(state: TwoXState): Promise<void> {
    const posts = state.sorted('posts');
    this.lastPostOrder = posts.length ? posts[posts.length - 1].order : '';
    await this.put(this.file('blackboard.jsonl'), posts.map(p => p.text + '\n').join(''));
    await this.blackboard.refresh();
  }

  /** After a write was stored: new posts got their places (seq) at the end of the list. */
  noteStored(state: TwoXState): void {
    for (const item of state.of('posts').values()) if (item.order > this.lastPostOrder) this.lastPostOrder = item.order;
  }

  /** Brings the files up to date with deltas already applied to `state`. */
  async apply(deltas: readonly Delta[], state: TwoXState): Promise<void> {
    const kinds = new Set(deltas.map(d => d.kind));
    const posts = deltas.filter(d => d.kind === 'posts');
    if (posts.length) {
      const appendOnly = posts.every(d => d.item && d.item.order > this.lastPostOrder) && new Set(posts.map(d => d.id)).size === posts.length;
      if (appendOnly) {
        const items = posts.map(d => d.item!).sort((a, b) => (a.order < b.order ? -1 : 1));
        const file = this.file('blackboard.jsonl');
        const text = items.map(i => i.text + '\n').join('');
        // Still as this mirror wrote it (a known hash and the same stat): its hash goes on with the lines.
        const known = this.hashes.has(file) && this.postsHash && stampOf(await fs.stat(file)) === this.keys.get(file);
        await appendLineSafely(file, text);
        this.mark(file, stampOf(await fs.stat(file)), known ? this.postsHash!.update(text).copy().digest('base64') : undefined);
        this.lastPostOrder = items[items.length - 1].order;
        await this.blackboard.refresh();
      } else await this.writePosts(state);
    }
    // The last delta of each record wins (a record changed twice in one batch).
    const records = new Map(deltas.filter(d => d.kind === 'decisions' || d.kind === 'handoffs').map(d => [this.file(d.kind, `${d.id}.json`), d]));
    await mapParallel([...records], async ([file, d]) => {
      if (d.item) await this.put(file, recordFileText(d.item));
      else {
        await fs.rm(file, { force: true });
        this.keys.delete(file);
        this.hashes.delete(file);
      }
    });
    if (kinds.has('decisions')) await this.put(this.file('decisions', 'index.json'), decisionIndexText(state));
    if (kinds.has('handoffs')) await this.put(this.file('handoffs', 'index.jsonl'), handoffIndexText(state));
    for (const kind of ['agents', 'entities', 'relations'] as const) if (kinds.has(kind)) await this.put(this.file(ARRAY_FILES[kind]!), arrayText(state, kind));
  }

  /**
   * What a writing operation changed in the mirror, as deltas against `state` (not applied): new,
   * changed and removed posts, decision and handoff records, agents and graph items. Their `order`
   * is left empty for the store to fill in.
   */
  async collect(state: TwoXState): Promise<Delta[]> {
    const deltas: Delta[] = [];
    const item = (id: string, value: StoredRecord): Item => ({ id, order: '', text: textOf(value), value });
    const differs = (kind: StateKind, id: string, value: StoredRecord) => state.of(kind).get(id)?.text !== textOf(value);
    // Posts: appended lines, or the whole file again when it was rewritten (dismiss, archive, resolve).
    const result = await this.blackboard.refresh();
    if (result.changed) {
      const entries = result.reloaded ? this.blackboard.all : result.appended;
      const ids = new Set<string>();
      for (const e of entries) {
        if (typeof e.id !== 'string') continue;
        ids.add(e.id);
        if (differs('posts', e.id, e as StoredRecord)) deltas.push({ kind: 'posts', id: e.id, item: item(e.id, e as StoredRecord) });
      }
      if (result.reloaded) for (const id of state.of('posts').keys()) if (!ids.has(id)) deltas.push({ kind: 'posts', id });
      const file = this.file('blackboard.jsonl');
      this.mark(file, stampOf(await fs.stat(file)));
    }
    // Decision and handoff records: the files whose stat is not the one written here.
    for (const kind of ['decisions', 'handoffs'] as const) {
      const folder = this.file(kind);
      const present = new Set<string>();
      for (const name of readdirSync(folder)) {
        if (!/^[0-9A-Za-z]+\.json$/.test(name) || name === 'index.json') continue;
        const file = path.join(folder, name);
        const id = name.slice(0, -5);
        present.add(id);
        const key = stampOf(statSync(file));
        if (this.keys.get(file) === key) continue;
        const value = await readJson(file, `${kind} record ${id}`);
        this.mark(file, key);
        if (isRecord(value) && value.id === id && differs(kind, id, value as StoredRecord)) deltas.push({ kind, id, item: item(id, value as StoredRecord) });
      }
      for (const id of state.of(kind).keys()) if (!present.has(id)) deltas.push({ kind, id });
    }
    // Agents and graph: by id (agent_id for agents).
    for (const kind of ['agents', 'entities', 'relations'] as const) {
      const file = this.file(ARRAY_FILES[kind]!);
      const st = await fs.stat(file).catch(() => undefined);
      const key = st ? stampOf(st) : 'missing';
      if (this.keys.get(file) === key) continue;
      this.mark(file, key);
      const value = st ? await readJson(file, kind) : [];
      const ids = new Set<string>();
      for (const v of Array.isArray(value) ? value : []) {
        if (!isRecord(v)) continue;
        const id = kind === 'agents' ? v.agent_id : v.id;
        if (typeof id !== 'string') continue;
        ids.add(id);
        if (differs(kind, id, v as StoredRecord)) deltas.push({ kind, id, item: item(id, v as StoredRecord) });
      }
      for (const id of state.of(kind).keys()) if (!ids.has(id)) deltas.push({ kind, id });
    }
    return deltas;
  }
}
