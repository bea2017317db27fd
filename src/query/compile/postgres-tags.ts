/**
 * The detection tags as search fields on PostgreSQL: the same reading of the hit tables as
 * sqlite-tags.ts (which documents the fields), with PostgreSQL's booleans and keyword folding.
 */
import type { FieldPredicate, Match } from '../analysis.js';
import { raw, sql, type Fragment } from './fragment.js';
import { keywordCondition, PG_FALSE, rangeColumn } from './postgres-shared.js';

type Family = NonNullable<FieldPredicate['dynamic']>['family'];

/** A dynamic field of process search, as a condition on `p`. */
export function processTagCondition(predicate: FieldPredicate): Fragment {
  const { family, key } = predicate.dynamic!;
  if (family === 'watchlist') {
    const hits = sql`watchlist_process_hits h JOIN segments t ON t.id = h.segment_row WHERE h.watchlist_id = ${watchlistKey(key)}`;
    return sql`p.id IN (${grouped('t.process_id', hits, 'min(h.hit_ms)', predicate.match)})`;
  }
  const reports = raw('JOIN threat_reports r ON r.id = h.report_row JOIN feeds f ON f.id = r.feed_id');
  const hits = sql`feed_process_hits h JOIN segments t ON t.id = h.segment_row ${reports} WHERE f.name = ${key}`;
  return sql`p.id IN (${feedCondition('t.process_id', hits, family, predicate.match)})`;
}

/** A dynamic field of binary search, as a condition on the binaries row `alias`. */
export function binaryTagCondition(predicate: FieldPredicate, alias: string): Fragment {
  const { family, key } = predicate.dynamic!;
  const md5 = raw(`${alias}.md5`);
  if (family === 'watchlist') {
    const hits = sql`watchlist_binary_hits h WHERE h.watchlist_id = ${watchlistKey(key)}`;
    return sql`${md5} IN (${grouped('h.md5', hits, 'min(h.hit_ms)', predicate.match)})`;
  }
  const hits = sql`feed_binary_hits h JOIN threat_reports r ON r.id = h.report_row JOIN feeds f ON f.id = r.feed_id WHERE f.name = ${key}`;
  return sql`${md5} IN (${feedCondition('h.md5', hits, family, predicate.match)})`;
}

function feedCondition(document: string, hits: Fragment, family: Family, match: Match): Fragment {
  switch (family) {
    case 'alliance_score':
      return grouped(document, hits, 'max(r.score)', match);
    case 'alliance_updated':
      return grouped(document, hits, 'max(h.hit_ms)', match);
    case 'alliance_data':
      return sql`SELECT ${raw(document)} FROM ${hits} AND ${keywordCondition('r.report_id', match)}`;
    case 'alliance_link':
      return sql`SELECT ${raw(document)} FROM ${hits} AND ${keywordCondition('r.link', match)}`;
    default:
      return sql`SELECT ${raw(document)} FROM ${hits} AND ${PG_FALSE}`;
  }
}

function grouped(document: string, hits: Fragment, aggregate: string, match: Match): Fragment {
  if (match.kind === 'exists') return sql`SELECT ${raw(document)} FROM ${hits}`;
  return sql`SELECT ${raw(document)} FROM ${hits} GROUP BY ${raw(document)} HAVING ${rangeColumn(aggregate, match)}`;
}

/** Ids beyond BIGINT can name no watchlist. */
function watchlistKey(key: string): number {
  const id = Number(key);
  return Number.isSafeInteger(id) ? id : -1;
}
