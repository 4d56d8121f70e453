/**
 * The hook's standard input, read without `process.stdin`: that stream loads the `net` and stream
 * machinery and costs a hook process 8 to 11 ms on every tool call; reading file descriptor 0
 * directly costs under 1 ms.
 *
 * Both hosts write the event as one JSON object on standard input (docs/hooks.md §Claude Code input and
 * docs/hooks.md §VS Code input: "Input on standard input, JSON").
 * Reading stops at the input's end, or as soon as what was read is one whole JSON object, so a
 * host that keeps the pipe open after writing does not hold the hook. A terminal is not read
 * (nothing would come), and input that is not ready (a non-blocking descriptor: EAGAIN) is read
 * the slower way, where the hook's own time limit still applies. A blocking read cannot be cut
 * short by that limit: a host that starts the hook and never writes nor closes its input is left
 * to the host's own timeout, as every hook that reads its input to the end is.
 */
import { fstatSync, readSync } from 'fs';

/** The text read when it is one whole JSON object (tried only when the last piece ends in `}`: a large input comes in many pieces). */
function complete(chunks: Buffer[]): string | undefined {
  const last = chunks[chunks.length - 1];
  let end = last.length - 1;
  while (end >= 0 && (last[end] === 0x20 || last[end] === 0x0a || last[end] === 0x0d || last[end] === 0x09)) end--;
  if (end < 0 || last[end] !== 0x7d) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    JSON.parse(text);
    return text;
  } catch {
    return undefined;
  }
}

async function rest(chunks: Buffer[]): Promise<string> {
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function readHookStdin(): Promise<string> {
  let st;
  try {
    st = fstatSync(0);
  } catch {
    return ''; // No standard input at all.
  }
  if (st.isCharacterDevice()) return ''; // A terminal (or /dev/null): nothing to wait for.
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') return rest(chunks);
      if (code === 'EOF') break; // Windows' end of a pipe.
      throw error;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
    const whole = complete(chunks);
    if (whole !== undefined) return whole;
  }
  return Buffer.concat(chunks).toString('utf8');
}
