/** A fresh PostgreSQL database at the newest schema, dropped when closed. */
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { migrate } from '../../src/db/migrate.js';
import { postgresMigrations } from '../../src/db/migrations/postgres.js';
import { dropTestDatabase, freshTestDatabase } from './postgres.js';

export async function freshMigratedPostgres(): Promise<PostgresDatabase> {
  const { name, url } = await freshMigratedDatabase();
  const db = PostgresDatabase.open(url, { poolSize: 4 });
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await dropTestDatabase(name);
  };
  return db;
}

/** A fresh database at the newest schema, by name and URL, for a server to open itself (drop it with dropTestDatabase). */
export function freshMigratedDatabase(): Promise<{ name: string; url: string }> {
  return freshTestDatabase('migrated', async (templateUrl) => {
    const db = PostgresDatabase.open(templateUrl, { poolSize: 1 });
    try {
      await migrate(db, postgresMigrations);
    } finally {
      await db.close();
    }
  });
}
