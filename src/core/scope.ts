/** Scope overlap and tag normalisation, exactly as FORMAT.md §2.4 and §5.1 define them. */

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
