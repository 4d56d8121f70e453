/**
 * The house rules of the source tree, checked on the source itself: dependencies point
 * extension -> core -> Node; the rules modules do no I/O; the extension loads the engine lazily
 * (no value import of the core but its dependency-free tables); files stay under 400 lines
 * and no two share a name.
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

  test('src/core imports no vscode and nothing from the extension', () => {
    // The parser finds imports at all (type-only, multi-line, side-effect ones included).
    const ext = importsOf(path.join(SRC, 'extension', 'extension.ts')).map(i => i.spec);
    assert.ok(ext.includes('vscode') && ext.includes('./loadTime'), ext.join(', '));
    for (const file of all.filter(f => rel(f).startsWith('src/core/'))) {
      for (const { spec } of importsOf(file)) {
        assert.notEqual(spec, 'vscode', `${rel(file)} imports vscode`);
        assert.ok(!target(file, spec).startsWith('src/extension'), `${rel(file)} imports ${spec}`);
      }
    }
  });

  test('the rules modules are pure: they import only records, scopes, schemas, crypto and each other', () => {
    const allowed = new Set(['src/core/records', 'src/core/scope', 'src/core/schemas', 'crypto']);
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
    const free = new Set(['src/core/data-kinds', 'src/core/operation-writes', 'src/core/drift-text', 'src/core/store/bounded']);
    for (const module of free)
      assert.deepEqual(
        importsOf(path.join(REPO, `${module}.ts`)).filter(i => !i.typeOnly),
        [],
        `${module} imports values`,
      );
    for (const file of all.filter(f => rel(f).startsWith('src/extension/') && !rel(f).endsWith('/manifest.ts'))) {
      for (const { spec, typeOnly } of importsOf(file)) {
        const to = target(file, spec);
        if (!to.startsWith('src/core') || typeOnly) continue;
        assert.ok(free.has(to), `${rel(file)} imports ${spec} (only types, or ${[...free].join(', ')})`);
      }
    }
  });

  test('no file in src/ is over 400 lines', () => {
    const long = all.map(f => ({ file: rel(f), lines: fs.readFileSync(f, 'utf8').split('\n').length })).filter(f => f.lines > 400);
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
