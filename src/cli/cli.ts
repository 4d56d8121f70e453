/**
 * `twining`: the coordination engine on the command line. One subcommand per operation, with the
 * operation's own name; its flags are derived from the operation's input schema, so the CLI, the
 * library, the VS Code commands and the language model tools accept the same fields.
 *
 * Exit status: 0 success, 1 invalid input or usage, 2 something named does not exist,
 * 3 the folder could not be read or written (corrupt file, lock held too long, I/O error),
 * 4 a claim refused because another agent holds it.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { z } from 'zod';
import { OPERATION_NAMES, OperationName, inputs } from '../core/schemas/schemas';
import { openWorkspace, Workspace } from '../core/engine/engine';
import { refuseReadWithoutFolder } from '../core/engine/missing-folder';
import { TwiningError, isTwiningError } from '../core/errors';
import { TIMESTAMP_RULE, canonicalTimestamp } from '../core/timestamps';
import { version } from '../../package.json';
import { renderText } from './cli-text';
import { GIT_COMMANDS, isGitCommand, runGitCommand } from './git-commands';
import { CLIENTS, MCP_CLIENTS, clientSnippet, currentRuntime, isMcpClient, mcpLaunch } from '../agents/setup/client-config';
import { hooksSetup } from './hooks-setup-command';
import { setupCommand } from './setup-command';
import { migrateCommand } from './migrate-command';
import { syncCommand } from './cli-sync';

type FieldKind = 'string' | 'number' | 'boolean' | 'list' | 'json';
interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  choices?: string[];
}

/** A positional argument, where an operation has one obvious subject. */
const POSITIONAL: Partial<Record<OperationName, string>> = {
  register: 'agent_id',
  acknowledge: 'handoff_id',
  verify: 'handoff_id',
  discover: 'required_capabilities',
  why: 'scope',
  dismiss: 'ids',
  reconsider: 'decision_id',
  override: 'decision_id',
  promote: 'decision_ids',
  search: 'query',
  claim: 'paths',
  release: 'paths',
  trace: 'decision_id',
  resolve: 'ids',
  archive_stale: 'ids',
  unarchive: 'ids',
  amend: 'decision_id',
  what_changed: 'since',
  commits: 'commit_hash',
  neighbors: 'entity',
  graph_query: 'query',
};

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } };
  while (s._zod.def.type === 'optional' || s._zod.def.type === 'default') s = s._zod.def.innerType as unknown as typeof s;
  return s as unknown as z.ZodType;
}

/** The flags of an operation, read off its zod schema. */
function fieldsOf(op: OperationName): Field[] {
  const shape = (inputs[op] as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, wrapped]) => {
    const inner = unwrap(wrapped);
    const def = (inner as unknown as { _zod: { def: { type: string; element?: z.ZodType; entries?: Record<string, string> } } })._zod.def;
    const description = wrapped.description ?? inner.description;
    const required = !wrapped.safeParse(undefined).success;
    const field = (kind: FieldKind, choices?: string[]): Field => ({ name, kind, required, description, ...(choices ? { choices } : {}) });
    if (def.type === 'string') return field('string');
    if (def.type === 'number') return field('number');
    if (def.type === 'boolean') return field('boolean');
    if (def.type === 'enum') return field('string', Object.values(def.entries ?? {}));
    if (def.type === 'array') {
      const element = unwrap(def.element as z.ZodType) as unknown as { _zod: { def: { type: string } } };
      if (element._zod.def.type === 'string' || element._zod.def.type === 'enum') return field('list');
    }
    if (def.type === 'union' && name === 'status') return field('list');
    return field('json');
  });
}

class UsageError extends Error {}

interface Parsed {
  op: OperationName | 'init' | 'help';
  dir: string;
  /** Whether --dir was given (then TWINING_PROJECT does not apply). */
  dirGiven?: boolean;
  json: boolean;
  now?: string;
  input: Record<string, unknown>;
}

