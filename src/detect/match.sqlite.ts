/**
 * The detection matcher's read-pool handler: runs watchlist and query-IOC searches, and the value
 * IOC lookups, over the documents written since a point, inside one read transaction (so the
 * `through` it answers is exactly what it saw). It only finds documents a search has not tagged
 * yet; the request thread hands them to the detection sink.
 *
 * Live runs check the few segments written since the last run: each search is evaluated only on
 * those of them holding one of its anchors (all of them for a search without), joined in a fixed
 * order (the new segments first) with its event fields compiled as postings probes. Catch-up runs are searches over everything written since a watchlist's resume
 * point, planned by SQLite as a search would be.
 */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../db/dialects/sqlite-read.messages.js';
import { cachedStatement } from '../db/dialects/sqlite-statements.js';
import { SQLITE_FUNCTIONS } from '../query/compile/sqlite-functions.js';
import { candidateSegments, freshSegments, type FreshSegment } from './candidates.sqlite.js';
import { iocsEverywhere, iocsInSegments } from './ioc-match.sqlite.js';
import type { MatchJob, MatchResult, MatchSpec } from './match.plan.js';

export function setup(connection: Database.Database): void {
  for (const [name, fn] of Object.entries(SQLITE_FUNCTIONS)) connection.function(name, { deterministic: true }, fn);
}

export function run(db: Database.Database, job: MatchJob): ReadResult<MatchResult> {
  const marks = cachedStatement(db,
    `SELECT (SELECT coalesce(max(last_server_update_ms), 0) FROM segments), (SELECT coalesce(max(id), 0) FROM segments),
       (SELECT coalesce(max(first_seen_ms), 0) FROM binaries)`).raw().get() as [number, number, number];
  const result: MatchResult = { throughMs: marks[0], lastRow: marks[1], binariesThroughMs: marks[2], checked: 0, found: [], iocHits: [] };
  switch (job.kind) {
    case 'live': {
      const fresh = freshSegments(db, job.fromMs);
      result.checked = fresh.length;
      result.found = fresh.length > 0 ? inSegments(db, job.specs, fresh, job.afterRow) : job.specs.map(() => []);
      result.iocHits = iocsInSegments(db, job.iocVersion, job.afterRow, fresh.map((f) => f.id));
      break;
    }
    case 'catch-up':
      result.found = job.specs.map((spec) => (spec.index === 'events' ? segmentsSince(db, spec) : binariesSince(db, spec)));
      break;
    case 'iocs':
      result.iocHits = iocsEverywhere(db, job.reportRows);
      break;
  }
  return { result, more: false };
}

/** Searches without anchors evaluated together: one pass over the new segments per group rather than one per search. */
const SPECS_PER_PASS = 100;

/**
 * Per spec, the untagged new segments its search matches. An anchored search is evaluated only on
 * its candidates (candidates.sqlite.ts), usually none; the others are evaluated on every new
 * segment, a group of them per pass, each segment row read once per group, which says which of
 * them match it (their positions, as text).
 */
function inSegments(db: Database.Database, specs: readonly MatchSpec[], fresh: readonly FreshSegment[], afterRow: number): number[][] {
  const candidates = candidateSegments(db, specs, fresh, afterRow);
  const found: number[][] = specs.map(() => []);
  const everywhere: number[] = [];
  for (const [i, spec] of specs.entries()) {
    const rows = candidates[i];
    if (rows === undefined) everywhere.push(i);
    else if (rows.length > 0) {
      found[i] = cachedStatement(db, `SELECT s.id FROM json_each(?) k CROSS JOIN segments s ON s.id = k.value
        CROSS JOIN processes p ON p.id = s.process_id WHERE (${spec.sql})`).pluck().all(JSON.stringify(rows), ...spec.params) as number[];
    }
  }
  const list = JSON.stringify(fresh.map((f) => f.id));
  for (let at = 0; at < everywhere.length; at += SPECS_PER_PASS) {
    const group = everywhere.slice(at, at + SPECS_PER_PASS);
    // The positions are the matcher's own integers, not user input.
    const which = group.map((i) => `coalesce(CASE WHEN (${specs[i]!.sql}) THEN '${i},' END, '')`).join(' || ');
    const rows = cachedStatement(db,
      `SELECT s.id, ${which} FROM json_each(?) k CROSS JOIN segments s ON s.id = k.value CROSS JOIN processes p ON p.id = s.process_id`,
    ).raw().all(...group.flatMap((i) => specs[i]!.params), list) as [number, string][];
    for (const [segment, matched] of rows) {
      if (matched === '') continue;
      for (const position of matched.slice(0, -1).split(',')) found[Number(position)]!.push(segment);
    }
  }
  return found.map((segments, i) => (segments.length === 0 ? segments : untagged(db, specs[i]!, segments)));
}

function untagged(db: Database.Database, spec: MatchSpec, segments: number[]): number[] {
  const check = cachedStatement(db, `SELECT ${tagged(spec).replaceAll('s.id', '?')}`).pluck();
  return segments.filter((segment) => !check.get(spec.id, segment));
}

/** The untagged segments written since the spec's start that its search matches. */
function segmentsSince(db: Database.Database, spec: MatchSpec): number[] {
  return cachedStatement(db,
    `SELECT s.id FROM segments s JOIN processes p ON p.id = s.process_id
     WHERE s.last_server_update_ms >= ? AND (${spec.sql}) AND NOT ${tagged(spec)}`,
  ).pluck().all(spec.fromMs ?? 0, ...spec.params, spec.id) as number[];
}

/** The untagged binaries first seen since the spec's start that its search matches. */
function binariesSince(db: Database.Database, spec: MatchSpec): string[] {
  const table = spec.owner === 'watchlist' ? 'watchlist_binary_hits h WHERE h.watchlist_id' : 'feed_binary_hits h WHERE h.report_row';
  return cachedStatement(db,
    `SELECT b.md5 FROM binaries b WHERE b.first_seen_ms >= ? AND (${spec.sql}) AND NOT EXISTS (SELECT 1 FROM ${table} = ? AND h.md5 = b.md5)`,
  ).pluck().all(spec.fromMs ?? 0, ...spec.params, spec.id) as string[];
}

function tagged(spec: MatchSpec): string {
  return spec.owner === 'watchlist'
    ? 'EXISTS (SELECT 1 FROM watchlist_process_hits h WHERE h.watchlist_id = ? AND h.segment_row = s.id)'
    : 'EXISTS (SELECT 1 FROM feed_process_hits h WHERE h.report_row = ? AND h.segment_row = s.id)';
}
