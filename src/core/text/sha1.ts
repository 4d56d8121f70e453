/**
 * SHA-1 of a short text, in hex, without Node's `crypto`: loading that module (and the stream
 * modules it brings) is most of what a PreToolUse hook process spent beyond its own start, for
 * one hash of a bucket name (storage/session-files.ts's fileSafe). Gives exactly what
 * `createHash('sha1').update(text).digest('hex')` gives (a unit test holds the two equal), so the
 * names of files written before stay the same. Not for large inputs: it copies the text's bytes once.
 */
export function sha1Hex(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  // The message, a 1 bit, zeros, and its length in bits as 64 bits: a whole number of 64-byte blocks.
  const blocks = Math.ceil((bytes.length + 9) / 64);
  const padded = Buffer.alloc(blocks * 64);
  bytes.copy(padded);
  padded[bytes.length] = 0x80;
  const bits = bytes.length * 8;
  padded.writeUInt32BE(Math.floor(bits / 0x100000000), padded.length - 8);
  padded.writeUInt32BE(bits >>> 0, padded.length - 4);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Int32Array(80);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = padded.readInt32BE(block + i * 4);
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      const f = i < 20 ? (b & c) | (~b & d) : i < 40 ? b ^ c ^ d : i < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      const k = i < 20 ? 0x5a827999 : i < 40 ? 0x6ed9eba1 : i < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return [h0, h1, h2, h3, h4].map(h => (h >>> 0).toString(16).padStart(8, '0')).join('');
}
