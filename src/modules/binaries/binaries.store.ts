/**
 * Binary metadata by MD5 and where each binary was seen. Written once against SqlDatabase;
 * binaries.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import type { BinaryMetadata } from './binary-upload.schemas.js';

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
  /** Lowercase, as Carbon Black lists observed filenames. */
  observedFilename: string;
  lastSeenMs: number;
  /** The observing sensor as it is now (its current group); undefined once the server no longer knows it. */
  sensor: ObservingSensor | undefined;
}

export interface ObservingSensor {
  hostname: string;
  osType: string;
  groupId: number;
  groupName: string;
}

export interface BinariesStore {
  /**
   * Records an upload: the metadata (first upload wins for version and signature fields; later
   * ones only refresh last-seen), the content size when content was stored, and one observation.
   */
  record(metadata: BinaryMetadata, storedSize: number | undefined, sensorId: number, nowMs: number): Promise<void>;
  /** Records files one sensor saw, without content, each as record() would, in one transaction. */
  recordSeen(metadata: readonly BinaryMetadata[], sensorId: number, nowMs: number): Promise<void>;
  get(md5: string): Promise<BinaryRecord | undefined>;
  /** Every (sensor, filename) the binary was seen as, ordered by sensor id then filename. */
  observations(md5: string): Promise<BinaryObservation[]>;
}

export class SqlBinariesStore implements BinariesStore {
  constructor(private readonly db: SqlDatabase) {}

  async record(metadata: BinaryMetadata, storedSize: number | undefined, sensorId: number, nowMs: number): Promise<void> {
    await this.db.transaction((tx) => recordOne(tx, metadata, storedSize, sensorId, nowMs));
  }

  async recordSeen(metadata: readonly BinaryMetadata[], sensorId: number, nowMs: number): Promise<void> {
    if (metadata.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (const one of metadata) await recordOne(tx, one, undefined, sensorId, nowMs);
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
    const rows = await this.db.all<{
      sensor_id: number; observed_filename: string; last_seen_ms: number;
      computer_name: string | null; os_type: string | null; group_id: number | null; group_name: string | null;
    }>(
      `SELECT o.sensor_id, o.observed_filename, o.last_seen_ms, s.computer_name, s.os_type, s.group_id, g.name AS group_name
       FROM binary_observations o
       LEFT JOIN sensors s ON s.id = o.sensor_id
       LEFT JOIN sensor_groups g ON g.id = s.group_id
       WHERE o.md5 = ? ORDER BY o.sensor_id, o.observed_filename`,
      [md5.toLowerCase()],
    );
    return rows.map((row) => ({
      sensorId: row.sensor_id,
      observedFilename: row.observed_filename,
      lastSeenMs: row.last_seen_ms,
      sensor: row.computer_name === null
        ? undefined
        : { hostname: row.computer_name, osType: row.os_type!, groupId: row.group_id!, groupName: row.group_name ?? '' },
    }));
  }
}

async function recordOne(tx: SqlExecutor, metadata: BinaryMetadata, storedSize: number | undefined, sensorId: number, nowMs: number): Promise<void> {
  const md5 = metadata.md5.toLowerCase();
  await tx.run(
    `INSERT INTO binaries (md5, sha256, size, stored_size, metadata, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (md5) DO UPDATE SET last_seen_ms = excluded.last_seen_ms,
       stored_size = CASE WHEN excluded.stored_size > binaries.stored_size THEN excluded.stored_size ELSE binaries.stored_size END`,
    [md5, metadata.sha256?.toLowerCase() ?? '', metadata.size, storedSize ?? 0, JSON.stringify(metadata), nowMs, nowMs],
  );
  await tx.run(
    `INSERT INTO binary_observations (md5, sensor_id, observed_filename, last_seen_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (md5, sensor_id, observed_filename) DO UPDATE SET last_seen_ms = excluded.last_seen_ms`,
    [md5, sensorId, metadata.observed_filename.toLowerCase(), nowMs],
  );
}
