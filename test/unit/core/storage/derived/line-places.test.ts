/**
 * Where each entry's line is in the blackboard (src/core/storage/derived/briefing-basis.ts
 * linePlaces), read a chunk at a time, against the same rule applied to the whole file at once:
 * random files of object lines, blank lines, lines of spaces, tabs and carriage returns, lines that
 * are not objects, a byte-order mark, a last line without its newline and multi-byte text, read in
 * chunks from 1 byte to larger than the file, so that lines and newlines fall on every boundary.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { linePlaces } from '../../../../../src/core/storage/derived/briefing-basis';
import { prng } from '../../../../support/prng';

/** The rule on the whole file: a line (ended by a newline or the end) whose first and last bytes that are not blank are `{` and `}`. */
function wholeFile(bytes: Buffer): { start: number[]; end: number[] } {
  const start: number[] = [];
  const end: number[] = [];
  const blank = (b: number) => b === 32 || b === 9 || b === 13;
  for (let at = 0; at < bytes.length;) {
    const nl = bytes.indexOf(10, at);
    const stop = nl < 0 ? bytes.length : nl;
    let a = at === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : at;
    let z = stop - 1;
    while (a <= z && blank(bytes[a])) a++;
    while (z >= a && blank(bytes[z])) z--;
    if (a <= z && bytes[a] === 0x7b && bytes[z] === 0x7d) {
      start.push(at);
      end.push(stop);
    }
    at = stop + 1;
  }
  return { start, end };
}

function randomFile(rand: () => number): Buffer {
  const lines: string[] = [];
  const count = Math.floor(rand() * 40);
  for (let i = 0; i < count; i++) {
    const r = rand();
    if (r < 0.55) lines.push(JSON.stringify({ id: `E${i}`, summary: 'é→✓'.repeat(Math.floor(rand() * 4)) + 'x'.repeat(Math.floor(rand() * 30)) }));
    else if (r < 0.65) lines.push('');
    else if (r < 0.75) lines.push(' \t\r'.slice(0, 1 + Math.floor(rand() * 3)));
    else if (r < 0.85) lines.push(`  ${JSON.stringify({ id: `P${i}` })}\r`);
    else if (r < 0.92) lines.push('[1,2,3]');
    else lines.push('{ torn');
  }
  let text = lines.join('\n');
  if (rand() < 0.7) text += '\n';
  const bytes = Buffer.from(text, 'utf8');
  return rand() < 0.2 ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) : bytes;
}

test('read a chunk at a time, the places are those of the rule on the whole file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twining-places-'));
  const file = path.join(dir, 'blackboard.jsonl');
  try {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = prng(seed);
      const bytes = randomFile(rand);
      fs.writeFileSync(file, bytes);
      const expected = wholeFile(bytes);
      for (const chunk of [1, 2, 3, 5, 16, 64, bytes.length + 7]) {
        const got = await linePlaces(file, bytes.length, expected.start.length, chunk);
        assert.ok(got, `seed ${seed}, chunk ${chunk}: places found`);
        assert.deepEqual([...got.start], expected.start, `seed ${seed}, chunk ${chunk}: starts`);
        assert.deepEqual([...got.end], expected.end, `seed ${seed}, chunk ${chunk}: ends`);
      }
      // Another count than the entries read: no place is known (nor read past the first line too many).
      if (expected.start.length > 0) assert.equal(await linePlaces(file, bytes.length, expected.start.length - 1, 4), undefined);
      assert.equal(await linePlaces(file, bytes.length, expected.start.length + 1, 4), undefined);
    }
    // Only the first `offset` bytes count: a line appended after them is not placed.
    fs.writeFileSync(file, '{"id":"a"}\n{"id":"b"}\n');
    assert.deepEqual(await linePlaces(file, 11, 1, 3), { start: Float64Array.from([0]), end: Float64Array.from([10]) });
    assert.equal(await linePlaces(path.join(dir, 'missing.jsonl'), 10, 1), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
