import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { formatRecordTime, parseClientTime } from './record-time.js';

describe('record times', () => {
  const zone = process.env.TZ;
  after(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('are written in the server\'s zone with its offset, microseconds padded, as Carbon Black wrote them', () => {
    const ms = Date.parse('2018-02-06T18:44:40.002Z');
    process.env.TZ = 'America/Chicago';
    assert.equal(formatRecordTime(ms), '2018-02-06 12:44:40.002000-06:00');
    assert.equal(formatRecordTime(Date.parse('2018-07-01T05:00:00Z')), '2018-07-01 00:00:00.000000-05:00', 'daylight saving time');
    process.env.TZ = 'Asia/Kolkata';
    assert.equal(formatRecordTime(ms), '2018-02-07 00:14:40.002000+05:30');
    process.env.TZ = 'UTC';
    assert.equal(formatRecordTime(ms), '2018-02-06 18:44:40.002000+00:00');
  });

  it('read back what clients send: this format, ISO 8601 and RFC 822, and nothing else', () => {
    const ms = Date.UTC(2020, 0, 1);
    for (const text of ['2020-01-01 00:00:00.000000+00:00', '2019-12-31 18:00:00-06:00', '2020-01-01T00:00:00Z', 'Wed, 01 Jan 2020 00:00:00 GMT']) {
      assert.equal(parseClientTime(text), ms, text);
    }
    for (const text of ['soon', '1', 'tomorrow 10:00', '2020-13-45 99:00:00', '']) assert.equal(parseClientTime(text), undefined, text);
  });
});
