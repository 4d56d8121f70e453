/** Scope overlap and tag normalisation, exactly as docs/format.md §Scope overlap and docs/format.md §Tag normalisation define them. */

/** True when either scope is a plain, case-sensitive string prefix of the other. */
export function overlaps(a: string, b: string): boolean {
  return a.startsWith(b) || b.startsWith(a);
}

/** Lower-case (locale-independent), trim, drop empties and duplicates keeping first occurrences. */
export function normaliseTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.toLowerCase().trim();
    if (tag === '' || seen.has(tag)) continue;
    seen.add(tag);
    out.push(tag);
  }
  return out;
}
