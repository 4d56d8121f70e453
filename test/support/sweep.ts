import type { ChangeReport, TwiningEngine } from '../../src/core';

/** A sweep as the extension makes one (TwiningFolder.sweep): the files the engine finds moved go through its refresh. */
export async function swept(engine: TwiningEngine): Promise<ChangeReport> {
  const moved = await engine.sweep();
  return moved.length ? engine.refresh(moved) : { kinds: [] };
}
