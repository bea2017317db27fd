/**
 * The store implementations that differ by database, as the container receives them from one
 * wiring per dialect (sqlite.ts, postgres.ts). Stores written once against
 * SqlDatabase (users, groups, sensors, …) the container builds itself on `db`. Nothing here names
 * a driver: services and detect/ see these interfaces only (docs/adr/0018-sqlite-seam.md).
 */
import type { SqlDatabase } from '../db/database.js';
import type { DocumentTagsReader } from '../detect/document-tags.js';
import type { MatchReads } from '../detect/match.plan.js';
import type { Config } from '../config/schema.js';
import type { EventStore, EventStoreCacheBounds } from '../ingest/event-store.js';
import type { JobScheduler } from '../jobs/leased-jobs.js';
import type { AlertChanger, AlertsStore } from '../modules/alerts/alerts.store.js';
import type { BinaryContent } from '../modules/binaries/binary-content.js';
import type { BinarySearchStore } from '../modules/binaries/binary-search.store.js';
import type { DashboardStore } from '../modules/dashboard/dashboard.store.js';
import type { FeedsStore } from '../modules/feeds/feeds.store.js';
import type { IngestKeysStore } from '../modules/ingest-keys/ingest-keys.store.js';
import type { CommandNotices, CommandWaiters } from '../modules/live-response/command-waiters.js';
import type { LiveResponseContent } from '../modules/live-response/live-response-files.js';
import type { PartitionsStore, PartitionWriter } from '../modules/partitions/partitions.store.js';
import type { SensorEvent } from '../ingest/event.schemas.js';
import type { RecordOrigin } from '../modules/forwarder/forwarder-records.js';
import type { ForwardSource } from '../modules/forwarder/forwarder-sources.js';
import type { ForwarderConnection } from '../modules/forwarder/forwarder-turns.worker.js';
import type { DiskSpace } from '../modules/partitions/storage-maintenance.js';
import type { ProcessDetailStore } from '../modules/processes/process-detail.store.js';
import type { EventListStore } from '../modules/processes/process-events.store.js';
import type { ProcessSearchStore } from '../modules/processes/process-search.store.js';
import type { InstallCodesStore } from '../modules/sensors/install-codes.store.js';
import type { ThreatReportsStore } from '../modules/threat-reports/threat-reports.store.js';

/** Tells the other servers that a command finished, and wakes this server's waiters at their news. */
export interface CommandNoticeChannel {
  notices: CommandNotices;
  /** Until closed. */
  listen(waiters: CommandWaiters): Promise<{ close(): Promise<void> }>;
}

/** Raw sensor events as the forwarder reads them, narrowed to an output's event types. */
export type ForwarderRawEvents = (origin: RecordOrigin) => { only(types: ReadonlySet<SensorEvent['type']> | undefined): ForwardSource };

export interface DatabaseStores {
  /** The open, migrated database. */
  db: SqlDatabase;
  /** The stores that seal what they keep, under the data dir's secret key. */
  installCodes: InstallCodesStore;
  feeds: FeedsStore;
  ingestKeys: IngestKeysStore;
  /** The event writer: ingest batches and partition changes (rollover, mount, delete). */
  events: EventStore & PartitionWriter;
  /** The partitions as the API lists them. */
  partitions: PartitionsStore;
  /** The disk the events fill, for retention by disk share (storage-maintenance.ts). */
  eventDisk(): Promise<DiskSpace>;
  /** Where a partition's events are kept, as the partitions API shows it (`dir`). */
  partitionLocation(partitionId: number): string;
  processDetail: ProcessDetailStore;
  eventLists: EventListStore;
  processSearch: ProcessSearchStore;
  binarySearch: BinarySearchStore;
  documentTags: DocumentTagsReader;
  dashboard: DashboardStore;
  /** The detection matcher's compiler and jobs. */
  matchReads: MatchReads;
  alerts: AlertsStore;
  /** Bulk alert changes, which may walk every alert: off the request thread. */
  alertChanges: AlertChanger;
  threatReports: ThreatReportsStore;
  /** Binaries' and live-response files' content, where every server that serves them reads it. */
  binaryContent: BinaryContent;
  liveResponseFiles: LiveResponseContent;
  /** News of finished live-response commands between the servers on one database; none on the embedded store. */
  commandNotices?: CommandNoticeChannel | undefined;
  forwarderRawEvents: ForwarderRawEvents;
  /** How the forwarder's thread opens a connection of its own to this database. */
  forwarderConnection: ForwarderConnection;
  /** Database upkeep run once across the servers (the jobs are the container's); none on the embedded store. */
  scheduleUpkeep?(jobs: JobScheduler): void;
  /** Releases what the wiring started, the database last; after the services' own work has stopped. */
  close(): Promise<void>;
}

/** The event store's cache bounds, from their settings (docs/adr/0030-cache-bounds.md). */
export function eventStoreCacheBounds(config: Pick<Config, 'ingestProcessCacheEntries' | 'ingestTermCacheEntries'>): EventStoreCacheBounds {
  return { processes: config.ingestProcessCacheEntries, terms: config.ingestTermCacheEntries };
}
