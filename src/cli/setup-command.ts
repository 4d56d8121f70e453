/**
 * `twining setup [--dir <folder>] [--host <hosts>] [--yes] [--remove] [--check] [--on-stop block|remind|off]`:
 * wires the agent hosts a project uses (agents/setup/setup-plan.ts) to Twining in one step: the
 * MCP server, the hooks, the instructions. It shows every change as a diff and asks first
 * (`--yes` skips the question; without a terminal to ask on, it writes nothing), merges into what
 * is there, changes nothing on a second run and says so; `--remove` takes Twining out again;
 * `--check` reports host by host what is wired and runs one hook (agents/setup/setup-check.ts),
 * exit 1 when something is missing.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import * as readline from 'readline';
import { applyHooks, lineDiff } from '../agents/setup/hooks-config';
import { openWorkspace } from '../core/engine/engine';
import { parseFlags, failure } from './command-flags';
import { AGENT_HOSTS, AgentHost, DEFAULT_HOSTS, HOST_LABELS, changes, detectHosts, planSetup } from '../agents/setup/setup-plan';
import { checkSetup, renderCheck } from '../agents/setup/setup-check';
import { engineFile, keepEngineCurrent } from '../agents/setup/launcher';

const USAGE = `twining setup [--dir <folder>] [--host ${AGENT_HOSTS.join(',')}|all] [--yes] [--remove] [--check] [--on-stop block|remind|off]`;

const HELP = `${USAGE}

  Finds the agent hosts the project uses (Claude Code: .claude/, CLAUDE.md, .mcp.json; VS Code's
  agents and Copilot: .vscode/, .github/hooks/, .github/copilot-instructions.md; Cursor: .cursor/;
  Codex: .codex/; none found: VS Code and Claude Code) and wires each to Twining: its MCP server,
  its hooks and its instructions. Every change is shown as a diff first; --yes writes without
  asking. The files name no path of this machine: commands run node on .agents/twining/ (commit
  it), which finds the installed Twining through a file of your own (${engineFile()}).
  Running it again changes nothing; --remove takes Twining out and keeps everything else.
  --check says host by host what is wired, runs one hook as the host would, and exits 1 when
  something is missing.
`;

function ask(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  return new Promise(resolve =>
    rl.question(question, answer => {
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    }),
  );
}

export async function setupCommand(argv: string[], distDir: string, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  let flags;
  try {
    flags = parseFlags('setup', argv, { dir: { value: true }, yes: { short: 'y' }, remove: {}, check: {}, host: { value: true }, 'on-stop': { value: true } });
  } catch (error) {
    return failure('setup', error, err);
  }
  if (flags.help) {
    out.write(HELP);
    return 0;
  }
  const { dir = '.', yes = false, remove = false, check = false } = flags;
  let hosts: AgentHost[] | undefined;
  const extra: string[] = [];
  if (flags.host !== undefined) {
    const names = flags.host.split(',').map(s => s.trim());
    const all = names.includes('all');
    const bad = names.filter(n => n !== 'all' && !(AGENT_HOSTS as readonly string[]).includes(n));
    if (bad.length || names.length === 0) {
      err.write(`twining: setup: unknown host(s) ${bad.join(', ') || '(none)'}; hosts are ${AGENT_HOSTS.join(', ')} or all\n`);
      return 1;
    }
    hosts = all ? [...AGENT_HOSTS] : (names as AgentHost[]);
  }
  if (flags['on-stop'] !== undefined) {
    const mode = flags['on-stop'];
    if (mode !== 'block' && mode !== 'remind' && mode !== 'off') {
      err.write(`twining: setup: --on-stop must be block, remind or off\n`);
      return 1;
    }
    if (mode !== 'block') extra.push('--on-stop', mode);
  }
  const root = path.resolve(dir);
  try {
    const st = await fs.stat(root).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`${root} is not a folder; nothing was written`);
    const detected = await detectHosts(root);
    const chosen = hosts ?? (detected.length ? detected : DEFAULT_HOSTS);
    const plan = await planSetup(root, { hosts: chosen, remove, extra });
    if (check) {
      const report = await checkSetup(plan);
      out.write(renderCheck(report, root));
      return report.problems ? 1 : 0;
    }
    const names = chosen.map(h => HOST_LABELS[h]).join(', ');
    if (!remove && !hosts)
      out.write(detected.length ? `Agent hosts found: ${names}.\n` : `No agent host's files found; setting up for ${names} (name others with --host).\n`);
    const changing = changes(plan);
    const needsInit = !remove && !(await fs.stat(path.join(root, '.twining')).catch(() => undefined));
    const engineDue = !remove && (await fs.readFile(engineFile(), 'utf8').catch(() => ''))?.trim() !== distDir;
    if (changing.length === 0 && !needsInit && !engineDue) {
      out.write(remove ? 'Twining is not set up here; nothing to remove.\n' : `Twining is already set up for ${names}; nothing changed.\n`);
      return 0;
    }
    for (const f of changing) {
      const what = f.after === undefined ? 'delete' : f.before === undefined ? 'create' : 'change';
      out.write(`${what} ${f.relative}:\n${lineDiff(f.before, f.after)}\n\n`);
    }
    if (needsInit) out.write('create .twining/ (as `twining init` does)\n');
    if (engineDue) out.write(`record this installation (${distDir}) in ${engineFile()} (yours alone, not in the project)\n`);
    if (!yes) {
      if (!process.stdin.isTTY) {
        out.write('Nothing was written: run again with --yes to make these changes.\n');
        return 0;
      }
      if (!(await ask('Make these changes? [y/N] '))) {
        out.write('Nothing was written.\n');
        return 0;
      }
    }
    if (needsInit) {
      // The core's init: the same folder layout `twining init` and the extension's *Initialize* create.
      await (await openWorkspace(root, { warn: m => err.write(`twining: warning: ${m}\n`) })).init();
    }
    if (engineDue) await keepEngineCurrent(distDir);
    await applyHooks(plan.files, root);
    out.write(
      remove
        ? `Removed Twining from ${changing.map(f => f.relative).join(', ') || 'nothing'}.\n`
        : `Set up ${names}${changing.length ? `: wrote ${changing.map(f => f.relative).join(', ')}` : ''}. Commit these files (and .agents/twining/) so that your team's agents are wired too; \`twining setup --check\` proves it.\n`,
    );
    return 0;
  } catch (error) {
    err.write(`twining: setup: ${(error as Error).message}\n`);
    return 3;
  }
}
