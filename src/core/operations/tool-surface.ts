/**
 * Which tools an MCP client is offered, by config.yml's `tools` settings, with twining-mcp's
 * meaning (its src/server.ts at commit 037062514659ba52bed7f379801bef8d653611d5, the tool files'
 * `if (options.fullSurface)` registrations, and docs/TWINING-REFERENCE.md; its CHANGELOG for 2.16
 * counts 41 tools: 16 on the default surface, 25 more on the full one):
 *
 *  - `tools.full_surface: false`: twining-mcp's default surface only, the 16 tools below;
 *  - `tools.full_surface: true`: every tool;
 *  - `tools.mode: lite`: leaves out the tools twining-mcp registers only in full mode (its
 *    lifecycle tools, status and archive, and the graph tools; 1.9 measured lists 25 of its 32
 *    tools so), whatever the surface.
 *
 * Without `tools.full_surface` every tool is offered, as this server always has (twining-mcp's own
 * default is the small surface): a project that sets nothing sees no change. Pure; no I/O.
 */
import type { Config } from '../engine/config';

/** twining-mcp 2.16's default surface, by operation name. */
export const DEFAULT_SURFACE: readonly string[] = [
  'assemble',
  'record',
  'post',
  'resolve',
  'why',
  'housekeeping',
  'archive_stale',
  'unarchive',
  'status',
  'archive',
  'add_entity',
  'add_relation',
  'neighbors',
  'graph_query',
  'prune_graph',
  'exchange_status',
];

/** What twining-mcp registers only when `tools.mode` is full (registerLifecycleTools and registerGraphTools). */
export const FULL_MODE_ONLY: readonly string[] = ['status', 'archive', 'add_entity', 'add_relation', 'neighbors', 'graph_query', 'prune_graph'];

/** Whether the tool of operation (or alias) `name` is offered under `tools`. */
export function toolOffered(name: string, tools: Config['tools']): boolean {
  if (tools.mode === 'lite' && FULL_MODE_ONLY.includes(name)) return false;
  if (tools.full_surface === false) return DEFAULT_SURFACE.includes(name);
  return true;
}

/** Why a tool is not offered, for the error a client gets when it calls it anyway. */
export function notOfferedReason(name: string, tools: Config['tools']): string {
  if (tools.mode === 'lite' && FULL_MODE_ONLY.includes(name))
    return `twining_${name} is not offered: config.yml sets tools.mode: lite, which leaves out the status, archive and graph tools (set it to full to use it)`;
  return `twining_${name} is not offered: config.yml sets tools.full_surface: false, which offers twining-mcp's default surface of ${DEFAULT_SURFACE.length} tools (set it to true to use the others)`;
}
