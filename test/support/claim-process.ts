/**
 * A claiming process for the claims race test (not a test file). Started with one JSON argument
 * `{root, name}`; prints `{"ready":true}`, then answers each stdin line with one JSON line:
 *  - `{"round":n,"paths":[…]}`: claims the paths as agent `name` and prints the result;
 *  - `{"release":n}`: releases all of its claims and prints `{"released":n}`.
 * Lines are printed only after the operation resolved (the parent may SIGKILL it at any moment).
 */
import * as path from 'path';
import * as readline from 'readline';
import { DIST } from './dist';

type Core = typeof import('../../src/core');
const config: { root: string; name: string } = JSON.parse(process.argv[2]);
const emit = (message: Record<string, unknown>) => process.stdout.write(JSON.stringify(message) + '\n');

async function main(): Promise<void> {
  const core: Core = require(path.join(DIST, 'core.js'));
  const ws = await core.openWorkspace(config.root, { warn: m => emit({ op: 'warning', message: m }) });
  emit({ ready: true });
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const command = JSON.parse(line);
    try {
      if (typeof command.round === 'number') {
        const result = await ws.claim({ agent_id: config.name, paths: command.paths, reason: `round ${command.round}`, ttl_ms: 60_000 });
        emit({ round: command.round, result });
      } else if (typeof command.release === 'number') {
        await ws.release({ agent_id: config.name });
        emit({ released: command.release });
      }
    } catch (error) {
      const e = error as { code?: string; message: string };
      emit({ round: command.round ?? command.release, error: e.message, code: e.code });
    }
  }
}

main().catch(error => {
  emit({ fatal: (error as Error).message });
  process.exit(1);
});
