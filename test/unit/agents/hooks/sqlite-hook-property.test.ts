/**
 * The PreToolUse hook's answer equals the engine's on both layouts, over random records: random
 * decisions (on folders and files) and warnings (some resolved) written by the engine into a 1.x
 * folder, the same records as a twining-mcp 2.x twin (rows and record files); for random files,
 * the hook run as a host runs it says the same on both layouts, and its counts are the engine's
 * (`why`'s active and provisional decisions; the open warnings whose scope overlaps the file).
 * Needs node:sqlite (run under Node 24 by scripts/test.js, as every sqlite-*.test.js).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { openWorkspace } from '../../../../src/core';
import { overlaps } from '../../../../src/core/scope';
import { claude } from '../../../support/hook-inputs';
import { prng } from '../../../support/prng';
import { CLI_JS, tempProject, tw } from '../../../support/tmp';
import { hasSqlite, twoXFrom1x } from '../../../support/twining-mcp-2x';

const skip = hasSqlite ? false : `this Node (${process.version}) has no node:sqlite; scripts/test.js runs this file under Node 24`;

// Scopes shallower than two folders with and without a slash ('project', the default scope, and
// 'sr', a prefix of a folder's name, overlap only the paths they are a prefix of).
const FOLDERS = ['src/', 'src/auth/', 'src/auth/jwt/', 'src/db/', 'docs/', 'lib/util/', 'project', 'sr', 'src'];
const FILES = ['src/auth/jwt.ts', 'src/auth/jwt/sign.ts', 'src/db/pool.ts', 'docs/guide.md', 'lib/util/x.ts', 'README.md', 'projects/a/b.ts'];

function preToolUse(root: string, file: string): string {
  const input = claude(root, 'prop', 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, file) }, tool_use_id: 't' });
  const r = spawnSync(process.execPath, [CLI_JS, 'hook', 'PreToolUse', '--agent', 'prop-agent'], { cwd: root, input: JSON.stringify(input), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim() ? (JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string) : '';
}

for (const seed of [1, 2])
  test(`PreToolUse on 1.x and on 2.x says what the engine says (seed ${seed})`, { skip }, async () => {
    const random = prng(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
    const one = tempProject();
    const engine = await openWorkspace(one, { warn: () => undefined });
    await engine.init();
    for (let i = 0; i < 12; i++) {
      const onFile = random() < 0.4;
      await engine.decide({
        domain: `d${i % 3}`,
        scope: onFile ? pick(FILES) : pick(FOLDERS),
        summary: `decision ${i}`,
        context: 'c',
        rationale: `because ${i}`,
        agent_id: 'architect',
        ...(random() < 0.3 ? { affected_files: [pick(FILES)] } : {}),
      });
      const w = await engine.post({
        entry_type: 'warning',
        summary: `warning ${i}`,
        scope: random() < 0.5 ? pick(FILES) : pick(FOLDERS),
        agent_id: 'reviewer',
      });
      if (random() < 0.25) await engine.resolve({ ids: [w.id], note: 'fixed' });
    }
    const two = tempProject('two-x-twin');
    twoXFrom1x(tw(one), tw(two));
    // Every open warning, the engine's own conflict findings on decisions included.
    const open = (await engine.read({ entry_types: ['warning'] })).entries.filter(e => e.status !== 'resolved');
    for (const file of FILES) {
      const [a, b] = [preToolUse(one, file), preToolUse(two, file).split(two).join(one)];
      assert.equal(b, a, `the same answer on both layouts for ${file}`);
      const why = await engine.why({ scope: file });
      const decided = why.active_count + why.provisional_count;
      const warned = open.filter(w => overlaps(w.scope, file)).length;
      if (decided === 0 && warned === 0) assert.equal(a, '', `nothing applies to ${file}`);
      else
        assert.match(a, new RegExp(`before you edit ${file.replace(/\./g, '\\.')}, ${decided} active decision\\(s\\) and ${warned} open warning\\(s\\) apply`));
    }
  });
