import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentTime, documentTimeSeconds } from './wire-time.js';

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
});
