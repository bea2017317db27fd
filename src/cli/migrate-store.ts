/** `vigil migrate-store`: moves a stopped embedded installation into a PostgreSQL database and says what it moved. */
import type { Config } from '../config/schema.js';
import { secretKeyPath } from '../db/secrets/secret-key.js';
import { moveStore } from '../wiring/move-store.js';

export async function runMigrateStore(from: string, config: Config, force: boolean, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  out.write(`Moving the embedded store in ${from}…\n`);
  const summary = await moveStore(from, config, { force, progress: (line) => out.write(`${line}\n`) });
  const width = Math.max(...summary.tables.map(([table]) => table.length));
  out.write(`\nMoved into ${summary.where}:\n`);
  for (const [table, rows] of summary.tables) out.write(`  ${table.padEnd(width)}  ${rows}\n`);
  out.write(
    `Start the servers with --database-url and --secret-key-file ${secretKeyPath(from, config.secretKeyFile)} (the same key on every server): ` +
      'API tokens, passwords and sealed secrets work as before.\n',
  );
}
