/**
 * The code cites the project's own documents by section, `docs/format.md §Locking`: every such
 * citation in src/ names a file of docs/ and one of its headings, and nothing cites the notes
 * that are not in the repository (FORMAT.md, HOOKS.md, TWINING-2.md) or a section by number.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';

const REPO = path.resolve(__dirname, '../..');
const SRC = path.join(REPO, 'src');
const DOCS = path.join(REPO, 'docs');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(d => {
    const full = path.join(dir, d.name);
    return d.isDirectory() ? sources(full) : /\.(ts|js|json|css)$/.test(d.name) ? [full] : [];
  });
}

/** The headings of a Markdown file (any level), as written after the #s. */
function headingsOf(text: string): string[] {
  return [...text.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map(m => m[1]);
}

interface Citation {
  where: string;
  file: string;
  /** The text after the §, to the end of the line. */
  rest: string;
}

/** Every `docs/NAME.md §…` in a text; a § not preceded by a document's name is reported as one with an empty file. */
function citationsIn(text: string, where: string): Citation[] {
  const found: Citation[] = [];
  for (const m of text.matchAll(/§/g)) {
    const before = text.slice(Math.max(0, m.index - 40), m.index);
    const line = text.slice(m.index + 1).split('\n')[0];
    const file = /docs\/([a-z0-9-]+\.md) $/.exec(before)?.[1] ?? '';
    found.push({ where, file, rest: line });
  }
  return found;
}

/** The heading a citation names: the longest heading the text after § starts with, ending at a word boundary. */
function headingNamed(headings: string[], rest: string): string | undefined {
  return headings.filter(h => rest.startsWith(h) && !/^[\p{L}\p{N}_]/u.test(rest.slice(h.length))).sort((a, b) => b.length - a.length)[0];
}

describe('citations of docs/', () => {
  const docs = new Map(
    fs
      .readdirSync(DOCS)
      .filter(f => f.endsWith('.md'))
      .map(f => [f, headingsOf(fs.readFileSync(path.join(DOCS, f), 'utf8'))]),
  );

  test('the documents are there: the .twining/ format, the 2.x store, the hook protocols, the record on a remote and the glossary', () => {
    for (const name of ['format.md', 'twining-2.md', 'hooks.md', 'sync.md', 'glossary.md']) assert.ok(docs.has(name), `docs/${name}`);
    // The check finds headings and tells a cited one from one that is not there.
    const headings = docs.get('format.md')!;
    assert.equal(headingNamed(headings, 'Locking, rule 5: …'), 'Locking');
    assert.equal(headingNamed(headings, 'Lockingx'), undefined);
    assert.equal(headingNamed(headings, 'No such section'), undefined);
  });

  test('every docs/…§… citation in src/ names an existing document and one of its headings', () => {
    const citations = sources(SRC).flatMap(f => citationsIn(fs.readFileSync(f, 'utf8'), path.relative(REPO, f)));
    assert.ok(citations.length >= 50, `${citations.length} citations found`);
    const wrong = citations
      .filter(c => !docs.has(c.file) || headingNamed(docs.get(c.file)!, c.rest) === undefined)
      .map(c => `${c.where}: ${c.file ? `docs/${c.file}` : '(no document named)'} §${c.rest}`);
    assert.deepEqual(wrong, []);
  });

  test('nothing in src/ cites the notes outside the repository, or a section by number', () => {
    const stale: string[] = [];
    for (const f of sources(SRC)) {
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(/\b(FORMAT|HOOKS|TWINING-2)\.md\b|§\s*[0-9]/g)) stale.push(`${path.relative(REPO, f)}: ${m[0]}`);
    }
    assert.deepEqual(stale, []);
  });
});
