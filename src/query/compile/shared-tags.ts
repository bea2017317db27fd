/**
 * The detection tags as search fields (reference core §3.4, query-language `watchlist_<id>`,
 * `alliance_*_<feed>`), compiled against the hit tables the detection sink writes
 * (src/detect/document-tags.ts shows the same tags on documents):
 *
 * - `watchlist_<id>` is the time the watchlist first tagged the document;
 * - `alliance_score_<feed>` the highest score of the feed's reports that tagged it,
 *   `alliance_updated_<feed>` its latest hit, `alliance_data_<feed>` / `alliance_link_<feed>` the
 *   report ids and links.
 *
 * A process document carries the tags of every segment of its process, so a process condition
 * selects processes (`p.id`), which also keeps the per-process counting shortcuts of process
 * search. Binaries are selected by md5. Shared by the dialects; each gives its keyword folding.
 */
import type { FieldPredicate, Match } from '../analysis.js';
import { raw, sql, type Fragment } from './fragment.js';
import { rangeColumnIn, type ConditionDialect } from './shared-conditions.js';

type Family = NonNullable<FieldPredicate['dynamic']>['family'];

/** A dynamic field of process search, as a condition on `p`. */
export function processTagConditionIn(dialect: ConditionDialect, predicate: FieldPredicate): Fragment {
  const { family, key } = predicate.dynamic!;
  if (family === 'watchlist') {
    const hits = sql`watchlist_process_hits h JOIN segments t ON t.id = h.segment_row WHERE h.watchlist_id = ${watchlistKey(key)}`;
    return sql`p.id IN (${grouped(dialect, 't.process_id', hits, 'min(h.hit_ms)', predicate.match)})`;
  }
  const reports = raw('JOIN threat_reports r ON r.id = h.report_row JOIN feeds f ON f.id = r.feed_id');
  const hits = sql`feed_process_hits h JOIN segments t ON t.id = h.segment_row ${reports} WHERE f.name = ${key}`;
  return sql`p.id IN (${feedCondition(dialect, 't.process_id', hits, family, predicate.match)})`;
}

/** A dynamic field of binary search, as a condition on the binaries row `alias`. */
export function binaryTagConditionIn(dialect: ConditionDialect, predicate: FieldPredicate, alias: string): Fragment {
  const { family, key } = predicate.dynamic!;
  const md5 = raw(`${alias}.md5`);
  if (family === 'watchlist') {
    const hits = sql`watchlist_binary_hits h WHERE h.watchlist_id = ${watchlistKey(key)}`;
    return sql`${md5} IN (${grouped(dialect, 'h.md5', hits, 'min(h.hit_ms)', predicate.match)})`;
  }
  const hits = sql`feed_binary_hits h JOIN threat_reports r ON r.id = h.report_row JOIN feeds f ON f.id = r.feed_id WHERE f.name = ${key}`;
  return sql`${md5} IN (${feedCondition(dialect, 'h.md5', hits, family, predicate.match)})`;
}

function feedCondition(dialect: ConditionDialect, document: string, hits: Fragment, family: Family, match: Match): Fragment {
  switch (family) {
    case 'alliance_score':
      return grouped(dialect, document, hits, 'max(r.score)', match);
    case 'alliance_updated':
      return grouped(dialect, document, hits, 'max(h.hit_ms)', match);
    case 'alliance_data':
      return sql`SELECT ${raw(document)} FROM ${hits} AND ${dialect.keyword('r.report_id', match)}`;
    case 'alliance_link':
      return sql`SELECT ${raw(document)} FROM ${hits} AND ${dialect.keyword('r.link', match)}`;
    default:
      return dialect.false;
  }
}

/** The documents whose hits, taken together, give a value (`aggregate`) that matches. */
function grouped(dialect: ConditionDialect, document: string, hits: Fragment, aggregate: string, match: Match): Fragment {
  if (match.kind === 'exists') return sql`SELECT ${raw(document)} FROM ${hits}`;
  return sql`SELECT ${raw(document)} FROM ${hits} GROUP BY ${raw(document)} HAVING ${rangeColumnIn(dialect, aggregate, match)}`;
}

/** Ids beyond 64-bit integers can name no watchlist. */
function watchlistKey(key: string): number {
  const id = Number(key);
  return Number.isSafeInteger(id) ? id : -1;
}
