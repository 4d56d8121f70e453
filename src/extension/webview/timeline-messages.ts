/**
 * The messages between the timeline panel (extension side, timeline-panel.ts) and its webview
 * (src/webview-ui/timeline-view.ts), and the state the webview keeps across hide, show and reload.
 * No `vscode` import: both sides compile against these types.
 */
import type { TimelineArrow, TimelineData, TimelineFilter, TimelineLink, RecordRef } from '../present/timeline-layout';
import type { PackedItems } from '../present/timeline-packing';

/** Extension -> webview. */
export type ToWebview =
  /** Everything, after the first read or when the blackboard was rewritten (dismiss, archive, checkout). */
  | { type: 'reset'; folder: string; user: string; now: number; data: Omit<TimelineData, 'items'>; items: PackedItems; agents: { id: string; role?: string }[] }
  /** Entries appended to the blackboard since the last message: only those, never the history again. */
  | { type: 'append'; now: number; items: PackedItems; resolved: { id: string; end: number }[] }
  /** The handoffs (few, and acknowledgements change them in place) and the links between records. */
  | { type: 'relations'; arrows: TimelineArrow[]; links: TimelineLink[] }
  /** Decision items whose record or status changed (the decision index was rewritten). */
  | { type: 'decisions'; patches: { id: string; open: RecordRef; status?: string }[] }
  /** The active editor's file, for the "active file" scope filter. */
  | { type: 'activeFile'; path?: string }
  /** Nothing to show: no folder with a .twining/ folder. */
  | { type: 'empty'; message: string };

/** Webview -> extension. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'open'; ref: RecordRef }
  | { type: 'showGraph'; decisionId: string }
  /** The first frame with data is on the screen (the benchmark reads it): `ms` since the message came, `drawMs` of it in drawing. */
  | { type: 'painted'; items: number; ms: number; drawMs: number; reason: string };

/** What the webview keeps with setState (and the serializer gets back after a reload). */
export interface TimelineState {
  folder?: string;
  filter: TimelineFilter & { activeFile?: boolean };
  /** The visible window: its start and its length in milliseconds; `follow`: the end tracks now. */
  view?: { start: number; span: number; follow: boolean };
  scrollTop?: number;
}
