/**
 * `twining mcp`: the engine as a stdio MCP server, for every agent that speaks MCP (Claude Code,
 * Codex, Cursor, Cline, Roo, and MCP clients inside VS Code).
 *
 * Contract, so that agents and prompts written for twining-mcp work unchanged (docs/format.md §Tools):
 * - one tool per operation, named `twining_<operation>` (twining-mcp's names where it has the
 *   tool), with the operation's own input schema, generated from the core's zod schemas;
 * - a result is one text item holding the compact JSON result, with at least twining-mcp's fields;
 * - an error is the text `{"error":true,"message":…,"code":…}`, as twining-mcp writes it, and,
 *   unlike twining-mcp, also flagged `isError` so that a client cannot take it for a result.
 *   Invalid input is refused before anything is written, naming every field at fault.
 *
 * One engine is kept open for the life of the server: each call looks at the files it needs by
 * their size and change time and parses only what was appended since, so a write by another
 * process (twining-mcp, the CLI, the extension) is seen by the next call, and a call on a folder
 * with 100k entries does not re-read it. Writes take the same locks as twining-mcp.
 *
 * Nothing but the protocol is written to standard output; warnings go to standard error.
 */
import * as path from 'path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { OPERATION_NAMES, aliasInputs, inputs, jsonSchemaOf, type AliasName, type OperationName } from '../core/schemas/schemas';
import { forgivingInput, withIgnoredFields } from '../core/schemas/forgiving-input';
import { withModelDefaults } from '../core/schemas/model-defaults';
import { ALIAS_NAMES, TOOL_ALIASES, aliasInput } from '../core/schemas/tool-aliases';
import { openWorkspace, type TwiningEngine } from '../core/engine/engine';
import { describeRoute } from '../core/git/record-location';
import { SessionStartServer } from '../agents/session-start/session-start-server';
import { keepCurrent } from './folder-watch';
import { refuseReadWithoutFolder } from '../core/engine/missing-folder';
import { TwiningError, isTwiningError } from '../core/errors';
import type { HandoffRecord } from '../core/records';
import { ALIAS_OPERATIONS, OPERATIONS, toolName } from '../core/operations/operation-info';
import { writes } from '../core/operations/operation-writes';
import { INSTRUCTIONS } from './instructions';
import { SyncScheduler } from '../core/sync/sync-scheduler';
import { configGet } from '../core/sync/sync-git';
import { notOfferedReason, toolOffered } from '../core/operations/tool-surface';
import type { Config } from '../core/engine/config';

/** Each tool name and what it runs: an operation, or an alias (twining-mcp's name for an operation with some fields fixed). */
const BY_TOOL = new Map<string, { op: OperationName; alias?: AliasName }>([
  ...OPERATION_NAMES.map(op => [toolName(op), { op }] as const),
  ...ALIAS_NAMES.map(alias => [toolName(alias), { op: TOOL_ALIASES[alias].op, alias }] as const),
]);

/**
 * Tools that are not operations of the engine's schemas: `twining_sync` exchanges the record with
 * the repository's remote (src/core/sync/), which twining-mcp has no tool for.
 */
