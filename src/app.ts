/**
 * buildApp(container): the Fastify instance with its plugins and every module's routes, not yet
 * listening. Tests drive it with app.inject; main.ts makes it listen.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Container } from './container.js';
import { registerAuthentication } from './http/auth.js';
import { registerConsole } from './http/console-static.js';
import { limitConnections, serverTimeouts } from './http/connection-limits.js';
import { readTlsConnectionsInJs } from './http/paused-parsers.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerJsonBodies } from './http/json-body.js';
import { AJV_NUMBER_OPTIONS, registerNumberBounds } from './http/number-bounds.js';
import { registerOpenApi } from './http/openapi.js';
import type { TlsMaterial } from './http/tls.js';
import { alertsRoutes } from './modules/alerts/alerts.routes.js';
import { binariesRoutes } from './modules/binaries/binaries.routes.js';
import { binarySearchRoutes } from './modules/binaries/binary-search.routes.js';
import { bansRoutes } from './modules/bans/bans.routes.js';
import { dataSharingRoutes } from './modules/datasharing/datasharing.routes.js';
import { buildsRoutes } from './modules/builds/builds.routes.js';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.js';
import { feedsRoutes } from './modules/feeds/feeds.routes.js';
import { groupsRoutes } from './modules/groups/groups.routes.js';
import { infoRoutes } from './modules/info/info.routes.js';
import { forwarderRoutes } from './modules/forwarder/forwarder.routes.js';
import { ingestKeysRoutes } from './modules/ingest-keys/ingest-keys.routes.js';
import { ingressFiltersRoutes } from './modules/ingress-filters/ingress-filters.routes.js';
import { installersRoutes } from './modules/installers/installers.routes.js';
import { licenseRoutes } from './modules/license/license.routes.js';
import { investigationsRoutes } from './modules/investigations/investigations.routes.js';
import { liveResponseSensorRoutes } from './modules/live-response/live-response-sensor.routes.js';
import { liveResponseRoutes } from './modules/live-response/live-response.routes.js';
import { partitionsRoutes } from './modules/partitions/partitions.routes.js';
import { processDetailRoutes } from './modules/processes/process-detail.routes.js';
import { processSearchRoutes } from './modules/processes/process-search.routes.js';
import { sensorProtocolRoutes } from './modules/sensors/sensor-protocol.routes.js';
import { sensorsRoutes } from './modules/sensors/sensors.routes.js';
import { sessionsRoutes } from './modules/sessions/sessions.routes.js';
import { elasticRoutes } from './modules/sysmon/elastic.routes.js';
import { sysmonRoutes } from './modules/sysmon/sysmon.routes.js';
import { sitesRoutes } from './modules/sites/sites.routes.js';
import { teamsRoutes } from './modules/teams/teams.routes.js';
import { threatReportsRoutes } from './modules/threat-reports/threat-reports.routes.js';
import { throttleRoutes } from './modules/throttle/throttle.routes.js';
import { notificationsRoutes } from './modules/notifications/notifications.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { watchlistsRoutes } from './modules/watchlists/watchlists.routes.js';
import { VIGIL_VERSION } from './version.js';

export interface AppOptions {
  /** Serve HTTPS with this key and certificate; plain HTTP when absent. */
  tls?: TlsMaterial | undefined;
  logger?: FastifyServerOptions['logger'];
  /** Log every request and response (default true). */
  logRequests?: boolean;
  /** Serve the analyst console's built assets from this folder at `/` (src/http/console-static.ts). */
  consoleDir?: string | undefined;
}

export async function buildApp(container: Container, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config, services } = container;
  const timeouts = serverTimeouts(config);
  const app = Fastify({
    logger: options.logger ?? false,
    logController: new LogController({ disableRequestLogging: options.logRequests === false }),
    bodyLimit: config.apiBodyLimitBytes,
    ajv: { customOptions: AJV_NUMBER_OPTIONS },
    // Carbon Black's Flask routes answered with and without a trailing slash depending on the
    // route; accepting both serves every client.
    routerOptions: { ignoreTrailingSlash: true },
    ...timeouts.fastify,
    http: timeouts.http,
    ...(options.tls ? { https: { key: options.tls.key, cert: options.tls.cert, ...timeouts.http, ...timeouts.tls } } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app.server, config, app.log);
  readTlsConnectionsInJs(app.server);

  registerErrorHandling(app);
  registerJsonBodies(app);
  registerNumberBounds(app);
  registerAuthentication(app, { users: services.users, sensors: services.sensors, sessions: services.sessions, ingestKeys: services.ingestKeys });
  await registerOpenApi(app, VIGIL_VERSION);
  if (options.consoleDir) await registerConsole(app, options.consoleDir);

  await app.register(infoRoutes, { info: services.info });
  await app.register(partitionsRoutes, { partitions: services.partitions });
  await app.register(usersRoutes, { users: services.users });
  await app.register(sessionsRoutes, { sessions: services.sessions, secureCookies: config.tls });
  await app.register(teamsRoutes, { teams: services.teams });
  await app.register(groupsRoutes, { groups: services.groups });
  await app.register(dataSharingRoutes, { dataSharing: services.dataSharing });
  await app.register(installersRoutes, { installers: services.installers });
  await app.register(licenseRoutes, { license: services.license });
  await app.register(sitesRoutes, { sites: services.sites });
  await app.register(ingressFiltersRoutes, { ingressFilters: services.ingressFilters });
  await app.register(sensorsRoutes, { sensors: services.sensors });
  await app.register(ingestKeysRoutes, { ingestKeys: services.ingestKeys });
  await app.register(forwarderRoutes, { forwarder: services.forwarder });
  await app.register(binariesRoutes, { binaries: services.binaries });
  await app.register(bansRoutes, { bans: services.bans });
  await app.register(processDetailRoutes, { processes: services.processes });
  await app.register(liveResponseRoutes, { liveResponse: services.liveResponse, fileLimitBytes: config.liveResponseFileLimitBytes });
  await app.register(liveResponseSensorRoutes, { transfers: services.liveResponseFiles, fileLimitBytes: config.liveResponseFileLimitBytes });
  await app.register(watchlistsRoutes, { watchlists: services.watchlists });
  await app.register(feedsRoutes, { feeds: services.feeds });
  await app.register(threatReportsRoutes, { threatReports: services.threatReports });
  await app.register(alertsRoutes, { alerts: services.alerts });
  await app.register(processSearchRoutes, { processSearch: services.processSearch });
  await app.register(binarySearchRoutes, { binarySearch: services.binarySearch });
  await app.register(buildsRoutes, { builds: services.builds });
  await app.register(dashboardRoutes, { dashboard: services.dashboard });
  await app.register(investigationsRoutes, { investigations: services.investigations });
  await app.register(throttleRoutes, { throttle: services.throttle });
  await app.register(notificationsRoutes, { notifications: services.notifications });
  await app.register(sysmonRoutes, { sysmon: services.sysmon, bodyLimitBytes: config.eventUploadLimitBytes });
  await app.register(elasticRoutes, { elastic: services.elastic, bodyLimitBytes: config.eventUploadLimitBytes });
  await app.register(sensorProtocolRoutes, {
    sensors: services.sensors,
    ingest: services.ingest,
    binaries: services.binaries,
    limits: { eventUploadBytes: config.eventUploadLimitBytes, binaryUploadBytes: config.binaryUploadLimitBytes },
  });
  return app;
}
