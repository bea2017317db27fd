/** `vigil migrate`: brings the configured database up to this build's schema and says what it did. */
import type { Config } from '../config/schema.js';
import type { MigrationReport } from '../db/migrate.js';
import { openConfiguredDatabase } from '../db/open.js';

export async function runMigrate(config: Config, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const { db, migration, where } = await openConfiguredDatabase(config);
  await db.close();
  out.write(migrationSummary(migration, where));
}

export function migrationSummary({ from, to, applied }: MigrationReport, where: string): string {
  if (applied.length === 0) return `${where} is already at schema version ${to}: nothing to apply.\n`;
  const steps = applied.map((step) => `Applied migration ${step.version}: ${step.name}\n`).join('');
  return `${steps}${where} is now at schema version ${to} (it was at ${from}).\n`;
}
