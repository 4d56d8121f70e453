/**
 * The bytes of a twining-mcp 2.x record file under `records/` (daveangulo/twining-mcp,
 * src/storage/sync/record-export.ts `stableStringify` at 0b79c990): every object's keys sorted
 * (by UTF-16 code units, as `Array.prototype.sort` does) at every depth, arrays in their order,
 * two-space indent, one trailing newline. The same record gives the same bytes on every machine.
 */
export function recordText(value: unknown): string {
  return JSON.stringify(sortedKeys(value), null, 2) + '\n';
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys((value as Record<string, unknown>)[key]);
  return out;
}
