/**
 * Timeline items packed for the trip to the webview: the numbers in typed arrays (VS Code passes
 * an ArrayBuffer to a webview as bytes, where an array of objects is turned into JSON and parsed
 * again), each distinct lane, kind and scope once, and a record reference only where it is not
 * the entry itself. `unpackItems` gives back the same items. Pure; the webview imports it too.
 */
import type { RecordRef, TimelineItem } from './timeline-layout';

export interface PackedItems {
  count: number;
  ids: string[];
  summaries: string[];
  t: Float64Array;
  /** NaN: no end. */
  end: Float64Array;
  /** 1: a standing warning. */
  standing: Uint8Array;
  lane: Uint32Array;
  kind: Uint32Array;
  scope: Uint32Array;
  lanes: string[];
  kinds: string[];
  scopes: string[];
  /** Items that open another record than their entry (decisions), with their status: [index, ref, status]. */
  refs: [number, RecordRef, string | undefined][];
}

function table(): { list: string[]; at(value: string): number } {
  const list: string[] = [];
  const index = new Map<string, number>();
  return {
    list,
    at(value) {
      let i = index.get(value);
      if (i === undefined) index.set(value, (i = list.push(value) - 1));
      return i;
    },
  };
}

export function packItems(items: readonly TimelineItem[]): PackedItems {
  const n = items.length;
  const lanes = table();
  const kinds = table();
  const scopes = table();
  const packed: PackedItems = {
    count: n,
    ids: new Array<string>(n),
    summaries: new Array<string>(n),
    t: new Float64Array(n),
    end: new Float64Array(n),
    standing: new Uint8Array(n),
    lane: new Uint32Array(n),
    kind: new Uint32Array(n),
    scope: new Uint32Array(n),
    lanes: lanes.list,
    kinds: kinds.list,
    scopes: scopes.list,
    refs: [],
  };
  for (let i = 0; i < n; i++) {
    const it = items[i];
    packed.ids[i] = it.id;
    packed.summaries[i] = it.summary;
    packed.t[i] = it.t;
    packed.end[i] = it.end ?? NaN;
    packed.standing[i] = it.standing ? 1 : 0;
    packed.lane[i] = lanes.at(it.lane);
    packed.kind[i] = kinds.at(it.kind);
    packed.scope[i] = scopes.at(it.scope);
    if (it.open.type !== 'entry' || it.open.id !== it.id || it.status !== undefined) packed.refs.push([i, it.open, it.status]);
  }
  return packed;
}

export function unpackItems(p: PackedItems): TimelineItem[] {
  const items = new Array<TimelineItem>(p.count);
  for (let i = 0; i < p.count; i++) {
    const item: TimelineItem = {
      id: p.ids[i],
      lane: p.lanes[p.lane[i]],
      t: p.t[i],
      kind: p.kinds[p.kind[i]],
      summary: p.summaries[i],
      scope: p.scopes[p.scope[i]],
      open: { type: 'entry', id: p.ids[i] },
    };
    if (!Number.isNaN(p.end[i])) item.end = p.end[i];
    if (p.standing[i]) item.standing = true;
    items[i] = item;
  }
  for (const [i, ref, status] of p.refs) {
    items[i].open = ref;
    if (status !== undefined) items[i].status = status;
  }
  return items;
}
