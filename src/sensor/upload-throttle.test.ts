/** A simulated sensor's reading of throttle instructions: which rule covers a time, and how uploads are spaced. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UploadThrottle } from './upload-throttle.js';

/** A local time on the given day of the week (0 Sunday) and hour. */
function localTime(dayOfWeek: number, hour: number, minute = 0): number {
  const date = new Date(2026, 10, 1, hour, minute);
  date.setDate(date.getDate() + ((dayOfWeek - date.getDay() + 7) % 7));
  return date.getTime();
}

describe('a sensor\'s upload throttle', () => {
  it('limits only inside a rule\'s day and hours, to the lowest of overlapping rules', () => {
    const throttle = new UploadThrottle();
    assert.equal(throttle.limitAt(localTime(1, 10)), undefined, 'no rules, no limit');
    throttle.apply({
      site_id: 1,
      rules: [
        { day_of_week: 1, from: 9, to: 17, bytes_per_second: 4000 },
        { day_of_week: 1, from: 12, to: 13, bytes_per_second: 1000 },
        { day_of_week: 3, from: 0, to: 24, bytes_per_second: 8000 },
      ],
    });
    assert.equal(throttle.limitAt(localTime(1, 9)), 4000);
    assert.equal(throttle.limitAt(localTime(1, 12, 30)), 1000);
    assert.equal(throttle.limitAt(localTime(1, 16, 59)), 4000);
    assert.equal(throttle.limitAt(localTime(1, 17)), undefined, 'to is exclusive');
    assert.equal(throttle.limitAt(localTime(1, 8, 59)), undefined);
    assert.equal(throttle.limitAt(localTime(2, 10)), undefined, 'another day');
    assert.equal(throttle.limitAt(localTime(3, 23, 59)), 8000);
    throttle.apply({ site_id: 1, rules: [] });
    assert.equal(throttle.limitAt(localTime(1, 12, 30)), undefined, 'an empty list lifts every limit');
  });

  it('spaces uploads so that they average the limit, and holds nothing back without one', () => {
    const throttle = new UploadThrottle();
    assert.equal(throttle.delayFor(4000, 2000, 10_000), 0, 'the first upload goes at once');
    assert.equal(throttle.delayFor(1000, 2000, 10_500), 1500, 'the next waits until the first is paid for (2 s)');
    assert.equal(throttle.delayFor(1000, 2000, 13_000), 0, '12.5 s was paid by 13 s');
    assert.equal(throttle.delayFor(50_000, undefined, 13_100), 0);
    assert.equal(throttle.delayFor(1000, 2000, 13_100), 0, 'unlimited uploads leave nothing owed');
  });
});
