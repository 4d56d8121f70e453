/**
 * SessionStart's briefing brought up to date from its basis (src/core/storage/derived/briefing-basis.ts)
 * equals a fresh engine's briefing, over random histories on a 1.x folder: an agent starts a
 * session (the engine assembles and keeps the briefing and its basis), then other agents append
 * (warnings, needs, questions, findings, answers resolving earlier entries, status posts, their own
 * and others', in and out of the scope), decide, supersede, dismiss and claim, and the agent starts
 * again: whenever the basis answers (`updateBriefing`), its text is the one a new engine on a copy
 * of the folder assembles at the same time; and it does answer after appends alone, so the
 * comparison is not vacuous. A rewrite of the blackboard (dismiss), a decision, a claim: the basis
 * gives up and the engine assembles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { openWorkspace } from '../../../../src/core';
import { startSession } from '../../../../src/agents/session-start/session-start';
import { updateBriefing } from '../../../../src/core/storage/derived/briefing-cache';
import { briefingText } from '../../../../src/core/text/briefing-text';
import { prng } from '../../../support/prng';
import { tempProject, tw } from '../../../support/tmp';

const SCOPES = ['project', 'src/', 'src/auth/', 'src/auth/jwt.ts', 'src/db/pool.ts', 'docs/', 'lib/util/x.ts'];
const TYPES = ['warning', 'need', 'question', 'finding', 'status', 'answer', 'warning', 'finding'] as const;
const AGENT = 'starter';
/** The scopes briefed: the hooks' default, and folders the knowledge graph may or may not name (a scope it names takes the engine). */
const BRIEFED = ['project', 'project', 'project', 'docs/', 'src/db/'];
/** Rounds answered from the basis, over every seed: the comparisons are not vacuous. */
let answeredInAll = 0;
const HOUR = 3_600_000;

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8])
  test(`a briefing brought up to date from its basis is the engine's (seed ${seed})`, async () => {
    const random = prng(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
    const root = tempProject();
    let clock = Date.parse('2026-03-01T09:00:00.000Z');
    const now = () => new Date(clock);
    const engine = await openWorkspace(root, { warn: () => undefined, now });
    await engine.init();
    const ids: string[] = [];
    const decisions: string[] = [];
    const post = async (agent: string) => {
      const type = pick(TYPES);
      const e = await engine.post({
        entry_type: type,
        summary: `${type} ${ids.length}: ${'word '.repeat(1 + Math.floor(random() * 12))}`,
        detail: random() < 0.5 ? 'detail '.repeat(Math.floor(random() * 30)) : '',
        scope: pick(SCOPES),
        agent_id: agent,
        ...(type === 'answer' && ids.length ? { relates_to: [pick(ids)] } : {}),
      });
      ids.push(e.id);
      clock += Math.floor(random() * 20 * 60_000);
    };
    const decide = async () => {
      const d = await engine.decide({
        domain: 'd',
        scope: pick(SCOPES.slice(1)),
        summary: `decision ${decisions.length}`,
        context: 'c',
        rationale: `because ${'reason '.repeat(Math.floor(random() * 20))}`,
        agent_id: 'architect',
        confidence: pick(['high', 'medium', 'low'] as const),
        ...(decisions.length && random() < 0.2 ? { supersedes: pick(decisions) } : {}),
      });
      decisions.push(d.id);
      clock += 60_000;
    };
    for (let i = 0; i < 60; i++) await post(pick(['a', 'b', 'c', AGENT]));
    for (let i = 0; i < 8; i++) await decide();
    const scope = pick(BRIEFED);
    const maxTokens = pick([undefined, 150, 400, 1200]);
    const request = { agent_id: AGENT, role: 'Claude Code session', scope, ...(maxTokens ? { max_tokens: maxTokens } : {}) };

    for (let round = 0; round < 8; round++) {
      // The agent's session starts on the engine (as the hook does when the basis cannot answer).
      const started = await startSession(await openWorkspace(root, { warn: () => undefined, now }), tw(root), request, m => assert.fail(m));
      await started.keep();
      // Others write: appends, sometimes a decision, a dismiss or a claim.
      const kind = random();
      const only = kind < 0.75;
      clock += Math.floor(random() * 2 * HOUR);
      for (let i = 0, n = 1 + Math.floor(random() * 6); i < n; i++) await post(pick(['a', 'b', 'c', AGENT]));
      if (!only) {
        if (kind < 0.8) await decide();
        else if (kind < 0.9) await engine.dismiss({ ids: [pick(ids)], reason: 'gone' });
        else await engine.claim({ agent_id: 'holder', paths: [pick(SCOPES.slice(1))], reason: 'busy', ttl_ms: 24 * HOUR });
      }
      clock += Math.floor(random() * HOUR);
      // The engine's answer, on a copy of the folder, at the same time.
      const copy = tempProject(`copy-${seed}-${round}`);
      fs.rmSync(tw(copy), { recursive: true, force: true });
      fs.cpSync(tw(root), tw(copy), { recursive: true });
      const fresh = await openWorkspace(copy, { warn: () => undefined, now });
      const expected = briefingText(
        await fresh.assemble({ task: 'Start of an agent session', scope, agent_id: AGENT, ...(maxTokens ? { max_tokens: maxTokens } : {}) }),
      );
      const updated = await updateBriefing(tw(root), AGENT, scope, maxTokens, now());
      if (!updated) continue;
      answeredInAll++;
      assert.equal(updated.text, expected, `round ${round}: the basis's briefing is the engine's`);
      assert.equal(updated.offset, fs.statSync(tw(root, 'blackboard.jsonl')).size);
      // And a start right after it, on the folder unchanged since, has nothing changed since.
      const again = await updateBriefing(tw(root), AGENT, scope, maxTokens, now());
      if (again) assert.doesNotMatch(again.text, /### Changed in scope since your last briefing/);
    }
  });

test('the basis answered after appends in the histories above', () => {
  assert.ok(answeredInAll >= 10, `only ${answeredInAll} rounds were answered from the basis`);
});
