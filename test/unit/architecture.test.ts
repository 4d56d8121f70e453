/**
 * The house rules of the source tree, checked on the source itself: dependencies point
 * extension -> core -> Node, and the programs beside the extension (src/cli, src/agents, src/mcp)
 * depend on the core, never on the extension; the webview's code runs in a browser page (no Node,
 * no vscode) and its pages import nothing from the extension; the rules modules do no I/O; the
 * extension loads the engine lazily (no value import of the core but its dependency-free tables);
 * the operations are one table, not a chain of engine classes; the storage backends keep to their
 * folders; no two files share a name.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';

const REPO = path.resolve(__dirname, '../..');
const SRC = path.join(REPO, 'src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(d => {
    const full = path.join(dir, d.name);
    return d.isDirectory() ? sources(full) : d.name.endsWith('.ts') ? [full] : [];
  });
}

interface Import {
  spec: string;
  typeOnly: boolean;
}

/** Every `import … from '…'` and `export … from '…'` of a file, and whether it imports types only. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(/^(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?'([^']+)'/gm)) found.push({ spec: m[3], typeOnly: m[2] !== undefined });
  return found;
}

/** The repository-relative path an import resolves to (relative imports), or the module name. */
function target(file: string, spec: string): string {
  return spec.startsWith('.')
    ? path
        .relative(REPO, path.resolve(path.dirname(file), spec))
        .split(path.sep)
        .join('/')
    : spec;
}

const rel = (file: string) => path.relative(REPO, file).split(path.sep).join('/');

