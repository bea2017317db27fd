/** The writer's postings reach SQLite sorted by (term, segment row), once each, whatever their ids. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sortPostings } from './event-store.postings.js';

describe('sortPostings', () => {
  it('sorts the pairs by term, then segment row, and drops repeated pairs', () => {
    const pairs = [7, 120, 3, 130, 7, 101, 3, 130, 1, 999, 7, 120];
    assert.deepEqual(sortPostings(pairs), [1, 999, 3, 130, 7, 101, 7, 120]);
  });

  it('keeps large ids exact', () => {
    const big = 2 ** 40;
    assert.deepEqual(sortPostings([big + 2, 5, big + 1, 9, big + 1, 6]), [big + 1, 6, big + 1, 9, big + 2, 5]);
  });

  it('leaves the pairs as they are when their ids cannot be packed exactly', () => {
    const huge = 2 ** 45;
    assert.deepEqual(sortPostings([huge, 1, 2, 2 ** 20]), [huge, 1, 2, 2 ** 20]);
  });
});
