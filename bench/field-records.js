'use strict';
/**
 * The records the 2.x and migrate benchmarks fill their folders with (bench/two-x.js,
 * bench/migrate.js): twining-mcp field sizes, one shape each, ids that sort by time as ULIDs do.
 */
const ulid = (t, i) => (t.toString(32).toUpperCase().padStart(10, '0') + String(i).padStart(16, '0')).replace(/[ILOU]/g, 'X');

/** Decision number `i`, made at `t` (ms), in one of 50 module folders. */
function fieldDecision(i, t) {
  return {
    id: ulid(t, i),
    timestamp: new Date(t).toISOString(),
    agent_id: 'bench',
    domain: 'api',
    scope: `src/m${i % 50}/`,
    summary: `Decision ${i}`,
    context: 'c'.repeat(200),
    rationale: 'r'.repeat(200),
    constraints: [],
    alternatives: [],
    depends_on: [],
    confidence: 'medium',
    status: 'active',
    reversible: true,
    affected_files: [`src/m${i % 50}/f${i}.ts`],
    affected_symbols: [],
    commit_hashes: [],
  };
}

/** A decision record's entry in decisions/index.json (the fields twining-mcp copies there). */
const indexEntryOf = d => ({
  id: d.id,
  timestamp: d.timestamp,
  domain: d.domain,
  scope: d.scope,
  summary: d.summary,
  confidence: d.confidence,
  status: d.status,
  affected_files: d.affected_files,
  affected_symbols: d.affected_symbols,
  commit_hashes: d.commit_hashes,
});

module.exports = { ulid, fieldDecision, indexEntryOf };
