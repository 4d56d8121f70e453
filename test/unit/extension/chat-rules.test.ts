/**
 * The pure parts of the chat and the inbox: how slash-command prompts are read, the Continue in
 * Chat prompt, the follow-ups, and the inbox's arrival and burst rules (with a fake clock).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilityList, commonScope, matchHandoffs, parseDelegate, parseHandoff } from '../../../src/extension/chat/chat-parse';
import { continuePrompt, ContinuePromptFacts } from '../../../src/extension/present/continue-prompt';
import { followupsFor } from '../../../src/extension/chat/chat-followups';
import { ArrivalBatcher, arrivalMessage, newArrivals, Timers } from '../../../src/extension/editor/inbox-rules';
import type { VerifyResult } from '../../../src/core/records';

describe('slash command prompts', () => {
  test('/delegate: needs, urgency and summary in any order', () => {
    assert.deepEqual(parseDelegate('needs: testing, review — Write integration tests for the refresh flow'), {
      summary: 'Write integration tests for the refresh flow',
      capabilities: ['testing', 'review'],
    });
    assert.deepEqual(parseDelegate('Write tests for the refresh flow; needs: Testing urgency: high'), {
      summary: 'Write tests for the refresh flow',
      capabilities: ['testing'],
      urgency: 'high',
    });
    assert.deepEqual(parseDelegate('urgency: low Review the CSS. needs: css, a11y'), {
      summary: 'Review the CSS.',
      capabilities: ['css', 'a11y'],
      urgency: 'low',
    });
    assert.deepEqual(parseDelegate('needs: go -- port the parser'), { summary: 'port the parser', capabilities: ['go'] });
    // No capabilities named: the summary is the whole prompt, and the model may propose them.
    assert.deepEqual(parseDelegate('Someone should look at the flaky login test'), {
      summary: 'Someone should look at the flaky login test',
      capabilities: [],
    });
    assert.deepEqual(parseDelegate('needs: testing'), { summary: '', capabilities: ['testing'] });
  });

  test('/discover: tags separated by commas or spaces, with or without #, each once', () => {
    assert.deepEqual(capabilityList('testing review'), ['testing', 'review']);
    assert.deepEqual(capabilityList('#Testing, review and testing'), ['testing', 'review']);
    assert.deepEqual(capabilityList('  '), []);
  });

  test('/handoff: "to:" names the target, the rest is the summary', () => {
    assert.deepEqual(parseHandoff('to: reviewer JWT middleware done'), { summary: 'JWT middleware done', target: 'reviewer' });
    assert.deepEqual(parseHandoff('JWT middleware done, for:tester'), { summary: 'JWT middleware done', target: 'tester' });
    assert.deepEqual(parseHandoff('Hand this to the team'), { summary: 'Hand this to the team' });
  });

  test('/ack and /verify: exact id, id prefix, or all words of the summary', () => {
    const lines = [
      { id: '01M80HHKAVJT8FG2B08Q4NGZ4W', summary: 'JWT auth middleware implemented' },
      { id: '01M80HHKBXQEDY2H6KWG27Q6EF', summary: 'Login form ready for review' },
    ];
    assert.deepEqual(matchHandoffs('01m80hhkavjt8fg2b08q4ngz4w', lines), [lines[0]]);
    assert.deepEqual(matchHandoffs('01M80HHKB', lines), [lines[1]]);
    assert.deepEqual(matchHandoffs('01M80HHK', lines), lines, 'an ambiguous prefix matches both');
    assert.deepEqual(matchHandoffs('login REVIEW', lines), [lines[1]]);
    assert.deepEqual(matchHandoffs('login jwt', lines), []);
    assert.deepEqual(matchHandoffs('', lines), []);
  });

  test('the scope of several references is the folder they share', () => {
    assert.equal(commonScope(['src/auth/jwt.ts']), 'src/auth/jwt.ts');
    assert.equal(commonScope(['src/auth/jwt.ts', 'src/auth/session.ts']), 'src/auth/');
    assert.equal(commonScope(['src/auth/jwt.ts', 'src/api/users.ts']), 'src/');
    assert.equal(commonScope(['src/auth/', 'src/auth/jwt.ts']), 'src/auth/');
    assert.equal(commonScope(['README.md', 'src/api/users.ts']), undefined);
    assert.equal(commonScope([]), undefined);
  });
});

const HANDOFF_ID = '01M80HHKAVJT8FG2B08Q4NGZ4W';
const noDrift: VerifyResult = {
  handoff_id: HANDOFF_ID,
  intact: true,
  has_digest: true,
  computed_digest: 'sha256:x',
  drift: { decisions_no_longer_active: [], entries_removed: [], new_decisions: [], new_warnings: [] },
  drifted: false,
  chain: [HANDOFF_ID],
};

function facts(over: Partial<ContinuePromptFacts> = {}): ContinuePromptFacts {
  return {
    handoff: {
      id: HANDOFF_ID,
      summary: 'JWT auth middleware implemented',
      source_agent: 'backend-dev',
      target_agent: 'user-jane',
      scope: 'src/auth/',
      created_at: '2026-11-22T02:32:11.000Z',
      results: [
        { description: 'authenticate() implemented', status: 'completed', artifacts: ['src/auth/jwt.ts'] },
        { description: 'refresh flow', status: 'partial' },
      ],
    },
    decisions: [
      {
        id: '01M80HHJN7TF8W1N7EW8PHV7MT',
        summary: 'Use JWT with RS256',
        status: 'active',
        scope: 'src/auth/',
        rationale: 'Keys can be rotated without sharing a secret.',
      },
    ],
    warnings: [{ id: 'W1', summary: 'Token refresh has a race', status: 'current', agentId: 'reviewer', detail: 'Two tabs refresh at once.' }],
    findings: [],
    verify: noDrift,
    chain: [],
    agentId: 'user-jane',
    ...over,
  };
}

describe('Continue in Chat prompt', () => {
  test('carries the summary, results, decisions with rationale, warnings, drift and the acknowledgement step', () => {
    const p = continuePrompt(facts());
    assert.match(
      p,
      /^Continue the work of Twining handoff 01M80HHKAVJT8FG2B08Q4NGZ4W from backend-dev to user-jane \(written 2026-11-22 02:32:11 UTC, scope `src\/auth\/`\)\./,
    );
    assert.match(p, /call twining_acknowledge with handoff_id "01M80HHKAVJT8FG2B08Q4NGZ4W" and agent_id "user-jane"/);
    assert.match(p, /## What was handed over\n\nJWT auth middleware implemented/);
    assert.match(p, /- completed: authenticate\(\) implemented \(artifacts: src\/auth\/jwt\.ts\)\n- partial: refresh flow/);
    assert.match(p, /- Use JWT with RS256 \[01M80HHJN7TF8W1N7EW8PHV7MT\], scope `src\/auth\/`\n {2}Rationale: Keys can be rotated without sharing a secret\./);
    assert.match(p, /## Warnings\n\n- Token refresh has a race \[W1\] by reviewer\n {2}Two tabs refresh at once\./);
    assert.match(p, /## Findings\n\nNone were attached\./);
    assert.match(p, /## Changed since the handoff was written\n\nNothing drifted/);
    assert.doesNotMatch(p, /chain it continues/);
  });

  test('says what drifted, what was removed, and the chain it continues', () => {
    const verify: VerifyResult = {
      ...noDrift,
      drifted: true,
      drift: {
        decisions_no_longer_active: [{ id: '01M80HHJN7TF8W1N7EW8PHV7MT', summary: 'Use JWT with RS256', now: 'superseded' }],
        entries_removed: [],
        new_decisions: [],
        new_warnings: [{ id: 'W9', summary: 'Clock skew breaks expiry', scope: 'src/auth/jwt.ts', timestamp: '2026-11-22T03:00:00.000Z' }],
      },
      chain: [HANDOFF_ID, '01M80HHK025WC0FGZ865H3Q5TH'],
    };
    const p = continuePrompt(
      facts({
        verify,
        decisions: [{ id: '01M80HHJN7TF8W1N7EW8PHV7MT', summary: 'Use JWT with RS256', status: 'superseded' }],
        warnings: [{ id: 'W1', summary: 'Token refresh has a race', status: 'removed' }],
        chain: [{ id: '01M80HHK025WC0FGZ865H3Q5TH', summary: 'Auth skeleton', source_agent: 'architect', created_at: '2026-11-21T10:00:00.000Z' }],
      }),
    );
    assert.match(p, /- Use JWT with RS256 \(now superseded\)/);
    assert.match(p, /- Token refresh has a race \(since removed from the blackboard\) \[W1\]/);
    assert.match(p, /- Decision now superseded: Use JWT with RS256 \[01M80HHJN7TF8W1N7EW8PHV7MT\]/);
    assert.match(p, /- New warning in scope: Clock skew breaks expiry \(src\/auth\/jwt\.ts\) \[W9\]/);
    assert.match(p, /## The chain it continues\n\n- 01M80HHK025WC0FGZ865H3Q5TH: Auth skeleton \(from architect, 2026-11-21 10:00:00 UTC\)/);
  });

  test('an acknowledged handoff is not acknowledged again; unknown drift says so', () => {
    const f = facts({ verify: undefined });
    const p = continuePrompt({ ...f, handoff: { ...f.handoff, acknowledged_by: 'tester', results: [] } });
    assert.match(p, /already acknowledged by tester/);
    assert.doesNotMatch(p, /twining_acknowledge/);
    assert.match(p, /## Results\n\nNone recorded\./);
    assert.match(p, /Drift could not be checked/);
  });
});

describe('follow-ups', () => {
  test('suggest the next step from what the answer did', () => {
    const id = '01M80HHKAVJT8FG2B08Q4NGZ4W';
    assert.deepEqual(
      followupsFor({ metadata: { command: 'handoffs', forYou: [id] } }, 'me').map(f => [f.command, f.prompt]),
      [['ack', id]],
    );
    assert.deepEqual(
      followupsFor({ metadata: { command: 'ack', handoffId: id, scope: 'src/auth/' } }, 'me').map(f => [f.command, f.prompt]),
      [
        ['verify', id],
        ['why', 'src/auth/'],
      ],
    );
    assert.equal(followupsFor({ metadata: { command: 'status', forYou: [id, id] } }, 'me')[0].label, 'Show the 2 handoff(s) for you (me)');
    assert.deepEqual(followupsFor({ errorDetails: { message: 'x' }, metadata: { command: 'status' } }, 'me'), []);
    assert.ok(followupsFor({ metadata: { command: 'handoff', handoffId: id } }, 'me').every(f => f.participant === 'twining.chat'));
  });
});

/** A fake clock: timers fire when `advance` passes their time. */
function fakeTimers(): Timers & { advance(ms: number): void } {
  let now = 0;
  let next = 1;
  const pending = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    set: (fn, ms) => {
      const id = next++;
      pending.set(id, { at: now + ms, fn });
      return id;
    },
    clear: id => void pending.delete(id as number),
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...pending.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        pending.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
  };
}

