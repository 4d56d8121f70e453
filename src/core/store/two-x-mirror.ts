/**
 * A twining-mcp 2.x folder's records written out in FORMAT.md's 1.x layout, in a folder of this
 * process's own (outside the project), so that every operation, view and tool reads them exactly as
 * it reads a 1.x folder: the same records give the same results. Kept current by deltas (a new post
 * is one appended line, a changed decision one file and the index), and read back after a writing
 * operation ran on it: what the operation changed becomes the deltas to store (two-x-store.ts).
 */
import { promises as fs, readdirSync, statSync } from 'fs';
import * as path from 'path';
import { appendLineSafely, isRecord, readJson, writeAtomic } from './files';
import { JsonlFile } from './jsonl';
import { Delta, Item, StateKind, TwoXState } from './two-x-state';
import { StoredRecord, statKey } from './records-dir';
import { mapParallel } from './parallel-io';
import { ARRAY_FILES, arrayText, blackboardText, decisionIndexText, handoffIndexText, recordFileText } from './one-x-texts';

const textOf = (value: unknown) => JSON.stringify(value);

export class TwoXMirror {
  /** The stat key of every file this mirror wrote, as it wrote it. */
  private keys = new Map<string, string>();
  private readonly blackboard: JsonlFile<Record<string, unknown>>;
  private lastPostOrder = '';

  constructor(
    readonly dir: string,
    warn: (m: string) => void,
  ) {
    this.blackboard = new JsonlFile(path.join(dir, 'blackboard.jsonl'), warn);
  }

  private file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  private async put(file: string, text: string): Promise<void> {
    await writeAtomic(file, text);
    this.keys.set(file, statKey(await fs.stat(file)));
  }

  /** Writes a file into the folder `build` just made (no reader yet, so no temporary file and rename). */
  private async putFresh(file: string, text: string): Promise<void> {
    await fs.writeFile(file, text, 'utf8');
    this.keys.set(file, statKey(await fs.stat(file)));
  }

  /**
   * Writes every file from the state (the first look, or after a failure left the mirror unsure):
   * the blackboard and each index in one write, the decision and handoff records many at a time.
   */
  async build(state: TwoXState): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
    await Promise.all(['decisions', 'handoffs', 'agents', 'graph', 'archive'].map(sub => fs.mkdir(this.file(sub), { recursive: true })));
    this.keys.clear();
    const records = (['decisions', 'handoffs'] as const).flatMap(kind => [...state.of(kind).values()].map(item => ({ kind, item })));
    await Promise.all([
      this.writePosts(state),
      this.writeDecisionIndex(state),
      this.writeHandoffIndex(state),
      ...(['agents', 'entities', 'relations'] as const).map(kind => this.writeArray(state, kind)),
      mapParallel(records, ({ kind, item }) => this.putFresh(this.file(kind, `${item.id}.json`), recordFileText(item))),
    ]);
  }

  private async writePosts(state: TwoXState): Promise<void> {
    const posts = state.sorted('posts');
    this.lastPostOrder = posts.length ? posts[posts.length - 1].order : '';
    await this.put(this.file('blackboard.jsonl'), blackboardText(state));
    await this.blackboard.refresh();
  }

  private writeDecisionIndex(state: TwoXState): Promise<void> {
    return this.put(this.file('decisions', 'index.json'), decisionIndexText(state));
  }

  private writeHandoffIndex(state: TwoXState): Promise<void> {
    return this.put(this.file('handoffs', 'index.jsonl'), handoffIndexText(state));
  }

  private writeArray(state: TwoXState, kind: StateKind): Promise<void> {
    return this.put(this.file(ARRAY_FILES[kind]!), arrayText(state, kind));
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
        await appendLineSafely(file, items.map(i => i.text + '\n').join(''));
        this.keys.set(file, statKey(await fs.stat(file)));
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
      }
    });
    if (kinds.has('decisions')) await this.writeDecisionIndex(state);
    if (kinds.has('handoffs')) await this.writeHandoffIndex(state);
    for (const kind of ['agents', 'entities', 'relations'] as const) if (kinds.has(kind)) await this.writeArray(state, kind);
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
      this.keys.set(file, statKey(await fs.stat(file)));
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
        const key = statKey(statSync(file));
        if (this.keys.get(file) === key) continue;
        const value = await readJson(file, `${kind} record ${id}`);
        this.keys.set(file, key);
        if (isRecord(value) && value.id === id && differs(kind, id, value as StoredRecord)) deltas.push({ kind, id, item: item(id, value as StoredRecord) });
      }
      for (const id of state.of(kind).keys()) if (!present.has(id)) deltas.push({ kind, id });
    }
    // Agents and graph: by id (agent_id for agents).
    for (const kind of ['agents', 'entities', 'relations'] as const) {
      const file = this.file(ARRAY_FILES[kind]!);
      const st = await fs.stat(file).catch(() => undefined);
      const key = st ? statKey(st) : 'missing';
      if (this.keys.get(file) === key) continue;
      this.keys.set(file, key);
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
