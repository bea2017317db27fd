/**
 * Composition root: opens the store through its dialect's wiring (wiring/), builds every store and
 * service once, and knows how to shut them down in order. Nothing below this file chooses an
 * implementation.
 */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from './config/schema.js';
import type { SqlDatabase } from './db/database.js';
import { securePrivateDataDir, type LoosenedPath } from './db/private-files.js';
import { servedCertificate } from './http/tls.js';
import { DetectionService } from './detect/detection-sink.js';
import { SqlDetectionStore } from './detect/detection.store.js';
import { startDetection } from './detect/detection-runtime.js';
import type { DetectionMatcher } from './detect/matcher.js';
import { BatchWriter } from './ingest/batch-writer.js';
import { SqlJobLeasesStore } from './jobs/job-leases.store.js';
import { LeasedJobs } from './jobs/leased-jobs.js';
import { FilterGate } from './ingest/ingress-gate.js';
import { IngestPipeline } from './ingest/pipeline.js';
import { AlertsService } from './modules/alerts/alerts.service.js';
import { BanListDelivery } from './modules/bans/ban-list-delivery.js';
import { BansService } from './modules/bans/bans.service.js';
import { SqlBansStore } from './modules/bans/bans.store.js';
import { BinariesService } from './modules/binaries/binaries.service.js';
import { BinarySearchService } from './modules/binaries/binary-search.service.js';
import { SqlBinariesStore } from './modules/binaries/binaries.store.js';
import { BuildsService } from './modules/builds/builds.service.js';
import { DashboardService } from './modules/dashboard/dashboard.service.js';
import { ProcessDetailService } from './modules/processes/process-detail.service.js';
import { ProcessSearchService } from './modules/processes/process-search.service.js';
import { IngestKeysService } from './modules/ingest-keys/ingest-keys.service.js';
import { ElasticCompatService } from './modules/sysmon/elastic.service.js';
import { SysmonHosts } from './modules/sysmon/sysmon-hosts.js';
import { SqlSysmonHostsStore } from './modules/sysmon/sysmon-hosts.store.js';
import { SysmonIngestService } from './modules/sysmon/sysmon-ingest.service.js';
import { BulkReaders } from './modules/sysmon/bulk-readers.js';
import { SensorsService } from './modules/sensors/sensors.service.js';
import { SqlSensorsStore } from './modules/sensors/sensors.store.js';
import { IngressHitRates } from './ingest/ingress-filter-metrics.js';
import { FeedsService } from './modules/feeds/feeds.service.js';
import { DataSharingService } from './modules/datasharing/datasharing.service.js';
import { SqlDataSharingStore } from './modules/datasharing/datasharing.store.js';
import { GroupsService } from './modules/groups/groups.service.js';
import { SqlGroupsStore } from './modules/groups/groups.store.js';
import { InfoService } from './modules/info/info.service.js';
import { channelSettings } from './modules/notifications/channel-settings.js';
import type { NotificationsService } from './modules/notifications/notifications.service.js';
import { startNotifications } from './modules/notifications/notifications-runtime.js';
import { InstallersService } from './modules/installers/installers.service.js';
import { LicenseService } from './modules/license/license.service.js';
import { SqlLicenseStore } from './modules/license/license.store.js';
import { IngressFiltersService } from './modules/ingress-filters/ingress-filters.service.js';
import { SqlIngressFiltersStore } from './modules/ingress-filters/ingress-filters.store.js';
import { InvestigationsService } from './modules/investigations/investigations.service.js';
import { SqlInvestigationsStore } from './modules/investigations/investigations.store.js';
import { CommandWaiters } from './modules/live-response/command-waiters.js';
import { FileTransfers } from './modules/live-response/file-transfers.js';
import { LiveResponseCheckin } from './modules/live-response/live-response-checkin.js';
import { LiveResponseExpiry } from './modules/live-response/live-response-expiry.js';
import { LiveResponseService } from './modules/live-response/live-response.service.js';
import { SqlLiveResponseStore } from './modules/live-response/live-response.store.js';
import { PartitionsService } from './modules/partitions/partitions.service.js';
import { StorageMaintenance } from './modules/partitions/storage-maintenance.js';
import { LoginThrottle } from './modules/sessions/login-throttle.js';
import { SessionsService } from './modules/sessions/sessions.service.js';
import { SqlSessionsStore } from './modules/sessions/sessions.store.js';
import { SitesService } from './modules/sites/sites.service.js';
import { SqlSitesStore } from './modules/sites/sites.store.js';
import { TeamsService } from './modules/teams/teams.service.js';
import { ThreatReportsService } from './modules/threat-reports/threat-reports.service.js';
import { SqlTeamsStore } from './modules/teams/teams.store.js';
import { ThrottleDelivery } from './modules/throttle/throttle-delivery.js';
import { ThrottleService } from './modules/throttle/throttle.service.js';
import { SqlThrottleStore } from './modules/throttle/throttle.store.js';
import { UsersService } from './modules/users/users.service.js';
import { SqlUsersStore } from './modules/users/users.store.js';
import { DetectionActions } from './modules/watchlists/detection-actions.service.js';
import { SqlDetectionActionsStore } from './modules/watchlists/detection-actions.store.js';
import { WatchlistsService } from './modules/watchlists/watchlists.service.js';
import { SqlWatchlistsStore } from './modules/watchlists/watchlists.store.js';
import { VIGIL_VERSION } from './version.js';
import { ForwarderRunner } from './modules/forwarder/forwarder-runner.js';
import { ForwarderService } from './modules/forwarder/forwarder.service.js';
import { ThreadedTurns } from './modules/forwarder/forwarder-turns.threaded.js';
import { sqlSources } from './modules/forwarder/forwarder-sources.js';
import { SqlForwarderStore } from './modules/forwarder/forwarder.store.js';
import { openPostgresStores } from './wiring/postgres.js';
import { tokenKeyFor } from './wiring/shell-users.js';
import { openSqliteStores } from './wiring/sqlite.js';
import type { DatabaseStores } from './wiring/stores.js';