function parseArgs(argv: string[]): Parsed {
  const [opName, ...rest] = argv;
  if (!opName || opName === 'help' || opName === '--help' || opName === '-h') return { op: 'help', dir: '.', json: false, input: { op: rest[0] } };
  if (opName !== 'init' && !(OPERATION_NAMES as string[]).includes(opName)) {
    throw new UsageError(`unknown command "${opName}"; the commands are: init, ${OPERATION_NAMES.join(', ')}`);
  }
  const op = opName as OperationName | 'init';
  const fields = op === 'init' ? [] : fieldsOf(op);
  const byFlag = new Map<string, Field>();
  for (const f of fields) {
    byFlag.set(f.name, f);
    byFlag.set(f.name.replace(/_/g, '-'), f);
  }
  const parsed: Parsed = { op, dir: '.', json: false, input: {} };
  let explicit: Record<string, unknown> | undefined;
  const positionals: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--help' || arg === '-h') return { op: 'help', dir: '.', json: false, input: { op } };
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = arg.slice(2, eq > 0 ? eq : undefined);
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      if (i + 1 >= rest.length) throw new UsageError(`--${flag} needs a value`);
      return rest[++i];
    };
    if (flag === 'dir') {
      parsed.dir = value();
      parsed.dirGiven = true;
    } else if (flag === 'json') parsed.json = true;
    else if (flag === 'now') parsed.now = value();
    else if (flag === 'input') {
      const text = value();
      const source = text === '-' ? fs.readFileSync(0, 'utf8') : text;
      try {
        explicit = JSON.parse(source) as Record<string, unknown> | undefined;
      } catch (error) {
        throw new UsageError(`--input is not valid JSON: ${(error as Error).message}`);
      }
      if (!explicit || typeof explicit !== 'object' || Array.isArray(explicit)) throw new UsageError('--input must be a JSON object');
    } else {
      const negated = flag.startsWith('no-') && byFlag.get(flag.slice(3))?.kind === 'boolean';
      const field = byFlag.get(negated ? flag.slice(3) : flag);
      if (!field) throw new UsageError(`${op}: unknown option --${flag}; see \`twining ${op} --help\``);
      // A switch: `--acknowledged`, `--no-acknowledged`, `--acknowledged=false` or `--acknowledged false`.
      const switchValue = () => (rest[i + 1] === 'true' || rest[i + 1] === 'false' ? rest[++i] : 'true');
      parsed.input[field.name] = convert(
        field,
        negated ? 'false' : field.kind === 'boolean' && inline === undefined ? switchValue() : value(),
        parsed.input[field.name],
      );
    }
  }
  const positional = op === 'init' ? undefined : POSITIONAL[op];
  if (positionals.length > 0) {
    if (!positional) throw new UsageError(`${op}: unexpected argument "${positionals[0]}"`);
    const field = fields.find(f => f.name === positional)!;
    // Words of a text argument (a search query) need no quotes: they are joined by spaces.
    if (field.kind === 'string') parsed.input[positional] = positionals.join(' ');
    else for (const p of positionals) parsed.input[positional] = convert(field, p, parsed.input[positional]);
  }
  if (explicit) parsed.input = { ...explicit, ...parsed.input };
  return parsed;
}

