/**
 * Where the dashboard's counts come from. The embedded store counts in the read pool's workers
 * (dashboard.sqlite.ts, through wiring/sqlite-read-stores.ts): on a store of a million processes
 * and half a million recent hits the counts take a few hundred milliseconds, which the request
 * thread must not spend. SqlDashboardStore runs the same statements (dashboard.queries.ts) on a
 * SqlDatabase; dashboard.store.contract.ts is the contract both must pass.
 */
import type { SqlDatabase } from '../../db/database.js';
import { countsOf, countStatements, type CountsRequest, type StoreCounts } from './dashboard.queries.js';

export type { CountsRequest, StoreCounts } from './dashboard.queries.js';

export interface DashboardStore {
  /**
   * Counts within the request's groups (null: every group). A binary counts when a sensor of those
   * groups saw it; a binary hit when its binary does; a process hit when its process ran there.
   */
  counts(request: CountsRequest): Promise<StoreCounts>;
}

export class SqlDashboardStore implements DashboardStore {
  constructor(private readonly db: SqlDatabase) {}

  async counts(request: CountsRequest): Promise<StoreCounts> {
    const rows = await Promise.all(countStatements(request).map(({ sql, params }) => this.db.all<Record<string, number | string | null>>(sql, params)));
    return countsOf(request, rows);
  }
}

