/**
 * The writer's postings reach SQLite sorted by (term, segment row), once each, whatever their ids,
 * and each term's count of segments grows by the postings actually inserted.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { sortPostings } from './event-store.postings.js';
import { insertCountedPairs, POSTINGS_PER_STATEMENT, prepareEventStatements } from './event-store.statements.sqlite.js';

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

describe('insertCountedPairs', () => {
  it('counts per term only the pairs the statements inserted, not those already stored', async () => {
    const dir = tempDir();
    const file = join(dir, 'vigil.db');
    const migrated = SqliteDatabase.open(file);
    await migrate(migrated, sqliteMigrations);
    await migrated.close();
    const db = new Database(file);
    try {
      const { insertPosting, insertPostings } = prepareEventStatements(db);
      db.prepare('INSERT INTO event_postings VALUES (1, 1), (2, 4)').run();
      // Enough pairs to run the many-pair statement once, and the one-pair statement for the rest.
      const pairs: number[] = [];
      for (let row = 0; row < POSTINGS_PER_STATEMENT + 3; row++) pairs.push(row % 2 ? 1 : 2, row);
      const gained = insertCountedPairs(sortPostings(pairs), insertPosting, insertPostings);
      const stored = new Map(db.prepare('SELECT term_id, count(*) FROM event_postings GROUP BY 1').raw().all() as [number, number][]);
      assert.deepEqual(gained, new Map([[1, stored.get(1)! - 1], [2, stored.get(2)! - 1]]));
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
