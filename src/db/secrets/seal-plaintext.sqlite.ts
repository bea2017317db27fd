/**
 * The start-time half of migration 14, which SQL alone could not do: seal the secrets an older
 * database kept in plain text. secure_delete makes SQLite overwrite what it frees with zeros, and
 * the checkpoint copies those pages over the old ones and empties the WAL, so neither file keeps a
 * plain value afterwards.
 */
import type { SqliteDatabase } from '../dialects/sqlite.js';

export interface PlaintextSealer {
  /** Seals what is still plain; answers how many rows it changed (0 once done). */
  sealPlaintext(): Promise<number>;
}

export async function sealPlaintextSecrets(db: SqliteDatabase, sealers: readonly PlaintextSealer[]): Promise<number> {
  db.connection.pragma('secure_delete = ON');
  try {
    let sealed = 0;
    for (const sealer of sealers) sealed += await sealer.sealPlaintext();
    if (sealed > 0) db.connection.pragma('wal_checkpoint(TRUNCATE)');
    return sealed;
  } finally {
    db.connection.pragma('secure_delete = OFF');
  }
}
