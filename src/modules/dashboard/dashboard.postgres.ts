/** The dashboard's counts on PostgreSQL: dashboard.queries.ts's statements, read from one snapshot. */
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { readSnapshot } from '../../db/dialects/postgres-read.js';
import { countsOf, countStatements, type CountsRequest, type StoreCounts } from './dashboard.queries.js';
import type { DashboardStore } from './dashboard.store.js';

export class PostgresDashboardStore implements DashboardStore {
  constructor(private readonly db: PostgresDatabase) {}

  counts(request: CountsRequest): Promise<StoreCounts> {
    return readSnapshot(this.db, async (reader) => {
      const rows: Record<string, number | string | null>[][] = [];
      for (const { sql, params } of countStatements(request)) rows.push(await reader.all(sql, params));
      return countsOf(request, rows);
    });
  }
}
