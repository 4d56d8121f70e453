// The mocha runner that VS Code's extension host loads as `extensionTestsPath` (bundled by
// `node esbuild.js --tests` into out/host/index.js). It runs every `*.test.js` file beside it and
// settles when the suite is done: the workbench then reports 0 (resolved) or 1 (rejected) through
// codeAutomationExit (see scripts/run-host-tests.js). Independent of the launcher: the same module
// works with @vscode/test-electron / @vscode/test-cli.
//
// Environment:
//   TWINING_TEST_SUMMARY  path of a JSON file to write {passed, failed, pending, failures: [{title, error}]}
//   TWINING_TEST_GREP     only run tests whose full title matches this regular expression
//   TWINING_TEST_RUN      name of the run (single, multi, untrusted, ...): tests may skip by it
//   TWINING_TEST_FOLDERS  the folders the window was opened on (path.delimiter between them)
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';
import * as vscode from 'vscode';

export interface Summary {
  run: string;
  passed: number;
  failed: number;
  pending: number;
  durationMs: number;
  failures: { title: string; error: string }[];
  /** The window came up without the folders it was opened on: no test ran (the launcher may open it again). */
  windowWithoutFolders?: boolean;
}

/** The folders the run asked for that the window does not have (every one when it has none). */
function missingFolders(): string[] {
  const expected = (process.env.TWINING_TEST_FOLDERS || '').split(path.delimiter).filter(Boolean);
  if (!expected.length) return [];
  const open = new Set((vscode.workspace.workspaceFolders ?? []).map(f => path.resolve(f.uri.fsPath)));
  return expected.filter(f => !open.has(path.resolve(f)));
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const e = err as Error & { actual?: unknown; expected?: unknown; showDiff?: boolean };
    let text = e.stack || `${e.name}: ${e.message}`;
    if (e.showDiff !== false && ('actual' in e || 'expected' in e) && e.actual !== undefined) {
      const show = (v: unknown) => {
        try {
          return typeof v === 'string' ? v : JSON.stringify(v);
        } catch {
          return String(v);
        }
      };
      text += `\n    expected: ${show(e.expected)}\n    actual:   ${show(e.actual)}`;
    }
    return text;
  }
  return String(err);
}

function writeSummary(summary: Summary): void {
  const file = process.env.TWINING_TEST_SUMMARY;
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(summary, null, 2));
}

export function run(): Promise<void> {
  const started = Date.now();
  const summary: Summary = {
    run: process.env.TWINING_TEST_RUN || 'default',
    passed: 0,
    failed: 0,
    pending: 0,
    durationMs: 0,
    failures: [],
  };
  return new Promise<void>((resolve, reject) => {
    try {
      const missing = missingFolders();
      if (missing.length) {
        summary.windowWithoutFolders = true;
        summary.failed = 1;
        summary.failures.push({ title: 'the window', error: `the window opened without its workspace folders (${missing.join(', ')}); no test ran` });
        writeSummary(summary);
        reject(new Error(summary.failures[0].error));
        return;
      }
      const mocha = new Mocha({ ui: 'bdd', timeout: 20000, color: false, reporter: 'spec' });
      if (process.env.TWINING_TEST_GREP) mocha.grep(new RegExp(process.env.TWINING_TEST_GREP));
      const files = fs
        .readdirSync(__dirname)
        .filter(f => f.endsWith('.test.js'))
        .sort();
      for (const f of files) mocha.addFile(path.join(__dirname, f));
      if (files.length === 0) throw new Error(`no *.test.js files in ${__dirname}`);

      const runner = mocha.run(() => {
        summary.durationMs = Date.now() - started;
        writeSummary(summary);
        if (summary.failed > 0) reject(new Error(`${summary.failed} of ${summary.passed + summary.failed} tests failed`));
        else resolve();
      });
      runner.on('pass', () => summary.passed++);
      runner.on('pending', () => summary.pending++);
      runner.on('fail', (test: Mocha.Runnable, err: unknown) => {
        summary.failed++;
        summary.failures.push({ title: test.fullTitle(), error: describeError(err) });
      });
    } catch (err) {
      // A file that throws on load (a syntax or import error) ends up here: count it as a failure.
      summary.failed++;
      summary.failures.push({ title: 'loading the test files', error: describeError(err) });
      summary.durationMs = Date.now() - started;
      writeSummary(summary);
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
