/** Imported first by extension.ts: when the bundle started loading (activation cost includes it). */
export const loadStartedAt = performance.now();