export interface Services {
  users: UsersService;
  sessions: SessionsService;
  teams: TeamsService;
  groups: GroupsService;
  sites: SitesService;
  info: InfoService;
  partitions: PartitionsService;
  ingressFilters: IngressFiltersService;
  sensors: SensorsService;
  bans: BansService;
  binaries: BinariesService;
  processes: ProcessDetailService;
  liveResponse: LiveResponseService;
  liveResponseFiles: FileTransfers;
  processSearch: ProcessSearchService;
  binarySearch: BinarySearchService;
  ingest: IngestPipeline;
  ingestKeys: IngestKeysService;
  sysmon: SysmonIngestService;
  elastic: ElasticCompatService;
  watchlists: WatchlistsService;
  feeds: FeedsService;
  threatReports: ThreatReportsService;
  alerts: AlertsService;
  dataSharing: DataSharingService;
  installers: InstallersService;
  license: LicenseService;
  builds: BuildsService;
  dashboard: DashboardService;
  investigations: InvestigationsService;
  throttle: ThrottleService;
  /** Delivery state and tests of the channels watchlist and feed actions notify through. */
  notifications: NotificationsService;
  /** The sink the watchlist and feed matcher reports hits to. */
  detection: DetectionService;
  forwarder: ForwarderService;
}

export interface Container {
  config: Config;
  services: Services;
  /** Rollover and retention of event partitions; `vigil serve` starts its timer. */
  storage: StorageMaintenance;
  /** Runs watchlists and feed IOCs against data as it arrives and on schedule. */
  detectionMatcher: DetectionMatcher;
  /** The scheduled jobs that run once across the servers on the database. */
  jobs: LeasedJobs;
  /** What in the data dir others could reach before this start took it back (for a warning). */
  loosenedPaths: LoosenedPath[];
  /** Commits what is pending and releases the store. */
  close(): Promise<void>;
}

