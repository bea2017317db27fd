import { after, describe } from 'node:test';
import { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { forEachDialect } from '../../../test/support/dialects.js';
import { PooledDashboardStore, READ_HANDLERS } from '../../wiring/sqlite-read-stores.js';
import { PostgresDashboardStore } from './dashboard.postgres.js';
import { SqlDashboardStore } from './dashboard.store.js';
import { dashboardStoreContract } from './dashboard.store.contract.js';

describe('on the database connection', () => {
  forEachDialect((fresh) => dashboardStoreContract(fresh, (db) => new SqlDashboardStore(db)));
});

describe('in the read pool', () => {
  const pools: SqliteReadPool[] = [];
  after(() => Promise.all(pools.map((pool) => pool.close())));
  forEachDialect((fresh) => dashboardStoreContract(fresh, (db) => {
    const pool = new SqliteReadPool((db as SqliteDatabase).connection.name, { workers: 1, handlers: { [READ_HANDLERS.dashboard.name]: READ_HANDLERS.dashboard.url } });
    pools.push(pool);
    return new PooledDashboardStore(pool);
  }), { skip: { postgres: "the read pool is SQLite's: it opens the database file in worker threads" } });
});

describe('in one PostgreSQL snapshot', () => {
  forEachDialect((fresh) => dashboardStoreContract(fresh, (db) => new PostgresDashboardStore(db as PostgresDatabase)), {
    skip: { sqlite: 'the snapshot is PostgreSQL\'s' },
  });
});
