/**
 * Composition root: opens the store, builds every store and service once, and knows how to shut
 * them down in order. Nothing below this file chooses an implementation.
 */
import { join } from 'node:path';
import type { Config } from './config/schema.js';
import { SqliteReadPool } from './db/dialects/sqlite-read-pool.js';
import { openDatabase, SQLITE_FILE } from './db/open.js';
import { BatchWriter } from './ingest/batch-writer.js';
import { FilterGate } from './ingest/ingress-gate.js';
import { IngestPipeline } from './ingest/pipeline.js';
import { BanListDelivery } from './modules/bans/ban-list-delivery.js';
import { BansService } from './modules/bans/bans.service.js';
import { SqlBansStore } from './modules/bans/bans.store.js';
import { BinaryContentStore } from './modules/binaries/binary-content.js';
import { BinariesService } from './modules/binaries/binaries.service.js';
import { BinarySearchService } from './modules/binaries/binary-search.service.js';
import { BINARY_SEARCH_HANDLER, PooledBinarySearchStore } from './modules/binaries/binary-search.store.js';
import { SqlBinariesStore } from './modules/binaries/binaries.store.js';
import { ThreadedEventStore } from './modules/processes/event-store.threaded.js';
import { PooledProcessSearchStore, PROCESS_SEARCH_HANDLER } from './modules/processes/process-search.store.js';
import { ProcessSearchService } from './modules/processes/process-search.service.js';
import { SensorsService } from './modules/sensors/sensors.service.js';
import { SqlSensorsStore } from './modules/sensors/sensors.store.js';
import { IngressHitRates } from './ingest/ingress-filter-metrics.js';
import { GroupsService } from './modules/groups/groups.service.js';
import { SqlGroupsStore } from './modules/groups/groups.store.js';
import { InfoService } from './modules/info/info.service.js';
import { IngressFiltersService } from './modules/ingress-filters/ingress-filters.service.js';
import { SqlIngressFiltersStore } from './modules/ingress-filters/ingress-filters.store.js';
import { PartitionsService } from './modules/partitions/partitions.service.js';
import { SitesService } from './modules/sites/sites.service.js';
import { SqlSitesStore } from './modules/sites/sites.store.js';
import { TeamsService } from './modules/teams/teams.service.js';
import { SqlTeamsStore } from './modules/teams/teams.store.js';
import { loadOrCreateTokenKey } from './modules/users/token-key.js';
import { UsersService } from './modules/users/users.service.js';
import { SqlUsersStore } from './modules/users/users.store.js';
import { VIGIL_VERSION } from './version.js';

export interface Services {
  users: UsersService;
  teams: TeamsService;
  groups: GroupsService;
  sites: SitesService;
  info: InfoService;
  partitions: PartitionsService;
  ingressFilters: IngressFiltersService;
  sensors: SensorsService;
  bans: BansService;
  binaries: BinariesService;
  processSearch: ProcessSearchService;
  binarySearch: BinarySearchService;
  ingest: IngestPipeline;
}

export interface Container {
  config: Config;
  services: Services;
  /** Commits what is pending and releases the store. */
  close(): Promise<void>;
}

export async function createContainer(config: Config): Promise<Container> {
  const db = await openDatabase(config);
  const teamsStore = new SqlTeamsStore(db);
  const groupsStore = new SqlGroupsStore(db);
  const groups = new GroupsService(groupsStore, config);
  const sensorsStore = new SqlSensorsStore(db);
  const sensors = new SensorsService(sensorsStore, groupsStore, { checkinIntervalSeconds: config.checkinIntervalSeconds });
  const bansStore = new SqlBansStore(db);
  const bans = new BansService(bansStore);
  const banLists = new BanListDelivery(bansStore, sensorsStore, groups);
  sensors.onCheckin((sensor, acknowledged, nowMs) => banLists.checkin(sensor, acknowledged, nowMs));
  const ingressFilters = new IngressFiltersService(new SqlIngressFiltersStore(db), new IngressHitRates());
  const gate = new FilterGate();
  const eventStore = new ThreadedEventStore(
    join(config.dataDir, SQLITE_FILE),
    { maxEventsPerSegment: config.segmentMaxEvents, windowMs: config.segmentWindowSeconds * 1000 },
  );
  const searchPool = new SqliteReadPool(join(config.dataDir, SQLITE_FILE), {
    workers: config.searchWorkers,
    handlers: { [PROCESS_SEARCH_HANDLER.name]: PROCESS_SEARCH_HANDLER.url, [BINARY_SEARCH_HANDLER.name]: BINARY_SEARCH_HANDLER.url },
  });
  const ingest = new IngestPipeline(
    new BatchWriter(eventStore, config.ingestMaxEventsPerCommit),
    eventStore,
    gate,
    ingressFilters,
    config.eventUploadDecodedLimitBytes,
    bans,
  );
  const services: Services = {
    users: new UsersService(new SqlUsersStore(db), teamsStore, loadOrCreateTokenKey(config.dataDir)),
    teams: new TeamsService(teamsStore),
    groups,
    sites: new SitesService(new SqlSitesStore(db)),
    info: new InfoService(VIGIL_VERSION, { liveResponse: false, banning: true }),
    partitions: new PartitionsService(),
    ingressFilters,
    sensors,
    bans,
    binaries: new BinariesService(new SqlBinariesStore(db), new BinaryContentStore(join(config.dataDir, 'binaries'))),
    processSearch: new ProcessSearchService(new PooledProcessSearchStore(searchPool)),
    binarySearch: new BinarySearchService(new PooledBinarySearchStore(searchPool)),
    ingest,
  };
  return {
    config,
    services,
    async close() {
      await ingest.flush();
      await searchPool.close();
      await eventStore.close();
      await db.close();
    },
  };
}
