/**
 * The handoffs family: the handoff index of each folder, queried once per change and shared by
 * the Handoffs view, the status bar count and the inbox (each of them used to query it on its
 * own). The list is kept until the engine reports the index, a record, the configuration,
 * `.twining/` or the trust changed; the user's agent id (settings) changes only who "you" are.
 * Drift (what each listed handoff's `verify` depends on) has its own event.
 */
import * as vscode from 'vscode';
import type { HandoffIndexLine } from '../../core';
import type { ChangeKind } from './change-kinds';
import type { Folders, TwiningFolder } from './folders';
import { FamilyModel } from './family-model';

/** The schema's largest `limit`: every line of the index. */
const EVERY_LINE = 100_000;

/** A folder's handoffs, newest first. */
export interface HandoffList {
  lines: readonly HandoffIndexLine[];
  total: number;
}

export class HandoffsModel extends FamilyModel {
  protected readonly shows = new Set<ChangeKind>(['handoffs', 'handoffRecords', 'config', 'settings']);
  private readonly lists = new Map<string, Promise<HandoffList>>();
  private readonly driftEmitter = new vscode.EventEmitter<TwiningFolder>();
  /** Fires when what the drift of a folder's handoffs depends on changed (its records, the blackboard, the decisions). */
  readonly onDidChangeDrift = this.driftEmitter.event;
  /** Queries of the handoff index so far (tests: one per change, whoever asks). */
  queries = 0;

  constructor(
    folders: Folders,
    /** The user's agent id (read when needed: the setting can change). */
    readonly agentId: () => string,
  ) {
    super(folders);
    this.disposables.push(this.driftEmitter);
  }

  /** A folder's handoffs, newest first (every line of the index). */
  list(folder: TwiningFolder): Promise<HandoffList> {
    let list = this.lists.get(folder.key);
    if (!list) {
      this.queries++;
      const asked = folder.run(async engine => {
        const { handoffs, total_count } = await engine.handoffs({ limit: EVERY_LINE });
        return { lines: handoffs, total: total_count };
      });
      list = asked;
      // A failure is not kept: the next ask tries again.
      asked.catch(() => this.lists.get(folder.key) === asked && this.lists.delete(folder.key));
      this.lists.set(folder.key, list);
    }
    return list;
  }

  /** The unacknowledged handoffs for the user's agent id in a folder, newest first. */
  async forMe(folder: TwiningFolder): Promise<HandoffIndexLine[]> {
    const me = this.agentId();
    return (await this.list(folder)).lines.filter(line => line.target_agent === me && line.acknowledged !== true);
  }

  protected override forget(folder: TwiningFolder | undefined): void {
    if (folder) this.lists.delete(folder.key);
    else this.lists.clear();
  }

  protected override changed(folder: TwiningFolder, kinds: ReadonlySet<ChangeKind>): void {
    if (kinds.has('handoffRecords') || kinds.has('blackboard') || kinds.has('decisions')) this.driftEmitter.fire(folder);
  }
}
