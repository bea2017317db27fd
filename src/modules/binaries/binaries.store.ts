/**
 * Binary metadata by MD5 and where each binary was seen. Written once against SqlDatabase;
 * binaries.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase } from '../../db/database.js';
import type { BinaryMetadata } from '../sensors/sensor-protocol.schemas.js';

export interface BinaryRecord {
  md5: string;
  sha256: string;
  size: number;
  /** Bytes of content held (0 while only metadata is known). */
  storedSize: number;
  metadata: BinaryMetadata;
  firstSeenMs: number;
  lastSeenMs: number;
}

export interface BinaryObservation {
  sensorId: number;
  observedFilename: string;
  lastSeenMs: number;
}

export interface BinariesStore {
  /**
   * Records an upload: the metadata (first upload wins for version and signature fields; later
   * ones only refresh last-seen), the content size when content was stored, and one observation.
   */
  record(metadata: BinaryMetadata, storedSize: number | undefined, sensorId: number, nowMs: number): Promise<void>;
  get(md5: string): Promise<BinaryRecord | undefined>;
  observations(md5: string): Promise<BinaryObservation[]>;
}

export class SqlBinariesStore implements BinariesStore {
  constructor(private readonly db: SqlDatabase) {}

  async record(metadata: BinaryMetadata, storedSize: number | undefined, sensorId: number, nowMs: number): Promise<void> {
    const md5 = metadata.md5.toLowerCase();
    await this.db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO binaries (md5, sha256, size, stored_size, metadata, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (md5) DO UPDATE SET last_seen_ms = excluded.last_seen_ms,
           stored_size = MAX(binaries.stored_size, excluded.stored_size)`,
        [md5, metadata.sha256?.toLowerCase() ?? '', metadata.size, storedSize ?? 0, JSON.stringify(metadata), nowMs, nowMs],
      );
      await tx.run(
        `INSERT INTO binary_observations (md5, sensor_id, observed_filename, last_seen_ms) VALUES (?, ?, ?, ?)
         ON CONFLICT (md5, sensor_id, observed_filename) DO UPDATE SET last_seen_ms = excluded.last_seen_ms`,
        [md5, sensorId, metadata.observed_filename.toLowerCase(), nowMs],
      );
    });
  }

  async get(md5: string): Promise<BinaryRecord | undefined> {
    const row = await this.db.get<{
      md5: string; sha256: string; size: number; stored_size: number; metadata: string; first_seen_ms: number; last_seen_ms: number;
    }>('SELECT * FROM binaries WHERE md5 = ?', [md5.toLowerCase()]);
    if (!row) return undefined;
    return {
      md5: row.md5,
      sha256: row.sha256,
      size: row.size,
      storedSize: row.stored_size,
      metadata: JSON.parse(row.metadata) as BinaryMetadata,
      firstSeenMs: row.first_seen_ms,
      lastSeenMs: row.last_seen_ms,
    };
  }

  async observations(md5: string): Promise<BinaryObservation[]> {
    const rows = await this.db.all<{ sensor_id: number; observed_filename: string; last_seen_ms: number }>(
      'SELECT sensor_id, observed_filename, last_seen_ms FROM binary_observations WHERE md5 = ? ORDER BY sensor_id, observed_filename',
      [md5.toLowerCase()],
    );
    return rows.map((row) => ({ sensorId: row.sensor_id, observedFilename: row.observed_filename, lastSeenMs: row.last_seen_ms }));
  }
}