const line = (id: string, source = 'backend-dev') => ({ id, summary: `summary ${id}`, source_agent: source });

describe('inbox rules', () => {
  test('new arrivals are unseen and not written by this extension; acknowledged ones are forgotten', () => {
    const first = newArrivals(new Set(['A']), [line('A'), line('B'), line('C')], new Set(['C']));
    assert.deepEqual(
      first.arrivals.map(a => a.id),
      ['B'],
    );
    assert.deepEqual([...first.known], ['A', 'B', 'C']);
    const second = newArrivals(first.known, [line('C')], new Set());
    assert.deepEqual(second.arrivals, []);
    assert.deepEqual([...second.known], ['C']);
  });

  test('a burst within the quiet time gives one flush with every handoff once', () => {
    const timers = fakeTimers();
    const flushed: string[][] = [];
    const b = new ArrivalBatcher<{ id: string }>(items => flushed.push(items.map(i => i.id)), timers, 1500, 6000);
    b.add([line('A')]);
    timers.advance(1000);
    b.add([line('B'), line('A')]);
    timers.advance(1000);
    b.add([line('C')]);
    assert.deepEqual(flushed, []);
    timers.advance(1499);
    assert.deepEqual(flushed, []);
    timers.advance(1);
    assert.deepEqual(flushed, [['A', 'B', 'C']]);
    assert.equal(b.waiting, false);
  });

  test('a steady stream is flushed at the latest maxWait after the first, then starts again', () => {
    const timers = fakeTimers();
    const flushed: string[][] = [];
    const b = new ArrivalBatcher<{ id: string }>(items => flushed.push(items.map(i => i.id)), timers, 1500, 6000);
    for (let i = 0; i < 10; i++) {
      b.add([line(`H${i}`)]);
      timers.advance(1000);
    }
    // Arrivals every second never leave 1.5 s of quiet: the first flush comes 6 s after the first.
    assert.deepEqual(flushed[0], ['H0', 'H1', 'H2', 'H3', 'H4', 'H5']);
    timers.advance(2000);
    assert.deepEqual(flushed[1], ['H6', 'H7', 'H8', 'H9']);
    assert.equal(flushed.length, 2);
  });

  test('the message: one handoff in full, several counted with their senders', () => {
    assert.equal(arrivalMessage([line('A')]), 'Handoff for you from backend-dev: summary A');
    assert.equal(arrivalMessage([line('A'), line('B', 'tester'), line('C')]), '3 handoffs for you, from backend-dev, tester.');
    assert.equal(arrivalMessage(['a', 'b', 'c', 'd', 'e'].map(s => line(s, s))), '5 handoffs for you, from a, b, c and 2 more.');
  });
});
