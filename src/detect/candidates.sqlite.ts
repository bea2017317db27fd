/**
 * A live run's candidate selection (read worker): which of the new segments each search could
 * match, from its anchors (anchors.sqlite.ts), so that its compiled SQL runs on those rows only. The cost
 * follows the anchors present in the new data, not the number of searches configured.
 *
 * Term anchors are resolved to dictionary ids once per worker and extended with the terms added
 * since (each anchor's condition run over the new dictionary rows only); the postings of the union
 * of those ids are then read for the new segments alone. Column anchors are tested on the distinct
 * values of the new segments' processes.
 */
import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/dialects/sqlite-statements.js';
import { globToRegExp } from '../query/values/glob.js';
import type { ColumnAnchor, MatchSpec, TermAnchor } from './match.plan.js';

const COLUMNS = ['process_name', 'parent_name', 'md5', 'parent_md5', 'sha256'] as const;

/** A segment written since the last live run, with its process's columns that anchors test. */
export interface FreshSegment {
  id: number;
  columns: Record<ColumnAnchor['column'], string>;
}

export function freshSegments(db: Database.Database, fromMs: number): FreshSegment[] {
  const rows = cachedStatement(db, `SELECT s.id, ${COLUMNS.map((c) => `p.${c}`).join(', ')}
    FROM segments s CROSS JOIN processes p ON p.id = s.process_id WHERE s.last_server_update_ms >= ?`).raw().all(fromMs) as [number, ...string[]][];
  return rows.map(([id, ...values]) => ({ id, columns: Object.fromEntries(COLUMNS.map((c, i) => [c, values[i] ?? ''])) as FreshSegment['columns'] }));
}

interface ResolvedTerms {
  ids: Set<number>;
  /** The dictionary id up to which `ids` is complete. */
  through: number;
}

const resolved = new WeakMap<Database.Database, Map<string, ResolvedTerms>>();
const patterns = new Map<string, RegExp>();

/**
 * Per spec (same order), the new segments it could match, ascending; undefined for a search with
 * no anchor, which is evaluated on every new segment.
 */
export function candidateSegments(db: Database.Database, specs: readonly MatchSpec[], fresh: readonly FreshSegment[], afterRow: number): (number[] | undefined)[] {
  const termIds = resolveTerms(db, specs);
  const onSegment = postings(db, specs, termIds, fresh, afterRow, false);
  const onProcess = postings(db, specs, termIds, fresh, afterRow, true);
  const byValue = new Map(COLUMNS.map((c) => [c, new Map<string, number[]>()]));
  for (const segment of fresh) {
    for (const column of COLUMNS) {
      const values = byValue.get(column)!;
      const value = segment.columns[column];
      const list = values.get(value);
      if (list) list.push(segment.id);
      else values.set(value, [segment.id]);
    }
  }
  return specs.map((spec) => {
    if (!spec.anchors) return undefined;
    const found = new Set<number>();
    for (const anchor of spec.anchors) {
      if (anchor.kind === 'terms') {
        const ids = termIds.get(termKey(anchor))!.ids;
        addPosted(found, ids, anchor.processWide ? onProcess : onSegment);
      } else {
        addColumnMatches(found, anchor, byValue.get(anchor.column)!);
      }
    }
    return [...found].sort((a, b) => a - b);
  });
}

