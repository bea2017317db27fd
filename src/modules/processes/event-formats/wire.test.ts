/** Event record times, formatted per second once and reused, read as formatting each time would. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoMillis, pipeTime } from './wire.js';

describe('event record times', () => {
  it('match the Date formatting for times within, across and before seconds, in any order', () => {
    const base = Date.parse('2026-11-20T10:00:59.000Z');
    const times = [base, base + 1, base + 9, base + 10, base + 999, base + 1_000, base + 57, base - 1, 0, -1, -999, -1_000, -1_001, base + 86_400_000];
    for (const ms of [...times, ...times.reverse()]) {
      const iso = new Date(ms).toISOString();
      assert.equal(isoMillis(ms), iso, String(ms));
      assert.equal(pipeTime(ms), iso.slice(0, 23).replace('T', ' '), String(ms));
    }
  });
});
