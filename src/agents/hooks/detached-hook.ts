/**
 * Work a hook hands to a process of its own so that the hook answers at once: this bundle
 * (hook.js) started again, detached, with `args`; its error output goes to `sessions/<log>` of
 * the record, for the person to read when the work did not happen.
 */
import { closeSync, openSync } from 'fs';
import * as path from 'path';

export function startDetachedHook(twiningDir: string, log: string, args: string[]): void {
  // Loaded only when work is handed over: `child_process` costs a hook process about 6 ms to load.
  const { spawn } = require('child_process') as typeof import('child_process');
  const fd = openSync(path.join(twiningDir, 'sessions', log), 'a');
  try {
    const child = spawn(process.execPath, [path.join(__dirname, 'hook.js'), ...args], {
      detached: true,
      stdio: ['ignore', 'ignore', fd],
      env: process.env,
    });
    child.unref();
  } finally {
    closeSync(fd);
  }
}
