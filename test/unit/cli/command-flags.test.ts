/**
 * The flags of the CLI's own subcommands (src/cli/command-flags.ts): the same messages on every
 * subcommand for a mistyped flag or a missing value, both spellings of a value, short aliases.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags, failure } from '../../../src/cli/command-flags';
import { TwiningError } from '../../../src/core/errors';

const SPEC = { dir: { value: true }, json: {}, yes: { short: 'y' } } as const;

describe('parseFlags', () => {
  test('values given as --flag value and --flag=value (a value may hold "="), switches and aliases', () => {
    assert.deepEqual({ ...parseFlags('x', ['--dir', 'a b', '--json', '-y'], SPEC) }, { dir: 'a b', json: true, yes: true });
    assert.deepEqual({ ...parseFlags('x', ['--dir=k=v'], SPEC) }, { dir: 'k=v' });
    assert.equal(parseFlags('x', ['-h'], SPEC).help, true);
    assert.deepEqual({ ...parseFlags('x', [], SPEC) }, {});
  });

  test('an unknown flag, a positional argument and a missing value are named, with the help to read', () => {
    const invalid = (argv: string[], message: RegExp) =>
      assert.throws(
        () => parseFlags('sync', argv, SPEC),
        (e: unknown) => e instanceof TwiningError && e.code === 'INVALID_INPUT' && message.test(e.message),
      );
    invalid(['--jsn'], /^unknown option --jsn; see `twining sync --help`$/);
    invalid(['stray'], /^unknown option stray;/);
    invalid(['-q'], /^unknown option -q;/);
    invalid(['--json', '--dir'], /^--dir needs a value; see `twining sync --help`$/);
  });

  test('failure: the exit code says what kind of failure it was', () => {
    const written: string[] = [];
    const err = { write: (s: string) => written.push(s) } as unknown as NodeJS.WritableStream;
    assert.equal(failure('sync', new TwiningError('INVALID_INPUT', 'bad'), err), 1);
    assert.equal(failure('sync', new TwiningError('NOT_FOUND', 'gone'), err), 2);
    assert.equal(failure('sync', new Error('boom'), err), 3);
    assert.equal(written[0], 'twining: sync: bad\n');
    assert.match(written.join(''), /twining: sync: boom\nError: boom\n {4}at /);
  });
});
