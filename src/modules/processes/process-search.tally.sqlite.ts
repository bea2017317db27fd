/**
 * Facets over every document (an empty query, the console's opening view), kept up to date in a
 * read worker instead of recounted per request: per facet field, segments counted by (group,
 * value), advanced to each request's snapshot by reading only the segments written since.
 *
 * Exactness rests on two facts of the embedded store: segment row ids grow with every commit
 * and segments leave the counts only when a partition is unmounted or deleted, which bumps
 * event_storage.generation (a changed generation rebuilds the tally), so between those a
 * snapshot holds exactly the counted rows up to its largest id; and
 * a process's fields, once its start event has filled them, never change. A process seen before
 * its start event (no name yet) is "deferred": its segments are left out of the tally and counted
 * from process_segment_counts at each request until it has a name, and then moved in whole.
 */
import type Database from 'better-sqlite3';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import { FACETS, type FacetField } from './process-search.plan.js';

/** Past this many nameless processes the tally stops paying for itself; requests fall back to SQL. */
const MAX_DEFERRED = 10_000;

type Counts = Map<number, Map<string | number, number>>;

/** Where a read transaction stands: its largest segment row and the storage generation. */
interface Snapshot {
  maxRow: number;
  generation: number;
}

function add(counts: Counts, group: number, value: string | number, n: number): void {
  let values = counts.get(group);
  if (!values) counts.set(group, (values = new Map()));
  values.set(value, (values.get(value) ?? 0) + n);
}

class FieldTally {
  private counts: Counts = new Map();
  private deferred = new Set<number>();
  private lastRow = -1;
  private generation = -1;

  constructor(private readonly expr: string) {}

  /** Counts by value over the visible groups at the connection's snapshot, or undefined when it cannot say. */
  read(connection: Database.Database, at: Snapshot, groups: readonly number[] | null): Map<string | number, number> | undefined {
    const { maxRow, generation } = at;
    if (generation !== this.generation) {
      // Unmounted or deleted segments left the counts: older snapshots cannot use this tally, newer ones rebuild it.
      if (generation < this.generation) return undefined;
      this.lastRow = -1;
      this.generation = generation;
    }
    if (maxRow < this.lastRow) return undefined;
    if (this.lastRow < 0) this.build(connection, maxRow);
    else if (maxRow > this.lastRow) this.advance(connection, maxRow);
    if (this.deferred.size > MAX_DEFERRED) {
      this.lastRow = -1;
      return undefined;
    }
    const stillDeferred = this.deferredRows(connection);
    const result = new Map<string | number, number>();
    const visible = (group: number) => groups === null || groups.includes(group);
    for (const [group, values] of this.counts) {
      if (visible(group)) for (const [value, n] of values) result.set(value, (result.get(value) ?? 0) + n);
    }
    for (const row of stillDeferred) {
      if (visible(row.g)) result.set(row.v, (result.get(row.v) ?? 0) + row.n);
    }
    return result;
  }

  /** Whether the tally counts anything yet (built by a request or warmed). */
  get built(): boolean {
    return this.lastRow >= 0;
  }

  /** Takes counts made elsewhere (FacetTally.warm) at the given snapshot. */
  install(counts: Counts, deferred: Set<number>, at: Snapshot): void {
    this.counts = counts;
    this.deferred = deferred;
    this.lastRow = at.maxRow;
    this.generation = at.generation;
  }

  private build(connection: Database.Database, maxRow: number): void {
    this.counts = new Map();
    const rows = cachedStatement(connection, 
      `SELECT p.group_id AS g, ${this.expr} AS v, sum(c.segments) AS n FROM processes p
       JOIN process_segment_counts c ON c.process_row = p.id WHERE p.process_name <> '' GROUP BY 1, 2`,
    ).all() as { g: number; v: string | number; n: number }[];
    for (const row of rows) add(this.counts, row.g, row.v, row.n);
    this.deferred = namelessProcesses(connection);
    this.lastRow = maxRow;
  }

  private advance(connection: Database.Database, maxRow: number): void {
    const deferred = JSON.stringify([...this.deferred]);
    const rows = cachedStatement(connection, 
      `SELECT p.group_id AS g, ${this.expr} AS v, count(*) AS n FROM segments s JOIN processes p ON p.id = s.process_id
       WHERE s.id > ? AND s.id <= ? AND p.process_name <> '' AND p.id NOT IN (SELECT value FROM json_each(?)) GROUP BY 1, 2`,
    ).all(this.lastRow, maxRow, deferred) as { g: number; v: string | number; n: number }[];
    for (const row of rows) add(this.counts, row.g, row.v, row.n);
    const nameless = cachedStatement(connection, 
      `SELECT DISTINCT p.id FROM segments s JOIN processes p ON p.id = s.process_id
       WHERE s.id > ? AND s.id <= ? AND p.process_name = ''`,
    ).pluck().all(this.lastRow, maxRow) as number[];
    for (const id of nameless) this.deferred.add(id);
    this.lastRow = maxRow;
  }

