/**
 * Where everything lives inside `.twining/` (FORMAT.md §1), and creating the folder without ever
 * overwriting what is there.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { createExclusive } from './files';
import { defaultConfigYaml } from '../config';

export const GITIGNORE = 'embeddings/*.index\narchive/\nmodels/\nmetrics.jsonl\n';

export class Layout {
  readonly dir: string;
  constructor(readonly projectRoot: string) {
    this.dir = path.join(projectRoot, '.twining');
  }
  get registry() {
    return path.join(this.dir, 'agents', 'registry.json');
  }
  get blackboard() {
    return path.join(this.dir, 'blackboard.jsonl');
  }
  get decisionIndex() {
    return path.join(this.dir, 'decisions', 'index.json');
  }
  /** `id` must already be checked to be a ULID. */
  decision(id: string) {
    return path.join(this.dir, 'decisions', `${id}.json`);
  }
  get handoffsDir() {
    return path.join(this.dir, 'handoffs');
  }
  get handoffIndex() {
    return path.join(this.dir, 'handoffs', 'index.jsonl');
  }
  /** `id` must already be checked to be a ULID. */
  handoff(id: string) {
    return path.join(this.dir, 'handoffs', `${id}.json`);
  }
  get config() {
    return path.join(this.dir, 'config.yml');
  }
  get archiveDir() {
    return path.join(this.dir, 'archive');
  }

  /** Every entry of FORMAT.md §1.1 with its initial content (`null` marks a folder). */
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

/**
 * Makes sure `.twining/` exists with every required entry. A missing folder is built under a
 * temporary sibling name and renamed into place in one step; if another process created it
 * meanwhile, our copy is discarded and theirs is used. In an existing folder, missing entries are
 * added with exclusive create; nothing is ever overwritten. Returns whether the folder was created.
 */
export async function ensureFolder(layout: Layout): Promise<boolean> {
  if (!(await isDirectory(layout.dir))) {
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
      await fs.rm(temp, { recursive: true, force: true });
      if (!(code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EISDIR') || !(await isDirectory(layout.dir))) throw error;
    }
  }
  for (const [name, content] of layout.entries()) {
    const target = path.join(layout.dir, name);
    if (content === null) await fs.mkdir(target, { recursive: true });
    else await createExclusive(target, content);
  }
  return false;
}
