/**
 * The kinds of change the extension reacts to: the engine's data kinds (core/data-kinds.ts), and
 * its own: `.twining/` appearing or going, workspace trust, and the user's settings. No `vscode`
 * import (unit-tested).
 */
import { DataKind, kindOfPath } from '../../core/data-kinds';

/** What a change means for the views. */
export type ChangeKind =
  | DataKind
  | 'presence' // `.twining/` itself appeared or disappeared
  | 'trust' // the engine was re-created (workspace trust granted)
  | 'settings'; // twining.agentId (who "you" are)

/** The kind of change a path (relative to the workspace folder, `/`-separated) stands for. */
export function classifyPath(relative: string): ChangeKind | undefined {
  return kindOfPath(relative);
}
