/**
 * The flags of the CLI's own subcommands (sync, migrate, setup, git-setup), whose flags do not come
 * from an operation schema. Node's `util.parseArgs` does the parsing (`--flag value`,
 * `--flag=value`, short aliases); this file checks the names first, so that a mistyped flag or a
 * missing value gets the same message on every subcommand, with the help to read.
 */
import { parseArgs, ParseArgsConfig } from 'util';
import { TwiningError, isTwiningError } from '../core/errors';

export interface FlagSpec {
  /** Takes a value (`--dir <folder>`) or is a switch (`--json`). */
  value?: boolean;
  /** A one-letter alias (`-y`). */
  short?: string;
}

export type FlagValues<S extends Record<string, FlagSpec>> = {
  [K in keyof S]?: S[K]['value'] extends true ? string : boolean;
};

/**
 * Parses `argv` for `twining <command>`: every flag named in `spec` (plus `--help`/`-h`), no
 * positional argument. A flag not in `spec`, or one missing its value, is an INVALID_INPUT error
 * that names it and the help to read.
 */
export function parseFlags<S extends Record<string, FlagSpec>>(command: string, argv: string[], spec: S): FlagValues<S> & { help?: boolean } {
  const help = `see \`twining ${command} --help\``;
  const shorts = new Map(Object.entries(spec).flatMap(([name, s]) => (s.short ? [[`-${s.short}`, name] as const] : [])));
  for (let i = 0; i < argv.length; i++) {
    const [token] = argv[i].split('=', 1);
    if (token === '--help' || token === '-h') continue;
    const name = token.startsWith('--') ? token.slice(2) : shorts.get(token as `-${string}`);
    if (name === undefined || !(name in spec)) throw new TwiningError('INVALID_INPUT', `unknown option ${argv[i]}; ${help}`);
    if (spec[name].value && !argv[i].includes('=')) {
      if (i + 1 >= argv.length) throw new TwiningError('INVALID_INPUT', `${token} needs a value; ${help}`);
      i++;
    }
  }
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, s] of Object.entries(spec)) options[name] = { type: s.value ? 'string' : 'boolean', ...(s.short && { short: s.short }) };
  return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as FlagValues<S> & { help?: boolean };
}

/**
 * Writes a subcommand's failure (`twining: <command>: <message>`) and gives its exit code: 1 for
 * bad input, 2 for something missing, 3 for anything else (with its stack: a fault of ours).
 */
export function failure(command: string, error: unknown, err: NodeJS.WritableStream): number {
  err.write(`twining: ${command}: ${(error as Error).message}\n`);
  if (isTwiningError(error, 'INVALID_INPUT')) return 1;
  if (isTwiningError(error, 'NOT_FOUND')) return 2;
  if (!(error instanceof TwiningError)) err.write(`${(error as Error).stack ?? ''}\n`);
  return 3;
}