export async function createContainer(config: Config): Promise<Container> {
  // A malformed channel URL stops the start before anything is opened.
  const notificationSettings = channelSettings(config);
  const loosenedPaths = securePrivateDataDir(config.dataDir);
  const stores = config.databaseUrl === undefined ? await openSqliteStores(config) : await openPostgresStores(config);
  const { db, installCodes, feeds: feedsStore, events: eventStore } = stores;
  const tokenKey = await tokenKeyFor(config, db).catch(async (error: unknown) => {
    await stores.close();
    throw error;
  });
  const jobs = new LeasedJobs(new SqlJobLeasesStore(db), {
    leaseMs: config.jobLeaseSeconds * 1000,
    onError: (job, error) => process.emitWarning(`scheduled job ${job}: ${error instanceof Error ? error.message : String(error)}`),
  });
  stores.scheduleUpkeep?.(jobs);
  const notifications = startNotifications(notificationSettings, config, db, jobs);
  const teamsStore = new SqlTeamsStore(db);
  const groupsStore = new SqlGroupsStore(db);
  const groups = new GroupsService(groupsStore, config);
  const sensorsStore = new SqlSensorsStore(db);
  const sensors = new SensorsService(sensorsStore, installCodes, groupsStore, { checkinIntervalSeconds: config.checkinIntervalSeconds });
  const bansStore = new SqlBansStore(db);
  const bans = new BansService(bansStore);
  const banLists = new BanListDelivery(bansStore, sensorsStore, groups);
  sensors.onCheckin((sensor, completed, nowMs) => banLists.checkin(sensor, completed.map((done) => done.id), nowMs));
  const throttleStore = new SqlThrottleStore(db);
  const throttleDelivery = new ThrottleDelivery(throttleStore, sensorsStore);
  sensors.onCheckin((sensor, _completed, nowMs) => throttleDelivery.checkin(sensor, nowMs));
  const liveResponse = buildLiveResponse(config, db, sensorsStore, stores);
  sensors.onCheckin((sensor, completed, nowMs) => liveResponse.checkin.checkin(sensor, completed, nowMs));
  const detectionActions = new DetectionActions(new SqlDetectionActionsStore(db));
  const ingressFilters = new IngressFiltersService(new SqlIngressFiltersStore(db), new IngressHitRates());
  const gate = new FilterGate();
  const partitionsStore = stores.partitions;
  const storage = new StorageMaintenance(partitionsStore, eventStore, {
    rolloverMs: config.partitionRolloverDays * 86_400_000,
    maxPartitionBytes: config.partitionMaxBytes,
    maxAgeMs: config.retentionMaxAgeDays * 86_400_000,
    maxDiskShare: config.storageMaxDiskShare,
    warnDiskShare: config.storageWarnDiskShare,
  }, () => stores.eventDisk());
  const ingest = new IngestPipeline(
    new BatchWriter(eventStore, config.ingestMaxEventsPerCommit),
    eventStore,
    gate,
    ingressFilters,
    config.eventUploadDecodedLimitBytes,
    bans,
  );
  const investigations = new InvestigationsService(new SqlInvestigationsStore(db), stores.processDetail);
  const detection = new DetectionService(new SqlDetectionStore(db), stores.documentTags);
  const usersStore = new SqlUsersStore(db);
  const binaries = new BinariesService(new SqlBinariesStore(db), stores.binaryContent, (md5s) => detection.binaryTags(md5s));
  const sysmonHostsStore = new SqlSysmonHostsStore(db);
  const bulkReaders = new BulkReaders(config.sysmonReaderThreads, config.eventUploadDecodedLimitBytes, eventStore.handOvers?.port);
  const sysmon = new SysmonIngestService(
    ingest, new SysmonHosts(sensorsStore, sysmonHostsStore, config.checkinIntervalSeconds * 2000), sysmonHostsStore, binaries,
    config.eventUploadDecodedLimitBytes, bulkReaders,
  );
  const forwarder = buildForwarder(config, db, stores, jobs);
  const services: Services = {
    users: new UsersService(usersStore, teamsStore, tokenKey),
    sessions: new SessionsService(new SqlSessionsStore(db), usersStore, new LoginThrottle(config.loginBackoffMaxSeconds * 1000), {
      idleMs: config.sessionIdleMinutes * 60_000,
      maxMs: config.sessionMaxHours * 3_600_000,
    }),
    teams: new TeamsService(teamsStore),
    groups,
    sites: new SitesService(new SqlSitesStore(db)),
    info: new InfoService(VIGIL_VERSION, { liveResponse: config.liveResponseEnabled, banning: true }, () => storage.storageWarning(),
      () => notifications.warning()),
    partitions: new PartitionsService(
      partitionsStore, eventStore, stores.partitionLocation, () => void storage.purgeSoon(), () => stores.eventDisk(),
    ),
    ingressFilters,
    sensors,
    bans,
    binaries,
    processes: new ProcessDetailService(stores.processDetail, stores.eventLists, (rows) => detection.segmentTags(rows)),
    liveResponse: liveResponse.service,
    liveResponseFiles: liveResponse.transfers,
    processSearch: new ProcessSearchService(
      stores.processSearch, (rows) => detection.segmentTags(rows), Date.now, (ids) => investigations.taggedInvestigations(ids),
    ),
    binarySearch: new BinarySearchService(stores.binarySearch, (md5s) => detection.binaryTags(md5s)),
    ingest,
    ingestKeys: new IngestKeysService(stores.ingestKeys, groupsStore),
    sysmon,
    elastic: new ElasticCompatService(sysmon),
    watchlists: new WatchlistsService(new SqlWatchlistsStore(db), detectionActions),
    feeds: new FeedsService(feedsStore, detectionActions, {
      maxBytes: config.feedDownloadLimitBytes, timeoutMs: config.feedDownloadTimeoutSeconds * 1000,
    }),
    threatReports: new ThreatReportsService(stores.threatReports),
    alerts: new AlertsService(stores.alerts, stores.alertChanges),
    dataSharing: new DataSharingService(new SqlDataSharingStore(db), groupsStore),
    installers: new InstallersService(sensors, {
      publicUrl: config.publicUrl,
      // Read at each download: `vigil serve` writes the certificate after the container is built,
      // and an operator may replace it.
      certificate: () => (config.tls ? servedCertificate(config.dataDir) : undefined),
    }),
    license: new LicenseService(new SqlLicenseStore(db), { count: () => sensorsStore.count({}) }, VIGIL_VERSION),
    builds: new BuildsService(sensors),
    dashboard: new DashboardService(sensors, stores.dashboard),
    investigations,
    throttle: new ThrottleService(throttleStore),
    notifications,
    detection,
    forwarder: forwarder.service,
  };
  const detectionRuntime = startDetection(config, {
    reads: stores.matchReads, sink: services.detection, ingest, watchlists: services.watchlists, feeds: services.feeds, jobs,
  });
  return {
    config,
    services,
    storage,
    detectionMatcher: detectionRuntime.matcher,
    jobs,
    loosenedPaths,
    async close() {
      await storage.stop();
      await ingest.flush();
      await bulkReaders.close();
      await detectionRuntime.close();
      forwarder.runner?.stop();
      await jobs.stop();
      await forwarder.runner?.close();
      await (await liveResponse.listening)?.close();
      await services.sensors.checkinsWritten();
      await stores.close();
    },
  };
}

