/**
 * `twining hook <event> [--agent ID] [--dir DIR] [--scope S] [--max-tokens N] [--on-stop block|remind|off]
 * [--on-claim ask|deny] [--host claude-code|vscode] [--timeout-ms N]`: the entry point an agent's
 * host runs for each hook event (dist/hook.js, which dist/cli.js hands `hook` to before loading
 * anything else). It reads the event's JSON on standard input and prints the answer's JSON on
 * standard output, exit status 0. A hook must never stand in the agent's way: when anything fails
 * or takes longer than `--timeout-ms` (default 8000, under the hosts' default timeouts: Claude
 * Code 60 s, VS Code 30 s), it says why on standard error and exits 1, which both hosts document as
 * a non-blocking error ("the action goes ahead"). A project without `.twining/` is left alone.
 *
 * VS Code also reads `.claude/settings.json` (docs/agent-customization/hooks.md, "Hook file
 * locations": "Workspace (Claude format) .claude/settings.json"), so a project set up for both
 * hosts would run Twining's hooks twice in VS Code: the command written for Claude Code says
 * `--host claude-code`, and stays silent when the input is VS Code's.
 */
import { promises as fs, writeSync } from 'fs';
import * as path from 'path';
import { HOOK_EVENTS, HookInput, readHookInput } from './hook-protocol';
import { HookOptions, StopMode, postToolUse, preToolUse, stop } from './hook-events';
import { fileSafe } from '../../core/storage/session-files';
import { notification, userPromptSubmit } from './hook-liveness';
import { REGISTER_FLAG, registerNow } from './background-register';
import { SYNC_FLAG, syncNow } from './background-sync';
import { readHookStdin } from './hook-stdin';
import { resolveRecord } from '../../core/git/record-location';

const USAGE =
  'twining hook <SessionStart|UserPromptSubmit|PreToolUse|PostToolUse|Stop|SubagentStop|Notification> [--agent <id>] [--dir <folder>] [--scope <scope>] [--max-tokens <n>] [--on-stop block|remind|off] [--on-claim ask|deny] [--host claude-code|vscode] [--timeout-ms <n>]';

interface Args {
  event: string;
  agent?: string;
  dir?: string;
  scope: string;
  maxTokens?: number;
  stopMode: StopMode;
  onClaim: 'ask' | 'deny';
  host?: string;
  timeoutMs: number;
}

function parseArgs(argv: string[]): Args {
  const [event, ...rest] = argv;
  if (!event || event.startsWith('-')) throw new Error(`name an event; usage: ${USAGE}`);
  const args: Args = { event, scope: 'project', stopMode: 'block', onClaim: 'ask', timeoutMs: 8000 };
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = rest[i].split(/=(.*)/s, 2);
    const value = () => {
      const v = inline ?? rest[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--agent') args.agent = value();
    else if (flag === '--dir') args.dir = value();
    else if (flag === '--scope') args.scope = value();
    else if (flag === '--max-tokens') args.maxTokens = Number(value());
    else if (flag === '--on-stop') {
      const v = value();
      if (v !== 'block' && v !== 'remind' && v !== 'off') throw new Error(`--on-stop must be block, remind or off, not "${v}"`);
      args.stopMode = v;
    } else if (flag === '--on-claim') {
      const v = value();
      if (v !== 'ask' && v !== 'deny') throw new Error(`--on-claim must be ask or deny, not "${v}"`);
      args.onClaim = v;
    } else if (flag === '--host') args.host = value();
    else if (flag === '--timeout-ms') args.timeoutMs = Number(value());
    else throw new Error(`unknown option ${rest[i]}; usage: ${USAGE}`);
  }
  return args;
}

/** The session's agent id: --agent, else TWINING_AGENT_ID, else the tool and the start of the session id. */
export function agentIdOf(explicit: string | undefined, input: HookInput): string {
  const chosen = explicit ?? process.env.TWINING_AGENT_ID;
  if (chosen && chosen.trim()) return chosen.trim();
  return `${input.host === 'vscode' ? 'copilot' : 'claude-code'}-${fileSafe(input.sessionId).slice(0, 8)}`;
}

/** Real time, or TWINING_NOW plus the time since the start (as the extension's clock pins it, for tests and demos). */
function clock(pinned: string | undefined): () => Date {
  const base = pinned ? Date.parse(pinned) : NaN;
  if (Number.isNaN(base)) return () => new Date();
  const start = Date.now();
  return () => new Date(base + (Date.now() - start));
}

/**
 * The answer, written to descriptor 1 directly: `process.stdout` on a pipe (how both hosts read a
 * hook) loads Node's `net` and stream modules, several milliseconds of a hook process that has
 * nothing else to do with them. A pipe the host made non-blocking that is full (EAGAIN) takes the
 * rest through `process.stdout`, which waits for it.
 */
function writeStdout(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done, bytes.length - done);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    process.stdout.write(bytes.subarray(done));
  }
}

