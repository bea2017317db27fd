/**
 * The embedded store's wiring: every SQLite-specific construction in one place. It opens the
 * SQLite file (db/open.ts), seals secrets older databases kept in plain text, and starts the
 * threads the file's single write lock and synchronous driver call for: the event writer, bulk
 * alert changes and the search read pool. The container receives the stores as interfaces
 * (stores.ts); outside this folder only `*.sqlite.ts` files and the listed SQLite worker files
 * import SQLite code (test/architecture.test.ts, docs/adr/0018-sqlite-seam.md).
 */
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { SqliteDatabase } from '../db/dialects/sqlite.js';
import { openDatabase, SQLITE_FILE } from '../db/open.js';
import { sealPlaintextSecrets } from '../db/secrets/seal-plaintext.sqlite.js';
import { openSecretBox, secretKeyPath } from '../db/secrets/secret-key.js';
import { ThreadedAlertChanges } from '../modules/alerts/alert-changes.threaded.js';
import { SqlAlertsStore } from '../modules/alerts/alerts.store.js';
import { BinaryContentStore } from '../modules/binaries/binary-content.js';
import { SqlFeedsStore } from '../modules/feeds/feeds.store.js';
import { SqlIngestKeysStore } from '../modules/ingest-keys/ingest-keys.store.js';
import { LiveResponseFiles } from '../modules/live-response/live-response-files.js';
import { chunkFilePath } from '../modules/partitions/partition-files.js';
import { SqlPartitionsStore } from '../modules/partitions/partitions.store.js';
import { diskSpaceOf } from '../modules/partitions/storage-maintenance.js';
import { sqliteSegmentChunks } from '../modules/processes/chunk-files.sqlite.js';
import { ThreadedEventStore } from '../modules/processes/event-store.threaded.js';
import { SqlProcessDetailStore } from '../modules/processes/process-detail.store.js';
import { SqlInstallCodesStore } from '../modules/sensors/install-codes.store.js';
import { SqlThreatReportsStore } from '../modules/threat-reports/threat-reports.store.js';
import {
  openReadPool, PooledBinarySearchStore, PooledDashboardStore, PooledDocumentTags, PooledEventListStore, PooledMatchReads,
  PooledProcessSearchStore,
} from './sqlite-read-stores.js';
import { eventStoreCacheBounds, type DatabaseStores } from './stores.js';
import { RawEventSource } from '../modules/forwarder/forwarder-raw.js';
import { sqliteChunkLoader } from '../modules/forwarder/forwarder-raw.sqlite.js';

export async function openSqliteStores(config: Config): Promise<DatabaseStores> {
  const db = await openDatabase(config);
  const { installCodes, feeds, ingestKeys } = await secretStores(db, config).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  // The event writer's checkpointer thread copies the WAL back (ADR 0005). At SQLite's default,
  // this connection would run a checkpoint itself after each of its commits once the WAL passed
  // 1,000 pages, which under ingest it always has: every sensor check-in then copied and synced
  // pages on the request thread, holding the event loop for tens of milliseconds.
  db.connection.pragma('wal_autocheckpoint = 0');
  const file = join(config.dataDir, SQLITE_FILE);
  const events = new ThreadedEventStore(
    file,
    { maxEventsPerSegment: config.segmentMaxEvents, windowMs: config.segmentWindowSeconds * 1000, cacheBounds: eventStoreCacheBounds(config) },
    { lockWait: db.lockWait, pageCacheMb: config.sqlitePageCacheMb, walLimitMb: config.sqliteWalLimitMb, heapLimitMb: config.ingestWriterHeapMb },
  );
  const alertChanges = new ThreadedAlertChanges(file, db.lockWait, config.sqlitePageCacheMb);
  const searchPool = openReadPool(file, config);
  return {
    db,
    installCodes,
    feeds,
    ingestKeys,
    events,
    partitions: new SqlPartitionsStore(db),
    eventDisk: () => diskSpaceOf(config.dataDir),
    partitionLocation: (partitionId) => chunkFilePath(file, partitionId),
    processDetail: new SqlProcessDetailStore(db, sqliteSegmentChunks(db)),
    eventLists: new PooledEventListStore(searchPool),
    processSearch: new PooledProcessSearchStore(searchPool),
    binarySearch: new PooledBinarySearchStore(searchPool),
    documentTags: new PooledDocumentTags(searchPool),
    dashboard: new PooledDashboardStore(searchPool),
    matchReads: new PooledMatchReads(searchPool),
    alerts: new SqlAlertsStore(db),
    alertChanges,
    threatReports: new SqlThreatReportsStore(db),
    binaryContent: new BinaryContentStore(join(config.dataDir, 'binaries')),
    liveResponseFiles: new LiveResponseFiles(join(config.dataDir, 'live-response'), config.liveResponseFileLimitBytes),
    forwarderRawEvents: (origin) => new RawEventSource(db, sqliteChunkLoader(db), origin),
    forwarderConnection: { dialect: 'sqlite', file, lockWait: db.lockWait, pageCacheMb: config.sqlitePageCacheMb },
    async close() {
      await alertChanges.close();
      await searchPool.close();
      await events.close();
      await db.close();
    },
  };
}

/** The stores that seal what they keep, under the key file that must match the database; older plain values sealed first. */
async function secretStores(db: SqliteDatabase, config: Config) {
  const secrets = await openSecretBox(db, secretKeyPath(config.dataDir, config.secretKeyFile));
  const installCodes = new SqlInstallCodesStore(db, secrets);
  const feeds = new SqlFeedsStore(db, secrets);
  await sealPlaintextSecrets(db, [installCodes, feeds]);
  const ingestKeys = new SqlIngestKeysStore(db, secrets);
  return { installCodes, feeds, ingestKeys };
}