  /** The deferred processes' counts; those that have a name by now join the tally for good. */
  private deferredRows(connection: Database.Database): { g: number; v: string | number; n: number }[] {
    if (this.deferred.size === 0) return [];
    const rows = cachedStatement(connection, 
      `SELECT p.id, p.process_name <> '' AS named, p.group_id AS g, ${this.expr} AS v, c.segments AS n FROM processes p
       JOIN process_segment_counts c ON c.process_row = p.id WHERE p.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify([...this.deferred])) as { id: number; named: number; g: number; v: string | number; n: number }[];
    const still = [];
    for (const row of rows) {
      if (row.named) {
        add(this.counts, row.g, row.v, row.n);
        this.deferred.delete(row.id);
      } else {
        still.push(row);
      }
    }
    return still;
  }
}

function namelessProcesses(connection: Database.Database): Set<number> {
  return new Set(cachedStatement(connection, "SELECT id FROM processes WHERE process_name = ''").pluck().all() as number[]);
}

function snapshotOf(connection: Database.Database): Snapshot {
  const [maxRow, generation] = cachedStatement(connection,
    'SELECT (SELECT coalesce(max(id), 0) FROM segments), (SELECT generation FROM event_storage)').raw().get() as [number, number];
  return { maxRow, generation };
}

/** Processes read per warm-up step: a few tens of milliseconds, so searches run between steps. */
const WARM_STEP = 5_000;

/** One worker's tallies, by facet field. */
export class FacetTally {
  private readonly fields = new Map<FacetField, FieldTally>();
  /** The warm-up under way: a request for one of its fields finishes it rather than building anew. */
  private warming: { fields: readonly FacetField[]; steps: Iterator<void> } | undefined;

  read(connection: Database.Database, field: FacetField, groups: readonly number[] | null): Map<string | number, number> | undefined {
    const tally = this.tally(field);
    if (!tally.built && this.warming?.fields.includes(field)) {
      const { steps } = this.warming;
      while (!steps.next().done);
    }
    return tally.read(connection, snapshotOf(connection), groups);
  }

  /**
   * Builds the tallies of `fields` at the connection's snapshot in steps of WARM_STEP processes,
   * reading each process once for all of them, so no request pays a build (~0.5 s per field on
   * the 2M-segment benchmark). A field a request built meanwhile keeps its own, fresher tally.
   */
  warm(connection: Database.Database, fields: readonly FacetField[]): Iterator<void> {
    const steps = this.warmSteps(connection, fields);
    this.warming = { fields, steps };
    return steps;
  }

  private *warmSteps(connection: Database.Database, fields: readonly FacetField[]): Generator<void, void, void> {
    const at = snapshotOf(connection);
    const lastProcess = cachedStatement(connection, 'SELECT coalesce(max(id), 0) FROM processes').pluck().get() as number;
    const counts: Counts[] = fields.map(() => new Map());
    const slice = cachedStatement(connection,
      `SELECT p.group_id, ${fields.map((field) => FACETS[field].expr).join(', ')}, c.segments FROM processes p
       JOIN process_segment_counts c ON c.process_row = p.id WHERE p.id > ? AND p.id <= ? AND p.process_name <> ''`,
    ).raw();
    for (let from = 0; from < lastProcess; from += WARM_STEP) {
      for (const row of slice.iterate(from, from + WARM_STEP) as Iterable<(string | number)[]>) {
        const group = row[0] as number;
        const n = row[fields.length + 1] as number;
        for (let i = 0; i < fields.length; i++) add(counts[i]!, group, row[i + 1]!, n);
      }
      yield;
    }
    const deferred = namelessProcesses(connection);
    fields.forEach((field, i) => {
      const tally = this.tally(field);
      if (!tally.built) tally.install(counts[i]!, new Set(deferred), at);
    });
    this.warming = undefined;
  }

  private tally(field: FacetField): FieldTally {
    let tally = this.fields.get(field);
    if (!tally) this.fields.set(field, (tally = new FieldTally(FACETS[field].expr)));
    return tally;
  }
}
