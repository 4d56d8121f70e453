/**
 * Hook and MCP commands that work for the whole team. What `twining setup` writes into files a
 * project commits (`.claude/settings.json`, `.github/hooks/twining.json`, `.mcp.json`,
 * `.cursor/mcp.json`, `.codex/config.toml`) names no path of one machine and no version: it runs
 * `node` on a small launcher committed with the project, `.agents/twining/hook.js` or `cli.js`,
 * the same bytes on every machine. The launcher finds the Twining installed for the person who
 * runs it through one per-user file, `<config>/twining/engine` (`$XDG_CONFIG_HOME/twining`, else
 * `~/.config/twining`; `%APPDATA%\twining` on Windows), which holds the absolute path of an
 * installed `dist/` folder. The extension keeps that file current each time it starts (so an
 * update of the extension moves it along), and `twining setup` writes it for the CLI it runs
 * from. That file is the only machine-specific part and it lives where the person's own settings
 * live, never in the project; `twining setup --check` says what it points at.
 *
 * The launcher loads the installed bundle in its own process (`require`), so a hook costs one Node
 * start as before plus one small file read (bench/hook-launcher.bench.js). `.agents/twining/`
 * holds a `package.json` saying `"type": "commonjs"`, so the launcher stays CommonJS in a project
 * whose own package.json says `"type": "module"`.
 */
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Where the launcher lives in a project (forward slashes: it is written into commands). */
export const LAUNCHER_DIR = '.agents/twining';
export const HOOK_LAUNCHER = `${LAUNCHER_DIR}/hook.js`;
export const CLI_LAUNCHER = `${LAUNCHER_DIR}/cli.js`;
/** The per-user file's name inside the per-user folder. */
export const ENGINE_FILE = 'engine';

/** The per-user folder: `%APPDATA%\twining` on Windows, else `$XDG_CONFIG_HOME/twining`, else `~/.config/twining`. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env, platform: string = process.platform, home: string = os.homedir()): string {
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'twining');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'twining');
}

export function engineFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userConfigDir(env), ENGINE_FILE);
}

/**
 * The launcher's text. It repeats userConfigDir's rule in plain JavaScript (the launcher cannot
 * load anything of Twining's before it has found it); a unit test holds the two to the same answer.
 */
function launcherScript(entry: 'hook' | 'cli'): string {
  const run =
    entry === 'hook'
      ? [
          '// A hook that cannot run must never stop the agent: exit 1 is "a non-blocking error, the action goes ahead"',
          '// for Claude Code (code.claude.com/docs/en/hooks, "Exit code output") and VS Code (docs/hooks.md).',
          'mod.runHook(process.argv.slice(2)).then(code => { process.exitCode = code; }, e => { process.stderr.write(`twining hook: ${e && e.message}\\n`); process.exitCode = 1; });',
        ]
      : [
          'mod.main(process.argv.slice(2)).then(code => { process.exitCode = code; }, e => { process.stderr.write(`twining: ${e && e.stack}\\n`); process.exitCode = 1; });',
        ];
  return [
    `// Twining's ${entry === 'hook' ? 'agent hook' : 'command line'} launcher, written by \`twining setup\`. Commit it: it is the same on every`,
    '// machine. It runs the Twining installed for whoever runs it, found through the per-user file',
    '// <config>/twining/engine (the extension keeps it current; `twining setup` writes it for the CLI).',
    "'use strict';",
    "const { readFileSync } = require('fs');",
    "const { join } = require('path');",
    'const env = process.env;',
    "const home = () => require('os').homedir();",
    "const config = process.platform === 'win32'",
    "  ? join(env.APPDATA || join(home(), 'AppData', 'Roaming'), 'twining')",
    "  : join(env.XDG_CONFIG_HOME || join(home(), '.config'), 'twining');",
    `const pointer = join(config, '${ENGINE_FILE}');`,
    'let mod;',
    'try {',
    `  mod = require(join(readFileSync(pointer, 'utf8').trim(), '${entry}.js'));`,
    '} catch (e) {',
    "  const why = e && e.code === 'ENOENT' && e.path === pointer ? `${pointer} does not exist` : `${pointer} names no working installation (${e && e.message})`;",
    `  process.stderr.write(\`twining: ${entry === 'hook' ? 'hook skipped: ' : ''}no Twining installation found for this user: \${why}. Install the Twining extension (it records itself there when it starts) or run \\\`twining setup\\\`.${
      entry === 'hook' ? ' The agent goes ahead without Twining.' : ''
    }\\n\`);`,
    '  process.exit(1);',
    '}',
    ...run,
    '',
  ].join('\n');
}

/** The launcher's files, relative to the project (forward slashes). */
export function launcherFiles(): { relative: string; text: string }[] {
  return [
    { relative: `${LAUNCHER_DIR}/package.json`, text: JSON.stringify({ private: true, type: 'commonjs' }, null, 2) + '\n' },
    { relative: HOOK_LAUNCHER, text: launcherScript('hook') },
    { relative: CLI_LAUNCHER, text: launcherScript('cli') },
  ];
}

/** The installation the per-user file names, or why there is none. */
export async function readEngine(env: NodeJS.ProcessEnv = process.env): Promise<{ file: string; dist?: string; problem?: string }> {
  const file = engineFile(env);
  const text = await fs.readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
  if (text === undefined) return { file, problem: `${file} does not exist` };
  const dist = text.trim();
  if (!path.isAbsolute(dist)) return { file, dist, problem: `${file} does not hold an absolute folder path` };
  const missing = [];
  for (const f of ['hook.js', 'cli.js']) if (!(await fs.stat(path.join(dist, f)).catch(() => undefined))?.isFile()) missing.push(f);
  if (missing.length) return { file, dist, problem: `${dist} (named in ${file}) has no ${missing.join(' or ')}` };
  return { file, dist };
}

/**
 * Records `dist` (an installed bundle folder) in the per-user file when it names something else;
 * returns whether it wrote. Written whole through a temporary file, so a launcher never reads half.
 */
export async function keepEngineCurrent(dist: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const file = engineFile(env);
  const now = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (now?.trim() === dist) return false;
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, dist + '\n');
  await fs.rename(tmp, file);
  return true;
}
