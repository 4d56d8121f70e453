/**
 * `twining setup --check`: host by host, which parts are wired; what on this machine the
 * committed launcher relies on (the per-user engine file, `node` on the PATH); and one hook run
 * as the host runs it (its command from the project's hook file, through a shell, in the
 * project's folder, with the host's PreToolUse JSON on standard input) to prove it answers.
 */
import { spawn } from 'child_process';
import { promises as fs } from 'fs';
import * as path from 'path';
import { HOST_LABELS, PARTS, SetupPlan, partWired } from './setup-plan';
import { readEngine } from './launcher';

export interface CheckLine {
  host: string;
  part: string;
  state: 'wired' | 'missing' | 'n/a';
  detail: string;
}

export interface HookRun {
  host: 'vscode' | 'claude-code';
  command: string;
  code: number | null;
  ms: number;
  stdout: string;
  stderr: string;
  ok: boolean;
}

export interface CheckReport {
  lines: CheckLine[];
  machine: CheckLine[];
  hook?: HookRun;
  problems: number;
}

/** Runs `command` through the shell as a host runs a hook: JSON on standard input, the project as the working folder. */
export function runHookCommand(
  root: string,
  command: string,
  input: unknown,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 15000,
): Promise<Omit<HookRun, 'host' | 'ok'>> {
  return new Promise(resolve => {
    const started = process.hrtime.bigint();
    const child = spawn(command, { shell: true, cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', e => (stderr += e.message));
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ command, code, ms: Number(process.hrtime.bigint() - started) / 1e6, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
  });
}

/** The PreToolUse command a host's hook file holds for Twining, if any. */
async function preToolUseCommand(root: string, host: 'vscode' | 'claude-code'): Promise<string | undefined> {
  const file = host === 'vscode' ? path.join(root, '.github', 'hooks', 'twining.json') : path.join(root, '.claude', 'settings.json');
  try {
    const v = JSON.parse(await fs.readFile(file, 'utf8')) as { hooks?: Record<string, unknown[]> };
    const list = (v.hooks?.PreToolUse ?? []) as Record<string, unknown>[];
    const commands = host === 'vscode' ? list.map(h => h.command) : list.flatMap(g => ((g.hooks as Record<string, unknown>[]) ?? []).map(h => h.command));
    return commands.find((c): c is string => typeof c === 'string' && /hook\.js"? PreToolUse\b/.test(c));
  } catch {
    return undefined;
  }
}

/** PreToolUse's input for an edit of `file`, as each host sends it (docs/hooks.md). */
export function preToolUseInput(root: string, host: 'vscode' | 'claude-code', file: string): Record<string, unknown> {
  const session = 'twining-setup-check';
  return host === 'vscode'
    ? {
        timestamp: new Date().toISOString(),
        cwd: root,
        sessionId: session,
        hookEventName: 'PreToolUse',
        transcript_path: path.join(root, '.twining', 'sessions', 'setup-check.json'),
        tool_name: 'replace_string_in_file',
        tool_input: { filePath: file, oldString: '', newString: '' },
      }
    : {
        session_id: session,
        transcript_path: path.join(root, '.twining', 'sessions', 'setup-check.jsonl'),
        cwd: root,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: file, old_string: '', new_string: '' },
        tool_use_id: 'twining-setup-check',
      };
}

export async function checkSetup(plan: SetupPlan, env: NodeJS.ProcessEnv = process.env): Promise<CheckReport> {
  const lines: CheckLine[] = [];
  for (const host of plan.hosts) {
    for (const part of PARTS) {
      const p = plan.parts.find(x => x.host === host && x.part === part);
      if (!p) continue;
      if (p.files.length === 0) lines.push({ host: HOST_LABELS[host], part, state: 'n/a', detail: p.note ?? '' });
      else {
        const wired = partWired(plan, p);
        const off = p.files.filter(rel => {
          const f = plan.files.find(x => x.relative === rel);
          return !f || f.before !== f.after || f.after === undefined;
        });
        lines.push({
          host: HOST_LABELS[host],
          part,
          state: wired ? 'wired' : 'missing',
          detail: wired
            ? p.files.join(', ') + (p.note ? ` (${p.note})` : '')
            : `${off.join(', ')} ${off.length === 1 ? 'lacks' : 'lack'} Twining's part or ${off.length === 1 ? 'differs' : 'differ'} from it`,
        });
      }
    }
  }
  const machine: CheckLine[] = [];
  const twiningDir = await fs.stat(path.join(plan.root, '.twining')).catch(() => undefined);
  machine.push(
    twiningDir?.isDirectory()
      ? { host: 'project', part: '.twining/', state: 'wired', detail: 'present' }
      : {
          host: 'project',
          part: '.twining/',
          state: 'missing',
          detail: twiningDir ? 'is not a folder' : 'does not exist: the hooks do nothing until `twining init`',
        },
  );
  const engine = await readEngine(env);
  machine.push(
    engine.problem
      ? {
          host: 'this machine',
          part: 'engine',
          state: 'missing',
          detail: `${engine.problem}; the launcher cannot find Twining (run twining setup, or start VS Code with the extension)`,
        }
      : { host: 'this machine', part: 'engine', state: 'wired', detail: `${engine.dist}, named in ${engine.file} (per user, not in the project)` },
  );
  let hook: HookRun | undefined;
  const hookHost = plan.hosts.includes('vscode') ? 'vscode' : plan.hosts.includes('claude-code') ? 'claude-code' : undefined;
  if (hookHost) {
    const command = await preToolUseCommand(plan.root, hookHost);
    if (command) {
      const run = await runHookCommand(
        plan.root,
        command,
        preToolUseInput(plan.root, hookHost, path.join(plan.root, 'README.md')),
        hookHost === 'claude-code' ? { ...env, CLAUDE_PROJECT_DIR: plan.root } : env,
      );
      let json = run.stdout.trim() === '';
      try {
        if (!json) json = typeof JSON.parse(run.stdout) === 'object';
      } catch {
        json = false;
      }
      hook = { host: hookHost, ...run, ok: run.code === 0 && json };
    }
  }
  const problems = [...lines, ...machine].filter(l => l.state === 'missing').length + (hook && !hook.ok ? 1 : 0);
  return { lines, machine, hook, problems };
}

export function renderCheck(report: CheckReport, root: string): string {
  const out: string[] = [];
  let host = '';
  for (const l of [...report.lines, ...report.machine]) {
    if (l.host !== host)
      out.push((host = l.host) === 'this machine' ? 'This machine (not in the project):' : l.host === 'project' ? `Project ${root}:` : `${l.host}:`);
    out.push(`  ${l.part.padEnd(13)} ${l.state.padEnd(8)} ${l.detail}`);
  }
  const h = report.hook;
  if (h) {
    out.push(
      `Hook run (${h.host === 'vscode' ? 'VS Code' : 'Claude Code'}, PreToolUse on README.md, as the host runs it): ${
        h.ok
          ? `answered in ${Math.round(h.ms)} ms (exit 0${h.stdout.trim() ? ', JSON on standard output' : ', nothing to add'})`
          : `FAILED (exit ${h.code}) after ${Math.round(h.ms)} ms: ${(h.stderr || h.stdout).trim().slice(0, 400)}`
      }`,
      `  ${h.command}`,
    );
  } else out.push('Hook run: no Twining PreToolUse hook to run.');
  out.push(report.problems ? `${report.problems} thing(s) missing or failing: run \`twining setup\` to wire them.` : 'Everything is wired.');
  return out.join('\n') + '\n';
}
