// Shared helpers for the Twining host tests: the extension's API, reading the views through their
// providers, and the repository's CLI (another process writing to .twining/).
import * as fs from 'fs';
import * as path from 'path';
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import type { TwiningApi as PublicApi } from '../../src/extension/api';
import type { TestHooks } from '../../src/extension/test-hooks';
import type { Node } from '../../src/extension/views/nodes';
import { EXTENSION_ID, activateExtension } from './helpers';

/** What the tests use: the extension's test hooks (its exported API carries them in test runs). */
export type TwiningApi = TestHooks;
export type { PublicApi, Node };

export async function publicApi(): Promise<PublicApi> {
  return activateExtension<PublicApi>();
}

export async function twining(): Promise<TwiningApi> {
  const api = await publicApi();
  if (!api.testing) throw new Error('the extension did not export its test hooks (TWINING_TEST_RUN is not set?)');
  return api.testing;
}

type Provider = TwiningApi['providers'][keyof TwiningApi['providers']];

export interface Row {
  node: Node;
  item: vscode.TreeItem;
  label: string;
  description: string;
  icon?: string;
  color?: string;
}

export function labelOf(item: vscode.TreeItem): string {
  const label = item.label;
  return typeof label === 'string' ? label : (label?.label ?? '');
}

export function rowOf(provider: Provider, node: Node): Row {
  const item = provider.getTreeItem(node);
  const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath : undefined;
  return {
    node,
    item,
    label: labelOf(item),
    description: typeof item.description === 'string' ? item.description : '',
    icon: icon?.id,
    color: icon?.color?.id,
  };
}

/** The rows under an element (the top level by default). */
export async function rows(provider: Provider, parent?: Node): Promise<Row[]> {
  const nodes = (await provider.getChildren(parent)) ?? [];
  return nodes.map(node => rowOf(provider, node));
}

/** The tooltip as text (resolved the way a hover resolves it). */
export function tooltipOf(provider: Provider, row: Row): string {
  const item = provider.resolveTreeItem(row.item, row.node) ?? row.item;
  const tip = item.tooltip;
  return typeof tip === 'string' ? tip : (tip?.value ?? '');
}

/** The folder of this repository (the extension under development), where dist/cli.js is. */
export function repoRoot(): string {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error('extension not loaded');
  return ext.extensionPath;
}

/** Runs the repository's CLI as a separate process: `node dist/cli.js <op> --dir <folder> --json --input <json>`. */
export function cli(op: string, folder: string, input: object, extra: string[] = []): Promise<unknown> {
  const script = path.join(repoRoot(), 'dist', 'cli.js');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, op, '--dir', folder, '--json', '--input', JSON.stringify(input), ...extra],
      { timeout: 20000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`cli ${op} failed: ${stderr || error.message}`));
        else {
          try {
            resolve(JSON.parse(stdout));
          } catch {
            resolve(stdout);
          }
        }
      },
    );
  });
}

export function readLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l));
}

export function lastLine(file: string): Record<string, unknown> {
  const lines = readLines(file);
  return lines[lines.length - 1];
}

/** Counts onDidChangeTreeData events per provider while `work` runs and for `settleMs` after. */
export async function countRefreshes(
  api: TwiningApi,
  work: () => Promise<void>,
  settleMs = 600,
): Promise<Record<'agents' | 'delegations' | 'handoffs', number>> {
  const counts = { agents: 0, delegations: 0, handoffs: 0 };
  const subs = (Object.keys(counts) as (keyof typeof counts)[]).map(name => api.providers[name].onDidChangeTreeData(() => counts[name]++));
  try {
    await work();
    await new Promise(resolve => setTimeout(resolve, settleMs));
    await api.whenIdle();
  } finally {
    subs.forEach(s => s.dispose());
  }
  return counts;
}

/** Expects a promise to reject with a message matching `pattern`. */
export async function rejects(promise: Thenable<unknown>, pattern: RegExp): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!pattern.test(message)) throw new Error(`rejected with "${message}", expected ${pattern}`);
    return message;
  }
  throw new Error(`resolved, expected a rejection matching ${pattern}`);
}

export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