function convert(field: Field, raw: string, previous: unknown): unknown {
  switch (field.kind) {
    case 'string':
      return raw;
    case 'boolean':
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw new UsageError(`--${field.name} must be true or false`);
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${field.name} must be a number, not "${raw}"`);
      return n;
    }
    case 'list': {
      // Repeat the flag or separate values with commas: --tags a,b --tags c ⇒ ["a","b","c"].
      const items = raw
        .split(',')
        .map(s => s.trim())
        .filter(s => s !== '');
      return [...(Array.isArray(previous) ? (previous as unknown[]) : []), ...items];
    }
    case 'json': {
      // Results may also be given one at a time as "status: description".
      if (field.name === 'results' && !raw.trim().startsWith('[') && !raw.trim().startsWith('{')) {
        const m = /^\s*(completed|partial|blocked|failed)\s*:\s*(.+)$/s.exec(raw);
        if (!m) throw new UsageError('--results takes JSON, or one result as "completed|partial|blocked|failed: description"');
        return [...(Array.isArray(previous) ? (previous as unknown[]) : []), { description: m[2].trim(), status: m[1] }];
      }
      try {
        const value = JSON.parse(raw) as unknown;
        return Array.isArray(previous) && !Array.isArray(value) ? [...(previous as unknown[]), value] : value;
      } catch (error) {
        throw new UsageError(`--${field.name} is not valid JSON: ${(error as Error).message}`);
      }
    }
  }
}

function help(op?: string): string {
  if (op && (OPERATION_NAMES as string[]).includes(op)) {
    const name = op as OperationName;
    const lines = [`twining ${name}${POSITIONAL[name] ? ` [${POSITIONAL[name]}]` : ''} [options]`, '', `  ${inputs[name].description ?? ''}`, ''];
    for (const f of fieldsOf(name)) {
      const kind = f.choices
        ? f.choices.join('|')
        : f.kind === 'list'
          ? 'a,b,…'
          : f.kind === 'boolean'
            ? ''
            : f.name === 'results'
              ? 'JSON | "status: description"'
              : f.kind === 'json'
                ? 'JSON'
                : f.kind;
      const flag = `${f.kind === 'boolean' ? '[no-]' : ''}${f.name.replace(/_/g, '-')}`;
      const head = `  --${flag}${kind ? ` <${kind}>` : ''}`;
      const text = (f.required ? '(required) ' : '') + (f.description ?? '');
      lines.push(head.length < 44 ? head.padEnd(44) + text : `${head}\n${' '.repeat(44)}${text}`);
    }
    lines.push('', '  --input <JSON|->'.padEnd(44) + 'All fields as one JSON object (- reads standard input)', COMMON);
    return lines.join('\n');
  }
  return [
    'twining: coordinate agents through the .twining/ folder (shared with twining-mcp).',
    '',
    'Usage: twining <command> [options]',
    '',
    'Commands:',
    '  init'.padEnd(16) + 'Create .twining/ (never overwrites)',
    '  mcp'.padEnd(16) + 'Serve every operation as an MCP tool over standard input and output',
    '  mcp-config'.padEnd(16) + `Print the MCP client configuration that starts \`twining mcp\` (${MCP_CLIENTS.join(', ')})`,
    '  hook'.padEnd(16) + 'Answer an agent hook event (SessionStart, PreToolUse, PostToolUse, Stop) from JSON on standard input',
    '  setup'.padEnd(16) + 'Wire the agent hosts this project uses (Claude Code, VS Code, Cursor, Codex): MCP server, hooks, instructions (--check, --remove)',
    '  hooks-setup'.padEnd(16) + "Install Twining's agent hooks for VS Code (.github/hooks/twining.json) and Claude Code (.claude/settings.json)",
    '  migrate'.padEnd(16) + "Convert .twining/ between twining-mcp's layouts: files → sqlite, or back with --reverse (--dry-run: say what, write nothing)",
    '  sync'.padEnd(16) + "Exchange the record with the repository's remote on its own branch twining/record (--remote NAME, --status)",
    ...OPERATION_NAMES.map(n => `  ${n}`.padEnd(16) + (inputs[n].description ?? '')),
    ...Object.entries(GIT_COMMANDS).map(([n, d]) => `  ${n}`.padEnd(16) + d),
    '',
    'Run `twining <command> --help` for its options.',
    COMMON,
    '',
    'Exit status: 0 success, 1 invalid input or usage, 2 not found, 3 folder unreadable or locked, 4 claim refused (another agent holds it).',
  ].join('\n');
}

const COMMON = [
  '  --dir <folder>'.padEnd(44) + 'Project folder holding .twining/ (default: current folder)',
  '  --json'.padEnd(44) + 'Print the result as JSON',
  '  --now <ISO time>'.padEnd(44) + 'Use this time instead of the clock',
].join('\n');

// ---------------------------------------------------------------------------------------------

export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  if (argv[0] === 'mcp') return mcp(argv.slice(1), out, err);
  if (argv[0] === 'mcp-config') return mcpConfig(argv.slice(1), out, err);
  if (argv[0] === 'migrate') return migrateCommand(argv.slice(1), out, err);
  if (argv[0] === 'setup') return setupCommand(argv.slice(1), __dirname, out, err);
  if (argv[0] === 'sync') return syncCommand(argv.slice(1), out, err, openWorkspace);
  if (argv[0] === 'hooks-setup') return hooksSetup(argv.slice(1), __dirname, out, err);
  if (argv[0] === 'hook') return (require(path.join(__dirname, 'hook.js')) as typeof import('../agents/hooks/hook-main')).runHook(argv.slice(1));
  if (isGitCommand(argv[0])) return runGitCommand(argv[0], argv.slice(1), out, err);
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    err.write(`twining: ${(error as Error).message}\n`);
    return 1;
  }
  if (parsed.op === 'help') {
    // `twining` alone is a usage error (exit 1, usage on stderr); asking for help is not.
    if (argv.length === 0) {
      err.write(help() + '\n');
      return 1;
    }
    out.write(help(parsed.input.op as string | undefined) + '\n');
    return 0;
  }
  let clock: (() => Date) | undefined;
  if (parsed.now !== undefined) {
    const canonical = canonicalTimestamp(parsed.now);
    if (canonical === undefined) {
      err.write(`twining: --now ${TIMESTAMP_RULE}, not "${parsed.now}"\n`);
      return 1;
    }
    const fixed = new Date(canonical);
    clock = () => fixed;
  }
  try {
    // The record of the folder (any worktree of a repository gives its one shared record,
    // core/git/record-location.ts); TWINING_PROJECT, twining-mcp's variable, names one unless --dir does.
    const workspace: Workspace = await openWorkspace(path.resolve(parsed.dir), {
      now: clock,
      warn: m => err.write(`twining: warning: ${m}\n`),
      project: parsed.dirGiven ? undefined : process.env.TWINING_PROJECT,
    });
    if (parsed.op !== 'init') {
      const how = parsed.dirGiven ? 'the folder --dir names' : 'the current folder; --dir names another';
      await refuseReadWithoutFolder(parsed.op, workspace.root, () => workspace.exists(), workspace.route?.linked ? `${workspace.route.reason}` : how);
    }
    const result = parsed.op === 'init' ? await workspace.init() : await workspace.run(parsed.op, parsed.input);
    out.write((parsed.json ? JSON.stringify(result, null, 2) : renderText(parsed.op, result, workspace.now())) + '\n');
    // A claim another agent holds is an answer, not an error, but scripts and hooks need to tell: exit 4.
    if (parsed.op === 'claim' && (result as { granted?: boolean }).granted === false) return 4;
    return 0;
  } catch (error) {
    err.write(`twining: ${(error as Error).message}\n`);
    if (isTwiningError(error, 'INVALID_INPUT')) return 1;
    if (isTwiningError(error, 'NOT_FOUND')) return 2;
    if (!(error instanceof TwiningError)) err.write(`${(error as Error).stack ?? ''}\n`);
    return 3;
  }
}

