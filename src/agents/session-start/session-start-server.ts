/**
 * A running engine answering agent sessions' starts over the local socket (agents/session-start/local-socket.ts):
 * the extension serves each workspace folder it keeps an engine for, `twining mcp` its project. A
 * hook's SessionStart then costs a connection and a warm `assemble`, not a cold engine reading
 * 100,000 entries. One server per project: when another process already serves it, this one
 * looks again every 30 s (that process may go away) and otherwise stays out of the way.
 *
 * The request is checked before anything runs; the engine calls go through the caller's `run`
 * (the extension's per-folder queue), so they never overlap the folder's other readers. The answer
 * goes out first; the hook index and briefing cache are written after it.
 */
import { promises as fs } from 'fs';
import * as net from 'net';
import * as path from 'path';
import { z } from 'zod';
import type { TwiningEngine } from '../../core/engine/engine';
import { MAX_REQUEST_BYTES, projectIdentity, socketPathOf } from './local-socket';
import { startSession } from './session-start';

const RETRY_MS = 30_000;
const IDLE_MS = 5_000;

const Request = z
  .object({
    v: z.literal(1),
    op: z.literal('session-start'),
    agent_id: z.string().min(1).max(200),
    role: z.string().max(200),
    scope: z.string().min(1).max(1000),
    max_tokens: z.number().int().positive().max(1_000_000).optional(),
    /** The project the hook found (agents/session-start/local-socket.ts's projectIdentity): another's is refused. */
    project: z.string().min(1).max(4096),
  })
  .strict();

type Run = <T>(work: (engine: TwiningEngine) => Promise<T>) => Promise<T>;

export class SessionStartServer {
  private server: net.Server | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly where: string | undefined;
  private readonly identity: string;

  constructor(
    private readonly root: string,
    private readonly run: Run,
    private readonly warn: (message: string) => void,
  ) {
    this.identity = projectIdentity(root);
    this.where = socketPathOf(this.identity);
    if (this.where) this.listen(this.where, true);
  }

  /** Whether this process is the one answering for the project. */
  get serving(): boolean {
    return this.server?.listening ?? false;
  }

  private listen(where: string, firstTry: boolean): void {
    if (this.closed) return;
    const server = net.createServer(socket => this.answer(socket));
    server.on('error', error => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && firstTry && process.platform !== 'win32') {
        // Someone serves already, or a process that died left its socket: only a live one answers a connection.
        const probe = net.createConnection(where);
        probe.on('connect', () => {
          probe.destroy();
          this.later(where);
        });
        probe.on('error', () => {
          fs.unlink(where).then(
            () => this.listen(where, false),
            () => this.listen(where, false),
          );
        });
        return;
      }
      if (code !== 'EADDRINUSE') this.warn(`agent session starts are not served for ${this.root} (${error.message}); hooks load the engine themselves`);
      this.later(where);
    });
    server.listen(where, () => {
      if (this.closed) return void server.close();
      this.server = server;
      if (process.platform !== 'win32') fs.chmod(where, 0o600).catch(() => undefined);
    });
  }

  private later(where: string): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.listen(where, true);
    }, RETRY_MS);
    this.retry.unref();
  }

  private answer(socket: net.Socket): void {
    let text = '';
    socket.setEncoding('utf8');
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    const reply = (value: Record<string, unknown>) => socket.end(JSON.stringify(value) + '\n');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end < 0 && text.length <= MAX_REQUEST_BYTES) return;
      socket.removeAllListeners('data');
      if (end < 0 || end > MAX_REQUEST_BYTES) return void reply({ ok: false, error: `request larger than ${MAX_REQUEST_BYTES} bytes` });
      let parsed: z.infer<typeof Request>;
      try {
        const checked = Request.safeParse(JSON.parse(text.slice(0, end)));
        if (!checked.success) return void reply({ ok: false, error: `not a session-start request: ${checked.error.issues[0]?.message}` });
        parsed = checked.data;
      } catch (error) {
        return void reply({ ok: false, error: `not JSON (${(error as Error).message})` });
      }
      const { v: _v, op: _op, project, ...req } = parsed;
      if (project !== this.identity) return void reply({ ok: false, error: `this engine serves ${this.identity}, not ${project}` });
      const twiningDir = path.join(this.root, '.twining');
      // A hook that stopped waiting (it answered from the briefing's basis: agents/hooks/hook-start.ts)
      // has gone: its briefing is not made, or, made, not recorded as the agent's (the agent never saw
      // it, and the next briefing's "changed since" starts at the last one it did see).
      const gone = () => socket.destroyed || socket.readableEnded;
      this.run(engine => (gone() ? Promise.resolve(undefined) : startSession(engine, twiningDir, req, this.warn))).then(
        started => {
          if (!started || gone()) return;
          const { text: briefing, offset, keep } = started;
          reply({ ok: true, text: briefing, offset });
          this.run(() => keep()).catch(error => this.warn(`after a session start: ${(error as Error).message}`));
        },
        (error: unknown) => reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
    });
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.close();
    // A Unix socket stays on disk after close (a named pipe does not).
    if (process.platform !== 'win32' && this.where) fs.unlink(this.where).catch(() => undefined);
  }
}
