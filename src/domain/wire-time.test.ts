import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentTime, documentTimeMicros, documentTimeSeconds } from './wire-time.js';

describe('document times', () => {
  it('drops trailing zeros of the milliseconds, and the point when none are left', () => {
    assert.equal(documentTime(Date.parse('2017-02-01T03:52:34.137Z')), '2017-02-01T03:52:34.137Z');
    assert.equal(documentTime(Date.parse('2019-11-19T12:25:37.190Z')), '2019-11-19T12:25:37.19Z');
    assert.equal(documentTime(Date.parse('2017-09-07T00:52:15.800Z')), '2017-09-07T00:52:15.8Z');
    assert.equal(documentTime(Date.parse('2013-08-22T15:00:00.000Z')), '2013-08-22T15:00:00Z');
    assert.equal(documentTime(Date.parse('2013-08-22T15:00:10.000Z')), '2013-08-22T15:00:10Z');
  });

  it('gives signature times in whole seconds', () => {
    assert.equal(documentTimeSeconds(Date.parse('2016-04-12T09:21:00.999Z')), '2016-04-12T09:21:00Z');
  });

  it('gives search timestamps with six fractional digits, the epoch included', () => {
    assert.equal(documentTimeMicros(Date.parse('2018-02-06T18:40:06.467Z')), '2018-02-06T18:40:06.467000Z');
    assert.equal(documentTimeMicros(0), '1970-01-01T00:00:00.000000Z');
  });
});