function termKey(anchor: TermAnchor): string {
  return JSON.stringify([anchor.fields, anchor.where.sql, anchor.where.params], (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** Each term anchor's dictionary ids, as of this run's snapshot; anchors no longer asked for are forgotten. */
function resolveTerms(db: Database.Database, specs: readonly MatchSpec[]): Map<string, ResolvedTerms> {
  const cache = resolved.get(db) ?? new Map<string, ResolvedTerms>();
  const lastTermId = cachedStatement(db, 'SELECT coalesce(max(id), 0) FROM event_terms').pluck().get() as number;
  const used = new Map<string, ResolvedTerms>();
  let newFields: Set<string> | undefined;
  for (const spec of specs) {
    for (const anchor of spec.anchors ?? []) {
      if (anchor.kind !== 'terms') continue;
      const key = termKey(anchor);
      if (used.has(key)) continue;
      let entry = cache.get(key);
      const fields = anchor.fields.map(() => '?').join(', ');
      if (!entry) {
        const ids = cachedStatement(db, `SELECT id FROM event_terms WHERE field IN (${fields}) AND (${anchor.where.sql}) AND id <= ?`)
          .pluck().all(...anchor.fields, ...anchor.where.params, lastTermId) as number[];
        entry = { ids: new Set(ids), through: lastTermId };
      } else if (entry.through < lastTermId) {
        newFields ??= new Set(cachedStatement(db, 'SELECT DISTINCT field FROM event_terms WHERE id > ? AND id <= ?').pluck().all(entry.through, lastTermId) as string[]);
        // Only new dictionary rows are read (`+field` keeps SQLite on the id range rather than the field's index).
        if (anchor.fields.some((f) => newFields!.has(f))) {
          const ids = cachedStatement(db, `SELECT id FROM event_terms WHERE id > ? AND id <= ? AND +field IN (${fields}) AND (${anchor.where.sql})`)
            .pluck().all(entry.through, lastTermId, ...anchor.fields, ...anchor.where.params) as number[];
          for (const id of ids) entry.ids.add(id);
        }
        entry.through = lastTermId;
      }
      used.set(key, entry);
    }
  }
  resolved.set(db, used);
  return used;
}

/**
 * Term id → the new segments holding it: posted on the segment itself, or (`processWide`) on its
 * process (process_postings). New rows are read as a range of each term's postings, updated ones by
 * (term, row) lookups.
 */
function postings(
  db: Database.Database, specs: readonly MatchSpec[], termIds: Map<string, ResolvedTerms>,
  fresh: readonly FreshSegment[], afterRow: number, processWide: boolean,
): Map<number, number[]> {
  const union = new Set<number>();
  for (const spec of specs) {
    for (const anchor of spec.anchors ?? []) {
      if (anchor.kind === 'terms' && anchor.processWide === processWide) for (const id of termIds.get(termKey(anchor))!.ids) union.add(id);
    }
  }
  const found = new Map<number, number[]>();
  if (union.size === 0 || fresh.length === 0) return found;
  const ids = JSON.stringify([...union]);
  let rows: [number, number][];
  if (processWide) {
    rows = cachedStatement(db, `SELECT e.term_id, s.id FROM json_each(?) k CROSS JOIN segments s ON s.id = k.value
      CROSS JOIN json_each(?) w CROSS JOIN process_postings e ON e.term_id = w.value AND e.process_row = s.process_id`).raw().all(JSON.stringify(fresh.map((f) => f.id)), ids) as [number, number][];
  } else {
    const isFresh = new Set(fresh.map((f) => f.id));
    const updated = JSON.stringify(fresh.filter((f) => f.id <= afterRow).map((f) => f.id));
    rows = [
      ...(cachedStatement(db, `SELECT e.term_id, e.segment_row FROM json_each(?) k CROSS JOIN event_postings e
        ON e.term_id = k.value AND e.segment_row > ?`).raw().all(ids, afterRow) as [number, number][]).filter(([, row]) => isFresh.has(row)),
      ...cachedStatement(db, `SELECT e.term_id, e.segment_row FROM json_each(?) k CROSS JOIN json_each(?) u
        CROSS JOIN event_postings e ON e.term_id = k.value AND e.segment_row = u.value`).raw().all(ids, updated) as [number, number][],
    ];
  }
  for (const [termId, segment] of rows) {
    const list = found.get(termId);
    if (list) list.push(segment);
    else found.set(termId, [segment]);
  }
  return found;
}

function addPosted(found: Set<number>, ids: Set<number>, posted: Map<number, number[]>): void {
  if (ids.size <= posted.size) {
    for (const id of ids) for (const segment of posted.get(id) ?? []) found.add(segment);
  } else {
    for (const [id, segments] of posted) if (ids.has(id)) for (const segment of segments) found.add(segment);
  }
}

/** As loweredColumn compares: equality, a literal prefix, or a query pattern. */
function addColumnMatches(found: Set<number>, anchor: ColumnAnchor, values: Map<string, number[]>): void {
  const { kind, value } = anchor.match;
  if (kind === 'exact') {
    for (const segment of values.get(value) ?? []) found.add(segment);
    return;
  }
  let test: (candidate: string) => boolean;
  if (kind === 'prefix') {
    test = (candidate) => candidate.startsWith(value);
  } else {
    let pattern = patterns.get(value);
    if (!pattern) {
      if (patterns.size > 10_000) patterns.clear();
      pattern = globToRegExp(value);
      patterns.set(value, pattern);
    }
    test = (candidate) => pattern.test(candidate);
  }
  for (const [candidate, segments] of values) if (test(candidate)) for (const segment of segments) found.add(segment);
}