/**
 * The event forwarder: its outputs' service, and on a server that forwards the runner that
 * delivers them (docs/adr/0024-forwarder-cursors.md).
 */
function buildForwarder(config: Config, db: SqlDatabase, stores: DatabaseStores, jobs: LeasedJobs) {
  const origin = { serverName: config.forwarderServerName || hostname(), version: VIGIL_VERSION };
  const store = new SqlForwarderStore(db);
  const fileDir = resolve(config.forwarderFileDir || join(config.dataDir, 'forwarder'));
  const sources = { sql: sqlSources(db, origin, config.checkinIntervalSeconds * 1000), raw: stores.forwarderRawEvents(origin) };
  const runner = config.forwarderEnabled
    ? new ForwarderRunner(store, new ThreadedTurns({
      connection: stores.forwarderConnection,
      origin,
      checkinIntervalMs: config.checkinIntervalSeconds * 1000,
      batchSize: config.forwarderBatchSize,
      horizonMs: config.forwarderCommitHorizonMs,
      maxBusyShare: config.forwarderMaxBusyShare,
      fileDir,
    }), jobs, {
      pollMs: config.forwarderPollMs,
      onError: (output, error) => process.emitWarning(`forwarder output ${output}: ${error instanceof Error ? error.message : String(error)}`),
    })
    : undefined;
  runner?.start();
  return { service: new ForwarderService(store, sources, runner, fileDir), runner };
}

/** Live response: the analyst's service, its part in check-ins, and the sensor's file transfers, over one store. */
function buildLiveResponse(config: Config, db: SqlDatabase, sensorsStore: SqlSensorsStore, stores: DatabaseStores) {
  const files = stores.liveResponseFiles;
  const store = new SqlLiveResponseStore(db);
  const limits = {
    checkinTimeoutMs: config.liveResponseCheckinTimeoutSeconds * 1000,
    sessionTimeoutMs: config.liveResponseSessionTimeoutSeconds * 1000,
    commandTimeoutMs: config.liveResponseCommandTimeoutSeconds * 1000,
  };
  const expiry = new LiveResponseExpiry(store, sensorsStore, files, limits, config.liveResponseStorageTtlDays * 86_400_000);
  const waiters = new CommandWaiters({ notices: stores.commandNotices?.notices });
  // Should listening fail, waiters still read the store again every second (command-waiters.ts).
  const listening = stores.commandNotices?.listen(waiters).catch(() => undefined);
  const service = new LiveResponseService(store, sensorsStore, sensorsStore, expiry, files, waiters, {
    enabled: config.liveResponseEnabled,
    checkInTimeoutSeconds: config.liveResponseCheckinTimeoutSeconds,
    sessionTimeoutSeconds: config.liveResponseSessionTimeoutSeconds,
    sensorWaitTimeoutSeconds: config.liveResponseCommandTimeoutSeconds,
    storageTtlDays: config.liveResponseStorageTtlDays,
  });
  return {
    service,
    checkin: new LiveResponseCheckin(store, expiry, waiters, config.liveResponseCheckinSeconds),
    transfers: new FileTransfers(store, files),
    listening,
  };
}
