/** Date forms (reference §4), against an injected now. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTimeBound, parseTimeRange, parseTimeValue } from './date.js';

const now = Date.UTC(2024, 4, 1, 12);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const span = (r: { from: number | null; to: number | null } | { invalid: string }) =>
  'invalid' in r ? r : [iso(r.from), iso(r.to)];

describe('dates', () => {
  it('reads the five documented forms', () => {
    assert.deepEqual(span(parseTimeValue('2013-12-01', now)), ['2013-12-01T00:00:00.000Z', '2013-12-02T00:00:00.000Z']);
    assert.deepEqual(span(parseTimeValue('2013-12-01T22:15:00', now)), ['2013-12-01T22:15:00.000Z', '2013-12-02T22:15:00.000Z']);
    assert.deepEqual(span(parseTimeRange('2013-12-01', '2013-12-03', now)), ['2013-12-01T00:00:00.000Z', '2013-12-04T00:00:00.000Z']);
    assert.deepEqual(span(parseTimeRange('2013-12-01T22:15:00', '2013-12-01T23:14:59', now)), ['2013-12-01T22:15:00.000Z', '2013-12-01T23:15:00.000Z']);
    assert.deepEqual(span(parseTimeValue('-24h', now)), ['2024-04-30T12:00:00.000Z', null]);
  });

  it('counts relative times back from the injected now in s, m, h, d and w', () => {
    for (const [text, expected] of [['-30s', '2024-05-01T11:59:30.000Z'], ['-1440m', '2024-04-30T12:00:00.000Z'],
      ['-2D', '2024-04-29T12:00:00.000Z'], ['-1w', '2024-04-24T12:00:00.000Z']] as const) {
      assert.equal(iso((parseTimeBound(text, now) as { from: number }).from), expected, text);
    }
  });

  it('keeps the precision written for range ends, and honours zones', () => {
    assert.deepEqual(span(parseTimeRange(null, '2024-01-01T10:00', now)), [null, '2024-01-01T10:01:00.000Z']);
    assert.deepEqual(span(parseTimeRange(null, '2024-01-01T10:00:00.5', now)), [null, '2024-01-01T10:00:00.501Z']);
    assert.deepEqual(span(parseTimeRange('2024-01-01T10:00:00-05:00', null, now)), ['2024-01-01T15:00:00.000Z', null]);
  });

  it('rolls a day past the month end over, as the doc\'s 2014-09-31 needs, and refuses the impossible', () => {
    assert.equal(iso((parseTimeBound('2014-09-31', now) as { from: number }).from), '2014-10-01T00:00:00.000Z');
    for (const text of ['2014-00-01', '2014-01-32', '2014-01-01T24:00', 'yesterday', '-5y', '1700000000']) {
      assert.ok('invalid' in parseTimeBound(text, now), text);
    }
  });
});
