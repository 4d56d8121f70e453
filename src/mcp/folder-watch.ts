/**
 * Keeps `twining mcp`'s engine current while the folder changes under it (another agent's post, a
 * decision, a handoff): an agent's SessionStart hook asks this engine over the local socket
 * (agents/session-start/session-start-server.ts), and an engine that already read the change answers without
 * reading it then. The extension's engine is kept current by VS Code's file watcher the same way.
 *
 * The folder and the subfolders an engine reads are watched one by one (a recursive watch on
 * Linux walks every file and takes a watch per file: bench/README.md, "Figures behind choices
 * in the code"). One refresh at a time;
 * changes during one make one more after it. The refresh is told which files changed, so the
 * report of the engine's own write (every post of this server) costs a stat per file, not a read. Session files (the engine's own marks and the hooks'
 * session state) and lock folders are not changes to read. A folder that cannot be watched (not
 * there yet, or no inotify watches left) is left to be read when the engine is asked, as before.
 */
import { watch, type FSWatcher } from 'fs';
import * as path from 'path';

/** The subfolders of `.twining/` whose files an engine reads (1.x and 2.x layouts). */
const WATCHED = ['', 'decisions', 'handoffs', 'agents', 'claims', 'graph', 'records'];

export function keepCurrent(twiningDir: string, refresh: (changedPaths?: string[]) => Promise<unknown>, warn: (message: string) => void): { close(): void } {
  let running = false;
  let closed = false;
  // The paths reported since the last refresh began (project-relative, as the engine takes them); undefined: one without a name, so all.
  let pending: Set<string> | undefined = new Set();
  let due = false;
  const run = () => {
    if (closed || running || !due) return;
    running = true;
    due = false;
    const paths = pending ? [...pending] : undefined;
    pending = new Set();
    // Named paths: the engine stats them and reads nothing when they are as it wrote them (its own post).
    refresh(paths)
      .catch((error: Error) => warn(`the folder changed and was not read again (${error.message}); the next call reads it`))
      .finally(() => {
        running = false;
        run();
      });
  };
  const note = (sub: string, name: string | null) => {
    if (typeof name !== 'string') pending = undefined;
    else pending?.add(['.twining', sub, name].filter(Boolean).join('/'));
    due = true;
    run();
  };
  const watchers: FSWatcher[] = [];
  for (const sub of WATCHED) {
    try {
      const watcher = watch(path.join(twiningDir, sub), { persistent: false }, (_event, name) => {
        if ((sub === '' && name === 'sessions') || (typeof name === 'string' && name.endsWith('.lock'))) return;
        note(sub, name);
      });
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // Not there (yet), or not watchable: read when asked.
    }
  }
  return {
    close() {
      closed = true;
      for (const watcher of watchers) watcher.close();
    },
  };
}
