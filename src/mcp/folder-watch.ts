/**
 * Keeps `twining mcp`'s engine current while the folder changes under it (another agent's post, a
 * decision, a handoff): an agent's SessionStart hook asks this engine over the local socket
 * (agents/session-start/session-start-server.ts), and an engine that already read the change answers without
 * reading it then. The extension's engine is kept current by VS Code's file watcher the same way.
 *
 * The folder and the subfolders an engine reads are watched one by one (a recursive watch on
 * Linux walks every file: 360 ms and a watch per file at 10,000 decisions). One refresh at a time;
 * changes during one make one more after it. Session files (the engine's own marks and the hooks'
 * session state) and lock folders are not changes to read. A folder that cannot be watched (not
 * there yet, or no inotify watches left) is left to be read when the engine is asked, as before.
 */
import { watch, type FSWatcher } from 'fs';
import * as path from 'path';

/** The subfolders of `.twining/` whose files an engine reads (1.x and 2.x layouts). */
const WATCHED = ['', 'decisions', 'handoffs', 'agents', 'claims', 'graph', 'records'];

export function keepCurrent(twiningDir: string, refresh: () => Promise<unknown>, warn: (message: string) => void): { close(): void } {
  let running = false;
  let again = false;
  let closed = false;
  const run = () => {
    if (closed) return;
    if (running) return void (again = true);
    running = true;
    refresh()
      .catch((error: Error) => warn(`the folder changed and was not read again (${error.message}); the next call reads it`))
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const watchers: FSWatcher[] = [];
  for (const sub of WATCHED) {
    try {
      const watcher = watch(path.join(twiningDir, sub), { persistent: false }, (_event, name) => {
        if ((sub === '' && name === 'sessions') || (typeof name === 'string' && name.endsWith('.lock'))) return;
        run();
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
