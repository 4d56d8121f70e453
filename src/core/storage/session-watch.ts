/**
 * The engine's view of `.twining/sessions/session-*.json` (the session board's data): a version
 * that increases whenever a session file appeared, changed or went, told by each file's size and
 * modification time. The files are written by hook processes on every tool call and read whole on
 * demand (they are small); this only tells the views when to read them again. A refresh for a
 * session file alone (the hooks write one on every tool call) re-reads nothing else.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import { sessionsDir } from './session-files';
import { stampOf } from './version-stamp';

const isSessionFile = (name: string) => name.startsWith('session-') && name.endsWith('.json');

export class SessionWatch {
  /** Increases on every change seen. */
  version = 0;
  private readonly seen = new Map<string, string>();

  constructor(private readonly twiningDir: string) {}

  private async signature(name: string): Promise<string | undefined> {
    const st = await fs.stat(path.join(sessionsDir(this.twiningDir), name)).catch(() => undefined);
    return st ? stampOf(st) : undefined;
  }

  /** Whether the session file at this project-relative path is as last seen. */
  async isCurrent(relative: string): Promise<boolean> {
    const name = relative.split('/').pop() ?? '';
    return (await this.signature(name)) === this.seen.get(name);
  }

  /** Looks at the named files (project-relative paths), or at the whole folder; true when something changed. */
  async recheck(relatives?: readonly string[]): Promise<boolean> {
    let names: string[];
    let gone: string[] = [];
    if (relatives) names = relatives.map(r => r.split('/').pop() ?? '').filter(isSessionFile);
    else {
      names = (await fs.readdir(sessionsDir(this.twiningDir)).catch(() => [] as string[])).filter(isSessionFile);
      const present = new Set(names);
      gone = [...this.seen.keys()].filter(n => !present.has(n));
    }
    let changed = false;
    for (const name of gone) changed = this.seen.delete(name) || changed;
    for (const name of names) {
      const sig = await this.signature(name);
      if (sig === this.seen.get(name)) continue;
      if (sig === undefined) this.seen.delete(name);
      else this.seen.set(name, sig);
      changed = true;
    }
    if (changed) this.version++;
    return changed;
  }
}
