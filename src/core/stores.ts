/**
 * In-memory views of the folder's files, kept current cheaply: the JSONL files are read
 * incrementally (jsonl.ts) and the JSON arrays are re-parsed only when their stat changes.
 */
import { promises as fs } from 'fs';
import { JsonlFile } from './jsonl';
import { isRecord, readJsonArray } from './files';
import { overlaps } from './scope';
import type { BlackboardEntry, HandoffIndexLine } from './records';

/** The blackboard, with the lists that operations need kept up to date as lines are appended. */
export class Blackboard {
  readonly file: JsonlFile<BlackboardEntry>;
  /** Built on the first look-up by id (verify, opening an entry), then kept up to date. */
  private byId?: Map<string, BlackboardEntry>;
  readonly warnings: BlackboardEntry[] = [];
  readonly findings: BlackboardEntry[] = [];
  readonly needs: BlackboardEntry[] = [];
  /** Positions in `warnings` and `findings` by scope: a scoped snapshot visits each distinct scope once. */
  private byScope = new Map<string, { warnings: number[]; findings: number[] }>();
  /** Increases whenever the content changes; views compare it to skip work. */
  version = 0;

  constructor(path: string, warn: (m: string) => void) {
    this.file = new JsonlFile<BlackboardEntry>(path, warn);
  }

  get entries(): readonly BlackboardEntry[] {
    return this.file.all;
  }

  get(id: string): BlackboardEntry | undefined {
    if (!this.byId) {
      this.byId = new Map();
      for (const entry of this.entries) if (typeof entry.id === 'string') this.byId.set(entry.id, entry);
    }
    return this.byId.get(id);
  }

  async refresh(): Promise<boolean> {
    const result = await this.file.refresh();
    if (!result.changed) return false;
    if (result.reloaded) {
      this.byId = undefined;
      this.warnings.length = this.findings.length = this.needs.length = 0;
      this.byScope.clear();
    }
    for (const entry of result.appended) this.index(entry);
    this.version++;
    return true;
  }

  private index(entry: BlackboardEntry): void {
    if (this.byId && typeof entry.id === 'string') this.byId.set(entry.id, entry);
    if (entry.entry_type === 'warning' || entry.entry_type === 'finding') {
      const list = entry.entry_type === 'warning' ? this.warnings : this.findings;
      if (typeof entry.scope === 'string') {
        let at = this.byScope.get(entry.scope);
        if (!at) this.byScope.set(entry.scope, (at = { warnings: [], findings: [] }));
        (entry.entry_type === 'warning' ? at.warnings : at.findings).push(list.length);
      }
      list.push(entry);
    } else if (entry.entry_type === 'need') this.needs.push(entry);
  }

  /** Warnings and findings whose scope overlaps `scope`, in file order (all of them without a scope). */
  inScope(scope: string | undefined): { warnings: BlackboardEntry[]; findings: BlackboardEntry[] } {
    if (!scope) return { warnings: this.warnings.slice(), findings: this.findings.slice() };
    const w: number[] = [];
    const f: number[] = [];
    for (const [s, at] of this.byScope) {
      if (!overlaps(s, scope)) continue;
      for (const i of at.warnings) w.push(i);
      for (const i of at.findings) f.push(i);
    }
    w.sort((a, b) => a - b);
    f.sort((a, b) => a - b);
    return { warnings: w.map(i => this.warnings[i]), findings: f.map(i => this.findings[i]) };
  }
}

export class HandoffIndex {
  readonly file: JsonlFile<HandoffIndexLine>;
  version = 0;
  constructor(path: string, warn: (m: string) => void) {
    this.file = new JsonlFile<HandoffIndexLine>(path, warn);
  }
  get lines(): readonly HandoffIndexLine[] {
    return this.file.all;
  }
  async refresh(): Promise<boolean> {
    const changed = (await this.file.refresh()).changed;
    if (changed) this.version++;
    return changed;
  }
}

/**
 * A JSON array file (registry, decision index), re-parsed only when its stat changes. `get()`
 * gives the object items; `raw` keeps every item for rewrites.
 */
export class JsonArrayFile<T> {
  private key = '';
  private value: T[] = [];
  raw: unknown[] = [];
  version = 0;
  constructor(
    readonly path: string,
    private readonly what: string,
  ) {}

  async get(): Promise<T[]> {
    let key: string;
    try {
      const st = await fs.stat(this.path);
      key = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      key = 'missing';
    }
    if (key !== this.key) {
      this.raw = key === 'missing' ? [] : await readJsonArray(this.path, this.what);
      this.value = this.raw.filter(isRecord) as T[];
      this.key = key;
      this.version++;
    }
    return this.value;
  }

  /** Reads the file afresh, ignoring the cache (under a lock, before a rewrite): every item, and the objects among them. */
  async fresh(): Promise<{ raw: unknown[]; items: T[] }> {
    this.key = '';
    const items = await this.get();
    return { raw: this.raw, items };
  }
}
