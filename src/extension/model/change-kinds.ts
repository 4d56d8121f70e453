/**
 * The kinds of change the extension reacts to: the engine's data kinds (core/data-kinds.ts; the
 * engine alone decides which a path stands for), and its own: `.twining/` appearing or going,
 * workspace trust, and the user's settings.
 */
import type { DataKind } from '../../core/engine/data-kinds';

/** What a change means for the views. */
export type ChangeKind =
  | DataKind
  | 'presence' // `.twining/` itself appeared or disappeared
  | 'trust' // the engine was re-created (workspace trust granted)
  | 'settings'; // twining.agentId (who "you" are)
