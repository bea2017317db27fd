/**
 * The production store's wiring: every PostgreSQL-specific construction in one place. It opens
 * and migrates the database under the migration lock (db/open.ts), so several servers starting
 * together apply each migration once, and builds the stores that read and write it. The event
 * store runs on a thread of its own with connections of its own (its pass in memory is most of
 * ingest's CPU in Node); every server reads what any server wrote (event chunks included), so none
 * keeps state another would need.
 */
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { PostgresPagingSnapshots } from '../db/dialects/postgres-paging.js';
import type { PostgresDatabase } from '../db/dialects/postgres.js';
import { openConfiguredDatabase } from '../db/open.js';
import { openSecretBox, secretKeyPath } from '../db/secrets/secret-key.js';
import { PostgresDocumentTags } from '../detect/document-tags.postgres.js';
import { PostgresMatchReads } from '../detect/match.postgres.js';
import type { EventStore, IngestBatch, IngestOutcome } from '../ingest/event-store.js';
import { SqlAlertsStore } from '../modules/alerts/alerts.store.js';
import { PostgresBinaryContent } from '../modules/binaries/binary-content.postgres.js';
import { PostgresBinarySearchStore } from '../modules/binaries/binary-search.postgres.js';
import { PostgresDashboardStore } from '../modules/dashboard/dashboard.postgres.js';
import { SqlFeedsStore } from '../modules/feeds/feeds.store.js';
import { RawEventSource } from '../modules/forwarder/forwarder-raw.js';
import { postgresChunkLoader } from '../modules/forwarder/forwarder-raw.postgres.js';
import { SqlIngestKeysStore } from '../modules/ingest-keys/ingest-keys.store.js';
import { PostgresCommandNotices } from '../modules/live-response/command-notices.postgres.js';
import { SqlLiveResponseContent } from '../modules/live-response/live-response-content.sql.js';
import { PostgresPartitions } from '../modules/partitions/partitions.postgres.js';
import type { PartitionReply, PartitionRequest, PartitionWriter } from '../modules/partitions/partitions.store.js';
import { ThreadedPostgresEventStore } from '../modules/processes/event-store.threaded.postgres.js';
import { PostgresEventListStore, PostgresProcessDetailStore } from '../modules/processes/process-events.postgres.js';
import { PostgresProcessSearchStore } from '../modules/processes/process-search.postgres.js';
import { scheduleSearchVacuum } from '../modules/processes/search-visibility.postgres.js';
import { SqlInstallCodesStore } from '../modules/sensors/install-codes.store.js';
import { SqlThreatReportsStore } from '../modules/threat-reports/threat-reports.store.js';
import { eventStoreCacheBounds, type CommandNoticeChannel, type DatabaseStores } from './stores.js';

export async function openPostgresStores(config: Config): Promise<DatabaseStores> {
  const { db } = await openConfiguredDatabase(config);
  try {
    return await postgresStores(db as PostgresDatabase, config);
  } catch (error) {
    await db.close();
    throw error;
  }
}

async function postgresStores(db: PostgresDatabase, config: Config): Promise<DatabaseStores> {
  const secrets = await openSecretBox(db, secretKeyPath(config.dataDir, config.secretKeyFile));
  const partitions = new PostgresPartitions(db);
  const pagingSnapshots = new PostgresPagingSnapshots(db);
  const events = new EventsAndPartitions(
    new ThreadedPostgresEventStore({
      url: config.databaseUrl!,
      rules: { maxEventsPerSegment: config.segmentMaxEvents, windowMs: config.segmentWindowSeconds * 1000, cacheBounds: eventStoreCacheBounds(config) },
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      applicationName: 'vigil-event-writer',
    }, config.ingestWriterHeapMb),
    partitions,
  );
  const alerts = new SqlAlertsStore(db);
  const notices = new PostgresCommandNotices(db);
  const commandNotices: CommandNoticeChannel = { notices, listen: (waiters) => notices.listenFor(waiters) };
  return {
    db,
    installCodes: new SqlInstallCodesStore(db, secrets),
    feeds: new SqlFeedsStore(db, secrets),
    ingestKeys: new SqlIngestKeysStore(db, secrets),
    events,
    partitions,
    // The database's disk is not this server's to measure: a full local disk must not drop
    // partitions every server shares. Retention by age and rollover by size still apply.
    eventDisk: () => Promise.resolve({ totalBytes: 0, availableBytes: 0 }),
    // A partition's events are the PostgreSQL tables of its number (partitions.postgres.ts).
    partitionLocation: (partitionId) => `postgresql: event_chunks_p${partitionId}`,
    processDetail: new PostgresProcessDetailStore(db),
    eventLists: new PostgresEventListStore(db, config.searchTimeLimitMs),
    processSearch: new PostgresProcessSearchStore(db, config.searchTimeLimitMs, pagingSnapshots),
    binarySearch: new PostgresBinarySearchStore(db, config.searchTimeLimitMs, pagingSnapshots),
    documentTags: new PostgresDocumentTags(db),
    dashboard: new PostgresDashboardStore(db),
    matchReads: new PostgresMatchReads(db),
    alerts,
    // PostgreSQL runs a bulk change in its own process, without holding a write lock others wait on.
    alertChanges: alerts,
    threatReports: new SqlThreatReportsStore(db),
    // Uploads are staged and checked in a local directory; only verified content goes to the database.
    binaryContent: new PostgresBinaryContent(db, join(config.dataDir, 'binaries')),
    liveResponseFiles: new SqlLiveResponseContent(db, config.liveResponseFileLimitBytes),
    commandNotices,
    forwarderRawEvents: (origin) => new RawEventSource(db, postgresChunkLoader(), origin),
    forwarderConnection: { dialect: 'postgres', url: config.databaseUrl!, statementTimeoutMs: config.databaseStatementTimeoutMs },
    scheduleUpkeep: (jobs) => void scheduleSearchVacuum(db, jobs, config.databaseVacuumSeconds),
    async close() {
      pagingSnapshots.close();
      await events.close();
      await db.close();
    },
  };
}

/** The event writer as the container takes it: ingest commits by the event store, partition changes by the partitions' DDL. */
class EventsAndPartitions implements EventStore, PartitionWriter {
  constructor(private readonly events: ThreadedPostgresEventStore, private readonly partitions: PostgresPartitions) {}

  commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    return this.events.commit(batches);
  }

  /** Without it the batch writer would wait for each commit before handing over the next, and commits would not overlap. */
  readyForNext(): Promise<void> {
    return this.events.readyForNext();
  }

  countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    return this.events.countRejection(sensorId, counters);
  }

  partition(request: PartitionRequest): Promise<PartitionReply> {
    return this.partitions.partition(request);
  }

  close(): Promise<void> {
    return this.events.close();
  }
}
