/**
 * The search dataset on PostgreSQL: generated once into a database of its own (`search_dataset`)
 * on a PostgreSQL server, and copied for each run as a new database made from it as a template,
 * so runs start from the same data and never change it. The server is an embedded PostgreSQL whose
 * cluster is kept in the dataset's dir (durable defaults, bench/pg-ingest/server.ts), or the existing
 * server `--database-url` names (a URL of any database there; the dataset's databases sit beside it).
 */
import { join } from 'node:path';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { startBenchPostgres } from '../pg-ingest/server.js';

const DATASET = 'search_dataset';
const RUN = 'search_run';

export interface DatasetServer {
  /** The dataset's database. */
  datasetUrl: string;
  /** Makes a new copy of the dataset for a run (dropping the last one) and returns its URL. */
  copyForRun(): Promise<string>;
  /** A new, empty dataset database, the old one dropped. */
  recreateDataset(): Promise<void>;
  /** CPU seconds PostgreSQL's processes used so far; known for the embedded server only. */
  cpuSeconds?: () => number;
  stop(): Promise<void>;
}

/** settings: for the embedded server, server settings beside the defaults (startBenchPostgres). */
export async function openDatasetServer(dir: string, databaseUrl: string | undefined, settings: Record<string, string> = {}): Promise<DatasetServer> {
  const embedded = databaseUrl ? undefined : await startBenchPostgres(join(dir, 'postgres'), settings);
  const serverUrl = databaseUrl ?? embedded!.url;
  const named = (name: string) => Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  // Outside the dataset's databases: a database cannot be dropped or copied while connected to.
  const admin = (work: (db: PostgresDatabase) => Promise<void>) => withDatabase(serverUrl, work);
  return {
    datasetUrl: named(DATASET),
    async copyForRun() {
      await admin(async (db) => {
        await db.exec(`DROP DATABASE IF EXISTS ${RUN}`);
        await db.exec(`CREATE DATABASE ${RUN} TEMPLATE ${DATASET}`);
      });
      return named(RUN);
    },
    async recreateDataset() {
      await admin(async (db) => {
        await db.exec(`DROP DATABASE IF EXISTS ${RUN}`);
        await db.exec(`DROP DATABASE IF EXISTS ${DATASET}`);
        await db.exec(`CREATE DATABASE ${DATASET}`);
      });
    },
    cpuSeconds: embedded ? () => embedded.cpuSeconds() : undefined,
    stop: async () => embedded?.stop(),
  };
}

async function withDatabase(url: string, work: (db: PostgresDatabase) => Promise<void>): Promise<void> {
  const db = PostgresDatabase.open(url, { poolSize: 1 });
  try {
    await work(db);
  } finally {
    await db.close();
  }
}