export const SYNC_TOOL: Tool = {
  name: 'twining_sync',
  title: 'Sync the record across machines',
  description:
    "Exchange the team's record (.twining/) with the git repository's remote, on its own branch twining/record, so agents on other machines and clones see this clone's posts, decisions, handoffs and claims and this one sees theirs. Never touches the user's branches, index or HEAD. Returns what came in and what went out. Optional `remote`: the git remote (default: the last one used, else the branch's upstream, else origin). After the first sync the server syncs in the background.",
  inputSchema: {
    type: 'object',
    properties: {
      remote: {
        type: 'string',
        description: 'The git remote to sync with (default: the last one used, else the current branch’s upstream remote, else origin)',
      },
    },
    additionalProperties: false,
  },
  annotations: { title: 'Sync the record across machines', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
};

async function syncTool(engine: TwiningEngine, args: unknown): Promise<CallToolResult> {
  try {
    const input = (args ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(input).filter(k => k !== 'remote');
    if (typeof input !== 'object' || Array.isArray(input) || unknown.length || (input.remote !== undefined && typeof input.remote !== 'string'))
      throw new TwiningError(
        'INVALID_INPUT',
        `twining_sync takes only an optional "remote" (a string)${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
      );
    return text(await engine.sync({ remote: input.remote, reason: 'mcp' }));
  } catch (error) {
    return text({ error: true, message: (error as Error).message, code: isTwiningError(error) ? error.code : 'INTERNAL_ERROR' }, true);
  }
}

/**
 * The tool list: every operation and alias, its schema and what it does, with hints for the
 * client; with `tools` (config.yml), only those it offers (core/tool-surface.ts). `twining_sync`
 * is not in twining-mcp's default surface, so `tools.full_surface: false` leaves it out as well.
 */
export function toolList(tools?: Config['tools']): Tool[] {
  return [...operationTools(tools), ...(tools?.full_surface === false ? [] : [SYNC_TOOL])];
}

function operationTools(tools?: Config['tools']): Tool[] {
  return [...BY_TOOL]
    .filter(([, { op, alias }]) => !tools || toolOffered(alias ?? op, tools))
    .map(([name, { op, alias }]) => {
      const info = alias ? ALIAS_OPERATIONS[alias] : OPERATIONS[op];
      return {
        name,
        title: info.title,
        description: info.model,
        inputSchema: jsonSchemaOf(alias ?? op) as Tool['inputSchema'],
        annotations: {
          title: info.title,
          readOnlyHint: !writes(op),
          // Writes append or merge; none removes what another agent wrote.
          destructiveHint: false,
          idempotentHint: !writes(op),
          openWorldHint: false,
        },
      };
    });
}

/**
 * What twining-mcp's tool returns, at least: for a handoff it reports `result_count` and
 * `context_snapshot_size`, where the library returns the whole stored record (kept as well).
 */
function asToolResult(op: OperationName, result: unknown): unknown {
  if (op !== 'handoff') return result;
  const h = result as HandoffRecord;
  const s = h.context_snapshot;
  return {
    ...h,
    result_count: h.results.length,
    context_snapshot_size: { decisions: s.decision_ids.length, warnings: s.warning_ids.length, findings: s.finding_ids.length },
  };
}

function text(value: unknown, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], ...(isError ? { isError: true } : {}) };
}

/** Runs one tool call against the engine; never throws (errors become error results). */
export async function callTool(engine: TwiningEngine, name: string, args: unknown): Promise<CallToolResult> {
  if (name === SYNC_TOOL.name) {
    if ((await engine.config()).tools.full_surface === false)
      return text(
        {
          error: true,
          message: 'twining_sync is not offered: config.yml sets tools.full_surface: false (set it to true to use it); nothing was run',
          code: 'INVALID_INPUT',
        },
        true,
      );
    return syncTool(engine, args);
  }
  const tool = BY_TOOL.get(name);
  try {
    if (!tool) throw new TwiningError('INVALID_INPUT', `Unknown tool "${name}"; the tools are ${[...BY_TOOL.keys()].join(', ')}`);
    const { op, alias } = tool;
    // A tool config.yml does not offer (tools.full_surface, tools.mode) is refused as twining-mcp, which does not register it, would.
    const tools = (await engine.config()).tools;
    if (!toolOffered(alias ?? op, tools)) throw new TwiningError('INVALID_INPUT', `${notOfferedReason(alias ?? op, tools)}; nothing was run`);
    // A field twining-mcp would ignore is left out and named in the result; a misspelt one is refused (core/forgiving-input.ts).
    const { input: known, ignored } = forgivingInput(name, alias ? aliasInputs[alias] : inputs[op], args);
    // The engine validates the input before it touches a file (INVALID_INPUT naming each field); an alias's own fields first.
    // twining-mcp's defaults for a model's call (core/schemas/model-defaults.ts): why keeps to 4000 tokens.
    const input = (alias ? aliasInput(alias, known) : withModelDefaults(op, known)) as typeof known;
    await refuseReadWithoutFolder(op, engine.root, () => engine.exists(), 'the folder the server was started for (--dir, else its working folder)');
    const result = await engine.run(op, input);
    return text(withIgnoredFields(asToolResult(tool.op, result), ignored));
  } catch (error) {
    const code = isTwiningError(error) ? error.code : 'INTERNAL_ERROR';
    const message = error instanceof Error ? error.message : String(error);
    return text({ error: true, message, code }, true);
  }
}

export interface McpServerOptions {
  /** The folder the server was started for: any folder of a project, or of any worktree of its repository (core/git/record-location.ts). */
  dir: string;
  /** TWINING_PROJECT (twining-mcp's variable): the folder whose record is used as it is, instead of routing `dir`. */
  project?: string;
  /** The server's version, reported to clients. */
  version: string;
  now?: () => Date;
  warn?: (message: string) => void;
}

/** An MCP server on one project's engine, not yet connected to a transport. */
export async function createServer(options: McpServerOptions): Promise<{ server: Server; settled: () => Promise<void>; engine: TwiningEngine }> {
  // The graph's upkeep after a post is written a moment after the answer, several posts' at once (operations/graph-ops.ts
  // changeGraphSoon), and a write's locks are released just after its answer (storage/lock.ts LaterRelease).
  const engine = await openWorkspace(options.dir, {
    now: options.now,
    warn: options.warn,
    keepRecordsWarm: true,
    batchGraph: true,
    releaseAfterAnswer: true,
    project: options.project,
  });
  // A linked worktree's own copy of .twining/ that something else wrote is folded into the shared
  // record before the first call, so the agent sees those records; said once (the fold is idempotent).
  const fold = await engine
    .foldCheckedOutCopy()
    .catch((error: Error) => ({ message: `the worktree's own .twining/ could not be looked at: ${error.message}` }));
  if (fold?.message) options.warn?.(fold.message);
  // The agent is told which record it shares, and why (a linked worktree's agent works on the primary's).
  const instructions = engine.route
    ? `${INSTRUCTIONS}\n\nRecord in use: ${describeRoute(engine.route)}.${fold?.message ? ` ${fold.message}` : ''}`
    : INSTRUCTIONS;
  const server = new Server({ name: 'twining', title: 'Twining', version: options.version }, { capabilities: { tools: {} }, instructions });
  const inFlight = new Set<Promise<CallToolResult>>();
  // Listed by config.yml's tools settings as they are now: the file is re-read when it changes.
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList((await engine.config()).tools) }));
  server.setRequestHandler(CallToolRequestSchema, request => {
    const call = callTool(engine, request.params.name, request.params.arguments);
    inFlight.add(call);
    // callTool answers failures as error results; a rejection would still leave the set here.
    const done = () => inFlight.delete(call);
    call.then(done, done);
    return call;
  });
  return {
    server,
    settled: async () => {
      await Promise.all(inFlight);
      await engine.settled();
    },
    engine,
  };
}

/**
 * `twining mcp`: serves on standard input and output until the client closes its end; calls
 * still running then are finished (and their writes completed) before the server stops.
 */
export async function serveStdio(options: McpServerOptions): Promise<void> {
  const { server, settled, engine } = await createServer(options);
  // Agents' SessionStart hooks on this project ask this warm engine for their briefing (agents/session-start/session-start-server.ts).
  const sessionStarts = new SessionStartServer(
    engine.root,
    work => work(engine),
    m => options.warn?.(m),
  );
  // Once this clone syncs (`twining sync`), the record is exchanged in the background: every
  // interval (git config twining.sync.interval, seconds; default 30) and soon after a write.
  const seconds = Number(await configGet(engine.layout.dir, 'twining.sync.interval').catch(() => undefined));
  const background = new SyncScheduler(engine, {
    intervalMs: seconds > 0 ? seconds * 1000 : undefined,
    onError: error => options.warn?.(`background sync: ${error.message}`),
  }).start();
  // And kept current as other agents write, so such a start finds the change read already (folder-watch.ts).
  const current = keepCurrent(
    path.join(engine.root, '.twining'),
    paths => {
      background.poke();
      return engine.refresh(paths);
    },
    m => options.warn?.(m),
  );
  const closed = new Promise<void>(resolve => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => {
      settled()
        .then(() => server.close())
        .catch((error: unknown) => {
          process.stderr.write(`twining mcp: closing after the client left: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve();
        });
    });
  });
  await server.connect(new StdioServerTransport());
  await closed;
  // The graph's upkeep of the last posts is written before the process ends.
  await settled().catch(() => undefined);
  background.stop();
  current.close();
  sessionStarts.close();
}
