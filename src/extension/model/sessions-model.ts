/**
 * The sessions family (the session board, issue 18 item 5): the hooked agent sessions of each
 * folder, from the engine's `sessions()`. A hook process writes a session's file on every tool
 * call; the engine reports it as the `sessions` kind, and this model fires so the Agents view and
 * the Context view redraw. A folder's board is kept until its data changes (the Context view asks
 * on every editor switch), and for at most `MAX_AGE_MS`, since liveness moves with time.
 */
import type { SessionBoard, SessionView } from '../../core';
import type { ChangeKind } from './change-kinds';
import type { TwiningFolder } from './folders';
import { FamilyModel } from './family-model';

const MAX_AGE_MS = 15_000;

export class SessionsModel extends FamilyModel {
  // Only the sessions' own files fire: a blackboard or configuration change already redraws the
  // Agents and Context views through their own models, which then read this board again.
  protected readonly shows = new Set<ChangeKind>(['sessions']);
  private readonly boards = new Map<string, { at: number; board: Promise<SessionBoard> }>();

  /** A folder's session board (live sessions first). */
  board(folder: TwiningFolder): Promise<SessionBoard> {
    const now = Date.now();
    const cached = this.boards.get(folder.key);
    if (cached && now - cached.at < MAX_AGE_MS) return cached.board;
    const board = folder.run(engine => engine.sessions());
    board.catch(() => this.boards.get(folder.key)?.board === board && this.boards.delete(folder.key));
    this.boards.set(folder.key, { at: now, board });
    return board;
  }

  /** The sessions on a folder's board that edited `file` (folder-relative, `/`-separated). */
  async touching(folder: TwiningFolder, file: string): Promise<SessionView[]> {
    return (await this.board(folder)).sessions.filter(s => s.files_touched.includes(file));
  }

  /** An agent's record on the blackboard clears its session's mark; the thresholds move liveness: read again when asked. */
  protected override changed(folder: TwiningFolder, kinds: ReadonlySet<ChangeKind>): void {
    if (kinds.has('blackboard') || kinds.has('config')) this.boards.delete(folder.key);
  }

  protected override forget(folder: TwiningFolder | undefined): void {
    if (folder) this.boards.delete(folder.key);
    else this.boards.clear();
  }
}
