/**
 * The detection matcher's reads on PostgreSQL, from one snapshot (so the `through` it answers is
 * what it saw): watchlist and query-IOC searches over the segments written since a point, compiled
 * by the PostgreSQL compiler. Every search is evaluated as a search over the new segments (no
 * anchors: PostgreSQL plans the term lookups through its GIN index); feed value IOCs by
 * ioc-match.postgres.ts.
 */
import type { SqlExecutor } from '../db/database.js';
import type { PostgresDatabase } from '../db/dialects/postgres.js';
import { readSnapshot } from '../db/dialects/postgres-read.js';
import { compilePostgresBinaryCondition, compilePostgresProcessCondition } from '../query/compile/postgres.js';
import { iocsEverywhere, iocsInSegments } from './ioc-match.postgres.js';
import type { MatchJob, MatchReads, MatchResult, MatchSpec, SearchCompiler } from './match.plan.js';

export const compilePostgresSearch: SearchCompiler = (predicate, index, probe) => {
  const condition = index === 'events' ? compilePostgresProcessCondition(predicate, { probe }) : compilePostgresBinaryCondition(predicate);
  return { sql: condition.sql, params: condition.params, ...(index === 'events' && probe ? { anchors: null } : {}) };
};

export class PostgresMatchReads implements MatchReads {
  readonly compile = compilePostgresSearch;

  constructor(private readonly db: PostgresDatabase) {}

  run(job: MatchJob): Promise<MatchResult> {
    return readSnapshot(this.db, async (tx) => {
      const marks = (await tx.get<{ through: number; last: number; binaries: number }>(
        `SELECT (SELECT coalesce(max(last_server_update_ms), 0) FROM segments) AS through, (SELECT coalesce(max(id), 0) FROM segments) AS last,
           (SELECT coalesce(max(first_seen_ms), 0) FROM binaries) AS binaries`,
      ))!;
      const result: MatchResult = { throughMs: marks.through, lastRow: marks.last, binariesThroughMs: marks.binaries, checked: 0, found: [], iocHits: [] };
      if (job.kind === 'live') {
        result.checked = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM segments WHERE last_server_update_ms >= ?', [job.fromMs]))!.n;
        for (const spec of job.specs) result.found.push(result.checked > 0 ? await segmentsSince(tx, spec, job.fromMs) : []);
        if (result.checked > 0) result.iocHits = await iocsInSegments(tx, job.fromMs);
      } else if (job.kind === 'catch-up') {
        for (const spec of job.specs) {
          result.found.push(spec.index === 'events' ? await segmentsSince(tx, spec, spec.fromMs ?? 0) : await binariesSince(tx, spec));
        }
      } else {
        result.iocHits = await iocsEverywhere(tx, job.reportRows);
      }
      return result;
    });
  }
}

/** The untagged segments written since fromMs that the spec's search matches. */
async function segmentsSince(tx: SqlExecutor, spec: MatchSpec, fromMs: number): Promise<number[]> {
  const hits = spec.owner === 'watchlist' ? 'watchlist_process_hits h WHERE h.watchlist_id' : 'feed_process_hits h WHERE h.report_row';
  const rows = await tx.all<{ id: number }>(
    `SELECT s.id FROM segments s JOIN processes p ON p.id = s.process_id
     WHERE s.last_server_update_ms >= ? AND (${spec.sql}) AND NOT EXISTS (SELECT 1 FROM ${hits} = ? AND h.segment_row = s.id)`,
    [fromMs, ...spec.params, spec.id],
  );
  return rows.map((row) => row.id);
}

/** The untagged binaries first seen since the spec's start that its search matches. */
async function binariesSince(tx: SqlExecutor, spec: MatchSpec): Promise<string[]> {
  const hits = spec.owner === 'watchlist' ? 'watchlist_binary_hits h WHERE h.watchlist_id' : 'feed_binary_hits h WHERE h.report_row';
  const rows = await tx.all<{ md5: string }>(
    `SELECT b.md5 FROM binaries b WHERE b.first_seen_ms >= ? AND (${spec.sql}) AND NOT EXISTS (SELECT 1 FROM ${hits} = ? AND h.md5 = b.md5)`,
    [spec.fromMs ?? 0, ...spec.params, spec.id],
  );
  return rows.map((row) => row.md5);
}
