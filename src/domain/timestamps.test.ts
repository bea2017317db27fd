import assert from 'node:assert/strict';
import { it } from 'node:test';
import { postgresTimestamp } from './timestamps.js';

it('formats epoch milliseconds as Python prints an aware UTC datetime', () => {
  assert.equal(postgresTimestamp(Date.UTC(2021, 5, 10, 6, 25, 58, 431)), '2021-06-10 06:25:58.431000+00:00');
  assert.equal(postgresTimestamp(Date.UTC(2021, 5, 10, 6, 25, 58, 7)), '2021-06-10 06:25:58.007000+00:00');
  assert.equal(postgresTimestamp(Date.UTC(2021, 5, 10, 6, 25, 58)), '2021-06-10 06:25:58+00:00');
});
