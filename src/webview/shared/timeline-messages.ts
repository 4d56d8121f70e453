/**
 * The messages between the timeline panel (extension side, timeline-panel.ts) and its webview
 * (src/webview/pages/timeline-view.ts), and the state the webview keeps across hide, show and reload.
 * No `vscode` import: both sides compile against these types.
 *
 * The page holds only the window it looks at: it asks with `query` (a range a little wider than
 * what it shows, so that scrolling a little needs no new answer), and gets `window` back; after a
 * change of the folder's data the panel sends the same window again, recomputed, unasked.
 */
import type { TimelineArrow, TimelineFilter, TimelineLane, TimelineLink, RecordRef, TimelineItem } from './timeline-layout';
import type { PackedItems } from './timeline-packing';
import type { Density, TimelineBar, WindowQuery } from './timeline-window';

/** Extension -> webview. */
export type ToWebview =
  /** A new folder, or its blackboard read again: who is who, and where the history starts. */
  | { type: 'reset'; folder: string; user: string; now: number; first?: number; total: number }
  /** The answer to a query (`reason: 'query'`) or the same window after a change (`'change'`). */
  | {
      type: 'window';
      seq: number;
      reason: 'query' | 'change';
      /** Only the markers from `start` on (after appends): the page keeps those it holds before `start`. */
      partial: boolean;
      now: number;
      start: number;
      end: number;
      items: PackedItems;
      /** How many entries each marker stands for. */
      counts: Uint32Array;
      bars: TimelineBar[];
      total: number;
      lanes: TimelineLane[];
      kinds: string[];
      density: Density;
    }
  /** The handoffs (few, and acknowledgements change them in place), the links, and where the linked decisions are. */
  | { type: 'relations'; arrows: TimelineArrow[]; links: TimelineLink[]; decisions: [id: string, t: number, lane: string][] }
  /** The entry a keyboard move lands on (none: nothing further that way). */
  | { type: 'stepped'; item?: TimelineItem }
  /** The active editor's file, for the "active file" scope filter. */
  | { type: 'activeFile'; path?: string }
  /** Nothing to show: no folder with a .twining/ folder. */
  | { type: 'empty'; message: string };

/** Webview -> extension. */
export type FromWebview =
  | { type: 'ready' }
  | ({ type: 'query'; seq: number } & WindowQuery)
  /** A keyboard move: in the first of `lanes` (in order) that has an entry that way. */
  | { type: 'step'; lanes: string[]; from: { t: number; id?: string }; dir: 'next' | 'prev' | 'near'; filter: TimelineFilter }
  | { type: 'open'; ref: RecordRef }
  | { type: 'showGraph'; decisionId: string }
  /** The page's state after each change, kept by the extension as well (see TimelineState). */
  | { type: 'state'; state: TimelineState }
  /** The first frame with data is on the screen (the benchmark reads it): `ms` since the message came, `drawMs` of it in drawing. */
  | { type: 'painted'; items: number; ms: number; drawMs: number; reason: string; marks?: TimelineMark[] };

/**
 * A moment of the page's start, as a wall-clock time in milliseconds (performance.timeOrigin +
 * performance.now(), comparable with the extension's own marks): the benchmark lays the two sides
 * end to end to say where the time to the first frame goes.
 */
export type TimelineMark = [name: string, at: number];

/**
 * What the webview keeps with setState (and the serializer gets back after a reload). The workbench
 * stores it lazily (when idle, and on leaving the page, which a reload can outrun): the page also
 * posts it to the extension, which keeps it in a file of the workspace's storage, and a revived
 * panel takes whichever of the two copies is newer (`newerState`).
 */
export interface TimelineState {
  /** Which panel the state belongs to (the page makes it up on its first save) and how many saves it has had. */
  id?: string;
  rev?: number;
  folder?: string;
  filter: TimelineFilter & { activeFile?: boolean };
  /** The visible window: its start and its length in milliseconds; `follow`: the end tracks now. */
  view?: { start: number; span: number; follow: boolean };
  /** The range button last chosen (`hour`, `day`, `week`, `all`), until a zoom or a scroll. */
  range?: string;
  scrollTop?: number;
}

/**
 * Of the state the workbench kept and the one the extension kept, the newer: `kept` only where it is
 * the same panel's (another window's panel keeps its own) and saved later than `got`.
 */
export function newerState(got: TimelineState | undefined, kept: TimelineState | undefined): TimelineState | undefined {
  if (!got || !kept || got.id === undefined || kept.id !== got.id) return got;
  return (kept.rev ?? 0) > (got.rev ?? 0) ? kept : got;
}
