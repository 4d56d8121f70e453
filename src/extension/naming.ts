/**
 * Names the extension derives: the default agent id, and the scopes offered for a file. No
 * `vscode` import (unit-tested).
 */
import * as path from 'path';

/** Turns any name into a valid agent id: lower case, `[a-z0-9._-]` only, no leading/trailing dashes. */
export function sanitiseAgentId(name: string): string {
  const cleaned = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents off: "josé" → "jose"
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100);
  return cleaned || 'user';
}

/** The file, each of its parent folders (innermost first), then the whole project. */
export function scopeCandidates(file: string | undefined): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  if (file) {
    out.push(file);
    let dir = path.posix.dirname(file);
    while (dir && dir !== '.' && dir !== '/') {
      out.push(`${dir}/`);
      dir = path.posix.dirname(dir);
    }
  }
  out.push(undefined);
  return out;
}