/** SessionStart's code, dist/hook-start.js beside this bundle (hook-start.ts says why it is a bundle of its own). */
const loadStart = () => require(path.join(__dirname, 'hook-start.js')) as typeof import('./hook-start');

export async function runHook(argv: string[]): Promise<number> {
  if (argv[0] === REGISTER_FLAG) return registerNow(argv.slice(1));
  if (argv[0] === SYNC_FLAG) return syncNow(argv.slice(1));
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    process.stderr.write(`twining hook: ${(error as Error).message}\n`);
    return 1;
  }
  const timer = setTimeout(() => {
    process.stderr.write(`twining hook ${args.event}: no answer within ${args.timeoutMs} ms; the agent goes ahead without it\n`);
    process.exit(1);
  }, args.timeoutMs);
  timer.unref();
  try {
    const text = await readHookStdin();
    let raw: unknown = {};
    if (text.trim()) {
      try {
        raw = JSON.parse(text);
      } catch (error) {
        throw new Error(`standard input is not JSON (${(error as Error).message})`);
      }
    }
    const input = readHookInput(raw, args.event);
    if (args.host && args.host !== input.host) return 0; // The other host's copy of this hook answers (see above).
    // The record to use: any worktree of a repository gives its one shared record, found by
    // reading the .git file and git's commondir, never by running git (core/git/record-location.ts).
    const route = resolveRecord(args.dir ?? input.cwd ?? process.cwd(), { project: args.dir ? undefined : process.env.TWINING_PROJECT });
    // A `.twining` that is there but no folder (a file, a device) is an error that says so: exit 1 with
    // the reason on standard error, which both hosts log without blocking the agent.
    const found = await fs.stat(route.dir).catch(() => undefined);
    if (found && !found.isDirectory())
      throw new Error(
        `${route.dir} is ${found.isFile() ? 'a file' : 'not a folder'}, so Twining has no record here; move it aside and run \`twining init\` (nothing was read or written)`,
      );
    if (!found) return 0;
    const options: HookOptions = {
      root: route.projectRoot,
      worktree: route.worktree ?? route.projectRoot,
      ...(route.linked && { linkedWorktree: route.worktree }),
      ...(route.branch && { branch: route.branch }),
      agentId: agentIdOf(args.agent, input),
      stopMode: args.stopMode,
      onClaim: args.onClaim,
      scope: args.scope,
      maxTokens: args.maxTokens,
      now: clock(process.env.TWINING_NOW),
      loadCore: () => require(path.join(__dirname, 'core.js')) as typeof import('../../library'),
    };
    const event = HOOK_EVENTS.includes(input.event as never) ? input.event : args.event;
    const answer =
      event === 'SessionStart'
        ? await loadStart().sessionStart(input, options)
        : event === 'PreToolUse'
          ? await preToolUse(input, options)
          : event === 'PostToolUse'
            ? await postToolUse(input, options)
            : event === 'Stop' || event === 'SubagentStop'
              ? await stop({ ...input, event }, options)
              : event === 'UserPromptSubmit'
                ? await userPromptSubmit(input, options)
                : event === 'Notification'
                  ? await notification(input, options)
                  : undefined;
    if (answer) writeStdout(JSON.stringify(answer) + '\n');
    return 0;
  } catch (error) {
    process.stderr.write(`twining hook ${args.event}: ${(error as Error).message}; the agent goes ahead without it\n`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

if (require.main === module) {
  runHook(process.argv.slice(2)).then(
    code => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // runHook answers every failure itself; this is a bug, and still must not block the agent.
      process.stderr.write(`twining hook: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
