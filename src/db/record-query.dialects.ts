/**
 * What record queries (record-query.ts) write differently per dialect.
 * - LIKE: SQLite's folds ASCII case, PostgreSQL's does not; ILIKE over the schema's "C"-collated
 *   text folds ASCII only, so both match the same rows.
 * - A run of consecutive tokens in a JSON array of text tokens: the array joined with itself once
 *   per further token, by element position. Query tokens hold letters, digits and the wildcards
 *   only (textQueryTokens), so as GLOB patterns they need no escaping; PostgreSQL has no GLOB,
 *   and its LIKE is case-sensitive as GLOB is.
 */
import type { SqlDialect, SqlValue } from './database.js';
import { globToLike } from './like-pattern.js';

export interface RecordTextMatching {
  like: 'LIKE' | 'ILIKE';
  tokenRun(sql: string, wanted: readonly string[], wildcard: boolean, bind: (value: SqlValue) => string): string;
}

/** A longer phrase is matched by its first tokens: each further one joins the token list with itself again. */
const MAX_PHRASE_TOKENS = 12;

export const recordTextMatching: Readonly<Record<SqlDialect, RecordTextMatching>> = {
  sqlite: {
    like: 'LIKE',
    tokenRun(sql, wanted, wildcard, bind) {
      const run = wanted.slice(0, MAX_PHRASE_TOKENS);
      const from = [`json_each(${sql}) t0`, ...run.slice(1).map((_, i) => `JOIN json_each(${sql}) t${i + 1} ON t${i + 1}.key = t${i}.key + 1`)];
      const tests = run.map((token, i) => (wildcard ? `t${i}.value GLOB ${bind(token)}` : `t${i}.value = ${bind(token)}`));
      return `EXISTS (SELECT 1 FROM ${from.join(' ')} WHERE ${tests.join(' AND ')})`;
    },
  },
  postgres: {
    like: 'ILIKE',
    tokenRun(sql, wanted, wildcard, bind) {
      const run = wanted.slice(0, MAX_PHRASE_TOKENS);
      const elements = (i: number) => `jsonb_array_elements_text(${sql}::jsonb) WITH ORDINALITY t${i} (value, key)`;
      const from = [elements(0), ...run.slice(1).map((_, i) => `JOIN ${elements(i + 1)} ON t${i + 1}.key = t${i}.key + 1`)];
      const tests = run.map((token, i) => (wildcard ? `t${i}.value LIKE ${bind(globToLike(token))} ESCAPE '\\'` : `t${i}.value = ${bind(token)}`));
      return `EXISTS (SELECT 1 FROM ${from.join(' ')} WHERE ${tests.join(' AND ')})`;
    },
  },
};
