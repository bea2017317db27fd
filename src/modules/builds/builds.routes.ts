/**
 * The sensor builds at the three paths clients use (reference admin §9.3): /api/v2/builds
 * (cbapi's SensorBuilds), /api/v1/builds (the XSOAR integration) and /api/builds (legacy
 * bindings), all with the same body.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BuildsService } from './builds.service.js';
import { SensorBuilds } from './builds.schemas.js';

export const buildsRoutes: FastifyPluginAsyncTypebox<{ builds: BuildsService }> = async (app, { builds }) => {
  const tags = ['sensors'];
  for (const url of ['/api/v2/builds', '/api/v1/builds', '/api/builds']) {
    app.get(url, {
      schema: { tags, summary: 'Sensor builds that registered sensors run, by OS family', response: { 200: SensorBuilds } },
    }, (request) => builds.list(request.principal));
  }
};
