/**
 * Composition root: opens the store, builds every store and service once, and knows how to shut
 * them down in order. Nothing below this file chooses an implementation.
 */
import type { Config } from './config/schema.js';
import type { SqlDatabase } from './db/database.js';
import { openDatabase } from './db/open.js';
import { GroupsService } from './modules/groups/groups.service.js';
import { SqlGroupsStore } from './modules/groups/groups.store.js';
import { InfoService } from './modules/info/info.service.js';
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
}

export interface Container {
  config: Config;
  services: Services;
  /** Commits what is pending and releases the store. */
  close(): Promise<void>;
}

export async function createContainer(config: Config): Promise<Container> {
  const db: SqlDatabase = await openDatabase(config);
  const teamsStore = new SqlTeamsStore(db);
  const services: Services = {
    users: new UsersService(new SqlUsersStore(db), teamsStore, loadOrCreateTokenKey(config.dataDir)),
    teams: new TeamsService(teamsStore),
    groups: new GroupsService(new SqlGroupsStore(db), config),
    sites: new SitesService(new SqlSitesStore(db)),
    info: new InfoService(VIGIL_VERSION, { liveResponse: false, banning: false }),
    partitions: new PartitionsService(),
  };
  return { config, services, close: () => db.close() };
}
