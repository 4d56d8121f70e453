/**
 * rules/decision-paths.ts finds, through the paths decisions name, exactly the decisions that
 * rules/assembly.ts's decisionInScope accepts, in index order: over random indexes whose scopes,
 * affected files and symbols share prefixes with each other and with the scopes asked about
 * (folders, files, prefixes of names, the empty scope, symbols), with odd entries (no scope,
 * non-string files) among them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decisionInScope, type Placed } from '../../../../src/core/rules/assembly';
import { decisionPaths, decisionsTouching } from '../../../../src/core/rules/decision-paths';
import { prng } from '../../../support/prng';

test('decisionsTouching finds what decisionInScope accepts, in index order', () => {
  const rnd = prng(7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  const parts = ['src/', 'src/a', 'src/auth/', 'src/auth/jwt.ts', 'src/auth/jwt.test.ts', 'src/b/', 'docs/', 'docs/x.md', 'lib', 'lib/', '', 'src/auth'];
  const symbol = () => pick(['verifyToken', 'Cache.get', 'src/auth/', 'jwt']);
  let compared = 0;
  for (let round = 0; round < 40; round++) {
    const index: Placed[] = Array.from({ length: 1 + Math.floor(rnd() * 200) }, () => {
      const d: Placed = {};
      if (rnd() < 0.9) d.scope = pick(parts) + (rnd() < 0.3 ? `m${Math.floor(rnd() * 5)}` : '');
      if (rnd() < 0.6)
        d.affected_files = Array.from({ length: Math.floor(rnd() * 4) }, () =>
          rnd() < 0.05 ? 42 : pick(parts) + (rnd() < 0.5 ? `f${Math.floor(rnd() * 5)}.ts` : ''),
        );
      if (rnd() < 0.3) d.affected_symbols = Array.from({ length: 1 + Math.floor(rnd() * 2) }, symbol);
      return d;
    });
    const paths = decisionPaths(index);
    const scopes = [...parts, 'src/auth/jwt.ts', 'src/authx', 'verifyToken', 'Cache.get', 'zzz', 'src/am1', 'lib/f1.ts', ...parts.map(p => `${p}f2.ts`)];
    for (const scope of scopes) {
      const expected = index.flatMap((d, at) => (decisionInScope(d, scope) ? [at] : []));
      const found = decisionsTouching(paths, scope).filter(at => decisionInScope(index[at], scope));
      assert.deepEqual(found, expected, `round ${round}, scope "${scope}"`);
      compared++;
    }
  }
  assert.ok(compared > 1000);
});
