/**
 * Which copy of the timeline page's state a revived panel starts from (src/webview/shared/
 * timeline-messages.ts `newerState`): the workbench's, or the one the extension kept where it is
 * the same panel's and saved later (a window reload outran the workbench's save).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newerState, type TimelineState } from '../../../../src/webview/shared/timeline-messages';

const state = (id: string | undefined, rev: number | undefined, range: string): TimelineState => ({ id, rev, range, filter: {} });

test('the copy the extension kept wins when it is the same panel and saved later', () => {
  const got = state('p1', 3, 'day');
  const kept = state('p1', 4, 'week');
  assert.equal(newerState(got, kept), kept);
});

test("the workbench's copy wins when it is as new or newer", () => {
  const got = state('p1', 4, 'day');
  assert.equal(newerState(got, state('p1', 4, 'week')), got);
  assert.equal(newerState(got, state('p1', 2, 'week')), got);
});

test("another panel's kept state is never taken (another window on the same workspace)", () => {
  const got = state('p1', 1, 'day');
  assert.equal(newerState(got, state('p2', 9, 'week')), got);
});

test('without a workbench copy, or one from before ids, nothing kept is taken', () => {
  assert.equal(newerState(undefined, state('p1', 9, 'week')), undefined);
  const old = state(undefined, undefined, 'day');
  assert.equal(newerState(old, state('p1', 9, 'week')), old);
});

test('without a kept copy the workbench copy stands', () => {
  const got = state('p1', 2, 'day');
  assert.equal(newerState(got, undefined), got);
});
