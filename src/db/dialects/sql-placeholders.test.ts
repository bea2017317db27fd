import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { positionalPlaceholders } from './sql-placeholders.js';

describe('positional placeholders for PostgreSQL', () => {
  it('numbers each ? in order', () => {
    assert.equal(positionalPlaceholders('SELECT a FROM t WHERE b = ? AND c IN (?, ?)'), 'SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)');
  });

  it('leaves a ? inside literals, quoted identifiers and comments alone', () => {
    assert.equal(
      positionalPlaceholders(`SELECT '?', 'it''s ?', "odd?name" FROM t -- why?\nWHERE x = ?`),
      `SELECT '?', 'it''s ?', "odd?name" FROM t -- why?\nWHERE x = $1`,
    );
  });
});
