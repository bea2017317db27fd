/**
 * The OpenAPI document, generated from every route's schema, at /openapi.json, with a browsable
 * page at /docs. Both are outside /api and need no token: they describe the interface, not data.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { declareScopePolicy } from './route-policy.js';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Vigil API',
        version,
        description:
          'Vigil\'s REST API, wire-compatible with the Carbon Black EDR (Cb Response) server. ' +
          'Every /api route needs the header X-Auth-Token with a user\'s API token (40 hex characters); ' +
          'without it the answer is 401. Errors: 400/403/409 carry {"reason", "message"}; ' +
          'a malformed query is 400 with reason "query_malformed_syntax"; 404 and 401 are HTML pages as the original server sent.',
      },
      components: {
        securitySchemes: {
          apiToken: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' },
          sensorSecret: {
            type: 'apiKey', in: 'header', name: 'Authorization',
            description: 'Sensor protocol only (docs/sensor-protocol.md): "Sensor <sensor_id>:<sensor_secret>"',
          },
          ingestKey: {
            type: 'apiKey', in: 'header', name: 'Authorization',
            description: 'Sysmon ingest only (docs/sysmon.md): a group\'s ingest key as "Bearer <key>", "ApiKey <key>" or Basic with the key as password',
          },
        },
      },
      security: [{ apiToken: [] }],
    },
  });
  await app.register(async (docs) => {
    declareScopePolicy(docs, 'public');
    await docs.register(swaggerUi, { routePrefix: '/docs' });
  });
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, () => app.swagger());
}