describe('architecture', () => {
  const all = sources(SRC);

  test('src/core imports no vscode and nothing from the extension or the programs built on it', () => {
    // The parser finds imports at all (type-only, multi-line, side-effect ones included).
    const ext = importsOf(path.join(SRC, 'extension', 'extension.ts')).map(i => i.spec);
    assert.ok(ext.includes('vscode') && ext.includes('./loadTime'), ext.join(', '));
    const outside = ['src/extension', 'src/cli', 'src/agents', 'src/mcp', 'src/webview', 'src/library'];
    for (const file of all.filter(f => rel(f).startsWith('src/core/'))) {
      for (const { spec } of importsOf(file)) {
        assert.notEqual(spec, 'vscode', `${rel(file)} imports vscode`);
        const to = target(file, spec);
        assert.ok(!outside.some(o => to === o || to.startsWith(`${o}/`)), `${rel(file)} imports ${spec}`);
      }
    }
  });

  test("the command line, the agent hosts' side and the MCP server depend on the core, never on the extension or the webview", () => {
    const programs = all.filter(f => /^src\/(cli|agents|mcp)\//.test(rel(f)));
    assert.ok(programs.some(f => rel(f).startsWith('src/cli/')) && programs.some(f => rel(f).startsWith('src/agents/')));
    for (const file of programs) {
      for (const { spec } of importsOf(file)) {
        const to = target(file, spec);
        assert.notEqual(spec, 'vscode', `${rel(file)} imports vscode`);
        assert.ok(!to.startsWith('src/extension') && !to.startsWith('src/webview'), `${rel(file)} imports ${spec}`);
      }
    }
    // Nothing but the command line itself imports it (dist/cli.js is a program, not a library).
    for (const file of all.filter(f => !rel(f).startsWith('src/cli/')))
      for (const { spec } of importsOf(file)) assert.ok(!target(file, spec).startsWith('src/cli/'), `${rel(file)} imports ${spec}`);
  });

  test('the webview runs in a browser page: no Node or vscode import, and the pages import nothing from the extension', () => {
    const webview = all.filter(f => rel(f).startsWith('src/webview/'));
    assert.ok(webview.some(f => rel(f).startsWith('src/webview/shared/')) && webview.some(f => rel(f).startsWith('src/webview/pages/')));
    for (const file of webview) {
      for (const { spec, typeOnly } of importsOf(file)) {
        const to = target(file, spec);
        // Only relative imports: a bare name would be vscode, a Node module or a package.
        assert.ok(spec.startsWith('.'), `${rel(file)} imports ${spec}`);
        assert.ok(!to.startsWith('src/extension'), `${rel(file)} imports ${spec}`);
        // The shared code may name the core's record types; it loads none of the core's code.
        if (!to.startsWith('src/webview/')) assert.ok(typeOnly && to === 'src/core/records', `${rel(file)} imports ${spec}`);
      }
    }
  });

  test('the rules modules are pure: they import only records, scopes, schemas, crypto and each other', () => {
    const allowed = new Set(['src/core/records', 'src/core/scope', 'src/core/schemas/schemas', 'crypto']);
    const rules = all.filter(f => rel(f).startsWith('src/core/rules/'));
    assert.ok(rules.length >= 5, 'drift, conflicts, scoring, snapshot, delegation detail');
    for (const file of rules) {
      for (const { spec } of importsOf(file)) {
        const to = target(file, spec);
        assert.ok(allowed.has(to) || to.startsWith('src/core/rules/'), `${rel(file)} imports ${spec}`);
      }
    }
  });

  test('the extension loads the engine lazily: value imports of src/core only of its dependency-free tables', () => {
    const free = new Set([
      'src/core/engine/data-kinds',
      'src/core/operations/operation-writes',
      'src/core/operations/operation-info',
      'src/core/text/drift-text',
      'src/core/storage/bounded',
    ]);
    for (const module of free)
      assert.deepEqual(
        importsOf(path.join(REPO, `${module}.ts`)).filter(i => !i.typeOnly),
        [],
        `${module} imports values`,
      );
    for (const file of all.filter(f => rel(f).startsWith('src/extension/') && !rel(f).endsWith('/manifest.ts'))) {
      for (const { spec, typeOnly } of importsOf(file)) {
        const to = target(file, spec);
        // src/library is the bundle of the core (dist/core.js): the same rule.
        if (!(to.startsWith('src/core') || to === 'src/library' || to.startsWith('src/agents/session-start/')) || typeOnly) continue;
        assert.ok(free.has(to), `${rel(file)} imports ${spec} (only types, or ${[...free].join(', ')})`);
      }
    }
  });

  test('storage has its two backends in folders of their own: only storage/sqlite/ loads node:sqlite, and storage/files/ takes nothing but types from it', () => {
    const storage = all.filter(f => rel(f).startsWith('src/core/storage/'));
    assert.ok(storage.some(f => rel(f).startsWith('src/core/storage/files/')) && storage.some(f => rel(f).startsWith('src/core/storage/sqlite/')));
    const namesSqlite = all.filter(f => fs.readFileSync(f, 'utf8').includes("'node:sqlite'")).map(rel);
    assert.ok(namesSqlite.length > 0, 'the database module names node:sqlite');
    assert.deepEqual(
      namesSqlite.filter(f => !f.startsWith('src/core/storage/sqlite/')),
      [],
      'node:sqlite outside storage/sqlite/',
    );
    for (const file of storage.filter(f => rel(f).startsWith('src/core/storage/files/')))
      for (const { spec, typeOnly } of importsOf(file))
        assert.ok(typeOnly || !target(file, spec).startsWith('src/core/storage/sqlite/'), `${rel(file)} imports ${spec}`);
  });

  /**
   * The extension's folders by role, lowest first: a module imports only from its own layer or
   * lower ones (types included), so nothing calls back up. Everything under src/extension is in a layer.
   */
  const LAYERS: string[][] = [
    ['naming', 'log', 'loadTime', 'present/'],
    ['settings', 'model/'],
    ['session'],
    ['views/'],
    ['editor/', 'tools/', 'webview/'],
    ['commands/'],
    ['chat/'],
    ['extension', 'api', 'test-hooks', 'manifest'],
  ];
  const layerOf = (module: string): number => {
    const inner = module.replace(/^src\/extension\//, '');
    return LAYERS.findIndex(layer => layer.some(p => (p.endsWith('/') ? inner.startsWith(p) : inner === p)));
  };
  const extensionModules = () => all.filter(f => rel(f).startsWith('src/extension/')).map(f => rel(f).replace(/\.ts$/, ''));

  test('the extension is sorted by role: every module in a layer, and no import reaches a higher layer', () => {
    const modules = extensionModules();
    assert.deepEqual(
      modules.filter(m => layerOf(m) < 0),
      [],
      'modules outside every layer',
    );
    // The check sees an upward import when there is one.
    assert.ok(layerOf('src/extension/views/tree-base') < layerOf('src/extension/commands/command-runner'));
    const upward: string[] = [];
    for (const m of modules) {
      for (const { spec } of importsOf(path.join(REPO, `${m}.ts`))) {
        const to = target(path.join(REPO, `${m}.ts`), spec);
        if (to.startsWith('src/extension/') && layerOf(to) > layerOf(m)) upward.push(`${m} -> ${to}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  test('no import cycle in src/ (type imports included)', () => {
    const graph = new Map<string, string[]>();
    for (const f of all) {
      const from = rel(f).replace(/\.ts$/, '');
      const to = importsOf(f)
        .map(i => target(f, i.spec))
        .filter(t => t.startsWith('src/'))
        .map(t => (fs.existsSync(path.join(REPO, `${t}.ts`)) ? t : `${t}/index`));
      graph.set(from, to);
    }
    const cycles = findCycles(graph);
    // The search finds a cycle when there is one.
    assert.equal(
      findCycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ).length,
      1,
    );
    assert.deepEqual(cycles, []);
  });

  test('a file of src/ over 400 lines is a lint warning (split by concept, not by length), and no file is past 1,000', () => {
    const config = fs.readFileSync(path.join(REPO, 'eslint.config.mjs'), 'utf8');
    assert.match(config, /files: \['src\/\*\*\/\*\.ts'\],\s*rules: \{ 'max-lines': \['warn', \{ max: 400,/);
    const long = all.map(f => ({ file: rel(f), lines: fs.readFileSync(f, 'utf8').split('\n').length })).filter(f => f.lines > 1000);
    assert.deepEqual(long, []);
  });

  test('no two files in src/ share a name', () => {
    const byName = new Map<string, string[]>();
    for (const f of all) byName.set(path.basename(f), [...(byName.get(path.basename(f)) ?? []), rel(f)]);
    assert.deepEqual(
      [...byName.values()].filter(files => files.length > 1),
      [],
    );
  });
});

/** The cycles of a module graph, each as the path that closes it (depth-first, each module entered once). */
function findCycles(graph: Map<string, string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}