/** `twining mcp [--dir DIR]`: the MCP server on standard input and output, until the client closes it. */
async function mcp(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  let dir = '.';
  let dirGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--help' || flag === '-h') {
      out.write(
        `twining mcp [--dir <folder>]\n\n  Serve every operation as an MCP tool (twining_register, twining_handoff, …) on standard input and output.\n${COMMON.split('\n')[0]}\n`,
      );
      return 0;
    }
    if (flag !== '--dir') {
      err.write(`twining: mcp: unknown option ${argv[i]}; see \`twining mcp --help\`\n`);
      return 1;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) {
      err.write('twining: --dir needs a value\n');
      return 1;
    }
    dir = value;
    dirGiven = true;
  }
  try {
    // A bundle of its own (dist/mcp.js), loaded only here: the MCP SDK would triple the size of
    // dist/cli.js and the start-up time of every other command.
    const { serveStdio } = require(path.join(__dirname, 'mcp.js')) as typeof import('../mcp/server');
    const project = dirGiven ? undefined : process.env.TWINING_PROJECT;
    await serveStdio({ dir: path.resolve(dir), project, version, warn: m => err.write(`twining: warning: ${m}\n`) });
    return 0;
  } catch (error) {
    err.write(`twining: ${(error as Error).message}\n`);
    return isTwiningError(error, 'NOT_FOUND') ? 2 : 3;
  }
}

/** `twining mcp-config <client> [--dir DIR]`: the snippet for a client, with this CLI's and runtime's absolute paths. */
function mcpConfig(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): number {
  const usage = `twining mcp-config <${MCP_CLIENTS.join('|')}> [--dir <folder>]`;
  let dir = '.';
  let client: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--help' || flag === '-h') {
      out.write(`${usage}\n\n${MCP_CLIENTS.map(c => `  ${c.padEnd(12)}${CLIENTS[c].file}: ${CLIENTS[c].hint}`).join('\n')}\n`);
      return 0;
    }
    if (flag === '--dir') {
      const value = inline ?? argv[++i];
      if (value === undefined) {
        err.write('twining: --dir needs a value\n');
        return 1;
      }
      dir = value;
    } else if (client === undefined && !flag.startsWith('-')) client = flag;
    else {
      err.write(`twining: mcp-config: unexpected ${argv[i]}; usage: ${usage}\n`);
      return 1;
    }
  }
  if (client === undefined || !isMcpClient(client)) {
    err.write(`twining: mcp-config: ${client === undefined ? 'name a client' : `unknown client "${client}"`}; usage: ${usage}\n`);
    return 1;
  }
  out.write(clientSnippet(client, mcpLaunch(currentRuntime(), path.join(__dirname, 'cli.js'), path.resolve(dir))));
  return 0;
}

/** Runs the command line of this process (dist/cli.js hands most commands here, to dist/cli-main.js: cli-launcher.ts). */
export function runCli(): void {
  main(process.argv.slice(2)).then(
    code => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // main() answers every failure it knows with a message and an exit code; this is a bug.
      process.stderr.write(`twining: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) runCli();
