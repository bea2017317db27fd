/**
 * The recent-chunk cache keeps chunks only while a second output reads raw events: one output
 * alone gains nothing from it and pays for what it keeps.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RecentChunks } from './forwarder-raw.js';

it('keeps what a reader reads only while another reader has read within the window', () => {
  const recent = new RecentChunks(16, 1000);
  const [first, second] = [{}, {}];
  assert.equal(recent.reading(first, 0), false, 'alone');
  assert.equal(recent.reading(first, 500), false, 'still alone');
  assert.equal(recent.reading(second, 600), true, 'the first read 100 ms ago');
  assert.equal(recent.reading(first, 700), true, 'the second read 100 ms ago');
  assert.equal(recent.reading(first, 1500), true, 'the second read 900 ms ago, within the window');
  assert.equal(recent.reading(first, 1700), false, 'the second read 1,100 ms ago: it stopped reading');
  assert.equal(recent.reading(second, 1800), true, 'and is back');
});
