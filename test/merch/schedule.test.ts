import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLive, normaliseScheduleTime, scheduleInstant, windowOf } from '../../src/shared/schedule.js';

const at = (iso: string) => Date.parse(iso);

describe('schedule times', () => {
  it('normalises wall-clock times and instants, and refuses what is neither', () => {
    assert.equal(normaliseScheduleTime('2026-12-24T18:00'), '2026-12-24T18:00:00');
    assert.equal(normaliseScheduleTime('2026-12-24T18:00:30'), '2026-12-24T18:00:30');
    assert.equal(normaliseScheduleTime('2026-12-24T18:00:00Z'), '2026-12-24T18:00:00.000Z');
    assert.equal(normaliseScheduleTime('2026-12-24T18:00:00+02:00'), '2026-12-24T16:00:00.000Z');
    assert.equal(normaliseScheduleTime('2026-12-24T18:00:00.5-05:30'), '2026-12-24T23:30:00.500Z');
    for (const bad of [
      '2026-12-24T10:00+99:99',
      '2026-12-24T10:00+15:00',
      '2026-12-24T10:00-05:60',
      '2026-12-24',
      '2026-02-30T10:00',
      '2026-12-24T24:00',
      '2026-12-24T18:60',
      '24/12/2026 18:00',
      '2026-12-24T18:00+2',
      '',
      'now',
    ]) {
      assert.equal(normaliseScheduleTime(bad), null, bad);
    }
  });

  it('reads a wall-clock time in the venue timezone, far from UTC', () => {
    // Local midnight in Auckland (UTC+13 in summer) is 11:00 UTC the day before.
    assert.equal(scheduleInstant('2026-12-24T00:00:00', 'Pacific/Auckland'), at('2026-12-23T11:00:00Z'));
    assert.equal(scheduleInstant('2026-12-24T00:00:00', 'Pacific/Honolulu'), at('2026-12-24T10:00:00Z'));
    assert.equal(scheduleInstant('2026-12-24T00:00:00', 'UTC'), at('2026-12-24T00:00:00Z'));
    // An instant is an instant, whatever the venue's zone.
    assert.equal(scheduleInstant('2026-12-24T00:00:00.000Z', 'Pacific/Auckland'), at('2026-12-24T00:00:00Z'));
  });

  it('opens a window at local midnight in Auckland and closes it at the next', () => {
    const w = windowOf({ isActive: true, startsAt: '2026-12-24T00:00:00', endsAt: '2026-12-25T00:00:00' }, 'Pacific/Auckland');
    assert.equal(isLive(w, at('2026-12-23T10:59:59.999Z')), false);
    assert.equal(isLive(w, at('2026-12-23T11:00:00Z')), true);
    assert.equal(isLive(w, at('2026-12-24T10:59:59Z')), true);
    assert.equal(isLive(w, at('2026-12-24T11:00:00Z')), false);
  });

  it('handles the spring-forward gap: a skipped wall-clock time is the moment after the jump', () => {
    // Europe/London jumps from 01:00 GMT to 02:00 BST at 01:00 UTC on 2026-03-29.
    assert.equal(scheduleInstant('2026-03-29T01:30:00', 'Europe/London'), at('2026-03-29T01:30:00Z'));
    assert.equal(scheduleInstant('2026-03-29T00:30:00', 'Europe/London'), at('2026-03-29T00:30:00Z'));
    assert.equal(scheduleInstant('2026-03-29T03:00:00', 'Europe/London'), at('2026-03-29T02:00:00Z'));
    const w = windowOf({ isActive: true, startsAt: '2026-03-29T00:00:00', endsAt: '2026-03-29T06:00:00' }, 'Europe/London');
    assert.equal(isLive(w, at('2026-03-28T23:59:59Z')), false);
    assert.equal(isLive(w, at('2026-03-29T00:00:00Z')), true);
    // 06:00 BST is 05:00 UTC: the window is 5 hours long that night.
    assert.equal(isLive(w, at('2026-03-29T04:59:59Z')), true);
    assert.equal(isLive(w, at('2026-03-29T05:00:00Z')), false);
  });

  it('handles the fall-back overlap: a repeated wall-clock time is its first occurrence', () => {
    // Europe/London falls back from 02:00 BST to 01:00 GMT at 01:00 UTC on 2026-10-25.
    assert.equal(scheduleInstant('2026-10-25T01:30:00', 'Europe/London'), at('2026-10-25T00:30:00Z'));
    const w = windowOf({ isActive: true, startsAt: null, endsAt: '2026-10-25T01:30:00' }, 'Europe/London');
    assert.equal(isLive(w, at('2026-10-25T00:29:59Z')), true);
    assert.equal(isLive(w, at('2026-10-25T00:30:00Z')), false);
    // The second 01:10 local (01:10 UTC) does not reopen it.
    assert.equal(isLive(w, at('2026-10-25T01:10:00Z')), false);
  });

  it('hides what is inactive, whatever its schedule, and shows an open-ended active one', () => {
    assert.equal(isLive(windowOf({ isActive: false, startsAt: null, endsAt: null }, 'UTC'), Date.now()), false);
    assert.equal(isLive(windowOf({ isActive: true, startsAt: null, endsAt: null }, 'UTC'), Date.now()), true);
  });
});
