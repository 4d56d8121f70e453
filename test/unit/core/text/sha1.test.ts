/**
 * The hook's SHA-1 (src/core/text/sha1.ts) gives what Node's crypto gives, so the file names it
 * makes (storage/session-files.ts's fileSafe: hook index buckets, session states of unsafe ids) are
 * the names written before it: texts of every length around the block boundaries, ASCII and not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'crypto';
import { sha1Hex } from '../../../../src/core/text/sha1';
import { fileSafe } from '../../../../src/core/storage/session-files';
import { prng } from '../../../support/prng';

const nodeSha1 = (text: string) => createHash('sha1').update(text).digest('hex');

test('sha1Hex equals crypto for texts of 0 to 300 characters, ASCII, accented, CJK, emoji and lone surrogates', () => {
  const random = prng(29);
  const pick = () => {
    const r = random();
    if (r < 0.6) return String.fromCharCode(32 + Math.floor(random() * 95));
    if (r < 0.75) return String.fromCharCode(0xa0 + Math.floor(random() * 0x700));
    if (r < 0.88) return String.fromCharCode(0x4e00 + Math.floor(random() * 0x5000));
    if (r < 0.97) return String.fromCodePoint(0x1f300 + Math.floor(random() * 0x300));
    return String.fromCharCode(0xd800 + Math.floor(random() * 0x800)); // a lone surrogate: both encode it as U+FFFD
  };
  for (let length = 0; length <= 300; length++)
    for (let k = 0; k < 4; k++) {
      const text = Array.from({ length }, pick).join('');
      assert.equal(sha1Hex(text), nodeSha1(text), JSON.stringify(text));
    }
  assert.equal(sha1Hex(''), 'da39a3ee5e6b4b0d3255bfef95601890afd80709');
  assert.equal(sha1Hex('abc'), 'a9993e364706816aba3e25717850c26c9cd0d89d');
});

test('fileSafe names a hook index bucket as before (crypto SHA-1, first 10 hex digits)', () => {
  for (const key of ['src/auth/', 'src/mod3/', 'docs/api/', 'ünïcödé/パス/', 'a b/c:d/'])
    assert.equal(fileSafe(key), `${key.replace(/[^A-Za-z0-9._-]/g, '_')}-${nodeSha1(key).slice(0, 10)}`);
  assert.equal(fileSafe('a1b2c3d4-session'), 'a1b2c3d4-session', 'a safe id is its own name');
});
