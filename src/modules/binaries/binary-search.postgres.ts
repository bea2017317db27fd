/**
 * Binary search on PostgreSQL, the same reads as the embedded store's (binary-search.sqlite.ts)
 * from one snapshot, kept for the later pages of a search (postgres-paging.ts): the exact count, a page ordered by the sort key then md5, the observations
 * the caller may see, and facets. The query comes from the PostgreSQL compiler; the plan's sort
 * keys and facets, written as SQLite JSON expressions, are read here through jsonb.
 */
import type { SqlExecutor, SqlValue } from '../../db/database.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import type { PostgresPagingSnapshots } from '../../db/dialects/postgres-paging.js';
import { readSnapshot, timedRead } from '../../db/dialects/postgres-read.js';
import { postgresMetadataExpr } from '../../query/compile/postgres-binary.js';
import { compilePostgresBinaryCondition } from '../../query/compile/postgres.js';
import type { PagingSnapshot } from '../../query/search-request.js';
import {
  BINARY_SORTS, binaryFacet, facetCounts, SEEN_BY, type BinaryObservationRow, type BinaryRow, type BinarySearchRequest,
  type BinarySearchResult,
} from './binary-search.plan.js';
import type { BinarySearchStore } from './binary-search.store.js';

const placeholders = (values: readonly unknown[]) => values.map(() => '?').join(', ');

export class PostgresBinarySearchStore implements BinarySearchStore {
  /**
   * timeLimitMs: each statement's limit; a search past it is the client's QueryTimeoutError.
   * snapshots: where the pages of a search keep their snapshot; without, every page reads afresh.
   */
  constructor(private readonly db: PostgresDatabase, private readonly timeLimitMs?: number, private readonly snapshots?: PostgresPagingSnapshots) {}

  async search({ predicate, ...request }: BinarySearchRequest, paging: PagingSnapshot): Promise<BinarySearchResult> {
    const { visibleGroups } = request;
    if (visibleGroups?.length === 0) return { total: 0, rows: [], facets: {} };
    const condition = compilePostgresBinaryCondition(predicate, { observedInGroups: visibleGroups ?? undefined });
    if (!this.snapshots) return timedRead(() => readSnapshot(this.db, (reader) => new BinarySearch(reader, request, condition).execute(), this.timeLimitMs));
    return timedRead(() => this.snapshots!.read(paging, async (reader) => {
      const result = await new BinarySearch(reader, request, condition).execute();
      return { result, more: request.start + request.rows < result.total };
    }, this.timeLimitMs));
  }
}

class BinarySearch {
  private readonly seenBy: string;
  private readonly where: string;
  private readonly params: SqlValue[];
  private readonly groups: SqlValue[];

  constructor(
    private readonly tx: SqlExecutor,
    private readonly request: Omit<BinarySearchRequest, 'predicate'>,
    condition: { sql: string; params: readonly SqlValue[] },
  ) {
    const { visibleGroups } = request;
    this.groups = visibleGroups ?? [];
    this.seenBy = visibleGroups === null ? '' : ` AND se.group_id IN (${placeholders(visibleGroups)})`;
    this.where = visibleGroups === null
      ? `(${condition.sql})`
      : `(${condition.sql}) AND EXISTS (SELECT 1 FROM binary_observations o JOIN sensors se ON se.id = o.sensor_id WHERE o.md5 = b.md5${this.seenBy})`;
    this.params = [...condition.params, ...this.groups];
  }

  async execute(): Promise<BinarySearchResult> {
    const { sort, start, rows } = this.request;
    const total = (await this.tx.get<{ n: number }>(`SELECT count(*) AS n FROM binaries b WHERE ${this.where}`, this.params))!.n;
    const dir = sort.descending ? 'DESC' : 'ASC';
    const md5s = rows > 0 && start < total
      ? (await this.tx.all<{ md5: string }>(
        `SELECT b.md5 FROM binaries b WHERE ${this.where} ORDER BY ${postgresMetadataExpr(BINARY_SORTS[sort.key])} ${dir}, b.md5 ${dir} LIMIT ? OFFSET ?`,
        [...this.params, rows, start],
      )).map((row) => row.md5)
      : [];
    const facets: BinarySearchResult['facets'] = {};
    for (const field of this.request.facets) {
      const spec = binaryFacet(field);
      if (spec) facets[field] = facetCounts(spec, await this.facetRows(spec), this.request.nowMs);
    }
    return { total, rows: await this.fetch(md5s), facets };
  }

  private async fetch(md5s: readonly string[]): Promise<BinaryRow[]> {
    if (md5s.length === 0) return [];
    const found = await this.tx.all<Omit<BinaryRow, 'observations'>>(
      `SELECT md5, sha256, size, stored_size, metadata, first_seen_ms, last_seen_ms FROM binaries WHERE md5 IN (${placeholders(md5s)})`, md5s,
    );
    const observations = await this.tx.all<BinaryObservationRow & { md5: string }>(
      `SELECT o.md5, o.sensor_id, o.observed_filename, o.last_seen_ms, se.computer_name, se.os_type, se.group_id, g.name AS group_name
       FROM binary_observations o LEFT JOIN sensors se ON se.id = o.sensor_id LEFT JOIN sensor_groups g ON g.id = se.group_id
       WHERE o.md5 IN (${placeholders(md5s)})${this.seenBy} ORDER BY o.sensor_id, o.observed_filename`,
      [...md5s, ...this.groups],
    );
    const byMd5 = new Map(found.map((row) => [row.md5, { ...row, observations: [] as BinaryObservationRow[] }]));
    for (const { md5, ...observation } of observations) byMd5.get(md5)?.observations.push(observation);
    return md5s.map((md5) => byMd5.get(md5)!);
  }

  private async facetRows(spec: NonNullable<ReturnType<typeof binaryFacet>>): Promise<[unknown, number][]> {
    const expr = postgresMetadataExpr(spec.expr.replace(SEEN_BY, this.seenBy));
    const seesGroups = spec.expr.includes(SEEN_BY);
    const rows = spec.observed
      ? await this.tx.all<{ name: unknown; n: number }>(
        `SELECT ${expr} AS name, count(DISTINCT o.md5) AS n FROM binary_observations o JOIN sensors se ON se.id = o.sensor_id
         LEFT JOIN sensor_groups g ON g.id = se.group_id WHERE o.md5 IN (SELECT b.md5 FROM binaries b WHERE ${this.where})${this.seenBy} GROUP BY 1`,
        [...this.params, ...this.groups],
      )
      : await this.tx.all<{ name: unknown; n: number }>(
        `SELECT ${expr} AS name, count(*) AS n FROM binaries b WHERE ${this.where} GROUP BY 1`,
        [...(seesGroups ? this.groups : []), ...this.params],
      );
    return rows.map((row) => [row.name, row.n]);
  }
}
