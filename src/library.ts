/**
 * The Twining library, bundled as `dist/core.js`: the core (src/core/index.ts) and the engine's
 * answer to agent sessions' starts (src/agents/session-start/), which the extension, `twining mcp`
 * and the SessionStart hook load from the same bundle. The core itself imports nothing of
 * src/agents, so this is the one module that joins them.
 */
export * from './core';
export { startSession } from './agents/session-start/session-start';
export { SessionStartServer } from './agents/session-start/session-start-server';
