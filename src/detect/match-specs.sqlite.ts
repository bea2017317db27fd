/**
 * The embedded store's search compiler for the matcher (match.plan.ts SearchCompiler): the query
 * compiled to SQLite over `s` and `p` (events) or `b` (modules) and, for a live run's probe, the
 * anchors that pick the new segments worth evaluating it on.
 */
import { compileBinaryCondition, compileProcessCondition } from '../query/compile/sqlite.js';
import { searchAnchors } from './anchors.sqlite.js';
import type { SearchCompiler } from './match.plan.js';

export const compileSqliteSearch: SearchCompiler = (predicate, index, probe) => {
  const condition = index === 'events' ? compileProcessCondition(predicate, { probe }) : compileBinaryCondition(predicate);
  const anchors = index === 'events' && probe ? { anchors: searchAnchors(predicate) } : {};
  return { sql: condition.sql, params: condition.params, ...anchors };
};
